package model

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// The tests of this file derive from Flink master's
// flink-runtime/src/main/java/org/apache/flink/runtime/checkpoint/StateAssignmentOperation.java
// (commit 47abc18f7ac, FLINK-40113), as read:
//
//   - checkParallelismPreconditions(TaskStateAssignment) calls checkMaxParallelismAgreement
//     first, for every vertex assignAttemptState repartitions;
//   - checkMaxParallelismAgreement walks taskStateAssignment.oldState.entrySet() — the
//     HashMap<OperatorID, OperatorState> of buildStateAssignments, keyed by each operator's
//     *generated* ID and holding a new OperatorState(…, executionJobVertex.getMaxParallelism())
//     for an operator without an entry — taking the first entry as the reference and the first
//     later entry whose getMaxParallelism() differs from the reference's as the conflict;
//   - vertexHasKeyedState |= hasKeyedState(operatorState), where hasKeyedState is true when some
//     subtask state's getManagedKeyedState() or getRawKeyedState() is not empty (operator state,
//     empty subtask entries and coordinator state do not count);
//   - it throws only when vertexHasKeyedState && conflictingOperator != null, naming
//     referenceOperator and conflictingOperator (entry keys) and their recorded values, in that
//     order.

// agreementKind is what one operator of a test chain holds in the checkpoint.
type agreementKind int

const (
	agKeyed   agreementKind = iota // managed and raw keyed state (and operator state)
	agOpState                      // operator state only (a source reader's)
	agEmpty                        // one empty subtask entry (a stateless operator's)
	agNone                         // no entry in the checkpoint: Flink synthesizes one
)

// agreementOp is one operator of a test chain.
type agreementOp struct {
	kind agreementKind
	max  int  // recorded max parallelism (agNone: the vertex's)
	uidh bool // the state is stored under a setUidHash ID
}

// agreementCase builds the vertex (p=1, max parallelism 128 not configured) and the checkpoint.
func agreementCase(seed int, ops []agreementOp) (JobVertex, []OperatorState) {
	vx := JobVertex{Name: "chain", Parallelism: 1, MaxParallelism: 128}
	var states []OperatorState
	for i, op := range ops {
		gen := OperatorIDFromUID(fmt.Sprint("agreement-", seed, "-", i))
		jo := JobOperator{ID: gen}
		stored := gen
		if op.uidh {
			ud := OperatorIDFromUID(fmt.Sprint("agreement-hash-", seed, "-", i))
			jo.UserDefinedID, stored = &ud, ud
		}
		vx.Operators = append(vx.Operators, jo)
		switch op.kind {
		case agKeyed:
			states = append(states, saOperatorState(stored, 1, op.max, true))
		case agOpState:
			states = append(states, saOperatorState(stored, 1, op.max, false))
		case agEmpty:
			states = append(states, OperatorState{OperatorID: stored, Parallelism: 1, MaxParallelism: op.max, Subtasks: []*OperatorSubtaskState{{}}})
		}
	}
	return vx, states
}

// flinkAgreement transcribes checkMaxParallelismAgreement over the test chain: it returns
// whether master throws and the two operators (generated IDs) and values its message names.
func flinkAgreement(vx JobVertex, ops []agreementOp) (throws bool, ref, conflict OperatorID, refMax, conflictMax int) {
	gen := make([]OperatorID, len(vx.Operators))
	for k, op := range vx.Operators {
		gen[k] = op.ID
	}
	refK, conflictK, keyed := -1, -1, false
	for _, k := range javaHashMapPutOrder(gen) { // oldState.entrySet()
		recorded := ops[k].max
		if ops[k].kind == agNone {
			recorded = vx.MaxParallelism // new OperatorState(…, executionJobVertex.getMaxParallelism())
		}
		keyed = keyed || ops[k].kind == agKeyed
		if refK < 0 {
			refK, refMax = k, recorded
		} else if conflictK < 0 && recorded != refMax {
			conflictK, conflictMax = k, recorded
		}
	}
	if conflictK < 0 {
		return false, gen[refK], OperatorID{}, refMax, 0
	}
	return keyed && conflictK >= 0, gen[refK], gen[conflictK], refMax, conflictMax
}

