package model

import (
	"errors"
	"fmt"
)

// RestoreMode models org.apache.flink.runtime.jobgraph.RestoreMode (Flink ≥ 1.15): how a job
// started from a snapshot treats that snapshot's files. The zero value is NoClaim, Flink's
// RestoreMode.DEFAULT.
type RestoreMode uint8

const (
	// NoClaim is NO_CLAIM (the default): Flink does not take ownership; the snapshot is never
	// deleted and its shared files are never deleted by this job.
	NoClaim RestoreMode = iota
	// Claim is CLAIM: Flink takes ownership; the snapshot is subsumed and deleted like a
	// regular checkpoint.
	Claim
	// Legacy is LEGACY: the snapshot is kept, but shared files may be reused (pre-1.15
	// behaviour).
	Legacy
)

// String gives Flink's enum name: "CLAIM", "NO_CLAIM" or "LEGACY".
func (m RestoreMode) String() string {
	switch m {
	case NoClaim:
		return "NO_CLAIM"
	case Claim:
		return "CLAIM"
	case Legacy:
		return "LEGACY"
	}
	return fmt.Sprintf("RestoreMode(%d)", uint8(m))
}

// ErrUnknownRestoreMode is returned by ParseRestoreMode.
var ErrUnknownRestoreMode = errors.New("unknown restore mode (want CLAIM, NO_CLAIM or LEGACY)")

// ParseRestoreMode parses Flink's enum name.
func ParseRestoreMode(s string) (RestoreMode, error) {
	switch s {
	case "CLAIM":
		return Claim, nil
	case "NO_CLAIM":
		return NoClaim, nil
	case "LEGACY":
		return Legacy, nil
	}
	return 0, fmt.Errorf("%w: %q", ErrUnknownRestoreMode, s)
}
