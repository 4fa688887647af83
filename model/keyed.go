package model

import (
	"fmt"
	"math"
	"slices"
)

// This file models how keyed state is cut for new subtasks (SPEC §D.3–§D.4,
// StateAssignmentOperation.reAssignSubKeyedStates and friends) and how a RocksDB backend turns
// the handles it received into its key groups (RocksDBIncrementalCheckpointUtils,
// RocksDBIncrementalRestoreOperation, SPEC §D.3).

// IntersectKeyedStateHandles models StateAssignmentOperation.extractIntersectingState (and
// 1.10.1's public getKeyedStateHandles): the non-nil results of h.Intersection(r) for every
// non-nil handle, in order. The result is nil when nothing intersects.
func IntersectKeyedStateHandles(handles []KeyedStateHandle, r KeyGroupRange) []KeyedStateHandle {
	var out []KeyedStateHandle
	for _, h := range handles {
		if h == nil {
			continue
		}
		if in := h.Intersection(r); in != nil {
			out = append(out, in)
		}
	}
	return out
}

// ManagedKeyedStateHandles models StateAssignmentOperation.getManagedKeyedStateHandles: for old
// subtasks 0..os.Parallelism−1 that have an entry, the intersections of their managed keyed
// handles with r, in order.
//
// Null versus empty, faithfully: Flink 1.10.1 returns null when the operator state has no subtask
// entry at all, which is nil here; otherwise, and always in 1.18 (FLINK-22966), the result is a
// non-nil slice, possibly empty.
//
// The only error is ErrInvalidRestoreInput for state Flink could not have built (e.g. a
// KeyGroupsStateHandle whose offsets do not match its range).
func ManagedKeyedStateHandles(v FlinkVersion, os *OperatorState, r KeyGroupRange) ([]KeyedStateHandle, error) {
	if err := validateOperatorStateHandles(os); err != nil {
		return nil, err
	}
	return keyedStateHandles(v, os, r, false), nil
}

// RawKeyedStateHandles models StateAssignmentOperation.getRawKeyedStateHandles; see
// ManagedKeyedStateHandles for the nil-versus-empty rule.
func RawKeyedStateHandles(v FlinkVersion, os *OperatorState, r KeyGroupRange) ([]KeyedStateHandle, error) {
	if err := validateOperatorStateHandles(os); err != nil {
		return nil, err
	}
	return keyedStateHandles(v, os, r, true), nil
}

func keyedStateHandles(v FlinkVersion, os *OperatorState, r KeyGroupRange, raw bool) []KeyedStateHandle {
	var out []KeyedStateHandle
	for j := 0; j < os.Parallelism; j++ {
		st := os.Subtask(j)
		if st == nil {
			continue
		}
		if out == nil {
			out = []KeyedStateHandle{}
		}
		for _, h := range keyedList(st, raw) {
			if h == nil {
				continue
			}
			if in := h.Intersection(r); in != nil {
				out = append(out, in)
			}
		}
	}
	if out == nil && v != Flink1101 {
		out = []KeyedStateHandle{}
	}
	return out
}

func keyedList(st *OperatorSubtaskState, raw bool) []KeyedStateHandle {
	if raw {
		return st.RawKeyedState
	}
	return st.ManagedKeyedState
}

// KeyedStateHandlesForSubtask models StateAssignmentOperation.reAssignSubKeyedStates: the managed
// and raw keyed state that new subtask `subtask` of len(newRanges) receives from os, where
// newRanges are the new subtasks' key-group ranges (SPEC §D.4).
//
//   - Unchanged parallelism (len(newRanges) == os.Parallelism): old subtask `subtask`'s handles,
//     unchanged and uncut (nil when it has no entry).
//   - Otherwise: ManagedKeyedStateHandles and RawKeyedStateHandles for newRanges[subtask].
//
// An empty result is nil (Flink's emptyList()). In Flink 1.10.1, an operator state without any
// subtask entry restored at a changed parallelism makes Flink throw a NullPointerException; this
// returns a *NullKeyedStateHandlesError then.
//
// This is the Flink-shaped reference: it visits every old handle for every new subtask
// (O(P_old·P_new) over all subtasks). AssignStates uses an equivalent linear walk.
func KeyedStateHandlesForSubtask(v FlinkVersion, os *OperatorState, newRanges []KeyGroupRange, subtask int) (managed, raw []KeyedStateHandle, err error) {
	if subtask < 0 || subtask >= len(newRanges) {
		return nil, nil, fmt.Errorf("%w: subtask %d outside 0..%d", ErrInvalidRestoreInput, subtask, len(newRanges)-1)
	}
	if err := validateOperatorStateHandles(os); err != nil {
		return nil, nil, err
	}
	newParallelism := len(newRanges)
	if newParallelism == os.Parallelism {
		if st := os.Subtask(subtask); st != nil {
			managed, raw = clip(st.ManagedKeyedState), clip(st.RawKeyedState)
		}
	} else {
		managed = keyedStateHandles(v, os, newRanges[subtask], false)
		raw = keyedStateHandles(v, os, newRanges[subtask], true)
		if managed == nil || raw == nil {
			return nil, nil, refuse(&NullKeyedStateHandlesError{OperatorID: os.OperatorID, OldParallelism: os.Parallelism, NewParallelism: newParallelism}, os.OperatorID, "")
		}
	}
	if len(managed) == 0 && len(raw) == 0 {
		return nil, nil, nil
	}
	return clip(managed), clip(raw), nil
}

