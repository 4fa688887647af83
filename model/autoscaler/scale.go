package autoscaler

import (
	"errors"
	"fmt"
	"math"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/internal/mutant"
)

// The defaults of job.autoscaler.vertex.min-parallelism and job.autoscaler.vertex.max-parallelism
// (the same in every release).
const (
	DefaultLower = 1
	DefaultUpper = 200
)

// MaxTarget is the largest computed target: the operator computes it as a Java int,
// (int) min(ceil(scaleFactor × current), Integer.MAX_VALUE).
const MaxTarget = math.MaxInt32

// Params describe one vertex and the autoscaler configuration that aligns it.
type Params struct {
	// Release is the operator release whose JobVertexScaler.scale applies.
	Release Release
	// Mode is the configured alignment mode; ModeUnset means the release's default.
	Mode Mode
	// MaxParallelism is the vertex's max parallelism as the job runs it (the number of key
	// groups, after any adoption from the checkpoint), 1..32768.
	MaxParallelism int
	// Current is the vertex's current parallelism, 1..MaxParallelism.
	Current int
	// Input is what feeds the vertex: a keyBy (Hash), other exchanges, or nothing (Source).
	Input Input
	// SourcePartitions is the number of partitions of a source (Input Source); 0 if unknown or
	// not a source.
	SourcePartitions int
	// Lower and Upper are the configured job.autoscaler.vertex.min-parallelism and
	// job.autoscaler.vertex.max-parallelism (DefaultLower, DefaultUpper). Every release passes
	// min(Current, Lower) and max(Current, Upper) to JobVertexScaler.scale.
	Lower, Upper int
}

// Param names a numeric field of Params, in a ParamError.
type Param int

// The numeric fields of Params. The zero Param is invalid.
const (
	ParamMaxParallelism   Param = iota + 1 // Params.MaxParallelism
	ParamCurrent                           // Params.Current
	ParamSourcePartitions                  // Params.SourcePartitions
	ParamLower                             // Params.Lower
	ParamUpper                             // Params.Upper
)

// ParamError is a numeric field of Params that Validate refuses, so that a caller can name
// the setting (a flag, a config key) without reading the message.
type ParamError struct {
	Param Param
	msg   string
}

// Error is the message Validate words, e.g. "lower limit 9 is above the upper limit 8".
func (e *ParamError) Error() string { return e.msg }

// paramError is a *ParamError for param with a formatted message.
func paramError(param Param, format string, args ...any) error {
	return &ParamError{Param: param, msg: fmt.Sprintf(format, args...)}
}

// Validate returns an error describing the first thing wrong with p, or nil; a numeric field
// out of its bounds is a *ParamError.
func (p Params) Validate() error {
	switch {
	case !p.Release.valid():
		return fmt.Errorf("unknown operator release %v (want one of %s)", p.Release, joinReleases())
	case p.Mode < ModeUnset || p.Mode > Off:
		return fmt.Errorf("unknown alignment mode %v", p.Mode)
	case p.MaxParallelism < 1 || p.MaxParallelism > model.UpperBoundMaxParallelism:
		return paramError(ParamMaxParallelism, "max parallelism %d is out of bounds (want 1..%d)", p.MaxParallelism, model.UpperBoundMaxParallelism)
	case p.Current < 1 || p.Current > p.MaxParallelism:
		return paramError(ParamCurrent, "current parallelism %d is out of bounds (want 1..%d, the max parallelism)", p.Current, p.MaxParallelism)
	case p.Input < Hash || p.Input > Source:
		return fmt.Errorf("unknown input %v (want hash, rebalance, forward or source)", p.Input)
	case p.SourcePartitions < 0 || p.SourcePartitions > MaxTarget:
		return paramError(ParamSourcePartitions, "source partitions %d is out of bounds (want 0..%d)", p.SourcePartitions, MaxTarget)
	case p.SourcePartitions > 0 && p.Input != Source:
		return paramError(ParamSourcePartitions, "source partitions need a source vertex (input source), not input %v", p.Input)
	case p.Lower < 1 || p.Lower > MaxTarget:
		return paramError(ParamLower, "lower limit %d is out of bounds (want 1..%d)", p.Lower, MaxTarget)
	case p.Upper < 1 || p.Upper > MaxTarget:
		return paramError(ParamUpper, "upper limit %d is out of bounds (want 1..%d)", p.Upper, MaxTarget)
	case p.Lower > p.Upper:
		return paramError(ParamLower, "lower limit %d is above the upper limit %d", p.Lower, p.Upper)
	}
	return p.Release.CheckMode(p.Mode)
}

