package model

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// kgh builds a KeyGroupsStateHandle over [start, end] with offsets base, base+1, ….
func kgh(path string, start, end int, base int64) *KeyGroupsStateHandle {
	r, err := KeyGroupRangeOf(start, end)
	if err != nil {
		panic(err)
	}
	offs := make([]int64, r.NumberOfKeyGroups())
	for i := range offs {
		offs[i] = base + int64(i)
	}
	return &KeyGroupsStateHandle{Offsets: KeyGroupRangeOffsets{Range: r, Offsets: offs}, Delegate: StreamHandle{Path: path, Size: 100}, StateHandleID: path + "-id"}
}

// inc builds an IncrementalKeyedStateHandle over [start, end].
func inc(id string, start, end int) *IncrementalKeyedStateHandle {
	return &IncrementalKeyedStateHandle{BackendID: id, Range: KeyGroupRange{Start: start, End: end}, CheckpointID: 1,
		Meta: StreamHandle{Path: id + "/meta", Size: 10}}
}

func kr(s, e int) KeyGroupRange { return KeyGroupRange{Start: s, End: e} }

// describe renders keyed handles compactly for diffs: kind, delegate/backend, range, offsets.
func describe(hs []KeyedStateHandle) []string {
	if hs == nil {
		return nil
	}
	out := []string{}
	for _, h := range hs {
		switch x := h.(type) {
		case nil:
			out = append(out, "nil")
		case *KeyGroupsStateHandle:
			out = append(out, fmt.Sprintf("KG %s [%d,%d] %v", x.Delegate.Path, x.Offsets.Range.Start, x.Offsets.Range.End, x.Offsets.Offsets))
		case *IncrementalKeyedStateHandle:
			out = append(out, fmt.Sprintf("INC %s [%d,%d]", x.BackendID, x.Range.Start, x.Range.End))
		default:
			out = append(out, fmt.Sprintf("%T %v", h, h.KeyGroupRange()))
		}
	}
	return out
}

