package properties

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/restoresim/restoresim/model"
	"pgregory.net/rapid"
)

var (
	stateID   = model.OperatorIDFromUID("keyed-state")
	renamedID = model.OperatorIDFromUID("keyed-renamed")
)

// keyedCase is a checkpointed keyed operator: M key groups at p_old, each old subtask's range
// cut into 1..3 handles (full key-group handles with one offset per key group, or incremental
// handles), in any order within the subtask.
type keyedCase struct {
	v           model.FlinkVersion
	m, pOld     int
	incremental bool
	viaUIDHash  bool // the new job's operator has another generated ID and the state's as setUidHash
	state       model.OperatorState
}

// source is where a key group's state comes from: the handle's stream and the key group's offset
// (−1 for incremental handles, which are not cut).
type source struct {
	Stream string
	Offset int64
}

func drawKeyedCase(t *rapid.T, cov *coverage) keyedCase {
	c := keyedCase{v: drawVersion(t)}
	c.m = rapid.OneOf(rapid.IntRange(1, 64), rapid.SampledFrom([]int{128, 360, 1000})).Draw(t, "M")
	c.pOld = rapid.IntRange(1, min(c.m, 12)).Draw(t, "p_old")
	c.incremental = rapid.Bool().Draw(t, "incremental")
	c.viaUIDHash = rapid.IntRange(0, 3).Draw(t, "via setUidHash") == 0
	handles := make([][]model.KeyedStateHandle, c.pOld)
	for j := range c.pOld {
		r := mustRange(t, c.m, c.pOld, j)
		cuts := rapid.IntRange(1, min(3, r.NumberOfKeyGroups())).Draw(t, "handles per subtask")
		start := r.Start
		for k := range cuts {
			end := r.End
			if k < cuts-1 {
				end = rapid.IntRange(start, r.End-(cuts-1-k)).Draw(t, "cut")
			}
			hr := model.KeyGroupRange{Start: start, End: end}
			path := fmt.Sprintf("state-%d-%d", j, k)
			if c.incremental {
				handles[j] = append(handles[j], &model.IncrementalKeyedStateHandle{BackendID: path, Range: hr, CheckpointID: 1,
					Shared: []model.SharedFile{{LocalPath: "1.sst", Handle: model.StreamHandle{Path: path + "/1.sst", Size: 10}}},
					Meta:   model.StreamHandle{Path: path + "/meta", Size: 1}})
			} else {
				offs := make([]int64, hr.NumberOfKeyGroups())
				for i := range offs {
					offs[i] = int64(10 * (hr.Start + i))
				}
				handles[j] = append(handles[j], &model.KeyGroupsStateHandle{Offsets: model.KeyGroupRangeOffsets{Range: hr, Offsets: offs},
					Delegate: model.StreamHandle{Path: path, Size: 10}})
			}
			start = end + 1
		}
	}
	c.state = model.OperatorState{OperatorID: stateID, Parallelism: c.pOld, MaxParallelism: c.m, Subtasks: make([]*model.OperatorSubtaskState, c.pOld)}
	for j, hs := range handles {
		c.state.Subtasks[j] = &model.OperatorSubtaskState{ManagedKeyedState: rapid.Permutation(hs).Draw(t, "handle order")}
	}
	cov.label("flink-" + c.v.String())
	cov.label(map[bool]string{true: "backend-incremental", false: "backend-full"}[c.incremental])
	cov.labelIf(c.viaUIDHash, "via-uid-hash")
	return c
}