// clip returns s with its capacity cut to its length, so that appending to the result never
// writes into s's array; nil for an empty s.
func clip[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s[:len(s):len(s)]
}

// cutKeyedStates computes, for a changed parallelism, the keyed state of every new subtask at
// once: managed[i] and raw[i] equal what KeyedStateHandlesForSubtask returns for subtask i
// (before the empty-to-nil normalisation of the pair) when the new ranges are the key-group
// partition of maxParallelism over newParallelism.
//
// Instead of intersecting every old handle with every new range it uses the partition's closed
// form (key group kg belongs to subtask kg·p/M, SPEC §C.4) to find the contiguous run of new
// subtasks a handle overlaps, so the work is O(handles + P_new + results). Handles of types the
// model does not know are intersected with every range, as Flink does. The per-subtask lists
// share one backing array each for managed and raw, capacity-clipped.
func cutKeyedStates(os *OperatorState, ranges []KeyGroupRange, maxParallelism int) (managed, raw [][]KeyedStateHandle) {
	return cutKeyedKind(os, ranges, maxParallelism, false), cutKeyedKind(os, ranges, maxParallelism, true)
}

func cutKeyedKind(os *OperatorState, ranges []KeyGroupRange, maxParallelism int, raw bool) [][]KeyedStateHandle {
	p := len(ranges)
	out := make([][]KeyedStateHandle, p)
	counts := make([]int, p)
	total := 0
	for j := 0; j < os.Parallelism; j++ {
		st := os.Subtask(j)
		if st == nil {
			continue
		}
		for _, h := range keyedList(st, raw) {
			if h == nil {
				continue
			}
			if !isKnownKeyedHandle(h) {
				for i, r := range ranges {
					if h.Intersection(r) != nil {
						counts[i]++
						total++
					}
				}
				continue
			}
			if lo, hi, ok := overlappedSubtasks(h, maxParallelism, p); ok {
				for i := lo; i <= hi; i++ {
					counts[i]++
				}
				total += hi - lo + 1
			}
		}
	}
	if total == 0 {
		return out
	}
	backing := make([]KeyedStateHandle, total)
	off := 0
	for i, c := range counts {
		out[i] = backing[off : off : off+c]
		off += c
	}
	for j := 0; j < os.Parallelism; j++ {
		st := os.Subtask(j)
		if st == nil {
			continue
		}
		for _, h := range keyedList(st, raw) {
			if h == nil {
				continue
			}
			if !isKnownKeyedHandle(h) {
				for i, r := range ranges {
					if in := h.Intersection(r); in != nil {
						out[i] = append(out[i], in)
					}
				}
				continue
			}
			if lo, hi, ok := overlappedSubtasks(h, maxParallelism, p); ok {
				for i := lo; i <= hi; i++ {
					if in := h.Intersection(ranges[i]); in != nil {
						out[i] = append(out[i], in)
					}
				}
			}
		}
	}
	return out
}

func isKnownKeyedHandle(h KeyedStateHandle) bool {
	switch h.(type) {
	case *KeyGroupsStateHandle, *IncrementalKeyedStateHandle:
		return true
	}
	return false
}

// overlappedSubtasks gives, for a handle type whose Intersection is non-nil exactly when its
// range overlaps the argument, the first and last new subtask (of p over maxParallelism key
// groups) whose range it overlaps; ok is false when it overlaps none.
func overlappedSubtasks(h KeyedStateHandle, maxParallelism, p int) (lo, hi int, ok bool) {
	r := h.KeyGroupRange()
	s, e := max(r.Start, 0), min(r.End, maxParallelism-1)
	if r.IsEmpty() || s > e {
		return 0, 0, false
	}
	return ComputeOperatorIndexForKeyGroup(maxParallelism, p, s), ComputeOperatorIndexForKeyGroup(maxParallelism, p, e), true
}