// TestFLINK40113AgreementRule checks, on 600 random chains of keyed, operator-state-only,
// empty and absent operator states (some stored under setUidHash IDs), that master refuses
// exactly where Flink's checkMaxParallelismAgreement throws, with its message (the two
// operators by generated ID, in HashMap order), and that the released versions report the
// hazard (the known issue) on exactly those chains, naming the same two operators.
func TestFLINK40113AgreementRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(40113, 1))
	refused, hazards := 0, 0
	for seed := range 600 {
		n := 2 + rng.IntN(3)
		ops := make([]agreementOp, n)
		for i := range ops {
			ops[i] = agreementOp{kind: agreementKind(rng.IntN(4)), max: []int{1, 64, 128}[rng.IntN(3)], uidh: rng.IntN(4) == 0}
		}
		if !slices.ContainsFunc(ops, func(op agreementOp) bool { return op.kind != agNone }) {
			continue // no state at all: the vertex is not repartitioned
		}
		vx, states := agreementCase(seed, ops)
		throws, ref, conflict, refMax, conflictMax := flinkAgreement(vx, ops)
		name := fmt.Sprintf("seed %d %+v", seed, ops)

		_, err := flink40113(FlinkMaster, vx, states...)
		if throws {
			refused++
			want := (&MaxParallelismDisagreementError{Vertex: "chain", A: ref, B: conflict, AMax: refMax, BMax: conflictMax}).Error()
			var rf *RefusalError
			if err == nil || err.Error() != want || !errors.As(err, &rf) || rf.Check != CheckMaxParallelismAgreement {
				t.Errorf("%s: master: %v\nwant %s", name, err, want)
			} else if k := slices.IndexFunc(states, func(os OperatorState) bool { return os.OperatorID == rf.OperatorID }); k < 0 || !hasKeyedState(&states[k]) {
				t.Errorf("%s: master's refusal names operator %v, which holds no keyed state", name, rf.OperatorID)
			}
		} else if err != nil {
			t.Errorf("%s: master: %v, want a restore (Flink does not throw)", name, err)
		}

		a, err := flink40113(Flink23, vx, states...)
		if err != nil {
			t.Errorf("%s: 2.3: %v", name, err)
			continue
		}
		hz := a.Vertices[0].Hazard
		if (hz != nil) != throws {
			t.Errorf("%s: 2.3 hazard %+v, want one iff master refuses (%v)", name, hz, throws)
			continue
		}
		if hz == nil {
			continue
		}
		hazards++
		if r, c := hz.Checked[hz.Reference], hz.Checked[hz.Conflict]; r.GeneratedID != ref || c.GeneratedID != conflict || r.MaxParallelism != refMax || c.MaxParallelism != conflictMax {
			t.Errorf("%s: 2.3 hazard names %v (%d) and %v (%d), master %v (%d) and %v (%d)", name, r.GeneratedID, r.MaxParallelism, c.GeneratedID, c.MaxParallelism, ref, refMax, conflict, conflictMax)
		}
		for _, id := range hz.Mismatched {
			k := slices.IndexFunc(states, func(os OperatorState) bool { return os.OperatorID == id })
			if k < 0 || !hasKeyedState(&states[k]) || states[k].MaxParallelism == a.Vertices[0].MaxParallelism {
				t.Errorf("%s: 2.3 hazard says the keyed state of %v is cut with a foreign key-group count (adopted %d)", name, id, a.Vertices[0].MaxParallelism)
			}
		}
		for k := range states {
			if hasKeyedState(&states[k]) && states[k].MaxParallelism != a.Vertices[0].MaxParallelism && !slices.Contains(hz.Mismatched, states[k].OperatorID) {
				t.Errorf("%s: 2.3 cuts the keyed state of %v (%d) with %d, not in %v", name, states[k].OperatorID, states[k].MaxParallelism, a.Vertices[0].MaxParallelism, hz.Mismatched)
			}
		}
	}
	t.Logf("%d refused on master, %d hazards on 2.3", refused, hazards)
	if refused < 50 || hazards != refused {
		t.Errorf("%d refusals, %d hazards: the cases exercise too little", refused, hazards)
	}
}

// TestFLINK40113NoKeyedStateNoHazard: the SQL source chained with a max-parallelism-1 operator
// that holds no keyed state (issue 28): an operator-state-only state (a source reader's, max
// 128) and an empty entry (max 1) disagree, but hasKeyedState is false for both, so master
// restores and no release reports the hazard (nothing is cut by a max parallelism).
func TestFLINK40113NoKeyedStateNoHazard(t *testing.T) {
	ops := []agreementOp{{kind: agOpState, max: 128}, {kind: agEmpty, max: 1}, {kind: agNone}}
	vx, states := agreementCase(0, ops)
	for _, v := range FlinkVersions() {
		a, err := flink40113(v, vx, states...)
		if err != nil {
			t.Errorf("%v: %v", v, err)
			continue
		}
		if hz := a.Vertices[0].Hazard; hz != nil {
			t.Errorf("%v: hazard %+v on a chain without keyed state", v, hz)
		}
	}
}

// TestFLINK40113NamesGeneratedIDs: Flink's message names the keys of oldState, the generated
// IDs, also for a state stored (and found) under a setUidHash ID; the refusal's operator is the
// keyed state, by the ID it is stored under.
func TestFLINK40113NamesGeneratedIDs(t *testing.T) {
	ops := []agreementOp{{kind: agKeyed, max: 512, uidh: true}, {kind: agNone}}
	vx, states := agreementCase(1, ops)
	_, err := flink40113(FlinkMaster, vx, states...)
	var dis *MaxParallelismDisagreementError
	var rf *RefusalError
	if !errors.As(err, &dis) || !errors.As(err, &rf) {
		t.Fatalf("master: %v", err)
	}
	gen, ud := vx.Operators[0].ID, *vx.Operators[0].UserDefinedID
	if (dis.A != gen || dis.B != vx.Operators[1].ID) && (dis.B != gen || dis.A != vx.Operators[1].ID) {
		t.Errorf("message names %v and %v, want the generated IDs %v and %v", dis.A, dis.B, gen, vx.Operators[1].ID)
	}
	if rf.OperatorID != ud {
		t.Errorf("refusal's operator %v, want the keyed state's stored ID %v", rf.OperatorID, ud)
	}
}