// EffectiveMode is the mode the release applies: Mode, or the release's default when unset
// (ModeUnset for a release without modes).
func (p Params) EffectiveMode() Mode {
	if p.Mode == ModeUnset {
		return p.Release.DefaultMode()
	}
	return p.Mode
}

// Decision is what JobVertexScaler.scale returns for one computed target, and why.
type Decision struct {
	// Target is the computed target, ceil(scaleFactor × current), before limits.
	Target int
	// Clamped is the target within the limits: min(max(min(Current, Lower), Target),
	// min(maxParallelism, max(Current, Upper))), the operator's newParallelism before alignment.
	// For a 1.7–1.9 source with known partitions, maxParallelism is min(M, partitions).
	Clamped int
	// Parallelism is what the release returns.
	Parallelism int
	// Units is N, what the release aligns to (Params.AlignmentUnits): the key groups (max
	// parallelism) or the source partitions; 0 if the release does not align the vertex.
	Units int
	// Aligned: the alignment search found Parallelism (a divisor of Units, or in
	// MAXIMIZE_UTILISATION / BALANCED a parallelism with fewer units per subtask than Clamped).
	Aligned bool
	// Limited: the release emits its SCALING_LIMITED event ("Scaling limited detected"): 1.10–1.14
	// whenever the search found nothing and the downward fallback ran; 1.15 (and main's
	// MAXIMIZE_UTILISATION) when that fallback moved the target or the scale was blocked. 1.7–1.9
	// and main's built-in modes never emit it.
	Limited bool
	// Blocked: the fallback would have reversed the scaling direction, so the release keeps the
	// current parallelism (1.15's direction guard, FLINK-39299; main's deprecated modes).
	Blocked bool
	// Skew is the most units any subtask gets over the mean (1 = even): key groups by Flink's
	// ranges, or for a source with known partitions, partitions spread evenly (⌈K/p⌉ the most).
	Skew float64
}

// ErrTarget matches (errors.Is) the error Scale returns for a target out of bounds.
var ErrTarget = errors.New("computed target out of bounds")

// Scale returns what JobVertexScaler.scale of p.Release returns for the computed target
// (ceil(scaleFactor × current), 1..MaxTarget). It first clamps the target to the limits, then, if
// the release aligns this vertex, searches as SPEC-VERSIONS.md §8.2 lays out per release:
//
//   - 1.7 (every vertex), 1.8–1.9 (sources and vertices with a HASH input): the first p in
//     [target, min(N/2, upperBound)] dividing N, else the target.
//   - 1.10: sources with known partitions and HASH inputs; the first divisor in [target,
//     min(target > N/2 ? N : N/2, upperBound)], else the downward fallback (SCALING_LIMITED).
//   - 1.11–1.14: as 1.10 over [target, min(N, upperBound)], accepting also N/p < N/target with
//     MAXIMIZE_UTILISATION.
//   - 1.15: returns the target when it equals the current parallelism; a scale-down searches
//     only up to the current parallelism; a fallback that does not move in the scaling
//     direction keeps the current parallelism (blocked).
//   - main: BALANCED and EVENLY_SPREAD search as 1.15 and keep the target when they find
//     nothing; OFF does not align; MAXIMIZE_UTILISATION (the deprecated key) is 1.15's.
//
// The downward fallback walks down from the target to the first p with N/p > N/target, takes
// p+1 if p does not divide N, then at least the lower limit.
func Scale(p Params, target int) (Decision, error) {
	if err := p.Validate(); err != nil {
		return Decision{}, err
	}
	return scale(p, target, min(p.Current, p.Lower), max(p.Current, p.Upper))
}

