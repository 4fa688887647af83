package model

import (
	"fmt"
	"math"
	"slices"

	"github.com/restoresim/restoresim/model/internal/javamap"
	"github.com/restoresim/restoresim/model/internal/mutant"
)

// This file models StateAssignmentOperation.assignStates (SPEC §F) for Flink 1.18 and 1.10.1:
// which checkpointed operator state goes to which operator of the new job, how it is cut for the
// new parallelism, and which subtasks receive a restore object (JobManagerTaskRestore).

// AssignmentInput is what StateAssignmentOperation is built from.
type AssignmentInput struct {
	Version FlinkVersion
	// CheckpointID is the restored checkpoint's ID; every restore object carries it.
	CheckpointID int64
	// Vertices are the job vertices being restored (Flink's set of ExecutionJobVertex; this
	// order decides which error is reported first when several vertices are wrong).
	Vertices []JobVertex
	// Operators are the checkpoint's operator states, in checkpoint (metadata) order. Operator
	// IDs must be unique.
	Operators []OperatorState
	// AllowNonRestoredState skips checkpointed operators the new job does not have.
	AllowNonRestoredState bool
}

// Assignment is the result of AssignStates: per vertex, what each subtask restores.
type Assignment struct {
	// Version is AssignmentInput.Version, the Flink version the assignment models.
	Version FlinkVersion
	// Vertices correspond one to one, in order, to AssignmentInput.Vertices.
	Vertices []VertexAssignment
	// Unclaimed lists, in checkpoint order, the checkpointed operators that no operator took:
	// those skipped under AllowNonRestoredState, and (1.18) states whose ID passed the
	// completeness check but lost to the operator's other ID.
	Unclaimed []OperatorID
}

// VertexAssignment is the state assignment of one job vertex (Flink's TaskStateAssignment plus
// the restore objects it sets on the vertex's executions).
type VertexAssignment struct {
	// Name is the vertex's JobVertex.Name.
	Name        string
	Parallelism int
	// MaxParallelism is the vertex's max parallelism after the checks of SPEC §F.1 step 4.1,
	// i.e. possibly adopted from the restored state.
	MaxParallelism int
	// Adopted reports that MaxParallelism differs from the vertex's own (configured or default)
	// value: it was replaced by a restored one (ExecutionJobVertex.setMaxParallelism).
	Adopted bool
	// HasState reports that the vertex's state was repartitioned and assigned: in 1.18
	// TaskStateAssignment.hasNonFinishedState (some operator state has a subtask entry); in
	// 1.10.1, some operator of the vertex found an entry in the checkpoint.
	HasState bool
	// ChannelNeighbour reports (1.18) that the vertex has no state of its own (HasState is
	// false) but was repartitioned and assigned because an upstream vertex has result
	// subpartition or a downstream vertex input channel state (FLINK-31963): every subtask gets a
	// restore object, so that it filters the old in-flight data sent to it.
	ChannelNeighbour bool
	// DroppedChannelHandles counts the in-flight channel handles of the checkpoint that no new
	// subtask received, as in Flink: a vertex redistributing its channel state without an edge
	// for them (no input gate, no consumer, or a handle's gate or partition index that is none of
	// the vertex's). Zero when every handle found a new subtask.
	DroppedChannelHandles int
	// FullyFinished reports (1.18) that every operator of the vertex had finished before the
	// checkpoint (FLIP-147); every subtask is then restored as finished.
	FullyFinished bool
	// Hazard is set when the vertex's operator states carry different max parallelisms, so that
	// the adopted value depends on the order Flink checks them in (SPEC §F.1 "hazard"); nil
	// otherwise. See MaxParallelismHazard.
	Hazard *MaxParallelismHazard
	// Ranges are the new subtasks' key-group ranges, computed with MaxParallelism; nil when the
	// vertex's state was not repartitioned.
	Ranges []KeyGroupRange
	// Subtasks has Parallelism entries; a nil entry means the subtask gets no restore object
	// and starts without restore information.
	Subtasks []*TaskRestore
}

