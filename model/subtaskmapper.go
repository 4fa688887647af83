package model

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// This file models how Flink narrows down, per new subtask, the old subtasks whose in-flight
// channel state (the buffers of an unaligned checkpoint) it has to read after a rescale:
// org.apache.flink.runtime.io.network.api.writer.SubtaskStateMapper (one per partitioner) and
// org.apache.flink.runtime.checkpoint.RescaleMappings (the new → old index table it returns).
// Both are unchanged from Flink 1.18 through 2.3 and master.

// SubtaskStateMapper models the enum SubtaskStateMapper: the rescaling rule of a partitioner's
// in-flight data. The zero value is invalid.
type SubtaskStateMapper uint8

const (
	// ArbitraryMapper is ARBITRARY: extra state goes to other subtasks without any specific
	// guarantee; Flink 1.18 implements it as ROUND_ROBIN.
	ArbitraryMapper SubtaskStateMapper = iota + 1
	// FirstMapper is FIRST: new subtask 0 reads every old subtask, the others none.
	FirstMapper
	// FullMapper is FULL: every new subtask reads every old subtask (ambiguous; the receivers
	// filter).
	FullMapper
	// RangeMapper is RANGE: new subtask i reads the old subtasks whose key-group range, at max
	// parallelism 32768, overlaps its own (ambiguous).
	RangeMapper
	// RoundRobinMapper is ROUND_ROBIN: new subtask i reads old subtasks i, i+P_new, i+2·P_new, …
	RoundRobinMapper
	// UnsupportedMapper is UNSUPPORTED: the pointwise partitioners (forward, rescale), whose
	// in-flight data cannot be rescaled.
	UnsupportedMapper
)

// SubtaskStateMappers lists every mapper in Flink's declaration order.
func SubtaskStateMappers() []SubtaskStateMapper {
	return []SubtaskStateMapper{ArbitraryMapper, FirstMapper, FullMapper, RangeMapper, RoundRobinMapper, UnsupportedMapper}
}

var subtaskStateMapperNames = [...]string{
	ArbitraryMapper:   "ARBITRARY",
	FirstMapper:       "FIRST",
	FullMapper:        "FULL",
	RangeMapper:       "RANGE",
	RoundRobinMapper:  "ROUND_ROBIN",
	UnsupportedMapper: "UNSUPPORTED",
}

func (m SubtaskStateMapper) valid() bool {
	return m >= ArbitraryMapper && m <= UnsupportedMapper
}

// String gives Flink's enum name, e.g. "ROUND_ROBIN".
func (m SubtaskStateMapper) String() string {
	if m.valid() {
		return subtaskStateMapperNames[m]
	}
	return "SubtaskStateMapper(" + strconv.Itoa(int(m)) + ")"
}

// ErrUnknownSubtaskStateMapper is returned by ParseSubtaskStateMapper for a name that is not one
// of Flink's, and by the mapper's methods for an invalid value (such as the zero value).
var ErrUnknownSubtaskStateMapper = errors.New("unknown subtask state mapper (want ARBITRARY, FIRST, FULL, RANGE, ROUND_ROBIN or UNSUPPORTED)")

