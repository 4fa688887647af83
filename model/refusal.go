package model

import (
	"errors"
)

// This file names the checks of the restore path and gives every refusal of
// LoadAndValidateCheckpoint and AssignStates one typed form, *RefusalError, that states the
// check and the operator it is about. Callers read those fields (errors.As) and never the text.

// Check names one check of Flink's restore path: the names `simulate plan` prints in its
// "check" fields.
type Check string

// The checks, as in the table of Checks.
const (
	// CheckMetadataVersion: the metadata file's format version is one the Flink version does
	// not read (MetadataSerializers.getSerializer). Found by the reader, not by this package.
	CheckMetadataVersion Check = "metadata-version"
	// CheckNoOperatorForState: ErrNoOperatorForState.
	CheckNoOperatorForState Check = "no-operator-for-state"
	// CheckNonRestoredState: ErrNonRestoredState.
	CheckNonRestoredState Check = "non-restored-state"
	// CheckMaxParallelismMismatch: ErrMaxParallelismMismatch.
	CheckMaxParallelismMismatch Check = "max-parallelism-mismatch"
	// CheckMaxParallelismBelowParallelism: ErrMaxParallelismBelowNewParallelism.
	CheckMaxParallelismBelowParallelism Check = "max-parallelism-below-parallelism"
	// CheckMaxParallelismChange: ErrMaxParallelismChangeNotSupported.
	CheckMaxParallelismChange Check = "max-parallelism-change"
	// CheckMaxParallelismOutOfBounds: ErrMaxParallelismOutOfBounds.
	CheckMaxParallelismOutOfBounds Check = "max-parallelism-out-of-bounds"
	// CheckMixedFinishedOperators: ErrMixedFinishedOperators.
	CheckMixedFinishedOperators Check = "mixed-finished-operators"
	// CheckRawKeyedWithoutManaged: ErrRawKeyedStateWithoutManaged.
	CheckRawKeyedWithoutManaged Check = "raw-keyed-without-managed"
	// CheckNullKeyedStateHandles: ErrNullKeyedStateHandles.
	CheckNullKeyedStateHandles Check = "null-keyed-state-handles"
	// CheckChannelStateTopologyChange: ErrChannelStateTopologyChange.
	CheckChannelStateTopologyChange Check = "channel-state-topology-change"
	// CheckChannelStateUnsupportedRescale: ErrUnsupportedRescale (in-flight data of a pointwise
	// or broadcast edge would have to be rescaled).
	CheckChannelStateUnsupportedRescale Check = "channel-state-unsupported-rescale"
	// CheckMaxParallelismAgreement: ErrMaxParallelismDisagreement (master only, FLINK-40113).
	CheckMaxParallelismAgreement Check = "max-parallelism-agreement"
	// CheckVertexParallelism: ErrVertexParallelism (CheckJobVertex: Flink cannot build the new
	// job's vertex).
	CheckVertexParallelism Check = "vertex-parallelism"
	// CheckRestore: any other refusal of the restore path (a key-group partition or an
	// operator-state repartitioning that fails).
	CheckRestore Check = "restore"
)

// checkTable is the one table of checks: each check and the sentinel its refusals match
// (errors.Is), in the order a refusal's check is looked up.
var checkTable = []struct {
	check    Check
	sentinel error
}{
	{CheckMetadataVersion, nil},
	{CheckNoOperatorForState, ErrNoOperatorForState},
	{CheckNonRestoredState, ErrNonRestoredState},
	{CheckMaxParallelismMismatch, ErrMaxParallelismMismatch},
	{CheckMaxParallelismBelowParallelism, ErrMaxParallelismBelowNewParallelism},
	{CheckMaxParallelismChange, ErrMaxParallelismChangeNotSupported},
	{CheckMaxParallelismOutOfBounds, ErrMaxParallelismOutOfBounds},
	{CheckMixedFinishedOperators, ErrMixedFinishedOperators},
	{CheckRawKeyedWithoutManaged, ErrRawKeyedStateWithoutManaged},
	{CheckNullKeyedStateHandles, ErrNullKeyedStateHandles},
	{CheckChannelStateTopologyChange, ErrChannelStateTopologyChange},
	{CheckChannelStateUnsupportedRescale, ErrUnsupportedRescale},
	{CheckMaxParallelismAgreement, ErrMaxParallelismDisagreement},
	{CheckVertexParallelism, ErrVertexParallelism},
	{CheckRestore, nil},
}

// Checks lists every check, in a fixed order.
func Checks() []Check {
	out := make([]Check, len(checkTable))
	for i, c := range checkTable {
		out[i] = c.check
	}
	return out
}

// Sentinel gives the sentinel error the check's refusals match (errors.Is); nil for
// CheckMetadataVersion and CheckRestore, which have none in this package.
func (c Check) Sentinel() error {
	for _, e := range checkTable {
		if e.check == c {
			return e.sentinel
		}
	}
	return nil
}

// checkOf finds the check of a refusal by its sentinel (CheckRestore when none matches).
func checkOf(err error) Check {
	for _, e := range checkTable {
		if e.sentinel != nil && errors.Is(err, e.sentinel) {
			return e.check
		}
	}
	return CheckRestore
}

// RefusalError is every refusal of LoadAndValidateCheckpoint, AssignStates and
// KeyedStateHandlesForSubtask: Flink would not restore. It states the check that refused and the
// operator (state) it is about, and wraps the check's own error (the message is that error's,
// unchanged; errors.Is and errors.As reach the sentinel and the typed error beneath).
type RefusalError struct {
	// Check is the check that refused.
	Check Check
	// OperatorID is the operator state the refusal is about (the ID the state is stored
	// under, or the new job's operator ID where the check is about one); meaningful only when
	// HasOperator. A refusal of a whole vertex names one of its states: the first in Flink's
	// chain order (tail first) for CheckMixedFinishedOperators, the first in Flink's check order
	// that holds keyed state for CheckMaxParallelismAgreement (whose message names two operators
	// of its own choosing, see MaxParallelismDisagreementError).
	OperatorID OperatorID
	// HasOperator is false for a refusal about no single operator (a key-group partition of
	// a vertex).
	HasOperator bool
	// Vertex names the job vertex being restored when the check is about one ("" otherwise).
	Vertex string
	// Err is the check's own error, e.g. a *MaxParallelismMismatchError.
	Err error
}

// Error gives the wrapped error's message, unchanged.
func (e *RefusalError) Error() string { return e.Err.Error() }

// Unwrap gives the check's own error.
func (e *RefusalError) Unwrap() error { return e.Err }

// refuse wraps err as the refusal of operator op (in vertex, "" when none).
func refuse(err error, op OperatorID, vertex string) error {
	return &RefusalError{Check: checkOf(err), OperatorID: op, HasOperator: true, Vertex: vertex, Err: err}
}

// refuseVertex wraps err as a refusal of a vertex that names no single operator.
func refuseVertex(err error, vertex string) error {
	return &RefusalError{Check: checkOf(err), Vertex: vertex, Err: err}
}