// MaxParallelismHazard describes the §F.1 hazard on one vertex. Flink checks the vertex's
// operator states one after the other and adopts each differing max parallelism in turn, so the
// last one checked wins. The model checks them in Flink's order: 1.10.1 walks the chain (a list);
// 1.18 walks a java.util.HashMap keyed by generated operator ID, whose iteration order the model
// emulates from OperatorID.hashCode (an emulation from reading the 1.18 source, not verified by
// running Flink). Operator states that had no entry in the checkpoint take part with the
// vertex's pre-adoption max parallelism, as in Flink.
//
// A vertex has the hazard exactly where Flink master refuses it (FLINK-40113's
// checkMaxParallelismAgreement): some operator state holds keyed state and the states recorded
// different max parallelisms. Master never has it.
type MaxParallelismHazard struct {
	// Checked lists the operator states in the order checked, with their max parallelism.
	Checked []MaxParallelismCheck
	// Reference and Conflict index Checked: the two operators master's refusal names, the first
	// checked and the first later one whose recorded max parallelism differs.
	Reference, Conflict int
	// Mismatched lists the operators holding keyed state (some subtask's managed or raw keyed
	// state) recorded with a max parallelism other than the one finally used: their keyed state
	// is cut with a foreign key-group count, so key groups can be lost or misplaced. Empty when
	// this order of the checks happens to end on the keyed state's own value.
	Mismatched []OperatorID
}

// MaxParallelismCheck is one operator state examined by checkParallelismPreconditions.
type MaxParallelismCheck struct {
	// OperatorID is the state's ID; GeneratedID the ID of the operator taking it, under which
	// Flink checks it and master's refusal names it (they differ for a state stored under a
	// user-defined ID).
	OperatorID, GeneratedID OperatorID
	MaxParallelism          int
	// FromCheckpoint is false for the empty state created for an operator without checkpoint entry.
	FromCheckpoint bool
	// KeyedState reports whether the state holds keyed state.
	KeyedState bool
}

// TaskRestore models JobManagerTaskRestore: the restore object of one subtask.
type TaskRestore struct {
	CheckpointID int64
	// Finished models TaskStateSnapshot.FINISHED_ON_RESTORE (1.18): the subtask is deployed as
	// finished. Operators is nil then.
	Finished bool
	// Operators holds one entry per operator of the chain, in the vertex's operator order, keyed
	// by generated ID (TaskStateSnapshot.putSubtaskStateByOperatorID).
	Operators []OperatorRestore
}

// OperatorRestore is one operator's entry of a TaskRestore.
type OperatorRestore struct {
	// OperatorID is the operator's generated ID, under which the task looks its state up.
	OperatorID OperatorID
	// State is the assigned state; empty collections are nil.
	State OperatorSubtaskState
}

// HasState reports whether some operator of the restore object has state
// (OperatorSubtaskState.hasState).
func (t *TaskRestore) HasState() bool {
	if t == nil {
		return false
	}
	for i := range t.Operators {
		if t.Operators[i].State.HasState() {
			return true
		}
	}
	return false
}

// vertexWork is the per-vertex scratch of one assignment (Flink's TaskStateAssignment).
type vertexWork struct {
	v          *JobVertex
	out        *VertexAssignment
	states     []*OperatorState // by chain position
	fromCkpt   []bool           // states[k] came from the checkpoint
	maxPar     int
	configured bool
	// per chain position, per new subtask
	managedOp, rawOp       [][][]OperatorStateHandle
	managedKeyed, rawKeyed [][][]KeyedStateHandle
	managedSet, rawSet     []bool
	inputChannel           [][]ChannelStateHandle // chain head only
	resultSubpartition     [][]ChannelStateHandle // chain tail (position 0) only

	// Channel state (channel.go): the vertex's index, the shared job scratch, Flink's
	// hasInputState / inputStateGates and hasOutputState / outputStatePartitions, and the
	// cached input and output mappings (inputSubtaskMappings, outputSubtaskMappings).
	idx                     int
	job                     *assignJob
	hasInput, hasOutput     bool
	inputGates              []int
	outputPartitions        []int
	inMappings, outMappings map[int]subtasksRescaleMapping
}

