package model

import (
	"fmt"
	"slices"
	"testing"
)

// Flink 1.18's PrioritizedOperatorSubtaskStateTest
// (flink-runtime/src/test/java/org/apache/flink/runtime/checkpoint/PrioritizedOperatorSubtaskStateTest.java).

// prioHandles makes the test's handles: createNewOperatorStateHandle(2, RANDOM) — two
// SPLIT_DISTRIBUTE states with fresh random (UUID) names at offsets 0–3 and 4–7 — and
// createNewKeyedStateHandle(range) (a DummyKeyedStateHandle; a KeyGroupsStateHandle here). Every
// handle is new; the counter stands for Flink's UUIDs.
type prioHandles struct{ n int }

func (g *prioHandles) operator() OperatorStateHandle {
	g.n++
	h := OperatorStateHandle{Delegate: StreamHandle{Path: fmt.Sprint("op-", g.n), Size: 2}}
	for i := range 2 {
		h.States = append(h.States, NamedOperatorState{Name: fmt.Sprintf("uuid-%d-%d", g.n, i), Mode: SplitDistribute,
			Offsets: []int64{int64(4 * i), int64(4*i + 1), int64(4*i + 2), int64(4*i + 3)}})
	}
	return h
}

func (g *prioHandles) keyed(r KeyGroupRange) KeyedStateHandle {
	g.n++
	return kgHandle(fmt.Sprint("kg-", g.n), r.Start, r.End)
}

// generateForConfiguration models PrioritizedOperatorSubtaskStateTest.java:144: configuration
// conf in 0..80 picks, in base 3, for managed operator, raw operator, managed keyed and raw keyed
// state (lowest digit first): empty, one handle, or two handles (keyed: [0,4], or [0,2] and [3,4]).
func (g *prioHandles) generateForConfiguration(conf int) *OperatorSubtaskState {
	ops := func(mode int) []OperatorStateHandle {
		switch mode {
		case 1:
			return []OperatorStateHandle{g.operator()}
		case 2:
			return []OperatorStateHandle{g.operator(), g.operator()}
		}
		return nil
	}
	keyed := func(mode int) []KeyedStateHandle {
		switch mode {
		case 1:
			return []KeyedStateHandle{g.keyed(KeyGroupRange{Start: 0, End: 4})}
		case 2:
			return []KeyedStateHandle{g.keyed(KeyGroupRange{Start: 0, End: 2}), g.keyed(KeyGroupRange{Start: 3, End: 4})}
		}
		return nil
	}
	return &OperatorSubtaskState{
		ManagedOperatorState: ops(conf % 3),
		RawOperatorState:     ops(conf / 3 % 3),
		ManagedKeyedState:    keyed(conf / 9 % 3),
		RawKeyedState:        keyed(conf / 27 % 3),
	}
}

// CreateAltSubtaskStateMode, PrioritizedOperatorSubtaskStateTest.java:216.
const (
	oneValidStateHandle        = 0 // a deep copy of the first handle of each kind
	emptyStateHandleCollection = 1 // an empty OperatorSubtaskState
	oneInvalidStateHandle      = 2 // new handles: other names, key groups [8,16], channel state
)

// createAlternativeSubtaskState models CreateAltSubtaskStateMode.createAlternativeSubtaskState.
func (g *prioHandles) createAlternativeSubtaskState(mode int, primary *OperatorSubtaskState) *OperatorSubtaskState {
	switch mode {
	case oneValidStateHandle:
		// deepCopyFirstElement: new handles, equal to the first of each collection.
		firstOp := func(hs []OperatorStateHandle) []OperatorStateHandle {
			if len(hs) == 0 {
				return nil
			}
			c := hs[0]
			c.States = slices.Clone(c.States)
			for i := range c.States {
				c.States[i].Offsets = slices.Clone(c.States[i].Offsets)
			}
			return []OperatorStateHandle{c}
		}
		firstKeyed := func(hs []KeyedStateHandle) []KeyedStateHandle {
			if len(hs) == 0 {
				return nil
			}
			c := *hs[0].(*KeyGroupsStateHandle)
			return []KeyedStateHandle{&c}
		}
		return &OperatorSubtaskState{
			ManagedOperatorState:    firstOp(primary.ManagedOperatorState),
			RawOperatorState:        firstOp(primary.RawOperatorState),
			ManagedKeyedState:       firstKeyed(primary.ManagedKeyedState),
			RawKeyedState:           firstKeyed(primary.RawKeyedState),
			InputChannelState:       slices.Clone(primary.InputChannelState),
			ResultSubpartitionState: slices.Clone(primary.ResultSubpartitionState),
		}
	case emptyStateHandleCollection:
		return &OperatorSubtaskState{}
	}
	other := KeyGroupRange{Start: 8, End: 16}
	g.n++
	return &OperatorSubtaskState{
		ManagedOperatorState:    []OperatorStateHandle{g.operator()},
		RawOperatorState:        []OperatorStateHandle{g.operator()},
		ManagedKeyedState:       []KeyedStateHandle{g.keyed(other)},
		RawKeyedState:           []KeyedStateHandle{g.keyed(other)},
		InputChannelState:       []ChannelStateHandle{{SubtaskIndex: 10, Delegate: StreamHandle{Path: fmt.Sprint("in-", g.n), Size: 10}}},
		ResultSubpartitionState: []ChannelStateHandle{{SubtaskIndex: 10, Delegate: StreamHandle{Path: fmt.Sprint("out-", g.n), Size: 10}}},
	}
}