// validateOperatorStateHandles rejects keyed handles the model's own types could not have been
// built from (a nil pointer inside the interface, offsets that do not match the range), so that
// cutting them cannot fail at run time.
func validateOperatorStateHandles(os *OperatorState) error {
	if os == nil {
		return fmt.Errorf("%w: nil operator state", ErrInvalidRestoreInput)
	}
	if os.Parallelism < 0 || len(os.Subtasks) > os.Parallelism {
		return fmt.Errorf("%w: operator state %v has %d subtask entries for parallelism %d",
			ErrInvalidRestoreInput, os.OperatorID, len(os.Subtasks), os.Parallelism)
	}
	for j, st := range os.Subtasks {
		if st == nil {
			continue
		}
		for _, list := range [2][]KeyedStateHandle{st.ManagedKeyedState, st.RawKeyedState} {
			for k, h := range list {
				if err := validateKeyedHandle(h); err != nil {
					return fmt.Errorf("%w: operator state %v, subtask %d, keyed handle %d: %v",
						ErrInvalidRestoreInput, os.OperatorID, j, k, err)
				}
			}
		}
	}
	return nil
}

func validateKeyedHandle(h KeyedStateHandle) error {
	switch x := h.(type) {
	case *KeyGroupsStateHandle:
		if x == nil {
			return fmt.Errorf("nil *KeyGroupsStateHandle")
		}
		r := x.Offsets.Range
		if !r.IsEmpty() && r.Start < 0 {
			return fmt.Errorf("key-group range %v starts below 0", r)
		}
		if len(x.Offsets.Offsets) != r.NumberOfKeyGroups() {
			return fmt.Errorf("%d offsets for %d key groups", len(x.Offsets.Offsets), r.NumberOfKeyGroups())
		}
	case *IncrementalKeyedStateHandle:
		if x == nil {
			return fmt.Errorf("nil *IncrementalKeyedStateHandle")
		}
	}
	return nil
}

// Overlap-fraction thresholds of the RocksDB initial-handle choice (SPEC §D.3).
const (
	// DefaultRocksDBOverlapFractionThreshold is the 1.18 default of
	// state.backend.rocksdb.restore-overlap-fraction-threshold.
	DefaultRocksDBOverlapFractionThreshold = 0.0
	// RocksDB1101OverlapFractionThreshold is 1.10.1's fixed
	// RocksDBIncrementalCheckpointUtils.OVERLAP_FRACTION_THRESHOLD.
	RocksDB1101OverlapFractionThreshold = 0.75
)

// ChooseInitialHandle models RocksDBIncrementalCheckpointUtils.chooseTheBestStateHandleForInitial:
// the index in handles of the handle a rescaling RocksDB restore opens as its base DB, or −1 for
// none (SPEC §D.3).
//
//   - 1.18: score = (overlapping key groups, overlap / handle size), compared in that order;
//     a handle whose fraction is below overlapFractionThreshold scores lowest. The first handle
//     is taken, and a later one only if it scores strictly higher — so with any handle present
//     the result is never −1.
//   - 1.10.1: score = overlap · fraction² when fraction ≥ 0.75, else −1; a handle is taken only
//     if its score is above 0 and strictly above the best so far, so the result may be −1.
//     overlapFractionThreshold is ignored (1.10.1 has no such option).
//
// Scores follow Java's double arithmetic (an empty handle range gives fraction NaN, which
// Double.compare ranks highest). Nil handles are skipped.
func ChooseInitialHandle(v FlinkVersion, handles []KeyedStateHandle, target KeyGroupRange, overlapFractionThreshold float64) int {
	best := -1
	if v == Flink1101 {
		bestScore := 0.0
		for i, h := range handles {
			if h == nil {
				continue
			}
			overlap, fraction := overlapOf(h, target)
			score := -1.0
			if !(fraction < RocksDB1101OverlapFractionThreshold) {
				score = float64(overlap) * fraction * fraction
			}
			if score > bestScore {
				best, bestScore = i, score
			}
		}
		return best
	}
	bestOverlap, bestFraction := math.MinInt32, -1.0
	for i, h := range handles {
		if h == nil {
			continue
		}
		overlap, fraction := overlapOf(h, target)
		if fraction < overlapFractionThreshold {
			overlap, fraction = math.MinInt32, -1.0 // Score.MIN
		}
		c := overlap - bestOverlap
		if overlap == bestOverlap {
			c = javaDoubleCompare(fraction, bestFraction)
		}
		if best < 0 || c > 0 {
			best, bestOverlap, bestFraction = i, overlap, fraction
		}
	}
	return best
}

