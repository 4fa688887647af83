package model

import (
	"errors"
	"strconv"
)

// This file holds the typed errors of the restore path: checkpoint loading (SPEC §G,
// Checkpoints.loadAndValidateCheckpoint), state assignment (SPEC §F,
// StateAssignmentOperation and TaskStateAssignment) and the RocksDB restore choice (SPEC §D.3).
// Each Flink exception condition has a sentinel for errors.Is and, where numbers or IDs help, a
// struct type for errors.As whose message follows Flink's text.

var (
	// ErrNoOperatorForState matches every *NoOperatorForStateError: the IllegalStateException of
	// StateAssignmentOperation.checkStateMappingCompleteness.
	ErrNoOperatorForState = errors.New("there is no operator for the state")

	// ErrMaxParallelismMismatch matches every *MaxParallelismMismatchError: the
	// IllegalStateException of Checkpoints.loadAndValidateCheckpoint.
	ErrMaxParallelismMismatch = errors.New("max parallelism mismatch between checkpoint/savepoint state and new program")

	// ErrMaxParallelismBelowNewParallelism matches every *MaxParallelismBelowNewParallelismError:
	// the IllegalStateException of StateAssignmentOperation.checkParallelismPreconditions when the
	// restored state's max parallelism is below the vertex's new parallelism.
	ErrMaxParallelismBelowNewParallelism = errors.New("max parallelism of the restored state is lower than the new parallelism")

	// ErrMaxParallelismChangeNotSupported matches every *MaxParallelismChangeNotSupportedError:
	// the IllegalStateException of StateAssignmentOperation.checkParallelismPreconditions when the
	// max parallelism changed and the vertex may not adopt the restored one.
	ErrMaxParallelismChangeNotSupported = errors.New("changing the max parallelism is not supported")

	// ErrMaxParallelismOutOfBounds matches every *MaxParallelismOutOfBoundsError: the
	// IllegalArgumentException of DefaultVertexParallelismInfo (1.18) when
	// canRescaleMaxParallelism is asked about a restored max parallelism outside 1..32768.
	ErrMaxParallelismOutOfBounds = errors.New("max parallelism not within bounds")

	// ErrNonRestoredState matches every *NonRestoredStateError: the IllegalStateException of
	// Checkpoints.loadAndValidateCheckpoint (throwNonRestoredStateException) for state that no
	// operator of the new program claims.
	ErrNonRestoredState = errors.New("cannot map checkpoint/savepoint state to the new program")

	// ErrMixedFinishedOperators matches every *MixedFinishedOperatorsError: the
	// IllegalStateException of the TaskStateAssignment constructor (1.18, FLIP-147).
	ErrMixedFinishedOperators = errors.New("job vertex could not have mixed finished and unfinished operators")

	// ErrRawKeyedStateWithoutManaged matches every *RawKeyedStateWithoutManagedError: the
	// IllegalStateException of TaskStateAssignment.getSubtaskState (1.18) and
	// StateAssignmentOperation.operatorSubtaskStateFrom (1.10.1).
	ErrRawKeyedStateWithoutManaged = errors.New("operator has raw keyed state but no managed keyed state")

	// ErrNullKeyedStateHandles matches every *NullKeyedStateHandlesError: the
	// NullPointerException that Flink 1.10.1 throws in
	// StateAssignmentOperation.reAssignSubKeyedStates when an operator state without any
	// subtask entry is restored at a changed parallelism (getManaged/RawKeyedStateHandles
	// return null; fixed by FLINK-22966).
	ErrNullKeyedStateHandles = errors.New("keyed state handles are null")

	// ErrUnexpectedStateHandleType matches every *UnexpectedStateHandleTypeError: the
	// IllegalStateException of the RocksDB restore operations for a handle of the wrong kind.
	ErrUnexpectedStateHandleType = errors.New("unexpected state handle type")

	// ErrChannelStateTopologyChange matches the IllegalStateException of
	// StateAssignmentOperation.checkForUnsupportedToplogyChanges (1.18): in-flight channel state
	// of an operator that is no longer the input (or output) operator of its chain.
	ErrChannelStateTopologyChange = errors.New("cannot recover from unaligned checkpoint when topology changes, such that data exchanges with persisted data are now chained")

	// ErrInvalidRestoreInput matches errors for input Flink could not have built (duplicate
	// operator IDs, an operator state with more subtask entries than its parallelism, a vertex
	// without operators, …). Not a Flink exception; the message names the problem.
	ErrInvalidRestoreInput = errors.New("invalid restore input")
)

