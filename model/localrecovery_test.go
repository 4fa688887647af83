package model

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func kgHandle(path string, start, end int) *KeyGroupsStateHandle {
	offs := make([]int64, end-start+1)
	for i := range offs {
		offs[i] = int64(10 * i)
	}
	return &KeyGroupsStateHandle{Offsets: KeyGroupRangeOffsets{Range: KeyGroupRange{Start: start, End: end}, Offsets: offs},
		Delegate: StreamHandle{Path: path, Size: 100}}
}

func opHandle(path string, states ...NamedOperatorState) OperatorStateHandle {
	return OperatorStateHandle{Delegate: StreamHandle{Path: path, Size: 50}, States: states}
}

var (
	listA = NamedOperatorState{Name: "a", Mode: SplitDistribute, Offsets: []int64{0, 8}}
	listB = NamedOperatorState{Name: "b", Mode: Union, Offsets: []int64{16}}
)

func TestPrioritizeOperatorSubtaskState(t *testing.T) {
	remoteKeyed := kgHandle("remote/kg", 0, 63)
	localKeyed := kgHandle("local/kg", 0, 63)
	remoteOp := opHandle("remote/op", listA, listB)
	localOp := opHandle("local/op", listB, listA) // same map, other iteration order
	jm := &OperatorSubtaskState{
		ManagedKeyedState:    []KeyedStateHandle{remoteKeyed},
		ManagedOperatorState: []OperatorStateHandle{remoteOp},
	}
	sameSlot := &OperatorSubtaskState{
		ManagedKeyedState:    []KeyedStateHandle{localKeyed},
		ManagedOperatorState: []OperatorStateHandle{localOp},
	}

	t.Run("same slot, unchanged parallelism: local first, then remote", func(t *testing.T) {
		got := PrioritizeOperatorSubtaskState(Flink118, jm, sameSlot, 7)
		want := PrioritizedOperatorSubtaskState{
			ManagedKeyed:         [][]KeyedStateHandle{{localKeyed}, {remoteKeyed}},
			RawKeyed:             [][]KeyedStateHandle{nil},
			ManagedOperator:      [][]OperatorStateHandle{{localOp}, {remoteOp}},
			RawOperator:          [][]OperatorStateHandle{nil},
			InputChannel:         [][]ChannelStateHandle{nil},
			ResultSubpartition:   [][]ChannelStateHandle{nil},
			RestoredCheckpointID: 7,
			Restored:             true,
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if !got.UsesLocal() {
			t.Error("UsesLocal = false")
		}
	})

	t.Run("rescaled: several (cut) handles from the JobManager → remote only", func(t *testing.T) {
		rescaled := &OperatorSubtaskState{ManagedKeyedState: []KeyedStateHandle{kgHandle("r1", 0, 31), kgHandle("r2", 32, 63)}}
		got := PrioritizeOperatorSubtaskState(Flink118, rescaled, sameSlot, 7)
		if len(got.ManagedKeyed) != 1 || got.UsesLocal() {
			t.Errorf("ManagedKeyed alternatives = %d, UsesLocal %v; want remote only", len(got.ManagedKeyed), got.UsesLocal())
		}
	})

	t.Run("rescaled: two handles from the JobManager, the first matching the local copy → remote only", func(t *testing.T) {
		// Scale-in 2 → 1: the new subtask gets [0,31] and [32,63]; the slot still holds [0,31].
		twoRemote := &OperatorSubtaskState{ManagedKeyedState: []KeyedStateHandle{kgHandle("r1", 0, 31), kgHandle("r2", 32, 63)}}
		oldLocal := &OperatorSubtaskState{ManagedKeyedState: []KeyedStateHandle{kgHandle("l1", 0, 31)}}
		if got := PrioritizeOperatorSubtaskState(Flink118, twoRemote, oldLocal, 7); got.UsesLocal() {
			t.Errorf("used the local copy beside two JobManager handles: %+v", got.ManagedKeyed)
		}
	})

	t.Run("rescaled: one handle with another key-group range → remote only", func(t *testing.T) {
		cut := &OperatorSubtaskState{ManagedKeyedState: []KeyedStateHandle{kgHandle("remote/kg", 0, 31)}}
		if got := PrioritizeOperatorSubtaskState(Flink118, cut, sameSlot, 7); got.UsesLocal() {
			t.Errorf("range [0,31] against local [0,63] used the local copy: %+v", got.ManagedKeyed)
		}
	})

	t.Run("missing local copy → remote only", func(t *testing.T) {
		got := PrioritizeOperatorSubtaskState(Flink118, jm, nil, 7)
		if got.UsesLocal() || len(got.ManagedKeyed) != 1 || got.ManagedKeyed[0][0] != KeyedStateHandle(remoteKeyed) {
			t.Errorf("got %+v, want the JobManager state only", got)
		}
	})

	t.Run("operator state with other offsets → that kind remote, keyed still local", func(t *testing.T) {
		other := &OperatorSubtaskState{
			ManagedKeyedState:    []KeyedStateHandle{localKeyed},
			ManagedOperatorState: []OperatorStateHandle{opHandle("local/op", listA, NamedOperatorState{Name: "b", Mode: Union, Offsets: []int64{17}})},
		}
		got := PrioritizeOperatorSubtaskState(Flink118, jm, other, 7)
		if len(got.ManagedOperator) != 1 || len(got.ManagedKeyed) != 2 {
			t.Errorf("operator alternatives %d (want 1), keyed %d (want 2)", len(got.ManagedOperator), len(got.ManagedKeyed))
		}
	})

	t.Run("local copy with two handles → remote", func(t *testing.T) {
		two := &OperatorSubtaskState{ManagedKeyedState: []KeyedStateHandle{localKeyed, kgHandle("x", 0, 63)}}
		if got := PrioritizeOperatorSubtaskState(Flink118, jm, two, 7); len(got.ManagedKeyed) != 1 {
			t.Errorf("keyed alternatives = %d, want 1", len(got.ManagedKeyed))
		}
	})
}

func TestPrioritizeTaskRestore(t *testing.T) {
	op1, op2 := OperatorID{1}, OperatorID{2}
	remote := kgHandle("remote/kg", 0, 9)
	local := kgHandle("local/kg", 0, 9)
	restore := &TaskRestore{CheckpointID: 4, Operators: []OperatorRestore{
		{OperatorID: op1, State: OperatorSubtaskState{ManagedKeyedState: []KeyedStateHandle{remote}}},
		{OperatorID: op2},
	}}
	localCopy := &TaskLocalSnapshot{CheckpointID: 4, Operators: []OperatorRestore{
		{OperatorID: op1, State: OperatorSubtaskState{ManagedKeyedState: []KeyedStateHandle{local}}},
	}}
	usesLocal := func(ps []PrioritizedOperatorState) []bool {
		var out []bool
		for _, p := range ps {
			out = append(out, p.State.UsesLocal())
		}
		return out
	}
	if diff := cmp.Diff([]bool{true, false}, usesLocal(PrioritizeTaskRestore(Flink118, restore, localCopy))); diff != "" {
		t.Errorf("local copy of the restored checkpoint (-want +got):\n%s", diff)
	}
	stale := *localCopy
	stale.CheckpointID = 3
	if diff := cmp.Diff([]bool{false, false}, usesLocal(PrioritizeTaskRestore(Flink118, restore, &stale))); diff != "" {
		t.Errorf("local copy of another checkpoint (-want +got):\n%s", diff)
	}
	if got := PrioritizeTaskRestore(Flink118, nil, localCopy); got != nil {
		t.Errorf("no restore object: got %v, want nothing", got)
	}
}

func ExamplePrioritizeOperatorSubtaskState() {
	jm := &OperatorSubtaskState{ManagedKeyedState: []KeyedStateHandle{kgHandle("dfs/chk-4/kg", 0, 63)}}
	local := &OperatorSubtaskState{ManagedKeyedState: []KeyedStateHandle{kgHandle("tm-local/chk-4/kg", 0, 63)}}
	p := PrioritizeOperatorSubtaskState(Flink118, jm, local, 4)
	for _, alt := range p.ManagedKeyed {
		fmt.Println(alt[0].(*KeyGroupsStateHandle).Delegate.Path)
	}
	// Output:
	// tm-local/chk-4/kg
	// dfs/chk-4/kg
}
