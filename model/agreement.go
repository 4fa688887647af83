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
// vertex's current max parallelism) that recorded different max parallelisms: the first state
// in Flink's order (A) and the first later one that differs (B).
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

// checkMaxParallelismAgreement models StateAssignmentOperation.checkMaxParallelismAgreement
// (master, FLINK-40113): over the vertex's operator states in Flink's order, the first is the
// reference and the first later one with another recorded max parallelism conflicts; a vertex
// where some subtask of some operator has managed or raw keyed state is refused on a conflict.
// The refusal names the conflicting state that holds keyed state (else the reference).
func (w *vertexWork) checkMaxParallelismAgreement(order []int) error {
	if len(order) < 2 {
		return nil
	}
	ref, conflict := order[0], -1
	keyed := false
	for i, k := range order {
		os := w.states[k]
		if i > 0 && conflict < 0 && os.MaxParallelism != w.states[ref].MaxParallelism {
			conflict = k
		}
		keyed = keyed || hasKeyedState(os)
	}
	if !keyed || conflict < 0 {
		return nil
	}
	a, b := w.states[ref], w.states[conflict]
	named := a.OperatorID
	if w.fromCkpt[conflict] && hasKeyedState(b) || !w.fromCkpt[ref] {
		named = b.OperatorID
	}
	return refuse(&MaxParallelismDisagreementError{Vertex: w.v.Name, A: a.OperatorID, B: b.OperatorID,
		AMax: a.MaxParallelism, BMax: b.MaxParallelism}, named, w.v.Name)
}

// hasKeyedState reports whether some subtask of os has managed or raw keyed state.
func hasKeyedState(os *OperatorState) bool {
	for _, st := range os.Subtasks {
		if st != nil && (len(st.ManagedKeyedState) > 0 || len(st.RawKeyedState) > 0) {
			return true
		}
	}
	return false
}