// sameCollection models checkContainedObjectsReferentialEquality: the same size and, element by
// element, the same objects — in Go, the same elements of the same backing array.
func sameCollection[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// checkRepresentSameOrder models checkResultAsExpected / checkRepresentSameOrder: the
// prioritized alternatives are exactly the expected collections, in order.
func checkRepresentSameOrder[T any](got, want [][]T) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range want {
		if !sameCollection(want[i], got[i]) {
			return false
		}
	}
	return true
}

// PrioritizedOperatorSubtaskStateTest.java:60 testPrioritization: for every one of the 81
// configurations of the JobManager state and the 9 combinations of two alternatives' modes, each
// of the four kinds prioritises the valid alternatives (in order) and then the JobManager's
// collection when the JobManager holds exactly one handle of that kind, else only the JobManager's
// collection. Beyond Flink's test: the two channel-state kinds (which the JobManager state never
// has) give only the JobManager's collection, the checkpoint id is carried, and the single-local
// PrioritizeOperatorSubtaskState agrees with the first alternative alone.
func TestPrioritizedOperatorSubtaskStateTest_testPrioritization(t *testing.T) {
	g := &prioHandles{}
	for i := range 81 {
		primaryAndFallback := g.generateForConfiguration(i)
		for j := range 9 {
			modeFirst, modeSecond := j%3, (j/3)%3
			bestAlternative := g.createAlternativeSubtaskState(modeFirst, primaryAndFallback)
			secondBestAlternative := g.createAlternativeSubtaskState(modeSecond, primaryAndFallback)
			var valid []*OperatorSubtaskState
			if modeFirst == oneValidStateHandle {
				valid = append(valid, bestAlternative)
			}
			if modeSecond == oneValidStateHandle {
				valid = append(valid, secondBestAlternative)
			}
			valid = append(valid, primaryAndFallback)
			onlyPrimary := []*OperatorSubtaskState{primaryAndFallback}

			got := PrioritizeOperatorSubtaskStateAlternatives(Flink118, primaryAndFallback,
				[]*OperatorSubtaskState{bestAlternative, secondBestAlternative}, 7)

			expected := func(n int) []*OperatorSubtaskState {
				if n == 1 {
					return valid
				}
				return onlyPrimary
			}
			where := fmt.Sprintf("configuration %d, alternatives (%d, %d)", i, modeFirst, modeSecond)
			if want := pick(expected(len(primaryAndFallback.ManagedOperatorState)), func(s *OperatorSubtaskState) []OperatorStateHandle { return s.ManagedOperatorState }); !checkRepresentSameOrder(got.ManagedOperator, want) {
				t.Errorf("%s: managed operator state %v, want %v", where, got.ManagedOperator, want)
			}
			if want := pick(expected(len(primaryAndFallback.ManagedKeyedState)), func(s *OperatorSubtaskState) []KeyedStateHandle { return s.ManagedKeyedState }); !checkRepresentSameOrder(got.ManagedKeyed, want) {
				t.Errorf("%s: managed keyed state %v, want %v", where, got.ManagedKeyed, want)
			}
			if want := pick(expected(len(primaryAndFallback.RawOperatorState)), func(s *OperatorSubtaskState) []OperatorStateHandle { return s.RawOperatorState }); !checkRepresentSameOrder(got.RawOperator, want) {
				t.Errorf("%s: raw operator state %v, want %v", where, got.RawOperator, want)
			}
			if want := pick(expected(len(primaryAndFallback.RawKeyedState)), func(s *OperatorSubtaskState) []KeyedStateHandle { return s.RawKeyedState }); !checkRepresentSameOrder(got.RawKeyed, want) {
				t.Errorf("%s: raw keyed state %v, want %v", where, got.RawKeyed, want)
			}
			if len(got.InputChannel) != 1 || len(got.InputChannel[0]) != 0 || len(got.ResultSubpartition) != 1 || len(got.ResultSubpartition[0]) != 0 {
				t.Errorf("%s: channel state %v / %v, want only the JobManager's (empty)", where, got.InputChannel, got.ResultSubpartition)
			}
			if !got.Restored || got.RestoredCheckpointID != 7 {
				t.Errorf("%s: restored %v checkpoint %d, want 7", where, got.Restored, got.RestoredCheckpointID)
			}
			single := PrioritizeOperatorSubtaskState(Flink118, primaryAndFallback, bestAlternative, 7)
			wantSingle := PrioritizeOperatorSubtaskStateAlternatives(Flink118, primaryAndFallback, []*OperatorSubtaskState{bestAlternative}, 7)
			if !checkRepresentSameOrder(single.ManagedKeyed, wantSingle.ManagedKeyed) || !checkRepresentSameOrder(single.ManagedOperator, wantSingle.ManagedOperator) ||
				!checkRepresentSameOrder(single.RawKeyed, wantSingle.RawKeyed) || !checkRepresentSameOrder(single.RawOperator, wantSingle.RawOperator) {
				t.Errorf("%s: PrioritizeOperatorSubtaskState with the first alternative differs from the builder with it alone", where)
			}
		}
	}
}

