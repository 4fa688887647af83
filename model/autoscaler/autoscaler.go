// Package autoscaler models the parallelism alignment of the Apache Flink Kubernetes operator's
// autoscaler: what JobVertexScaler.scale (on main: JobVertexScaler.scale and
// alignment.ParallelismAligner.align) returns for a vertex, given the target parallelism the
// autoscaler computed from its metrics, in each operator release 1.7 … 1.15 and on main
// (SPEC-VERSIONS.md §8.2, read in the operator's release branches).
//
// The package is pure: no clock, no randomness, no files, no printing (WriteTable and WriteCSV
// render decisions to the io.Writer they are given). It reads no metrics and computes no scale
// factor: the caller gives the computed target, ceil(scaleFactor × current).
//
// Map from Go identifiers to the operator's classes, methods and options:
//
//	Release, ParseRelease      an operator release branch (release-1.7 … release-1.15, main)
//	Mode                       job.autoscaler.scaling.key-group.partitions.adjust.mode (1.11+,
//	                           KeyGroupOrPartitionsAdjustMode) and, on main,
//	                           job.autoscaler.scaling.parallelism-alignment.mode (BuiltInAlignmentMode)
//	Input                      the vertex's input ShipStrategy set (HASH or not), or a source
//	Params.Lower, Params.Upper job.autoscaler.vertex.min-parallelism, …vertex.max-parallelism
//	Params.SourcePartitions    the partitions of a Kafka/Pulsar source: updateMaxParallelism
//	                           (1.7–1.9) or NUM_SOURCE_PARTITIONS (1.10+, FLINK-36192)
//	Scale                      JobVertexScaler.scale
//	Decision.Limited           the SCALING_LIMITED event
//	Decision.Blocked           "Scaling of … blocked" (1.15, FLINK-39299; main's deprecated modes)
//	KeyGroupSkew               KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex sizes
//	WriteTable, WriteCSV       the text and CSV of `simulate autoscale` (no operator counterpart)
package autoscaler

import (
	"fmt"
	"strings"
)

// Release is a Flink Kubernetes operator release (a release branch, or main). Its zero value is
// invalid.
type Release int

// The modelled operator releases, oldest first. Releases with the same JobVertexScaler.scale
// share a rule: 1.8 = 1.9, and 1.11 = 1.12 = 1.13 = 1.14.
const (
	Operator17 Release = iota + 1
	Operator18
	Operator19
	Operator110
	Operator111
	Operator112
	Operator113
	Operator114
	Operator115
	OperatorMain // main (unreleased): FLIP-586 / FLINK-39938 alignment modes
)

var releaseNames = [...]string{
	Operator17:   "1.7",
	Operator18:   "1.8",
	Operator19:   "1.9",
	Operator110:  "1.10",
	Operator111:  "1.11",
	Operator112:  "1.12",
	Operator113:  "1.13",
	Operator114:  "1.14",
	Operator115:  "1.15",
	OperatorMain: "main",
}

// Releases returns every modelled release, oldest first.
func Releases() []Release {
	out := make([]Release, 0, len(releaseNames)-1)
	for r := Operator17; r <= OperatorMain; r++ {
		out = append(out, r)
	}
	return out
}

// String returns the release as ParseRelease reads it: "1.7" … "1.15" or "main".
func (r Release) String() string {
	if r.valid() {
		return releaseNames[r]
	}
	return fmt.Sprintf("Release(%d)", int(r))
}

func (r Release) valid() bool { return r >= Operator17 && r <= OperatorMain }

// ParseRelease reads an operator release: "1.7" … "1.15" or "main" (a leading "v" and a patch
// number, as in "1.13.2", are accepted: the alignment rule changes only between minor releases).
func ParseRelease(s string) (Release, error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "v")
	if t != "main" {
		if parts := strings.Split(t, "."); len(parts) == 3 {
			t = parts[0] + "." + parts[1]
		}
	}
	for r := Operator17; r <= OperatorMain; r++ {
		if releaseNames[r] == t {
			return r, nil
		}
	}
	return 0, fmt.Errorf("unknown operator release %q (want one of %s)", s, joinReleases())
}

func joinReleases() string {
	names := make([]string, 0, len(releaseNames)-1)
	for _, r := range Releases() {
		names = append(names, r.String())
	}
	return strings.Join(names, ", ")
}

// Mode is the alignment mode an operator release is configured with. The zero value, ModeUnset,
// means the release's default (see Release.DefaultMode), and is the only valid value for a
// release without modes (1.7 … 1.10).
type Mode int