// ScaleWithLimits is Scale with the limits given as JobVertexScaler.scale receives them
// (parallelismLowerLimit and parallelismUpperLimit, 1 ≤ lowerLimit ≤ upperLimit ≤ MaxTarget)
// instead of computed from p.Lower and p.Upper, which it ignores: the form the operator's unit
// tests call.
func ScaleWithLimits(p Params, target, lowerLimit, upperLimit int) (Decision, error) {
	p.Lower, p.Upper = DefaultLower, DefaultUpper
	if err := p.Validate(); err != nil {
		return Decision{}, err
	}
	if lowerLimit < 1 || lowerLimit > upperLimit || upperLimit > MaxTarget {
		return Decision{}, fmt.Errorf("limits %d..%d are out of bounds (want 1 ≤ lower ≤ upper ≤ %d)", lowerLimit, upperLimit, MaxTarget)
	}
	return scale(p, target, lowerLimit, upperLimit)
}

// scale is Scale for valid p with the effective limits.
func scale(p Params, target, lowerLimit, upperLimit int) (Decision, error) {
	if target < 1 || target > MaxTarget {
		return Decision{}, fmt.Errorf("%w: %d (want 1..%d)", ErrTarget, target, MaxTarget)
	}
	upperBound := min(p.scaleMaxParallelism(), upperLimit)
	newP := min(max(lowerLimit, target), upperBound)

	d := Decision{Target: target, Clamped: newP, Parallelism: newP, Units: p.AlignmentUnits()}
	s := search{n: d.Units, target: newP, current: p.Current, lower: lowerLimit, upperBound: upperBound}
	mode := p.EffectiveMode()
	switch r := p.Release; {
	case d.Units == 0:
		// The release does not align this vertex.
	case r <= Operator19:
		d.Parallelism, d.Aligned = s.firstDivisorUpToHalf()
	case r <= Operator114:
		end := min(s.n, upperBound) // 1.11–1.14
		if r == Operator110 {
			end = s.n / 2
			if newP > s.n/2 {
				end = s.n
			}
			end = min(end, upperBound)
		}
		if q, ok := s.firstAccepted(end, mode == MaximizeUtilisation); ok {
			d.Parallelism, d.Aligned = q, true
		} else if r == Operator110 && mutant.On(mutant.AutoscaleKeepsTarget110) {
			d.Limited = true
		} else {
			d.Parallelism, d.Limited = s.downwardFallback(), true
		}
	case newP == p.Current:
		// 1.15 and main return a target equal to the current parallelism at once.
	default: // 1.15 and main
		end := min(s.n, upperBound)
		if newP < p.Current {
			end = min(p.Current, end) // a scale-down never searches past the current parallelism
		}
		if q, ok := s.firstAccepted(end, mode == MaximizeUtilisation || mode == Balanced); ok {
			d.Parallelism, d.Aligned = q, true
			break
		}
		if r == OperatorMain && mode != MaximizeUtilisation {
			break // BuiltInAlignmentMode: keep the target, never block
		}
		q := s.downwardFallback()
		guard := !(r == Operator115 && mutant.On(mutant.AutoscaleNoDirectionGuard))
		if guard && ((newP > p.Current && q <= p.Current) || (newP < p.Current && q >= p.Current)) {
			d.Parallelism, d.Limited, d.Blocked = p.Current, true, true
		} else {
			d.Parallelism, d.Limited = q, q != newP
		}
	}

	if p.Input == Source && p.SourcePartitions > 0 {
		d.Skew = PartitionSkew(p.SourcePartitions, d.Parallelism)
	} else {
		sk, err := KeyGroupSkew(p.MaxParallelism, d.Parallelism)
		if err != nil {
			panic("autoscaler: internal error: " + err.Error()) // Parallelism ≤ upperBound ≤ M
		}
		d.Skew = sk
	}
	return d, nil
}

