package model

import (
	"errors"
	"fmt"

	"github.com/restoresim/restoresim/model/internal/mutant"
)

// FlinkVersion selects version-specific behaviour: one value per modelled Flink release (and
// master). The zero value is Flink118, the default of the library. Compare versions with
// AtLeast and Before (release order), never with < on the value.
//
// From 1.19 on, a version behaves as 1.18 except where a difference of SPEC-VERSIONS.md is
// implemented (model/doc.go lists which are and which are not).
type FlinkVersion uint8

const (
	// Flink118 is Flink 1.18 ("modern" in SPEC.md).
	Flink118 FlinkVersion = iota
	// Flink1101 is Flink release-1.10.1.
	Flink1101
)

// The versions after 1.18. Their values say nothing about the order (values 2 to 9 are not
// used); AtLeast, Before and Compare order the versions.
const (
	// Flink119 is Flink 1.19.
	Flink119 FlinkVersion = iota + 10
	// Flink120 is Flink 1.20 (LTS).
	Flink120
	// Flink20 is Flink 2.0.
	Flink20
	// Flink21 is Flink 2.1.
	Flink21
	// Flink22 is Flink 2.2.
	Flink22
	// Flink23 is Flink 2.3.
	Flink23
	// FlinkMaster is Flink's master branch (2.4-SNAPSHOT), as model/doc.go pins it.
	FlinkMaster
)

// NewestFlinkRelease is the newest modelled released version (the default of `plan`).
const NewestFlinkRelease = Flink23

// flinkVersionOrder lists the versions in release order.
var flinkVersionOrder = [...]FlinkVersion{Flink1101, Flink118, Flink119, Flink120, Flink20, Flink21, Flink22, Flink23, FlinkMaster}

// flinkVersionNames are the names ParseFlinkVersion accepts and String gives, by value.
var flinkVersionNames = [...]string{
	Flink118: "1.18", Flink1101: "1.10.1", Flink119: "1.19", Flink120: "1.20", Flink20: "2.0",
	Flink21: "2.1", Flink22: "2.2", Flink23: "2.3", FlinkMaster: "master",
}

// FlinkVersions lists every modelled version in release order (1.10.1 first, master last).
func FlinkVersions() []FlinkVersion {
	out := flinkVersionOrder
	return out[:]
}

// FlinkVersionNames lists the versions as ParseFlinkVersion accepts them, in release order,
// joined by ", " (for help texts and messages).
func FlinkVersionNames() string {
	s := ""
	for i, v := range flinkVersionOrder {
		if i > 0 {
			s += ", "
		}
		s += v.String()
	}
	return s
}

// Known reports whether v is one of the modelled versions.
func (v FlinkVersion) Known() bool {
	return int(v) < len(flinkVersionNames) && flinkVersionNames[v] != ""
}

// Released reports whether v is a released version (every one but master).
func (v FlinkVersion) Released() bool { return v.Known() && v != FlinkMaster }

// rank is v's position in release order.
func (v FlinkVersion) rank() int {
	for i, o := range flinkVersionOrder {
		if o == v {
			return i
		}
	}
	return len(flinkVersionOrder) + int(v)
}

// AtLeast reports whether v is o or a later release.
func (v FlinkVersion) AtLeast(o FlinkVersion) bool { return v.rank() >= o.rank() }

// Before reports whether v is a release older than o.
func (v FlinkVersion) Before(o FlinkVersion) bool { return v.rank() < o.rank() }

// Compare orders versions by release: -1 when v is older than o, 0 when equal, +1 when newer.
func (v FlinkVersion) Compare(o FlinkVersion) int {
	switch a, b := v.rank(), o.rank(); {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// String gives the version as users write it: "1.18", "1.10.1", "2.2", "master".
func (v FlinkVersion) String() string {
	if v.Known() {
		return flinkVersionNames[v]
	}
	return fmt.Sprintf("FlinkVersion(%d)", uint8(v))
}

// ErrUnknownFlinkVersion is returned by ParseFlinkVersion.
var ErrUnknownFlinkVersion = errors.New("unknown Flink version (want " + FlinkVersionNames() + ")")

// ParseFlinkVersion parses a version as String gives it ("1.10.1", "1.18", "1.19", "1.20",
// "2.0", "2.1", "2.2", "2.3" or "master").
func ParseFlinkVersion(s string) (FlinkVersion, error) {
	for _, v := range flinkVersionOrder {
		if flinkVersionNames[v] == s {
			return v, nil
		}
	}
	return 0, fmt.Errorf("%w: %q", ErrUnknownFlinkVersion, s)
}

// MetadataWriteVersion is the _metadata format version v writes (Checkpoints.storeCheckpointMetadata;
// SPEC-VERSIONS.md §7): 2 for 1.10.1, 4 for 1.18–1.20, 5 for 2.0, 6 for 2.1–2.3 and for master's
// savepoints, 7 for master's checkpoints (MetadataV7Serializer, see model/doc.go).
func (v FlinkVersion) MetadataWriteVersion(savepoint bool) int32 {
	switch {
	case v == Flink1101:
		return 2
	case v.Before(Flink20):
		return 4
	case v == Flink20:
		return 5
	case v == FlinkMaster && !savepoint:
		return 7
	}
	return 6
}

// MetadataReadVersion is the newest _metadata format version v reads (the serializers
// MetadataSerializers registers): 2 for 1.10.1, 4 for 1.18–1.20, 5 for 2.0, 6 for 2.1–2.3, 7
// for master. Version 1 is registered too but refused ("no longer supported").
func (v FlinkVersion) MetadataReadVersion() int32 {
	switch {
	case v == Flink120 && mutant.On(mutant.Flink120ReadsV5):
		return 5
	case v == Flink1101:
		return 2
	case v.Before(Flink20):
		return 4
	case v == Flink20:
		return 5
	case v == FlinkMaster:
		return 7
	}
	return 6
}

// ReadsMetadataVersion reports whether v restores a _metadata file of format version n (2 up
// to MetadataReadVersion).
func (v FlinkVersion) ReadsMetadataVersion(n int32) bool {
	return n >= 2 && n <= v.MetadataReadVersion()
}

// OldestFlinkReading gives the oldest modelled version that reads format version n, preferring
// released versions; false when none does.
func OldestFlinkReading(n int32) (FlinkVersion, bool) {
	for _, v := range flinkVersionOrder {
		if v.ReadsMetadataVersion(n) {
			return v, true
		}
	}
	return 0, false
}