// AssignStates models StateAssignmentOperation.assignStates (SPEC §F): it checks that every
// checkpointed operator has a home, matches operators to their checkpointed state, checks and
// possibly adopts max parallelisms, repartitions operator state (RepartitionOperatorState) and
// keyed state (SPEC §D.4) for each vertex's new parallelism, and builds the restore objects.
//
// Version differences (SPEC §F.2): the completeness check accepts user-defined IDs in 1.18 only
// (FLINK-16638); 1.18 uses an operator's user-defined ID only while the checkpoint still holds
// state under it, 1.10.1 whenever it is set; 1.18 skips vertices whose states have no subtask
// entries, 1.10.1 vertices where no operator found an entry; 1.18 gives every subtask of an
// assigned vertex a restore object, 1.10.1 only subtasks where some operator has state; fully
// finished operators and in-flight channel state exist in 1.18 only (1.10.1 ignores both fields;
// a FullyFinished state is refused as invalid input there).
//
// In-flight channel state (1.18 on) is redistributed over the job edges (JobVertex.Inputs) as
// reDistributeInputChannelStates and reDistributeResultSubpartitionStates do, and every new
// subtask's input and output operator get an InflightDataRescalingDescriptor (channel.go);
// vertices that only neighbour channel state are repartitioned and assigned too (FLINK-31963,
// VertexAssignment.ChannelNeighbour). Flink walks the vertices in the order of a HashMap keyed
// by ExecutionJobVertex (identity hash codes, not reproducible); the model takes the order of
// AssignmentInput.Vertices, which matters only for which error comes first and where one
// vertex's lazily computed mappings are seen by another's descriptors.
//
// Errors, all typed (see errors.go): every refusal is a *RefusalError (its check and operator;
// see refusal.go) wrapping *NoOperatorForStateError, *MixedFinishedOperatorsError,
// *MaxParallelismBelowNewParallelismError, *MaxParallelismChangeNotSupportedError,
// *MaxParallelismOutOfBoundsError, *NullKeyedStateHandlesError (1.10.1), key-group range
// errors from ComputeKeyGroupRangeForOperatorIndex, RepartitionOperatorState's errors,
// ErrChannelStateTopologyChange, *UnsupportedRescaleError (a pointwise or broadcast edge whose
// in-flight data would have to be rescaled); the other error is ErrInvalidRestoreInput.
// They come in Flink's order: 1.18 checks completeness, then matches all vertices, then
// repartitions all, then assigns; 1.10.1 does all steps vertex by vertex.
//
// The result references the input's handles (cut keyed handles are new); it never shares a
// slice's spare capacity with the input. New subtasks receiving equal operator state share one
// handle list (a UNION state's, typically): the result is read-only.
func AssignStates(in AssignmentInput) (*Assignment, error) {
	if err := validateAssignmentInput(&in); err != nil {
		return nil, err
	}
	produced, err := validateEdges(in.Vertices)
	if err != nil {
		return nil, err
	}
	v := in.Version

	// Step 1: checkStateMappingCompleteness.
	known := make(map[OperatorID]struct{}, 2*len(in.Vertices))
	for i := range in.Vertices {
		for _, op := range in.Vertices[i].Operators {
			known[op.ID] = struct{}{}
			if op.UserDefinedID != nil && v != Flink1101 {
				known[*op.UserDefinedID] = struct{}{}
			}
		}
	}
	if !in.AllowNonRestoredState {
		// Flink walks the checkpoint's HashMap<OperatorID, OperatorState> (the loader's:
		// newHashMapWithExpectedSize(n), new HashMap<>(n) in 1.10.1, filled in checkpoint order),
		// so with several unknown states it names the first in that map's order.
		for _, i := range checkpointMapOrder(v, in.Operators) {
			if _, ok := known[in.Operators[i].OperatorID]; !ok {
				return nil, refuse(&NoOperatorForStateError{OperatorID: in.Operators[i].OperatorID}, in.Operators[i].OperatorID, "")
			}
		}
	}

	remaining := make(map[OperatorID]int, len(in.Operators))
	for i := range in.Operators {
		remaining[in.Operators[i].OperatorID] = i
	}
	out := &Assignment{Version: in.Version, Vertices: make([]VertexAssignment, len(in.Vertices))}
	work := make([]vertexWork, len(in.Vertices))
	for i := range in.Vertices {
		work[i] = vertexWork{v: &in.Vertices[i], out: &out.Vertices[i],
			maxPar: in.Vertices[i].MaxParallelism, configured: in.Vertices[i].MaxParallelismConfigured}
		out.Vertices[i].Name = in.Vertices[i].Name
		out.Vertices[i].Parallelism = in.Vertices[i].Parallelism
		out.Vertices[i].MaxParallelism = in.Vertices[i].MaxParallelism
		out.Vertices[i].Subtasks = make([]*TaskRestore, in.Vertices[i].Parallelism)
	}

	if v == Flink1101 {
		for i := range work {
			w := &work[i]
			w.match(v, in.Operators, remaining)
			if !slices.Contains(w.fromCkpt, true) {
				continue // skip tasks where no operator has any state
			}
			w.out.HasState = true
			if err := w.repartition(v); err != nil {
				return nil, err
			}
			if err := w.assign(v, in.CheckpointID); err != nil {
				return nil, err
			}
		}
	} else {
		job := &assignJob{rules: channelRulesOf(v), works: work, produced: produced}
		for i := range work {
			w := &work[i]
			w.idx, w.job = i, job
			w.match(v, in.Operators, remaining)
			w.channelFlags()
			finished := 0
			for k, s := range w.states {
				if s.HasSubtaskStates() || (mutant.On(mutant.StatelessVertexRepartitioned) && w.fromCkpt[k]) {
					w.out.HasState = true
				}
				if s.FullyFinished {
					finished++
				}
			}
			if finished > 0 && finished < len(w.states) {
				return nil, refuse(&MixedFinishedOperatorsError{Vertex: w.v.Name}, w.states[0].OperatorID, w.v.Name)
			}
			w.out.FullyFinished = finished > 0
		}
		for i := range work {
			// FLINK-31963: stateless vertices next to channel state are repartitioned too.
			work[i].out.ChannelNeighbour = !work[i].out.HasState && work[i].channelNeighbour()
		}
		for i := range work {
			if work[i].out.HasState || work[i].out.ChannelNeighbour {
				if err := work[i].repartition(v); err != nil {
					return nil, err
				}
			}
		}
		for i := range work {
			w := &work[i]
			switch {
			case w.out.HasState:
				if err := w.assign(v, in.CheckpointID); err != nil {
					return nil, err
				}
			case w.out.FullyFinished:
				backing := make([]TaskRestore, len(w.out.Subtasks))
				for s := range backing {
					backing[s] = TaskRestore{CheckpointID: in.CheckpointID, Finished: true}
					w.out.Subtasks[s] = &backing[s]
				}
			case w.out.ChannelNeighbour:
				if err := w.assign(v, in.CheckpointID); err != nil {
					return nil, err
				}
			}
		}
	}

	for i := range in.Operators {
		if _, ok := remaining[in.Operators[i].OperatorID]; ok {
			out.Unclaimed = append(out.Unclaimed, in.Operators[i].OperatorID)
		}
	}
	return out, nil
}