// scaleMaxParallelism is the max parallelism JobVertexScaler.scale receives: for a 1.7–1.9 source
// with known partitions min(M, partitions) (ScalingMetricCollector calls
// topology.updateMaxParallelism(source, #partitions)); else M.
func (p Params) scaleMaxParallelism() int {
	if p.Release <= Operator19 && p.Input == Source && p.SourcePartitions > 0 {
		return min(p.MaxParallelism, p.SourcePartitions)
	}
	return p.MaxParallelism
}

// AlignmentUnits returns N, what the release aligns this vertex's parallelism to, or 0 if it does
// not align the vertex (p must be valid):
//
//   - 1.7: every vertex; 1.8–1.9: sources and vertices with a HASH input. N is the max
//     parallelism, for a source with known partitions min(M, partitions).
//   - 1.10+: sources with known partitions (N = the partitions; NUM_SOURCE_PARTITIONS,
//     FLINK-36192) and vertices with a HASH input (N = M). On main, not with mode OFF.
func (p Params) AlignmentUnits() int {
	switch {
	case p.Release == Operator17 || (p.Release <= Operator19 && (p.Input == Source || p.Input == Hash)):
		return p.scaleMaxParallelism()
	case p.Release <= Operator19 || p.EffectiveMode() == Off:
		return 0
	case p.Input == Source && p.SourcePartitions > 0:
		return p.SourcePartitions
	case p.Input == Hash || (p.Input == Source && mutant.On(mutant.AutoscaleSourceAlignedToKeys)):
		return p.MaxParallelism
	}
	return 0
}

// search holds the quantities of one alignment: N (units), the clamped target, the current
// parallelism, the lower limit and the upper bound.
type search struct {
	n, target, current, lower, upperBound int
}

// firstDivisorUpToHalf is the 1.7–1.9 search: the first p in [target, min(N/2, upperBound)]
// dividing N, else the target unaligned.
func (s search) firstDivisorUpToHalf() (int, bool) {
	for q := s.target; q <= s.n/2 && q <= s.upperBound; q++ {
		if s.n%q == 0 {
			return q, true
		}
	}
	return s.target, false
}

// firstAccepted is the upward search of 1.10+: the first p in [target, end] that divides N, or,
// with acceptFewer, that gives fewer units per subtask than the target (N/p < N/target).
func (s search) firstAccepted(end int, acceptFewer bool) (int, bool) {
	for q := s.target; q <= end; q++ {
		if s.n%q == 0 || (acceptFewer && s.n/q < s.n/s.target) {
			return q, true
		}
	}
	return 0, false
}

// downwardFallback is the fallback of 1.10+: walk down from the target to the first p with
// N/p > N/target (more units per subtask than the target has), take p+1 unless p divides N, and
// at least the lower limit. (If no such p exists the walk ends at 0 and the lower limit wins.)
func (s search) downwardFallback() int {
	q := s.target
	for ; q > 0; q-- {
		if s.n/q > s.n/s.target {
			if s.n%q != 0 && !mutant.On(mutant.AutoscaleFallbackRoundsDown) {
				q++
			}
			break
		}
	}
	return max(q, s.lower)
}

// KeyGroupSkew returns the most key groups any of the parallelism's subtasks owns over the mean
// (maxParallelism / parallelism), by Flink's ranges
// (KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex): 1 when the parallelism divides
// the max parallelism, below 2 always. Subtask 0 owns ⌈M/p⌉ key groups, the most any subtask
// owns. It returns Flink's error for a parallelism out of bounds or above the max parallelism.
func KeyGroupSkew(maxParallelism, parallelism int) (float64, error) {
	r, err := model.ComputeKeyGroupRangeForOperatorIndex(maxParallelism, parallelism, 0)
	if err != nil {
		return 0, err
	}
	return float64(r.NumberOfKeyGroups()) * float64(parallelism) / float64(maxParallelism), nil
}

// PartitionSkew returns the most of n units (source partitions) any of p subtasks reads over the
// mean n/p, with the units spread as evenly as possible (⌈n/p⌉ the most, as Kafka's round-robin
// split assignment does for one topic); p/n when p > n (idle subtasks). n and p must be positive.
func PartitionSkew(n, p int) float64 {
	most := (n + p - 1) / p
	return float64(most) * float64(p) / float64(n)
}