// pick extracts one kind's collection from each state.
func pick[T any](states []*OperatorSubtaskState, kind func(*OperatorSubtaskState) []T) [][]T {
	out := make([][]T, len(states))
	for i, s := range states {
		out[i] = kind(s)
	}
	return out
}

// TestFLINK33341Example is SPEC-VERSIONS.md §5.2's example: max parallelism 96, old p=2 (H0 =
// [0..47], H1 = [48..95]), new p=3; new subtask 1 (target [32..63]) gets both handles, which tie
// (16 key groups, fraction 16/48), and holds H1 locally. 1.18 offers the JobManager's two handles
// alone (a local alternative only replaces a single handle), so H0 is the base DB; 1.19+ offers
// [H1 (local), H0] first, so H1 is. The key groups restored are the same.
func TestFLINK33341Example(t *testing.T) {
	h0, h1 := inc("h0", 0, 47), inc("h1", 48, 95)
	local1 := inc("h1-local", 48, 95)
	local1.Local = true
	target := KeyGroupRange{Start: 32, End: 63}
	jm := &OperatorSubtaskState{ManagedKeyedState: []KeyedStateHandle{h0, h1}}
	local := &OperatorSubtaskState{ManagedKeyedState: []KeyedStateHandle{local1}}
	for _, v := range FlinkVersions() {
		p := PrioritizeOperatorSubtaskState(v, jm, local, 7)
		first := p.ManagedKeyed[0]
		plan, err := RocksDBRestore(v, first, target)
		if err != nil {
			t.Fatalf("%v: %v", v, err)
		}
		var base *IncrementalKeyedStateHandle // 1.10.1 opens none: a fraction of 1/3 is below its 0.75
		if plan.Initial >= 0 {
			base = first[plan.Initial].(*IncrementalKeyedStateHandle)
		}
		if v.AtLeast(Flink119) {
			if len(p.ManagedKeyed) != 2 || !slices.Equal(first, []KeyedStateHandle{local1, h0}) || !slices.Equal(p.ManagedKeyed[1], jm.ManagedKeyedState) {
				t.Errorf("%v: alternatives %v, want [[h1-local h0] [h0 h1]]", v, p.ManagedKeyed)
			}
			if base != local1 {
				t.Errorf("%v: base DB %s, want h1-local", v, base.BackendID)
			}
		} else {
			if len(p.ManagedKeyed) != 1 || !slices.Equal(first, jm.ManagedKeyedState) {
				t.Errorf("%v: alternatives %v, want the JobManager's alone", v, p.ManagedKeyed)
			}
			if want := map[FlinkVersion]*IncrementalKeyedStateHandle{Flink118: h0}[v]; base != want {
				t.Errorf("%v: base DB %v, want %v", v, base, want)
			}
		}
		if !slices.Equal(plan.Holding, []KeyGroupRange{target}) {
			t.Errorf("%v: holds %v", v, plan.Holding)
		}
		// The backend itself ranks local handles first from 1.19 on, whatever the list's order.
		want := map[bool]int{false: 0, true: 1}[v.AtLeast(Flink119)]
		if v == Flink1101 {
			want = -1
		}
		if plan, _ := RocksDBRestore(v, []KeyedStateHandle{h0, local1}, target); plan.Initial != want {
			t.Errorf("%v: [h0, h1-local]: base %d, want %d", v, plan.Initial, want)
		}
	}
}