// match finds each operator's checkpointed state (SPEC §F.1 step 2, §F.2), removing claimed
// states from remaining; an operator without state gets an empty OperatorState with the
// vertex's parallelism and (pre-adoption) max parallelism.
func (w *vertexWork) match(v FlinkVersion, ops []OperatorState, remaining map[OperatorID]int) {
	n := len(w.v.Operators)
	w.states = make([]*OperatorState, n)
	w.fromCkpt = make([]bool, n)
	for k, op := range w.v.Operators {
		id := op.ID
		if op.UserDefinedID != nil && !mutant.On(mutant.UIDIgnored) {
			if _, ok := remaining[*op.UserDefinedID]; ok || v == Flink1101 {
				id = *op.UserDefinedID
			}
		}
		if idx, ok := remaining[id]; ok {
			delete(remaining, id)
			w.states[k] = &ops[idx]
			w.fromCkpt[k] = true
		} else {
			w.states[k] = &OperatorState{OperatorID: id, Parallelism: w.v.Parallelism, MaxParallelism: w.v.MaxParallelism}
		}
	}
}

// checkOrder gives the chain positions in the order Flink runs checkParallelismPreconditions:
// the chain order in 1.10.1 (a List<OperatorState>), the iteration order of the
// HashMap<OperatorID, OperatorState> keyed by generated ID in 1.18.
func (w *vertexWork) checkOrder(v FlinkVersion) []int {
	if v == Flink1101 || len(w.states) == 1 {
		order := make([]int, len(w.states))
		for k := range order {
			order[k] = k
		}
		return order
	}
	ids := make([]OperatorID, len(w.v.Operators))
	for k, op := range w.v.Operators {
		ids[k] = op.ID
	}
	return javaHashMapPutOrder(ids)
}