// The alignment modes.
const (
	// ModeUnset: no mode configured; the release's default applies.
	ModeUnset Mode = iota
	// EvenlySpread accepts only a parallelism that divides the key groups (or source
	// partitions). 1.11–1.15: KeyGroupOrPartitionsAdjustMode.EVENLY_SPREAD (the default); on main:
	// BuiltInAlignmentMode.EVENLY_SPREAD, which keeps the target when it finds none.
	EvenlySpread
	// MaximizeUtilisation also accepts the first parallelism that lowers the units per subtask
	// (N/p < N/target). 1.11–1.15: KeyGroupOrPartitionsAdjustMode.MAXIMIZE_UTILISATION; on main
	// only through the deprecated key (it is no built-in mode there), with 1.15's blocking
	// behaviour.
	MaximizeUtilisation
	// Balanced is main's default, BuiltInAlignmentMode.BALANCED: MAXIMIZE_UTILISATION's search,
	// but keeps the target when it finds nothing (never blocks).
	Balanced
	// Off is main's BuiltInAlignmentMode.OFF: no alignment.
	Off
)

var modeNames = [...]string{
	ModeUnset:           "-",
	EvenlySpread:        "EVENLY_SPREAD",
	MaximizeUtilisation: "MAXIMIZE_UTILISATION",
	Balanced:            "BALANCED",
	Off:                 "OFF",
}

// String returns the mode's configuration value ("EVENLY_SPREAD", …), or "-" for ModeUnset.
func (m Mode) String() string {
	if m >= ModeUnset && m <= Off {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode reads a mode by its configuration value: EVENLY_SPREAD, MAXIMIZE_UTILISATION,
// BALANCED or OFF (exactly so spelt, as main's BuiltInAlignmentMode lookup needs).
func ParseMode(s string) (Mode, error) {
	for m := EvenlySpread; m <= Off; m++ {
		if modeNames[m] == s {
			return m, nil
		}
	}
	return ModeUnset, fmt.Errorf("unknown alignment mode %q (want EVENLY_SPREAD, MAXIMIZE_UTILISATION, BALANCED or OFF)", s)
}

// Modes returns the modes the release can be configured with, its default first; nil for a
// release without modes (1.7 … 1.10).
func (r Release) Modes() []Mode {
	switch {
	case r == OperatorMain:
		return []Mode{Balanced, EvenlySpread, Off, MaximizeUtilisation}
	case r >= Operator111 && r <= Operator115:
		return []Mode{EvenlySpread, MaximizeUtilisation}
	}
	return nil
}

// DefaultMode returns the mode the release applies when none is configured: EVENLY_SPREAD for
// 1.11–1.15, BALANCED for main, ModeUnset for a release without modes.
func (r Release) DefaultMode() Mode {
	if ms := r.Modes(); len(ms) > 0 {
		return ms[0]
	}
	return ModeUnset
}

// CheckMode returns an error if the release cannot be configured with m. ModeUnset is always
// accepted.
func (r Release) CheckMode(m Mode) error {
	if m == ModeUnset {
		return nil
	}
	ms := r.Modes()
	if len(ms) == 0 {
		return fmt.Errorf("operator %s has no alignment modes (they came with 1.11, FLINK-36527); leave the mode unset", r)
	}
	names := make([]string, len(ms))
	for i, x := range ms {
		if x == m {
			return nil
		}
		names[i] = x.String()
	}
	return fmt.Errorf("operator %s has no alignment mode %s (want %s)", r, m, strings.Join(names, ", "))
}

// Input is what feeds the vertex, as far as alignment cares: the operator looks only at whether
// one of its input edges is a HASH (keyBy) exchange, or whether it has no inputs (a source). A
// vertex with several inputs is Hash if any of them is. The zero value is invalid.
type Input int

// The input kinds.
const (
	// Hash: at least one input is a keyBy (ShipStrategy.HASH).
	Hash Input = iota + 1
	// Rebalance: inputs, none of them HASH (REBALANCE, RESCALE, BROADCAST, CUSTOM …).
	Rebalance
	// Forward: inputs, none of them HASH; a FORWARD edge (aligned as Rebalance is).
	Forward
	// Source: no inputs. With Params.SourcePartitions > 0 the partitions of a Kafka or Pulsar
	// source are known.
	Source
)

var inputNames = [...]string{Hash: "hash", Rebalance: "rebalance", Forward: "forward", Source: "source"}

// String returns the input kind as ParseInput reads it.
func (in Input) String() string {
	if in >= Hash && in <= Source {
		return inputNames[in]
	}
	return fmt.Sprintf("Input(%d)", int(in))
}

// ParseInput reads an input kind: hash, rebalance, forward or source.
func ParseInput(s string) (Input, error) {
	for in := Hash; in <= Source; in++ {
		if inputNames[in] == s {
			return in, nil
		}
	}
	return 0, fmt.Errorf("unknown input %q (want hash, rebalance, forward or source)", s)
}
