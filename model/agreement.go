package model

import (
	"errors"
	"strconv"
)

// ErrMaxParallelismDisagreement matches every *MaxParallelismDisagreementError: the
// IllegalStateException of StateAssignmentOperation.checkMaxParallelismAgreement (master only,
// FLINK-40113; SPEC-VERSIONS.md §2.1).
var ErrMaxParallelismDisagreement = errors.New("operators chained into the same keyed vertex recorded different maximum parallelism")

// MaxParallelismDisagreementError is returned by AssignStates on master when a vertex with keyed
// state has operator states (an operator without an entry in the checkpoint counts, with the
// vertex's current max parallelism) that recorded different max parallelisms. A and B are the
// two operators Flink's message names, by generated ID (the keys of TaskStateAssignment.oldState):
// A the first in Flink's order (a java.util.HashMap's), B the first later one whose recorded max
// parallelism differs from A's. Either may hold no state at all: Flink picks them by order
// alone, and the keyed state may be a third operator's.
type MaxParallelismDisagreementError struct {
	// Vertex is the job vertex's name (Flink prints its JobVertexID).
	Vertex     string
	A, B       OperatorID
	AMax, BMax int
}

// Error gives the message, following Flink's text.
func (e *MaxParallelismDisagreementError) Error() string {
	return "The state for the execution job vertex " + e.Vertex + " can not be restored. Operators " + e.A.String() +
		" and " + e.B.String() + " are chained into the same keyed vertex but recorded different maximum parallelism in the checkpoint (" +
		strconv.Itoa(e.AMax) + " and " + strconv.Itoa(e.BMax) + "). Restoring would remap keyed state through an incompatible key-group layout. This is currently not supported."
}

// Is reports whether target is ErrMaxParallelismDisagreement.
func (e *MaxParallelismDisagreementError) Is(target error) bool {
	return target == ErrMaxParallelismDisagreement
}

// agreement is what StateAssignmentOperation.checkMaxParallelismAgreement (master, FLINK-40113)
// finds on one vertex, walking its operator states in Flink's order (order: chain positions):
// ref is the first state (the reference), conflict the first later one whose recorded max
// parallelism differs from the reference's (-1 when none), keyed whether some subtask of some
// operator has managed or raw keyed state (hasKeyedState). Flink compares the recorded values
// as they are (no normalisation) and counts every state of the map, synthesized ones included.
type agreement struct {
	ref, conflict int
	keyed         bool
}

// refuses reports whether master refuses the vertex: it has keyed state and a conflict.
func (a agreement) refuses() bool { return a.keyed && a.conflict >= 0 }

func (w *vertexWork) agreement(order []int) agreement {
	a := agreement{ref: -1, conflict: -1}
	for _, k := range order {
		os := w.states[k]
		a.keyed = a.keyed || hasKeyedState(os)
		switch {
		case a.ref < 0:
			a.ref = k
		case a.conflict < 0 && os.MaxParallelism != w.states[a.ref].MaxParallelism:
			a.conflict = k
		}
	}
	return a
}

// checkMaxParallelismAgreement models StateAssignmentOperation.checkMaxParallelismAgreement
// (master, FLINK-40113; called first by checkParallelismPreconditions(TaskStateAssignment)):
// a vertex with keyed state whose operator states recorded different max parallelisms is
// refused, naming the reference and the first conflicting operator by their generated IDs (the
// keys of Flink's oldState map), with their recorded values. The refusal is of the whole vertex;
// its RefusalError names the first operator in Flink's order whose state holds keyed state (the
// state the check protects; Flink's message may name neither it nor any state at all).
func (w *vertexWork) checkMaxParallelismAgreement(order []int) error {
	a := w.agreement(order)
	if !a.refuses() {
		return nil
	}
	e := &MaxParallelismDisagreementError{Vertex: w.v.Name, A: w.v.Operators[a.ref].ID, B: w.v.Operators[a.conflict].ID,
		AMax: w.states[a.ref].MaxParallelism, BMax: w.states[a.conflict].MaxParallelism}
	for _, k := range order {
		if hasKeyedState(w.states[k]) {
			return refuse(e, w.states[k].OperatorID, w.v.Name)
		}
	}
	panic("model: internal error: a keyed vertex without keyed state")
}

// hasKeyedState models StateAssignmentOperation.hasKeyedState (master): some subtask of os has
// a non-empty managed or raw keyed state collection.
func hasKeyedState(os *OperatorState) bool {
	for _, st := range os.Subtasks {
		if st != nil && (len(st.ManagedKeyedState) > 0 || len(st.RawKeyedState) > 0) {
			return true
		}
	}
	return false
}