// repartition models StateAssignmentOperation.assignAttemptState for one vertex.
func (w *vertexWork) repartition(v FlinkVersion) error {
	if err := w.checkParallelismPreconditions(v); err != nil {
		return err
	}
	p := w.v.Parallelism
	ranges := make([]KeyGroupRange, p)
	for i := range ranges {
		r, err := ComputeKeyGroupRangeForOperatorIndex(w.maxPar, p, i)
		if err != nil {
			return refuseVertex(fmt.Errorf("vertex %s: key-group partitions for max parallelism %d and parallelism %d: %w", w.v.Name, w.maxPar, p, err), w.v.Name)
		}
		ranges[i] = r
	}
	w.out.Ranges = ranges
	w.out.MaxParallelism = w.maxPar

	n := len(w.states)
	w.managedOp = make([][][]OperatorStateHandle, n)
	w.rawOp = make([][][]OperatorStateHandle, n)
	for k, os := range w.states {
		var err error
		if w.managedOp[k], err = repartitionOperatorKind(v, os, p, false); err != nil {
			return refuse(fmt.Errorf("vertex %s, operator %v, managed operator state: %w", w.v.Name, os.OperatorID, err), os.OperatorID, w.v.Name)
		}
		if w.rawOp[k], err = repartitionOperatorKind(v, os, p, true); err != nil {
			return refuse(fmt.Errorf("vertex %s, operator %v, raw operator state: %w", w.v.Name, os.OperatorID, err), os.OperatorID, w.v.Name)
		}
	}
	if v != Flink1101 {
		if err := w.reDistributeInputChannelStates(v); err != nil {
			return err
		}
		if err := w.reDistributeResultSubpartitionStates(v); err != nil {
			return err
		}
	}
	w.managedKeyed = make([][][]KeyedStateHandle, n)
	w.rawKeyed = make([][][]KeyedStateHandle, n)
	w.managedSet = make([]bool, n)
	w.rawSet = make([]bool, n)
	for k, os := range w.states {
		if os.Parallelism == p {
			mk, rk := make([][]KeyedStateHandle, p), make([][]KeyedStateHandle, p)
			next := 0 // (mutant: the next old subtask with an entry)
			for i := range p {
				st := os.Subtask(i)
				if mutant.On(mutant.MissingSubtaskShifts) {
					for st = nil; next < p && st == nil; next++ {
						st = os.Subtask(next)
					}
				}
				if st != nil {
					mk[i], rk[i] = clip(st.ManagedKeyedState), clip(st.RawKeyedState)
				}
			}
			w.managedKeyed[k], w.rawKeyed[k] = mk, rk
		} else {
			if v == Flink1101 && !os.HasSubtaskStates() {
				return refuse(&NullKeyedStateHandlesError{OperatorID: os.OperatorID, OldParallelism: os.Parallelism, NewParallelism: p}, os.OperatorID, w.v.Name)
			}
			w.managedKeyed[k], w.rawKeyed[k] = cutKeyedStates(os, ranges, w.maxPar)
		}
		w.managedSet[k], w.rawSet[k] = true, true
	}
	return nil
}