func overlapOf(h KeyedStateHandle, target KeyGroupRange) (int, float64) {
	r := h.KeyGroupRange()
	overlap := r.Intersection(target).NumberOfKeyGroups()
	return overlap, float64(overlap) / float64(r.NumberOfKeyGroups())
}

// javaDoubleCompare models java.lang.Double.compare: numeric order, with −0.0 < 0.0 and NaN
// above everything (and equal to itself).
func javaDoubleCompare(a, b float64) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	ab, bb := javaDoubleToLongBits(a), javaDoubleToLongBits(b)
	switch {
	case ab == bb:
		return 0
	case ab < bb:
		return -1
	}
	return 1
}

func javaDoubleToLongBits(f float64) int64 {
	if f != f {
		return 0x7ff8000000000000
	}
	return int64(math.Float64bits(f))
}

// RocksDBRestoreMode is the path a RocksDB keyed backend takes for the handles it received.
// The zero value is invalid.
type RocksDBRestoreMode uint8

const (
	// RocksDBNothingToRestore: no handles; the backend starts empty.
	RocksDBNothingToRestore RocksDBRestoreMode = iota + 1
	// RocksDBRestoreWithoutRescaling is RocksDBIncrementalRestoreOperation.restoreWithoutRescaling:
	// exactly one incremental handle whose range equals the target; it becomes the DB as is.
	RocksDBRestoreWithoutRescaling
	// RocksDBRestoreWithRescaling is restoreWithRescaling: an initial handle (if any) is opened
	// and clipped to the target with deleteRange; every other handle is opened temporarily and
	// only its entries inside the target are copied.
	RocksDBRestoreWithRescaling
	// RocksDBFullRestore is the full (canonical savepoint / full snapshot) restore of
	// KeyGroupsStateHandles: every key group listed in every handle's offsets is read.
	RocksDBFullRestore
)

// String gives the mode's name as Flink's methods spell it.
func (m RocksDBRestoreMode) String() string {
	switch m {
	case RocksDBNothingToRestore:
		return "nothingToRestore"
	case RocksDBRestoreWithoutRescaling:
		return "restoreWithoutRescaling"
	case RocksDBRestoreWithRescaling:
		return "restoreWithRescaling"
	case RocksDBFullRestore:
		return "fullRestore"
	}
	return fmt.Sprintf("RocksDBRestoreMode(%d)", uint8(m))
}

// RocksDBRestorePlan is what a RocksDB keyed backend does with the handles it received and
// which key groups it then holds.
type RocksDBRestorePlan struct {
	Mode RocksDBRestoreMode
	// Initial is the index of the handle used as the base DB, −1 when none (nothing to restore,
	// a full restore, or 1.10.1 finding no handle good enough: an empty DB is opened and every
	// handle is copied).
	Initial int
	// Contributions[i] is the range of key groups handle i contributes: its range ∩ target for
	// incremental handles (whole range without rescaling), its whole range for a full restore.
	// Empty ranges are EmptyKeyGroupRange.
	Contributions []KeyGroupRange
	// Holding is the union of Contributions: sorted, disjoint, non-adjacent ranges.
	Holding []KeyGroupRange
}

// RocksDBRestore models the RocksDB keyed backend's restore of the handles one subtask received
// for its key-group range target, with the default overlap threshold (SPEC §D.3); see
// RocksDBRestoreWithThreshold.
func RocksDBRestore(v FlinkVersion, handles []KeyedStateHandle, target KeyGroupRange) (RocksDBRestorePlan, error) {
	return RocksDBRestoreWithThreshold(v, handles, target, DefaultRocksDBOverlapFractionThreshold)
}