// assignKeyed restores c into a vertex of parallelism p and returns, per new subtask, the key
// groups it holds and where from. A full handle holds the key groups of its (cut) range;
// incremental handles hold what model.RocksDBRestore says the backend keeps of them (SPEC §D.3).
func assignKeyed(t *rapid.T, c keyedCase, state model.OperatorState, p int) ([]map[int]source, []model.KeyGroupRange) {
	op := model.JobOperator{ID: stateID}
	allow := false
	if c.viaUIDHash {
		id := stateID
		op = model.JobOperator{ID: renamedID, UserDefinedID: &id}
		allow = c.v == model.Flink1101 // FLINK-16638: 1.10.1's completeness check ignores setUidHash
	}
	a, err := model.AssignStates(model.AssignmentInput{Version: c.v, CheckpointID: 1, AllowNonRestoredState: allow,
		Vertices:  []model.JobVertex{{Name: "keyed", Operators: []model.JobOperator{op}, Parallelism: p, MaxParallelism: c.m, MaxParallelismConfigured: true}},
		Operators: []model.OperatorState{state}})
	if err != nil {
		t.Fatalf("AssignStates(M=%d, p_old=%d → %d): %v", c.m, state.Parallelism, p, err)
	}
	va := a.Vertices[0]
	if len(va.Subtasks) != p {
		t.Fatalf("AssignStates gave %d subtasks, want %d", len(va.Subtasks), p)
	}
	held := make([]map[int]source, p)
	ranges := make([]model.KeyGroupRange, p)
	for i := range p {
		ranges[i] = mustRange(t, c.m, p, i)
		held[i] = map[int]source{}
		tr := va.Subtasks[i]
		if tr == nil {
			continue
		}
		for _, or := range tr.Operators {
			if or.OperatorID != op.ID {
				t.Fatalf("subtask %d's restore object names operator %v, want the job's %v", i, or.OperatorID, op.ID)
			}
			if c.incremental {
				// What the RocksDB backend keeps of the handles it received.
				plan, err := model.RocksDBRestore(c.v, or.State.ManagedKeyedState, ranges[i])
				if err != nil {
					t.Fatalf("subtask %d: RocksDBRestore: %v", i, err)
				}
				for k, h := range or.State.ManagedKeyedState {
					src := source{h.(*model.IncrementalKeyedStateHandle).Meta.Path, -1}
					for kg := range plan.Contributions[k].All() {
						// The same handle twice (rescaling an assignment again, without a new
						// snapshot, in TestKeyedRescaleMetamorphic) restores the same data.
						if prev, dup := held[i][kg]; dup && prev != src {
							t.Fatalf("subtask %d: key group %d restored from both %v and %v", i, kg, prev, src)
						}
						held[i][kg] = src
					}
				}
				continue
			}
			for _, h := range or.State.ManagedKeyedState {
				kh, ok := h.(*model.KeyGroupsStateHandle)
				if !ok {
					t.Fatalf("subtask %d received a %T, want key-groups handles", i, h)
				}
				for kg := range kh.Offsets.Range.All() {
					off, err := kh.Offsets.Offset(kg)
					if err != nil {
						t.Fatalf("subtask %d: %v", i, err)
					}
					held[i][kg] = source{kh.Delegate.Path, off}
				}
			}
		}
	}
	return held, ranges
}

// original is where each key group's state was checkpointed.
func original(c keyedCase) map[int]source {
	out := map[int]source{}
	for _, st := range c.state.Subtasks {
		if st == nil {
			continue
		}
		for _, h := range st.ManagedKeyedState {
			switch h := h.(type) {
			case *model.KeyGroupsStateHandle:
				for kg := h.Offsets.Range.Start; kg <= h.Offsets.Range.End; kg++ {
					out[kg] = source{h.Delegate.Path, int64(10 * kg)}
				}
			case *model.IncrementalKeyedStateHandle:
				for kg := h.Range.Start; kg <= h.Range.End; kg++ {
					out[kg] = source{h.Meta.Path, -1}
				}
			}
		}
	}
	return out
}

func requireKeyedCoverage(cov *coverage) {
	for l, m := range map[string]float64{"flink-1.18": 0.3, "flink-1.10.1": 0.3, "backend-incremental": 0.3, "backend-full": 0.3,
		"via-uid-hash": 0.1, "scale-up": 0.2, "scale-down": 0.2, "scale-same": 0.04, "M-mod-p-nonzero": 0.3} {
		cov.require(l, m)
	}
}