// SPEC §K.2 KeyGroupRangeTest.testKeyGroupIntersection.
func TestKeyGroupRangeTest_testKeyGroupIntersection(t *testing.T) {
	tests := []struct{ a, b, want KeyGroupRange }{
		{kr(0, 10), kr(3, 7), kr(3, 7)},
		{kr(3, 7), kr(0, 10), kr(3, 7)},
		{kr(0, 10), kr(0, 10), kr(0, 10)},
		{kr(0, 5), kr(6, 10), EmptyKeyGroupRange},
		{kr(6, 10), kr(0, 5), EmptyKeyGroupRange},
		{kr(0, 10), kr(5, 20), kr(5, 10)},
		{kr(5, 20), kr(0, 10), kr(5, 10)},
		{kr(3, 12), kr(0, 10), kr(3, 10)},
		{kr(0, 10), EmptyKeyGroupRange, EmptyKeyGroupRange},
	}
	for _, tc := range tests {
		if got := tc.a.Intersection(tc.b); got != tc.want {
			t.Errorf("%v ∩ %v = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// SPEC §K.2 KeyGroupRangeTest.testKeyGroupRangeBasics.
func TestKeyGroupRangeTest_testKeyGroupRangeBasics(t *testing.T) {
	for _, c := range [][2]int{{0, 0}, {0, 1}, {1, 2}, {42, 42}, {3, 7}, {0, 32767}, {32766, 32767}} {
		r, err := KeyGroupRangeOf(c[0], c[1])
		if err != nil {
			t.Fatalf("KeyGroupRangeOf(%d, %d): %v", c[0], c[1], err)
		}
		if got, want := r.NumberOfKeyGroups(), c[1]-c[0]+1; got != want {
			t.Errorf("%v: size %d, want %d", r, got, want)
		}
		var seen []int
		for kg := range r.All() {
			seen = append(seen, kg)
		}
		if len(seen) != r.NumberOfKeyGroups() || seen[0] != c[0] || seen[len(seen)-1] != c[1] {
			t.Errorf("%v: iteration gave %d values from %d to %d", r, len(seen), seen[0], seen[len(seen)-1])
		}
		if !r.Contains(c[0]) || !r.Contains(c[1]) || r.Contains(c[0]-1) || r.Contains(c[1]+1) {
			t.Errorf("%v: contains is wrong at the bounds", r)
		}
	}
	if _, err := KeyGroupRangeOf(-3, 2); !errors.Is(err, ErrInvalidKeyGroupRange) {
		t.Errorf("KeyGroupRangeOf(-3, 2) error = %v, want ErrInvalidKeyGroupRange", err)
	}
}

// SPEC §K.3 KeyGroupRangeOffsetTest.testKeyGroupIntersection.
func TestKeyGroupRangeOffsetTest_testKeyGroupIntersection(t *testing.T) {
	offs := make([]int64, 9)
	for i := range offs {
		offs[i] = int64(i)
	}
	o := KeyGroupRangeOffsets{Range: kr(2, 10), Offsets: offs}
	tests := []struct {
		r    KeyGroupRange
		want KeyGroupRangeOffsets
	}{
		{kr(3, 7), KeyGroupRangeOffsets{kr(3, 7), []int64{1, 2, 3, 4, 5}}},
		{kr(2, 10), o},
		{kr(11, 13), KeyGroupRangeOffsets{EmptyKeyGroupRange, []int64{}}},
		{kr(5, 13), KeyGroupRangeOffsets{kr(5, 10), []int64{3, 4, 5, 6, 7, 8}}},
		{kr(0, 2), KeyGroupRangeOffsets{kr(2, 2), []int64{0}}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, o.Intersection(tc.r)); diff != "" {
			t.Errorf("intersection with %v (-want +got):\n%s", tc.r, diff)
		}
	}
}

// SPEC §K.3 KeyGroupRangeOffsetTest.testKeyGroupRangeOffsetsBasics.
func TestKeyGroupRangeOffsetTest_testKeyGroupRangeOffsetsBasics(t *testing.T) {
	for _, c := range [][2]int{{0, 0}, {0, 1}, {1, 2}, {42, 42}, {3, 7}, {0, 32767}, {32766, 32767}} {
		r, _ := KeyGroupRangeOf(c[0], c[1])
		offs := make([]int64, r.NumberOfKeyGroups())
		for i := range offs {
			offs[i] = int64(i)
		}
		o, err := NewKeyGroupRangeOffsets(r, offs)
		if err != nil {
			t.Fatal(err)
		}
		for kg := range r.All() {
			if got, err := o.Offset(kg); err != nil || got != int64(kg-r.Start) {
				t.Fatalf("%v: offset(%d) = %d, %v", r, kg, got, err)
			}
			if err := o.SetOffset(kg, int64(kg-r.Start)+42); err != nil {
				t.Fatal(err)
			}
		}
		for kg := range r.All() {
			if got, _ := o.Offset(kg); got != int64(kg-r.Start)+42 {
				t.Fatalf("%v: after overwrite offset(%d) = %d", r, kg, got)
			}
		}
		if _, err := o.Offset(r.End + 1); !errors.Is(err, ErrKeyGroupOutOfRange) {
			t.Errorf("%v: offset(end+1) error = %v", r, err)
		}
	}
	o, _ := NewKeyGroupRangeOffsets(kr(3, 7), make([]int64, 5))
	for kg := 3; kg <= 7; kg++ {
		_ = o.SetOffset(kg, int64(kg+1))
	}
	if diff := cmp.Diff([]int64{4, 5, 6, 7, 8}, o.Offsets); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// SPEC §K.4 KeyGroupsStateHandleTest.testNonEmptyIntersection and testEmptyIntersection.
func TestKeyGroupsStateHandleTest(t *testing.T) {
	h := kgh("file:/a", 0, 7, 0)
	got, ok := h.Intersection(kr(0, 3)).(*KeyGroupsStateHandle)
	if !ok || got == nil {
		t.Fatalf("testNonEmptyIntersection: got %v", got)
	}
	want := &KeyGroupsStateHandle{Offsets: KeyGroupRangeOffsets{kr(0, 3), []int64{0, 1, 2, 3}}, Delegate: h.Delegate, StateHandleID: h.StateHandleID}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("testNonEmptyIntersection (-want +got):\n%s", diff)
	}
	if got := h.Intersection(kr(8, 11)); got != nil {
		t.Errorf("testEmptyIntersection: got %v, want nil", got)
	}
}

func TestIncrementalHandleIsCutAllOrNothing(t *testing.T) {
	h := inc("b", 10, 19)
	if got := h.Intersection(kr(15, 30)); got != KeyedStateHandle(h) {
		t.Errorf("partial overlap: got %v, want the whole handle", got)
	}
	if got := h.Intersection(kr(20, 30)); got != nil {
		t.Errorf("no overlap: got %v, want nil", got)
	}
}

func TestKeyedStateHandlesForSubtask(t *testing.T) {
	// Old parallelism 2 over M=10: [0,4] and [5,9]; subtask 1 also has raw state and an
	// incremental handle.
	os := &OperatorState{OperatorID: OperatorID{1}, Parallelism: 2, MaxParallelism: 10, Subtasks: []*OperatorSubtaskState{
		{ManagedKeyedState: []KeyedStateHandle{kgh("m0", 0, 4, 100), nil}},
		{ManagedKeyedState: []KeyedStateHandle{kgh("m1", 5, 9, 200), inc("i1", 5, 9)}, RawKeyedState: []KeyedStateHandle{kgh("r1", 5, 9, 300)}},
	}}
	ranges3 := []KeyGroupRange{kr(0, 3), kr(4, 6), kr(7, 9)}
	tests := []struct {
		name         string
		ranges       []KeyGroupRange
		subtask      int
		managed, raw []string
	}{
		{"unchanged parallelism copies 1:1, nil included", []KeyGroupRange{kr(0, 4), kr(5, 9)}, 0,
			[]string{"KG m0 [0,4] [100 101 102 103 104]", "nil"}, nil},
		{"unchanged parallelism, subtask 1", []KeyGroupRange{kr(0, 9), kr(0, 9)}, 1, // ranges are not even looked at
			[]string{"KG m1 [5,9] [200 201 202 203 204]", "INC i1 [5,9]"}, []string{"KG r1 [5,9] [300 301 302 303 304]"}},
		{"scale out, first range", ranges3, 0, []string{"KG m0 [0,3] [100 101 102 103]"}, []string{}},
		{"scale out, middle range takes both in old-subtask order", ranges3, 1,
			[]string{"KG m0 [4,4] [104]", "KG m1 [5,6] [200 201]", "INC i1 [5,9]"}, []string{"KG r1 [5,6] [300 301]"}},
		{"scale out, last range", ranges3, 2,
			[]string{"KG m1 [7,9] [202 203 204]", "INC i1 [5,9]"}, []string{"KG r1 [7,9] [302 303 304]"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, r, err := KeyedStateHandlesForSubtask(Flink118, os, tc.ranges, tc.subtask)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.managed, describe(m)); diff != "" {
				t.Errorf("managed (-want +got):\n%s", diff)
			}
			want := tc.raw
			if len(want) == 0 {
				want = nil
			}
			if diff := cmp.Diff(want, describe(r)); diff != "" {
				t.Errorf("raw (-want +got):\n%s", diff)
			}
		})
	}
}

// SPEC §K.5 StateAssignmentOperationTest.assigningStateHandlesCanNotBeNull, and the 1.10.1
// behaviour it fixed (FLINK-22966).
func TestStateAssignmentOperationTest_assigningStateHandlesCanNotBeNull(t *testing.T) {
	os := &OperatorState{OperatorID: OperatorID{7}, Parallelism: 1, MaxParallelism: 256}
	for _, tc := range []struct {
		v       FlinkVersion
		wantNil bool
	}{{Flink118, false}, {Flink1101, true}} {
		m, err := ManagedKeyedStateHandles(tc.v, os, kr(0, 1))
		if err != nil {
			t.Fatal(err)
		}
		r, _ := RawKeyedStateHandles(tc.v, os, kr(0, 1))
		if (m == nil) != tc.wantNil || (r == nil) != tc.wantNil || len(m)+len(r) != 0 {
			t.Errorf("%v: managed=%#v raw=%#v, want nil=%v and empty", tc.v, m, r, tc.wantNil)
		}
	}
	// With one (empty) subtask entry, 1.10.1 also returns an empty, non-null list.
	os.Subtasks = []*OperatorSubtaskState{{}}
	if m, _ := ManagedKeyedStateHandles(Flink1101, os, kr(0, 1)); m == nil {
		t.Errorf("1.10.1 with an entry: got nil, want empty list")
	}
	// The null of 1.10.1 becomes a NullPointerException at a changed parallelism.
	os.Subtasks = nil
	_, _, err := KeyedStateHandlesForSubtask(Flink1101, os, []KeyGroupRange{kr(0, 127), kr(128, 255)}, 0)
	var npe *NullKeyedStateHandlesError
	if !errors.As(err, &npe) || npe.OldParallelism != 1 || npe.NewParallelism != 2 {
		t.Errorf("1.10.1 changed parallelism: error %v, want *NullKeyedStateHandlesError 1→2", err)
	}
	if m, r, err := KeyedStateHandlesForSubtask(Flink118, os, []KeyGroupRange{kr(0, 127), kr(128, 255)}, 0); err != nil || m != nil || r != nil {
		t.Errorf("1.18 changed parallelism: %v %v %v, want empty", m, r, err)
	}
}

func TestKeyedHelpersRefuseMalformedHandles(t *testing.T) {
	bad := &KeyGroupsStateHandle{Offsets: KeyGroupRangeOffsets{Range: kr(0, 9), Offsets: []int64{1}}}
	var nilKG *KeyGroupsStateHandle
	for _, h := range []KeyedStateHandle{bad, nilKG} {
		os := &OperatorState{Parallelism: 1, MaxParallelism: 10, Subtasks: []*OperatorSubtaskState{{ManagedKeyedState: []KeyedStateHandle{h}}}}
		if _, err := ManagedKeyedStateHandles(Flink118, os, kr(0, 4)); !errors.Is(err, ErrInvalidRestoreInput) {
			t.Errorf("%#v: error %v, want ErrInvalidRestoreInput", h, err)
		}
		if _, _, err := KeyedStateHandlesForSubtask(Flink118, os, []KeyGroupRange{kr(0, 4), kr(5, 9)}, 0); !errors.Is(err, ErrInvalidRestoreInput) {
			t.Errorf("%#v: error %v, want ErrInvalidRestoreInput", h, err)
		}
	}
	os := &OperatorState{Parallelism: 1, Subtasks: []*OperatorSubtaskState{{}, {}}}
	if _, err := RawKeyedStateHandles(Flink118, os, kr(0, 4)); !errors.Is(err, ErrInvalidRestoreInput) {
		t.Errorf("two entries for parallelism 1: error %v", err)
	}
	if _, _, err := KeyedStateHandlesForSubtask(Flink118, os, []KeyGroupRange{kr(0, 4)}, 3); !errors.Is(err, ErrInvalidRestoreInput) {
		t.Errorf("subtask out of range: error %v", err)
	}
}

// oddHandle is a KeyedStateHandle of a type the model does not know: it claims the whole key
// space for every range, so the linear cut must fall back to asking it.
type oddHandle struct{ r KeyGroupRange }

func (h oddHandle) KeyGroupRange() KeyGroupRange { return h.r }
func (h oddHandle) StateSize() int64             { return 1 }
func (h oddHandle) Intersection(r KeyGroupRange) KeyedStateHandle {
	if r.Start%2 == 0 {
		return h
	}
	return nil
}

// randomKeyedOperatorState builds an operator state whose subtasks hold a random mix of
// key-groups, incremental, unknown and nil handles over (mostly) their own ranges.
func randomKeyedOperatorState(rng *rand.Rand, maxPar, oldP int) *OperatorState {
	os := &OperatorState{OperatorID: OperatorID{9}, Parallelism: oldP, MaxParallelism: maxPar, Subtasks: make([]*OperatorSubtaskState, oldP)}
	for j := range oldP {
		if rng.IntN(6) == 0 {
			continue // missing entry
		}
		r, _ := ComputeKeyGroupRangeForOperatorIndex(maxPar, oldP, j)
		st := &OperatorSubtaskState{}
		for range rng.IntN(4) {
			s, e := r.Start, r.End
			if rng.IntN(4) == 0 { // an arbitrary sub- or super-range, even beyond the key space
				s = rng.IntN(maxPar+2) - 1
				e = s + rng.IntN(maxPar/2+1)
			}
			var h KeyedStateHandle
			switch rng.IntN(5) {
			case 0:
				h = inc(fmt.Sprint("i", j), s, e)
			case 1:
				h = nil
			case 2:
				h = oddHandle{kr(s, e)}
			default:
				h = kgh(fmt.Sprint("k", j), max(s, 0), e, int64(1000*j))
			}
			if rng.IntN(2) == 0 {
				st.ManagedKeyedState = append(st.ManagedKeyedState, h)
			} else {
				st.RawKeyedState = append(st.RawKeyedState, h)
			}
		}
		os.Subtasks[j] = st
	}
	return os
}

// The linear cut used by AssignStates agrees with the Flink-shaped reference on random inputs.
func TestCutKeyedStatesAgreesWithReference(t *testing.T) {
	seed := uint64(20261130)
	rng := rand.New(rand.NewPCG(seed, 1))
	runs := 1000
	if testing.Short() {
		runs = 150
	}
	for run := range runs {
		maxPar := 1 + rng.IntN(200)
		oldP, newP := 1+rng.IntN(maxPar), 1+rng.IntN(maxPar)
		if oldP == newP {
			continue
		}
		os := randomKeyedOperatorState(rng, maxPar, oldP)
		ranges := make([]KeyGroupRange, newP)
		for i := range ranges {
			ranges[i], _ = ComputeKeyGroupRangeForOperatorIndex(maxPar, newP, i)
		}
		managed, raw := cutKeyedStates(os, ranges, maxPar)
		for i := range newP {
			wm, wr, err := KeyedStateHandlesForSubtask(Flink118, os, ranges, i)
			if err != nil {
				t.Fatal(err)
			}
			gm, gr := clip(managed[i]), clip(raw[i])
			if len(gm) == 0 && len(gr) == 0 {
				gm, gr = nil, nil
			}
			if diff := cmp.Diff(describe(wm), describe(gm)); diff != "" {
				t.Fatalf("run %d (seed %d): M=%d %d→%d subtask %d managed (-reference +linear):\n%s", run, seed, maxPar, oldP, newP, i, diff)
			}
			if diff := cmp.Diff(describe(wr), describe(gr)); diff != "" {
				t.Fatalf("run %d (seed %d): M=%d %d→%d subtask %d raw (-reference +linear):\n%s", run, seed, maxPar, oldP, newP, i, diff)
			}
		}
	}
}

func TestChooseInitialHandle(t *testing.T) {
	target := kr(0, 9)
	tests := []struct {
		name      string
		handles   []KeyedStateHandle
		threshold float64
		want118   int
		want1101  int
	}{
		{"largest overlap wins", []KeyedStateHandle{inc("a", 0, 2), inc("b", 3, 9)}, 0, 1, 1},
		// b: overlap 5, fraction 5/20; c: overlap 4, fraction 1. Modern prefers overlap, 1.10.1
		// drops b (fraction < 0.75) and takes c (4·1·1).
		{"overlap before fraction; 1.10.1 cut-off", []KeyedStateHandle{inc("b", 5, 24), inc("c", 0, 3)}, 0, 0, 1},
		// a: overlap 8, fraction 1; b: overlap 10, fraction 10/12. Modern takes b (more overlap);
		// 1.10.1 scores a = 8·1² = 8 over b = 10·(10/12)² ≈ 6.94.
		{"1.10.1 squares the fraction", []KeyedStateHandle{inc("a", 2, 9), inc("b", 0, 11)}, 0, 1, 0},
		// equal overlap (5): modern takes the higher fraction (b: 5/5 over a: 5/6).
		{"fraction breaks ties", []KeyedStateHandle{inc("a", -1, 4), inc("b", 5, 9)}, 0, 1, 1},
		{"equal scores: first wins", []KeyedStateHandle{inc("a", 0, 4), inc("b", 5, 9)}, 0, 0, 0},
		// nothing overlaps enough: modern still takes the first; 1.10.1 takes none.
		{"all below the 1.10.1 cut-off", []KeyedStateHandle{inc("a", 8, 19), inc("b", 9, 29)}, 0, 0, -1},
		// modern threshold 0.5: a (2/12) scores MIN, b (1/1) wins despite less overlap.
		{"modern threshold", []KeyedStateHandle{inc("a", 8, 19), inc("b", 9, 9)}, 0.5, 1, 1},
		{"all below a modern threshold: first", []KeyedStateHandle{inc("a", 8, 19), inc("b", 9, 29)}, 0.9, 0, -1},
		{"nil skipped", []KeyedStateHandle{nil, inc("b", 0, 9)}, 0, 1, 1},
		{"no handles", nil, 0, -1, -1},
		// an empty handle range: fraction 0/0 = NaN ranks above every number in Double.compare,
		// but overlap (0) is compared first. 1.10.1's NaN score is never > best.
		{"empty handle range", []KeyedStateHandle{inc("a", 5, 4), inc("b", 9, 9)}, 0, 1, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ChooseInitialHandle(Flink118, tc.handles, target, tc.threshold); got != tc.want118 {
				t.Errorf("1.18: got %d, want %d", got, tc.want118)
			}
			if got := ChooseInitialHandle(Flink1101, tc.handles, target, tc.threshold); got != tc.want1101 {
				t.Errorf("1.10.1: got %d, want %d", got, tc.want1101)
			}
		})
	}
}

func TestJavaDoubleCompare(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		a, b float64
		want int
	}{{1, 2, -1}, {2, 1, 1}, {1, 1, 0}, {math.Copysign(0, -1), 0, -1}, {nan, math.Inf(1), 1}, {nan, nan, 0}, {-1, nan, -1}} {
		if got := javaDoubleCompare(tc.a, tc.b); got != tc.want {
			t.Errorf("compare(%v, %v) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestRocksDBRestore(t *testing.T) {
	tests := []struct {
		name    string
		v       FlinkVersion
		handles []KeyedStateHandle
		target  KeyGroupRange
		want    RocksDBRestorePlan
	}{
		{"nothing", Flink118, nil, kr(0, 9), RocksDBRestorePlan{Mode: RocksDBNothingToRestore, Initial: -1}},
		{"one handle, same range", Flink118, []KeyedStateHandle{inc("a", 0, 9)}, kr(0, 9),
			RocksDBRestorePlan{Mode: RocksDBRestoreWithoutRescaling, Initial: 0, Contributions: []KeyGroupRange{kr(0, 9)}, Holding: []KeyGroupRange{kr(0, 9)}}},
		{"one wider handle (scale out) is clipped", Flink118, []KeyedStateHandle{inc("a", 0, 19)}, kr(0, 9),
			RocksDBRestorePlan{Mode: RocksDBRestoreWithRescaling, Initial: 0, Contributions: []KeyGroupRange{kr(0, 9)}, Holding: []KeyGroupRange{kr(0, 9)}}},
		{"scale in, 1.18", Flink118, []KeyedStateHandle{inc("a", 0, 4), inc("b", 5, 9), inc("c", 10, 14)}, kr(3, 11),
			RocksDBRestorePlan{Mode: RocksDBRestoreWithRescaling, Initial: 1,
				Contributions: []KeyGroupRange{kr(3, 4), kr(5, 9), kr(10, 11)}, Holding: []KeyGroupRange{kr(3, 11)}}},
		{"1.10.1 may open an empty DB", Flink1101, []KeyedStateHandle{inc("a", 0, 9), inc("b", 10, 19)}, kr(5, 14),
			RocksDBRestorePlan{Mode: RocksDBRestoreWithRescaling, Initial: -1,
				Contributions: []KeyGroupRange{kr(5, 9), kr(10, 14)}, Holding: []KeyGroupRange{kr(5, 14)}}},
		{"full restore reads whole handles", Flink118, []KeyedStateHandle{kgh("x", 0, 2, 0), kgh("y", 6, 7, 0)}, kr(0, 5),
			RocksDBRestorePlan{Mode: RocksDBFullRestore, Initial: -1,
				Contributions: []KeyGroupRange{kr(0, 2), kr(6, 7)}, Holding: []KeyGroupRange{kr(0, 2), kr(6, 7)}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := RocksDBRestore(tc.v, tc.handles, tc.target)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	for _, hs := range [][]KeyedStateHandle{
		{inc("a", 0, 4), kgh("x", 5, 9, 0)},
		{kgh("x", 5, 9, 0), inc("a", 0, 4)},
		{inc("a", 0, 4), nil},
		{oddHandle{kr(0, 9)}},
	} {
		var ut *UnexpectedStateHandleTypeError
		if _, err := RocksDBRestore(Flink118, hs, kr(0, 9)); !errors.As(err, &ut) {
			t.Errorf("%s: error %v, want *UnexpectedStateHandleTypeError", describe(hs), err)
		}
	}
}

func TestUnionRanges(t *testing.T) {
	got := unionRanges([]KeyGroupRange{kr(8, 9), EmptyKeyGroupRange, kr(0, 2), kr(3, 4), kr(1, 1), kr(6, 6)})
	if diff := cmp.Diff([]KeyGroupRange{kr(0, 4), kr(6, 6), kr(8, 9)}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := unionRanges([]KeyGroupRange{EmptyKeyGroupRange}); got != nil {
		t.Errorf("all empty: %v", got)
	}
	_ = slices.Clone(got)
}