// TestComputePrioritizedAlternatives covers 1.19+'s mixed alternative: remote handles left over
// come in HashMap<KeyGroupRange> order (31·start + end, spread, 16 buckets), handles of a
// later-priority alternative fill in what an earlier one lacks, a local copy matching nothing
// and an empty JobManager collection give the JobManager's alone, and a single matching handle
// gives the same result as 1.18.
func TestComputePrioritizedAlternatives(t *testing.T) {
	// Ranges [0..0] (hash 0, bucket 0), [1..1] (32, bucket 0), [2..3] (65, bucket 1), [4..4] (128, bucket 0).
	a, b, c, d := inc("a", 0, 0), inc("b", 1, 1), inc("c", 2, 3), inc("d", 4, 4)
	jm := []KeyedStateHandle{c, a, d, b}
	lb := inc("b-local", 1, 1)
	lc := inc("c-local", 2, 3)
	got := computePrioritizedAlternatives(jm, [][]KeyedStateHandle{{lb}, {inc("x", 9, 9), lc, inc("b-other", 1, 1)}})
	if want := [][]KeyedStateHandle{{lb, lc, a, d}, jm}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("mixed %v, want %v", got, want)
	}
	for _, alts := range [][][]KeyedStateHandle{nil, {{inc("x", 9, 9)}}, {{}}} {
		if got := computePrioritizedAlternatives(jm, alts); len(got) != 1 || !slices.Equal(got[0], jm) {
			t.Errorf("alternatives %v: %v, want the JobManager's alone", alts, got)
		}
	}
	if got := computePrioritizedAlternatives(nil, [][]KeyedStateHandle{{lb}}); len(got) != 1 || got[0] != nil {
		t.Errorf("no JobManager state: %v", got)
	}
	single := &OperatorSubtaskState{ManagedKeyedState: []KeyedStateHandle{b}}
	loc := &OperatorSubtaskState{ManagedKeyedState: []KeyedStateHandle{lb}}
	old, new := PrioritizeOperatorSubtaskState(Flink118, single, loc, 1), PrioritizeOperatorSubtaskState(Flink119, single, loc, 1)
	if !slices.EqualFunc(old.ManagedKeyed, new.ManagedKeyed, slices.Equal) {
		t.Errorf("single handle: 1.18 %v, 1.19 %v", old.ManagedKeyed, new.ManagedKeyed)
	}
}

// TestPrioritizedChannelApproval: a local channel-state handle replaces the JobManager's when
// their channels are equal — InputChannelInfo (gate, input channel) or ResultSubpartitionInfo
// (partition, subpartition), eqStateApprover(getInfo) on 1.18, channelStateApprover from 2.1 —
// whatever their subtask indexes. Found by differential.TestPriorityAgainstFlink: the model
// compared the subtask index instead, and disagreed with Flink's builder on every version in
// about a quarter of its cases.
func TestPrioritizedChannelApproval(t *testing.T) {
	ch := func(path string, subtask, gate, channel int) ChannelStateHandle {
		return ChannelStateHandle{SubtaskIndex: subtask, GateOrPartition: gate, Channel: channel, Delegate: StreamHandle{Path: path, Size: 1}}
	}
	jm := ch("jm", 1, 0, 2)
	for _, c := range []struct {
		local ChannelStateHandle
		use   bool
	}{
		{ch("same", 1, 0, 2), true},
		{ch("other-subtask", 2, 0, 2), true},
		{ch("other-gate", 1, 1, 2), false},
		{ch("other-channel", 1, 0, 3), false},
	} {
		for _, v := range []FlinkVersion{Flink118, Flink119, Flink21, FlinkMaster} {
			p := PrioritizeOperatorSubtaskState(v, &OperatorSubtaskState{InputChannelState: []ChannelStateHandle{jm}, ResultSubpartitionState: []ChannelStateHandle{jm}},
				&OperatorSubtaskState{InputChannelState: []ChannelStateHandle{c.local}, ResultSubpartitionState: []ChannelStateHandle{c.local}}, 1)
			want := [][]ChannelStateHandle{{jm}}
			if c.use {
				want = [][]ChannelStateHandle{{c.local}, {jm}}
			}
			samePaths := func(a, b []ChannelStateHandle) bool {
				return slices.EqualFunc(a, b, func(x, y ChannelStateHandle) bool { return x.Delegate == y.Delegate })
			}
			for _, k := range []struct {
				kind string
				got  [][]ChannelStateHandle
			}{{"input", p.InputChannel}, {"output", p.ResultSubpartition}} {
				if !slices.EqualFunc(k.got, want, samePaths) {
					t.Errorf("%s: local %s, %s channel state: %v, want %v", v, c.local.Delegate.Path, k.kind, k.got, want)
				}
			}
		}
	}
}