// checkParallelismPreconditions models StateAssignmentOperation.checkParallelismPreconditions
// over all operator states of the vertex, in Flink's order, and records the hazard.
func (w *vertexWork) checkParallelismPreconditions(v FlinkVersion) error {
	p := w.v.Parallelism
	order := w.checkOrder(v)
	if v == FlinkMaster {
		if err := w.checkMaxParallelismAgreement(order); err != nil {
			return err
		}
	}
	for _, k := range order {
		os := w.states[k]
		if os.MaxParallelism < p {
			return refuse(&MaxParallelismBelowNewParallelismError{Vertex: w.v.Name, OperatorID: os.OperatorID,
				StateMaxParallelism: os.MaxParallelism, Parallelism: p}, os.OperatorID, w.v.Name)
		}
		if os.MaxParallelism == w.maxPar {
			continue
		}
		adopt, err := canRescaleMaxParallelism(v, w.configured, os.MaxParallelism)
		if err != nil {
			return refuse(err, os.OperatorID, w.v.Name)
		}
		if !adopt {
			return refuse(&MaxParallelismChangeNotSupportedError{Vertex: w.v.Name, OperatorID: os.OperatorID,
				StateMaxParallelism: os.MaxParallelism, VertexMaxParallelism: w.maxPar}, os.OperatorID, w.v.Name)
		}
		w.maxPar = normalizeMaxParallelism(v, os.MaxParallelism) // setMaxParallelism
	}
	w.out.Adopted = w.maxPar != w.v.MaxParallelism
	// The hazard is where master's checkMaxParallelismAgreement refuses (FLINK-40113): only the
	// keyed state is cut with the max parallelism, so a vertex without keyed state adopts
	// whichever value harmlessly.
	ag := w.agreement(order)
	if !ag.refuses() {
		return nil
	}
	hz := &MaxParallelismHazard{}
	for i, k := range order {
		os := w.states[k]
		hz.Checked = append(hz.Checked, MaxParallelismCheck{OperatorID: os.OperatorID, GeneratedID: w.v.Operators[k].ID,
			MaxParallelism: os.MaxParallelism, FromCheckpoint: w.fromCkpt[k], KeyedState: hasKeyedState(os)})
		switch k {
		case ag.ref:
			hz.Reference = i
		case ag.conflict:
			hz.Conflict = i
		}
		if hasKeyedState(os) && normalizeMaxParallelism(v, os.MaxParallelism) != w.maxPar {
			hz.Mismatched = append(hz.Mismatched, os.OperatorID)
		}
	}
	w.out.Hazard = hz
	return nil
}

// canRescaleMaxParallelism models ExecutionJobVertex.canRescaleMaxParallelism: 1.10.1 asks only
// !isMaxParallelismConfigured(); 1.18 (DefaultVertexParallelismInfo) refuses −1, normalises
// Integer.MAX_VALUE to 32768, throws for values outside 1..32768, and then allows the change
// only for a max parallelism that was not configured.
func canRescaleMaxParallelism(v FlinkVersion, configured bool, desired int) (bool, error) {
	if v == Flink1101 {
		return !configured, nil
	}
	if desired == -1 {
		return false, nil
	}
	n := normalizeMaxParallelism(v, desired)
	if n < 1 || n > UpperBoundMaxParallelism {
		return false, &MaxParallelismOutOfBoundsError{MaxParallelism: desired}
	}
	return !configured, nil
}