// TestKeyedAssignment: after AssignStates to any new parallelism, every key group's state
// reaches exactly the subtask that owns it (by the test's own range arithmetic), from the
// handle and offset it was checkpointed with — also when the operator finds its state through
// a user-defined ID (setUidHash).
func TestKeyedAssignment(t *testing.T) {
	cov := newCoverage(t)
	requireKeyedCoverage(cov)
	rapid.Check(t, func(t *rapid.T) {
		defer cov.next()
		c := drawKeyedCase(t, cov)
		p := rapid.IntRange(1, min(c.m, 16)).Draw(t, "p_new")
		cov.label(map[int]string{-1: "scale-down", 0: "scale-same", 1: "scale-up"}[cmpInt(p, c.pOld)])
		cov.labelIf(c.m%p != 0, "M-mod-p-nonzero")
		held, _ := assignKeyed(t, c, c.state, p)
		checkOwnership(t, c, held, p)
	})
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func checkOwnership(t *rapid.T, c keyedCase, held []map[int]source, p int) {
	want := original(c)
	for kg := range c.m {
		owner := ownerOf(kg, c.m, p)
		got, ok := held[owner][kg]
		if !ok {
			t.Fatalf("M=%d, p_old=%d → p=%d (%s): key group %d's state did not reach its owner, subtask %d", c.m, c.pOld, p, c.v, kg, owner)
		}
		if got != want[kg] {
			t.Fatalf("M=%d, p_old=%d → p=%d: key group %d on subtask %d comes from %+v, want %+v", c.m, c.pOld, p, kg, owner, got, want[kg])
		}
		for i := range p {
			if _, ok := held[i][kg]; ok && i != owner {
				t.Fatalf("M=%d, p_old=%d → p=%d: key group %d is also held by subtask %d (owner %d)", c.m, c.pOld, p, kg, i, owner)
			}
		}
	}
}

// restoredState turns an assignment's result at parallelism p back into a checkpointed
// operator state (what the next checkpoint would hold if nothing changed).
func restoredState(t *rapid.T, c keyedCase, p int) model.OperatorState {
	op := model.JobOperator{ID: stateID}
	a, err := model.AssignStates(model.AssignmentInput{Version: c.v, CheckpointID: 1,
		Vertices:  []model.JobVertex{{Name: "keyed", Operators: []model.JobOperator{op}, Parallelism: p, MaxParallelism: c.m, MaxParallelismConfigured: true}},
		Operators: []model.OperatorState{c.state}})
	if err != nil {
		t.Fatalf("AssignStates: %v", err)
	}
	out := model.OperatorState{OperatorID: stateID, Parallelism: p, MaxParallelism: c.m, Subtasks: make([]*model.OperatorSubtaskState, p)}
	for i, tr := range a.Vertices[0].Subtasks {
		if tr == nil {
			continue
		}
		st := tr.Operators[0].State
		out.Subtasks[i] = &st
	}
	return out
}

// TestKeyedRescaleMetamorphic: rescaling p1 → p2 → p3 leaves every subtask with the same key
// groups from the same handles and offsets as rescaling p1 → p3 directly.
func TestKeyedRescaleMetamorphic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := drawKeyedCase(t, scratchCoverage())
		c.viaUIDHash = false
		p2 := rapid.IntRange(1, min(c.m, 16)).Draw(t, "p2")
		p3 := rapid.IntRange(1, min(c.m, 16)).Draw(t, "p3")
		direct, _ := assignKeyed(t, c, c.state, p3)
		viaP2, _ := assignKeyed(t, c, restoredState(t, c, p2), p3)
		for i := range p3 {
			if d := cmp.Diff(direct[i], viaP2[i]); d != "" {
				t.Fatalf("M=%d: subtask %d after %d → %d → %d differs from %d → %d (-direct +via p2):\n%s", c.m, i, c.pOld, p2, p3, c.pOld, p3, d)
			}
		}
	})
}

// TestKeyedHandleOrder: the assignment does not depend on the order of the state handles (the
// old subtasks' handle lists reversed and rotated among the subtasks).
func TestKeyedHandleOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := drawKeyedCase(t, scratchCoverage())
		p := rapid.IntRange(1, min(c.m, 16)).Draw(t, "p_new")
		if p == c.pOld {
			return // unchanged parallelism hands each old subtask's list over as is, by index
		}
		var all []model.KeyedStateHandle
		for _, st := range c.state.Subtasks {
			if st != nil {
				all = append(all, st.ManagedKeyedState...)
			}
		}
		perm := rapid.Permutation(all).Draw(t, "handle order")
		shuffled := c.state
		shuffled.Subtasks = make([]*model.OperatorSubtaskState, c.pOld)
		for i, h := range perm {
			j := i % c.pOld
			if shuffled.Subtasks[j] == nil {
				shuffled.Subtasks[j] = &model.OperatorSubtaskState{}
			}
			shuffled.Subtasks[j].ManagedKeyedState = append(shuffled.Subtasks[j].ManagedKeyedState, h)
		}
		a, _ := assignKeyed(t, c, c.state, p)
		b, _ := assignKeyed(t, c, shuffled, p)
		for i := range p {
			if d := cmp.Diff(a[i], b[i]); d != "" {
				t.Fatalf("M=%d p_old=%d → %d: subtask %d depends on the handle order (-original +permuted):\n%s", c.m, c.pOld, p, i, d)
			}
		}
	})
}