// ParseSubtaskStateMapper parses Flink's enum name (exact spelling, e.g. "ROUND_ROBIN").
func ParseSubtaskStateMapper(s string) (SubtaskStateMapper, error) {
	for _, m := range SubtaskStateMappers() {
		if subtaskStateMapperNames[m] == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("%w: %q", ErrUnknownSubtaskStateMapper, s)
}

// ErrUnsupportedRescale matches every *UnsupportedRescaleError: the
// UnsupportedOperationException of SubtaskStateMapper.UNSUPPORTED.getOldSubtasks.
var ErrUnsupportedRescale = errors.New("cannot rescale the given pointwise partitioner")

// UnsupportedRescaleError is returned by UnsupportedMapper: the in-flight data of a pointwise
// partitioner (forward, rescale) cannot be redistributed to a changed parallelism.
type UnsupportedRescaleError struct {
	OldParallelism, NewParallelism int
}

// Error gives the message, following Flink's text (its line breaks joined into one line).
func (e *UnsupportedRescaleError) Error() string {
	return "Cannot rescale the given pointwise partitioner. Did you change the partitioner to forward or rescale? " +
		"It may also help to add an explicit shuffle(). (parallelism " + strconv.Itoa(e.OldParallelism) +
		" -> " + strconv.Itoa(e.NewParallelism) + ")"
}

// Is reports whether target is ErrUnsupportedRescale.
func (e *UnsupportedRescaleError) Is(target error) bool { return target == ErrUnsupportedRescale }

// IsAmbiguous models SubtaskStateMapper.isAmbiguous: true for FULL and RANGE, whose mappings may
// give one old subtask to several new subtasks, so that the receivers must filter the replicated
// records. False for every other value.
func (m SubtaskStateMapper) IsAmbiguous() bool {
	return m == FullMapper || m == RangeMapper
}

// NewToOldSubtasksMapping models SubtaskStateMapper.getNewToOldSubtasksMapping: for every new
// subtask 0..newParallelism−1, the old subtasks it reads (SubtaskStateMapper.getOldSubtasks), as
// RescaleMappings with newParallelism sources and oldParallelism targets. Flink validates
// neither parallelism; here both must be within 1..UpperBoundMaxParallelism (as every vertex
// parallelism is), else a *ParallelismOutOfBoundsError. UnsupportedMapper gives an
// *UnsupportedRescaleError, an invalid mapper ErrUnknownSubtaskStateMapper.
//
// Like Flink, the mapping is computed even when the parallelism does not change (FIRST and FULL
// then still read several old subtasks); skipping that case is the caller's business. FULL
// materialises oldParallelism·newParallelism indexes, as Flink does.
func (m SubtaskStateMapper) NewToOldSubtasksMapping(oldParallelism, newParallelism int) (RescaleMappings, error) {
	if err := CheckParallelismPreconditions(oldParallelism); err != nil {
		return RescaleMappings{}, fmt.Errorf("old parallelism: %w", err)
	}
	if err := CheckParallelismPreconditions(newParallelism); err != nil {
		return RescaleMappings{}, fmt.Errorf("new parallelism: %w", err)
	}
	if !m.valid() {
		return RescaleMappings{}, fmt.Errorf("%w: %d", ErrUnknownSubtaskStateMapper, uint8(m))
	}
	if m == UnsupportedMapper {
		return RescaleMappings{}, &UnsupportedRescaleError{OldParallelism: oldParallelism, NewParallelism: newParallelism}
	}
	targets := make([][]int, newParallelism)
	for i := range targets {
		targets[i] = m.oldSubtasks(i, oldParallelism, newParallelism)
	}
	return rescaleMappingsOf(targets, oldParallelism), nil
}

// oldSubtasks models SubtaskStateMapper.getOldSubtasks for a valid, supported mapper and valid
// arguments: the old subtask indexes new subtask newIndex reads, in Flink's order (ascending
// for every mapper).
func (m SubtaskStateMapper) oldSubtasks(newIndex, oldParallelism, newParallelism int) []int {
	switch m {
	case FirstMapper:
		if newIndex == 0 {
			return indexRange(0, oldParallelism)
		}
		return nil
	case FullMapper:
		return indexRange(0, oldParallelism)
	case RangeMapper:
		// The max parallelism cancels out; Flink uses UPPER_BOUND_MAX_PARALLELISM. Both
		// parallelisms are within 1..32768, so the range computation cannot fail.
		r, err := ComputeKeyGroupRangeForOperatorIndex(UpperBoundMaxParallelism, newParallelism, newIndex)
		if err != nil {
			panic("model: internal error: " + err.Error())
		}
		first := ComputeOperatorIndexForKeyGroup(UpperBoundMaxParallelism, oldParallelism, r.Start)
		last := ComputeOperatorIndexForKeyGroup(UpperBoundMaxParallelism, oldParallelism, r.End)
		return indexRange(first, last+1)
	default: // ARBITRARY ("the current implementation uses round robin") and ROUND_ROBIN
		var old []int
		for s := newIndex; s < oldParallelism; s += newParallelism {
			old = append(old, s)
		}
		return old
	}
}

// indexRange returns from, from+1, …, to−1 (nil when empty).
func indexRange(from, to int) []int {
	if from >= to {
		return nil
	}
	out := make([]int, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

// RescaleMappings models org.apache.flink.runtime.checkpoint.RescaleMappings: for each source
// index (usually a new subtask or channel), the target indexes (the old ones) mapped to it. As
// in Flink, a mapping whose sources 0..T−1 each map to themselves alone (and any further sources
// to nothing), T being the number of targets, is an identity mapping (IdentityRescaleMappings),
// and trailing sources without targets are not stored. The zero value is the empty
// (non-identity) mapping of no source to no target. A value is immutable.
type RescaleMappings struct {
	sources, targets int
	identity         bool
	// mappings holds the targets of sources 0..len−1 (trailing empty ones dropped); nil for an
	// identity.
	mappings [][]int
}

// SymmetricIdentityRescaleMappings models RescaleMappings.SYMMETRIC_IDENTITY: the identity of
// Integer.MAX_VALUE sources and targets.
var SymmetricIdentityRescaleMappings = IdentityRescaleMappings(1<<31-1, 1<<31-1)

// IdentityRescaleMappings models RescaleMappings.identity: source i maps to target i alone.
func IdentityRescaleMappings(numberOfSources, numberOfTargets int) RescaleMappings {
	return RescaleMappings{sources: numberOfSources, targets: numberOfTargets, identity: true}
}

// ErrInvalidRescaleMappings is returned by NewRescaleMappings for a target outside
// 0..numberOfTargets−1 or a negative number of targets (Flink would fail later, in invert).
var ErrInvalidRescaleMappings = errors.New("invalid rescale mappings")

// NewRescaleMappings models RescaleMappings.of: the mapping of source i to mappedTargets[i], with
// numberOfTargets targets. The slices are copied.
func NewRescaleMappings(mappedTargets [][]int, numberOfTargets int) (RescaleMappings, error) {
	if numberOfTargets < 0 {
		return RescaleMappings{}, fmt.Errorf("%w: %d targets", ErrInvalidRescaleMappings, numberOfTargets)
	}
	copied := make([][]int, len(mappedTargets))
	for s, ts := range mappedTargets {
		for _, t := range ts {
			if t < 0 || t >= numberOfTargets {
				return RescaleMappings{}, fmt.Errorf("%w: source %d maps to target %d, want 0..%d", ErrInvalidRescaleMappings, s, t, numberOfTargets-1)
			}
		}
		copied[s] = slices.Clone(ts)
	}
	return rescaleMappingsOf(copied, numberOfTargets), nil
}

// rescaleMappingsOf is RescaleMappings.of over slices it may keep.
func rescaleMappingsOf(mappings [][]int, numberOfTargets int) RescaleMappings {
	for i, ts := range mappings {
		if len(ts) == 0 {
			mappings[i] = nil
		}
	}
	if isIdentityMapping(mappings, numberOfTargets) {
		return IdentityRescaleMappings(len(mappings), numberOfTargets)
	}
	n := len(mappings)
	for n > 0 && len(mappings[n-1]) == 0 {
		n--
	}
	return RescaleMappings{sources: len(mappings), targets: numberOfTargets, mappings: mappings[:n:n]}
}

// isIdentityMapping models RescaleMappings.isIdentity(int[][], int).
func isIdentityMapping(mappings [][]int, numberOfTargets int) bool {
	if len(mappings) < numberOfTargets {
		return false
	}
	for _, ts := range mappings[numberOfTargets:] {
		if len(ts) != 0 {
			return false
		}
	}
	for s, ts := range mappings[:numberOfTargets] {
		if len(ts) != 1 || ts[0] != s {
			return false
		}
	}
	return true
}

// NumberOfSources models getNumberOfSources.
func (r RescaleMappings) NumberOfSources() int { return r.sources }

// NumberOfTargets models getNumberOfTargets.
func (r RescaleMappings) NumberOfTargets() int { return r.targets }

// IsIdentity models isIdentity: whether Flink represents the mapping as an
// IdentityRescaleMappings.
func (r RescaleMappings) IsIdentity() bool { return r.identity }

// MappedIndexes models getMappedIndexes: a copy of the targets of sourceIndex, in order (nil
// when there are none). As in Flink, an identity answers [sourceIndex] for every index below its
// number of targets, and any other mapping answers nothing beyond its stored sources; a negative
// index (an ArrayIndexOutOfBoundsException in Flink's non-identity mappings) answers nothing.
func (r RescaleMappings) MappedIndexes(sourceIndex int) []int {
	if sourceIndex < 0 {
		return nil
	}
	if r.identity {
		if sourceIndex >= r.targets {
			return nil
		}
		return []int{sourceIndex}
	}
	if sourceIndex >= len(r.mappings) {
		return nil
	}
	return slices.Clone(r.mappings[sourceIndex])
}

// Invert models invert: the mapping from each target to the sources that map to it (in
// ascending order), with the sources and targets swapped.
func (r RescaleMappings) Invert() RescaleMappings {
	if r.identity {
		return IdentityRescaleMappings(r.targets, r.sources)
	}
	inverted := make([][]int, r.targets)
	for s, ts := range r.mappings {
		for _, t := range ts {
			inverted[t] = append(inverted[t], s)
		}
	}
	for _, ss := range inverted {
		slices.Sort(ss)
	}
	return rescaleMappingsOf(inverted, r.sources)
}

// AmbiguousTargets models getAmbiguousTargets: the targets mapped to by more than one source,
// in ascending order (Flink returns a set). An identity has none.
func (r RescaleMappings) AmbiguousTargets() []int {
	if r.identity {
		return nil
	}
	used := make([]bool, r.targets)
	ambiguous := make([]bool, r.targets)
	for _, ts := range r.mappings {
		for _, t := range ts {
			if used[t] {
				ambiguous[t] = true
			}
			used[t] = true
		}
	}
	var out []int
	for t, a := range ambiguous {
		if a {
			out = append(out, t)
		}
	}
	return out
}

// Equal models equals: both identities, or both not and with the same stored (trailing-empty
// trimmed) mappings. As in Flink, the numbers of sources and targets are not compared.
func (r RescaleMappings) Equal(other RescaleMappings) bool {
	if r.identity || other.identity {
		return r.identity == other.identity
	}
	return slices.EqualFunc(r.mappings, other.mappings, func(a, b []int) bool { return slices.Equal(a, b) })
}

// String is Flink's toString, e.g. "RescaleMappings{mappings=[[0, 1], [1, 2]]}" or
// "IdentityRescaleMappings{3->[]}".
func (r RescaleMappings) String() string {
	if r.identity {
		return "IdentityRescaleMappings{" + strconv.Itoa(r.sources) + "->[]}"
	}
	var b strings.Builder
	b.WriteString("RescaleMappings{mappings=[")
	for s, ts := range r.mappings {
		if s > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('[')
		for i, t := range ts {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Itoa(t))
		}
		b.WriteByte(']')
	}
	b.WriteString("]}")
	return b.String()
}