// RocksDBRestoreWithThreshold models RocksDBKeyedStateBackendBuilder's choice of restore
// operation and what it restores:
//
//   - no handles → RocksDBNothingToRestore;
//   - the first handle is incremental (*IncrementalKeyedStateHandle) → all must be; one handle
//     with a range equal to target → RocksDBRestoreWithoutRescaling, else
//     RocksDBRestoreWithRescaling with the initial handle from ChooseInitialHandle;
//   - the first handle is a *KeyGroupsStateHandle → all must be; RocksDBFullRestore, which
//     reads every key group a handle lists, whether or not it lies in target (the assignment
//     has already cut these handles to the target).
//
// A handle of another kind, or nil, gives a *UnexpectedStateHandleTypeError, as Flink's restore
// operations throw. Local incremental handles count as incremental handles; from 1.19 on
// (FLINK-33341) a rescaling restore ranks the local ones first (see chooseInitialLocalFirst).
func RocksDBRestoreWithThreshold(v FlinkVersion, handles []KeyedStateHandle, target KeyGroupRange, overlapFractionThreshold float64) (RocksDBRestorePlan, error) {
	plan := RocksDBRestorePlan{Initial: -1}
	if len(handles) == 0 {
		plan.Mode = RocksDBNothingToRestore
		return plan, nil
	}
	const incremental, full = "class org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle", "class org.apache.flink.runtime.state.KeyGroupsStateHandle"
	var expected string
	switch h := handles[0].(type) {
	case *IncrementalKeyedStateHandle:
		expected = incremental
	case *KeyGroupsStateHandle:
		expected = full
	default:
		return plan, &UnexpectedStateHandleTypeError{Index: 0, Expected: incremental, Found: javaClassOf(h)}
	}
	for i, h := range handles {
		if err := validateKeyedHandle(h); err != nil {
			return plan, fmt.Errorf("%w: handle %d: %v", ErrInvalidRestoreInput, i, err)
		}
		_, isInc := h.(*IncrementalKeyedStateHandle)
		_, isFull := h.(*KeyGroupsStateHandle)
		if (expected == incremental && !isInc) || (expected == full && !isFull) {
			return plan, &UnexpectedStateHandleTypeError{Index: i, Expected: expected, Found: javaClassOf(h)}
		}
	}
	plan.Contributions = make([]KeyGroupRange, len(handles))
	switch {
	case expected == full:
		plan.Mode = RocksDBFullRestore
		for i, h := range handles {
			plan.Contributions[i] = normalizeRange(h.KeyGroupRange())
		}
	case len(handles) == 1 && handles[0].KeyGroupRange() == target:
		plan.Mode = RocksDBRestoreWithoutRescaling
		plan.Initial = 0
		plan.Contributions[0] = normalizeRange(target)
	default:
		plan.Mode = RocksDBRestoreWithRescaling
		plan.Initial = chooseInitialLocalFirst(v, handles, target, overlapFractionThreshold)
		for i, h := range handles {
			plan.Contributions[i] = h.KeyGroupRange().Intersection(target)
		}
	}
	plan.Holding = unionRanges(plan.Contributions)
	return plan, nil
}

// chooseInitialLocalFirst is ChooseInitialHandle over the candidates in the order the rescaling
// restore of v builds them: the handles as given up to 1.18; from 1.19 on (FLINK-33341, 1.19's
// restoreWithRescaling, 1.20+'s makeAllStateHandlesLocal) the local handles in order, then the
// remote (downloaded) ones in order, so that a tie goes to a local handle. It returns an index
// into handles.
func chooseInitialLocalFirst(v FlinkVersion, handles []KeyedStateHandle, target KeyGroupRange, overlapFractionThreshold float64) int {
	if !v.AtLeast(Flink119) {
		return ChooseInitialHandle(v, handles, target, overlapFractionThreshold)
	}
	order := make([]int, 0, len(handles))
	for _, local := range []bool{true, false} {
		for i, h := range handles {
			if inc, ok := h.(*IncrementalKeyedStateHandle); ok && inc.Local == local {
				order = append(order, i)
			}
		}
	}
	candidates := make([]KeyedStateHandle, len(order))
	for j, i := range order {
		candidates[j] = handles[i]
	}
	if best := ChooseInitialHandle(v, candidates, target, overlapFractionThreshold); best >= 0 {
		return order[best]
	}
	return -1
}

func normalizeRange(r KeyGroupRange) KeyGroupRange {
	if r.IsEmpty() {
		return EmptyKeyGroupRange
	}
	return r
}

func javaClassOf(h KeyedStateHandle) string {
	switch h.(type) {
	case nil:
		return "null"
	case *IncrementalKeyedStateHandle:
		return "class org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle"
	case *KeyGroupsStateHandle:
		return "class org.apache.flink.runtime.state.KeyGroupsStateHandle"
	}
	return fmt.Sprintf("%T", h)
}

// unionRanges merges ranges into sorted, disjoint, non-adjacent ranges (nil when all are empty).
func unionRanges(rs []KeyGroupRange) []KeyGroupRange {
	var out []KeyGroupRange
	for _, r := range rs {
		if !r.IsEmpty() {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b KeyGroupRange) int { return a.Start - b.Start })
	merged := out[:0]
	for _, r := range out {
		if n := len(merged); n > 0 && r.Start <= merged[n-1].End+1 {
			merged[n-1].End = max(merged[n-1].End, r.End)
			continue
		}
		merged = append(merged, r)
	}
	if len(merged) == 0 {
		return nil
	}
	return merged
}