// NoOperatorForStateError is returned when a checkpointed operator has no operator in the new
// job and allowNonRestoredState is off (SPEC §F.1 step 1).
type NoOperatorForStateError struct {
	OperatorID OperatorID
}

// Error gives the message, following Flink\'s text.
func (e *NoOperatorForStateError) Error() string {
	return "There is no operator for the state " + e.OperatorID.String()
}

// Is reports whether target is ErrNoOperatorForState.
func (e *NoOperatorForStateError) Is(target error) bool { return target == ErrNoOperatorForState }

// MaxParallelismMismatchError is returned by LoadAndValidateCheckpoint when a matched vertex has
// another max parallelism and may not adopt the checkpoint's (SPEC §G step 4).
type MaxParallelismMismatchError struct {
	// Checkpoint names the checkpoint (its external pointer, or "checkpoint <id>").
	Checkpoint           string
	OperatorID           OperatorID
	StateMaxParallelism  int
	VertexMaxParallelism int
}

// Error gives the message, following Flink\'s text.
func (e *MaxParallelismMismatchError) Error() string {
	return "Failed to rollback to checkpoint/savepoint " + e.Checkpoint +
		". Max parallelism mismatch between checkpoint/savepoint state and new program. Cannot map operator " +
		e.OperatorID.String() + " with max parallelism " + strconv.Itoa(e.StateMaxParallelism) +
		" to new program with max parallelism " + strconv.Itoa(e.VertexMaxParallelism) +
		". This indicates that the program has been changed in a non-compatible way after the checkpoint/savepoint."
}

// Is reports whether target is ErrMaxParallelismMismatch.
func (e *MaxParallelismMismatchError) Is(target error) bool {
	return target == ErrMaxParallelismMismatch
}

// MaxParallelismBelowNewParallelismError is returned by AssignStates when an operator state's
// max parallelism is below the vertex's parallelism (SPEC §F.1 step 4.1).
type MaxParallelismBelowNewParallelismError struct {
	// Vertex is the job vertex's name.
	Vertex              string
	OperatorID          OperatorID
	StateMaxParallelism int
	Parallelism         int
}

// Error gives the message, following Flink\'s text.
func (e *MaxParallelismBelowNewParallelismError) Error() string {
	return "The state for task " + e.Vertex + " can not be restored. The maximum parallelism (" +
		strconv.Itoa(e.StateMaxParallelism) + ") of the restored state is lower than the configured parallelism (" +
		strconv.Itoa(e.Parallelism) + "). Please reduce the parallelism of the task to be lower or equal to the maximum parallelism."
}

// Is reports whether target is ErrMaxParallelismBelowNewParallelism.
func (e *MaxParallelismBelowNewParallelismError) Is(target error) bool {
	return target == ErrMaxParallelismBelowNewParallelism
}

// MaxParallelismChangeNotSupportedError is returned by AssignStates when an operator state's max
// parallelism differs from the vertex's and the vertex's was configured explicitly (SPEC §F.1
// step 4.1).
type MaxParallelismChangeNotSupportedError struct {
	Vertex               string
	OperatorID           OperatorID
	StateMaxParallelism  int
	VertexMaxParallelism int
}

// Error gives the message, following Flink\'s text.
func (e *MaxParallelismChangeNotSupportedError) Error() string {
	return "The maximum parallelism (" + strconv.Itoa(e.StateMaxParallelism) +
		") with which the latest checkpoint of the execution job vertex " + e.Vertex +
		" has been taken and the current maximum parallelism (" + strconv.Itoa(e.VertexMaxParallelism) +
		") changed. This is currently not supported."
}

// Is reports whether target is ErrMaxParallelismChangeNotSupported.
func (e *MaxParallelismChangeNotSupportedError) Is(target error) bool {
	return target == ErrMaxParallelismChangeNotSupported
}

// MaxParallelismOutOfBoundsError is returned (1.18) when a restored max parallelism that differs
// from the vertex's lies outside 1..32768: DefaultVertexParallelismInfo.canRescaleMaxParallelism
// normalises and bounds-checks it before asking whether the vertex may adopt it.
type MaxParallelismOutOfBoundsError struct {
	MaxParallelism int
}

// Error gives the message, following Flink\'s text.
func (e *MaxParallelismOutOfBoundsError) Error() string {
	return "Setting max parallelism is not in valid bounds (1.." + strconv.Itoa(UpperBoundMaxParallelism) +
		"), found: " + strconv.Itoa(e.MaxParallelism)
}

