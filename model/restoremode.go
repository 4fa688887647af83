package model

// RestoreModeNaming is how one Flink version names the restore (claim) mode (SPEC-VERSIONS.md
// §6): behaviour is the same in every version from 1.15 on; only the names differ.
type RestoreModeNaming struct {
	// Class is the enum's Java class ("" in 1.10.1, which has no restore mode).
	Class string
	// ConfigKey is the configuration key (older keys stay accepted as deprecated keys).
	ConfigKey string
	// CLI is the `flink run` option (1.20 adds -cm/--claimMode and keeps -rm/--restoreMode).
	CLI string
	// Deprecated reports that the mode is deprecated (LEGACY from 1.19 on, FLINK-34190; still
	// accepted on master).
	Deprecated bool
}

// NamingIn gives how version v names restore mode m.
func (m RestoreMode) NamingIn(v FlinkVersion) RestoreModeNaming {
	var n RestoreModeNaming
	switch {
	case v == Flink1101:
		return n
	case v.Before(Flink120):
		n = RestoreModeNaming{Class: "org.apache.flink.runtime.jobgraph.RestoreMode", ConfigKey: "execution.savepoint-restore-mode", CLI: "-rm/--restoreMode"}
	case v == Flink120:
		n = RestoreModeNaming{Class: "org.apache.flink.core.execution.RestoreMode", ConfigKey: "execution.state-recovery.claim-mode", CLI: "-cm/--claimMode"}
	default:
		n = RestoreModeNaming{Class: "org.apache.flink.core.execution.RecoveryClaimMode", ConfigKey: "execution.state-recovery.claim-mode", CLI: "-cm/--claimMode"}
	}
	n.Deprecated = m == Legacy && v.AtLeast(Flink119)
	return n
}