// normalizeMaxParallelism models DefaultVertexParallelismInfo.normalizeAndCheckMaxParallelism's
// mapping of PARALLELISM_AUTO_MAX (Integer.MAX_VALUE) to 32768 (1.18 only).
func normalizeMaxParallelism(v FlinkVersion, m int) int {
	if v != Flink1101 && m == math.MaxInt32 {
		return UpperBoundMaxParallelism
	}
	return m
}

// repartitionOperatorKind models reDistributePartitionableStates for one operator and one kind
// (managed or raw): splitBySubtasks, then the round-robin repartitioner.
func repartitionOperatorKind(v FlinkVersion, os *OperatorState, p int, raw bool) ([][]OperatorStateHandle, error) {
	found := false
	previous := make([][]OperatorStateHandle, os.Parallelism)
	for j := range previous {
		if st := os.Subtask(j); st != nil {
			if raw {
				previous[j] = st.RawOperatorState
			} else {
				previous[j] = st.ManagedOperatorState
			}
			found = found || len(previous[j]) > 0
		}
	}
	if !found {
		// The repartitioner gives every new subtask an empty list when there is no handle.
		return make([][]OperatorStateHandle, p), nil
	}
	return repartitionOperatorState(v, previous, p, true) // equal subtask lists shared: UNION is O(P_old)
}

// assign models assignTaskStateToExecutionJobVertices for a vertex whose state was
// repartitioned: one OperatorSubtaskState per operator and subtask, and a restore object per
// subtask (1.18: every subtask; 1.10.1: subtasks where some operator has state).
func (w *vertexWork) assign(v FlinkVersion, checkpointID int64) error {
	p, n := w.v.Parallelism, len(w.states)
	tasks := make([]TaskRestore, p)
	ops := make([]OperatorRestore, p*n)
	head := n - 1
	for i := range p {
		t := &tasks[i]
		t.CheckpointID = checkpointID
		t.Operators = ops[i*n : (i+1)*n : (i+1)*n]
		for k, op := range w.v.Operators {
			if !w.managedSet[k] && w.rawSet[k] {
				return refuse(&RawKeyedStateWithoutManagedError{OperatorID: op.ID, Subtask: i}, op.ID, w.v.Name)
			}
			st := OperatorSubtaskState{
				ManagedOperatorState: clip(w.managedOp[k][i]),
				RawOperatorState:     clip(w.rawOp[k][i]),
				ManagedKeyedState:    clip(w.managedKeyed[k][i]),
				RawKeyedState:        clip(w.rawKeyed[k][i]),
			}
			if k == head && w.inputChannel != nil {
				st.InputChannelState = clip(w.inputChannel[i])
			}
			if k == 0 && w.resultSubpartition != nil {
				st.ResultSubpartitionState = clip(w.resultSubpartition[i])
			}
			if v != Flink1101 && w.job != nil {
				// getSubtaskState: the input descriptor, then the output descriptor.
				var err error
				if k == head {
					if st.InputRescalingDescriptor, err = w.rescalingDescriptor(i, true); err != nil {
						return err
					}
				}
				if k == 0 {
					if st.OutputRescalingDescriptor, err = w.rescalingDescriptor(i, false); err != nil {
						return err
					}
				}
			}
			t.Operators[k] = OperatorRestore{OperatorID: op.ID, State: st}
		}
		if v == Flink1101 && !t.HasState() {
			continue
		}
		w.out.Subtasks[i] = t
	}
	return nil
}