// Is reports whether target is ErrMaxParallelismOutOfBounds.
func (e *MaxParallelismOutOfBoundsError) Is(target error) bool {
	return target == ErrMaxParallelismOutOfBounds
}

// NonRestoredStateError is returned by LoadAndValidateCheckpoint for an unmatched operator that
// holds state (SPEC §G step 4).
type NonRestoredStateError struct {
	Checkpoint string
	OperatorID OperatorID
	// CoordinatorState is true when the refusal was caused by operator-coordinator state.
	CoordinatorState bool
}

// Error gives the message, following Flink\'s text.
func (e *NonRestoredStateError) Error() string {
	return "Failed to rollback to checkpoint/savepoint " + e.Checkpoint +
		". Cannot map checkpoint/savepoint state for operator " + e.OperatorID.String() +
		" to the new program, because the operator is not available in the new program. If you want to allow to skip this, you can set the --allowNonRestoredState option on the CLI."
}

// Is reports whether target is ErrNonRestoredState.
func (e *NonRestoredStateError) Is(target error) bool { return target == ErrNonRestoredState }

// MixedFinishedOperatorsError is returned by AssignStates (1.18) for a vertex where some but not
// all operator states are fully finished.
type MixedFinishedOperatorsError struct {
	Vertex string
}

// Error gives the message, following Flink\'s text.
func (e *MixedFinishedOperatorsError) Error() string {
	return "JobVertex could not have mixed finished and unfinished operators (vertex " + e.Vertex + ")"
}

// Is reports whether target is ErrMixedFinishedOperators.
func (e *MixedFinishedOperatorsError) Is(target error) bool {
	return target == ErrMixedFinishedOperators
}

// RawKeyedStateWithoutManagedError reports an operator instance that was assigned raw keyed
// state without a managed keyed state entry. Flink's assignment always files both together, so
// this is a consistency check that Flink (and the model) keeps but never trips.
type RawKeyedStateWithoutManagedError struct {
	OperatorID OperatorID
	Subtask    int
}

// Error gives the message, following Flink\'s text.
func (e *RawKeyedStateWithoutManagedError) Error() string {
	return "If an operator has no managed key state, it should also not have a raw keyed state (operator " +
		e.OperatorID.String() + ", subtask " + strconv.Itoa(e.Subtask) + ")"
}

// Is reports whether target is ErrRawKeyedStateWithoutManaged.
func (e *RawKeyedStateWithoutManagedError) Is(target error) bool {
	return target == ErrRawKeyedStateWithoutManaged
}

// NullKeyedStateHandlesError is Flink 1.10.1's NullPointerException for an operator state with
// no subtask entries restored at a changed parallelism (see ErrNullKeyedStateHandles).
type NullKeyedStateHandlesError struct {
	OperatorID     OperatorID
	OldParallelism int
	NewParallelism int
}

// Error gives the message, following Flink\'s text.
func (e *NullKeyedStateHandlesError) Error() string {
	return "java.lang.NullPointerException in StateAssignmentOperation.reAssignSubKeyedStates: operator state " +
		e.OperatorID.String() + " has no subtask states and its parallelism changes from " +
		strconv.Itoa(e.OldParallelism) + " to " + strconv.Itoa(e.NewParallelism) + " (Flink 1.10.1, FLINK-22966)"
}

// Is reports whether target is ErrNullKeyedStateHandles.
func (e *NullKeyedStateHandlesError) Is(target error) bool {
	return target == ErrNullKeyedStateHandles
}

// UnexpectedStateHandleTypeError is the RocksDB restore's refusal of a handle of the wrong kind
// (RocksDBIncrementalRestoreOperation / RocksDBFullRestoreOperation).
type UnexpectedStateHandleTypeError struct {
	// Index is the handle's position in the list.
	Index    int
	Expected string
	Found    string
}

// Error gives the message, following Flink\'s text.
func (e *UnexpectedStateHandleTypeError) Error() string {
	return "Unexpected state handle type, expected: " + e.Expected + ", but found: " + e.Found +
		" (handle " + strconv.Itoa(e.Index) + ")"
}

// Is reports whether target is ErrUnexpectedStateHandleType.
func (e *UnexpectedStateHandleTypeError) Is(target error) bool {
	return target == ErrUnexpectedStateHandleType
}