// validateAssignmentInput rejects input Flink could not have built.
func validateAssignmentInput(in *AssignmentInput) error {
	if !in.Version.Known() {
		return fmt.Errorf("%w: %v", ErrUnknownFlinkVersion, in.Version)
	}
	generated := make(map[OperatorID]struct{})
	for i := range in.Vertices {
		vx := &in.Vertices[i]
		if err := CheckParallelismPreconditions(vx.Parallelism); err != nil {
			return fmt.Errorf("%w: vertex %q: %w", ErrInvalidRestoreInput, vx.Name, err)
		}
		if len(vx.Operators) == 0 {
			return fmt.Errorf("%w: vertex %q has no operators", ErrInvalidRestoreInput, vx.Name)
		}
		for _, op := range vx.Operators {
			if _, dup := generated[op.ID]; dup {
				return fmt.Errorf("%w: generated operator ID %v appears twice in the job", ErrInvalidRestoreInput, op.ID)
			}
			generated[op.ID] = struct{}{}
		}
	}
	seen := make(map[OperatorID]struct{}, len(in.Operators))
	for i := range in.Operators {
		os := &in.Operators[i]
		if _, dup := seen[os.OperatorID]; dup {
			return fmt.Errorf("%w: operator state %v appears twice in the checkpoint", ErrInvalidRestoreInput, os.OperatorID)
		}
		seen[os.OperatorID] = struct{}{}
		if err := validateOperatorStateHandles(os); err != nil {
			return err
		}
		if os.FullyFinished && in.Version == Flink1101 {
			return fmt.Errorf("%w: operator state %v is fully finished, which Flink 1.10.1 does not know",
				ErrInvalidRestoreInput, os.OperatorID)
		}
		if os.FullyFinished && os.HasSubtaskStates() {
			return fmt.Errorf("%w: operator state %v is fully finished but has %d subtask entries",
				ErrInvalidRestoreInput, os.OperatorID, os.NumberOfSubtaskEntries())
		}
	}
	return nil
}

// javaHashMapPutOrder gives the iteration order (as indexes into ids) of a java.util.HashMap
// created by CollectionUtil.newHashMapWithExpectedSize(len(ids)) and filled with put in the
// order of ids (distinct keys), tree bins included (package javamap).
func javaHashMapPutOrder(ids []OperatorID) []int {
	m := javamap.WithExpectedSize(operatorIDClass, len(ids))
	for _, id := range ids {
		m.Put(id)
	}
	return m.Order()
}

// checkpointMapOrder gives the iteration order (indexes into ops, whose IDs are distinct) of the
// HashMap<OperatorID, OperatorState> Flink's checkpoint loader fills with ops in order:
// CollectionUtil.newHashMapWithExpectedSize(n), new HashMap<>(n) in 1.10.1.
func checkpointMapOrder(v FlinkVersion, ops []OperatorState) []int {
	if len(ops) < 2 {
		return []int{0}[:len(ops)]
	}
	m := javamap.WithExpectedSize(operatorIDClass, len(ops))
	if v == Flink1101 {
		m = javamap.WithInitialCapacity(operatorIDClass, len(ops))
	}
	for i := range ops {
		m.Put(ops[i].OperatorID)
	}
	return m.Order()
}

// operatorIDClass is Flink's OperatorID as a HashMap key: AbstractID.hashCode and equals, and
// no compareTo, because HashMap.comparableClassFor rejects OperatorID (it inherits
// Comparable<AbstractID> rather than declaring Comparable<OperatorID>), so a tree bin orders
// OperatorIDs of equal hash code by identity hash codes (see javamap).
var operatorIDClass = javamap.Class[OperatorID]{HashCode: operatorIDHashCode}

// operatorIDHashCode models AbstractID.hashCode: the XOR of the four 32-bit halves of the lower
// and upper longs.
func operatorIDHashCode(id OperatorID) int32 {
	var h uint32
	for i := 0; i < 16; i += 4 {
		h ^= uint32(id[i])<<24 | uint32(id[i+1])<<16 | uint32(id[i+2])<<8 | uint32(id[i+3])
	}
	return int32(h)
}
