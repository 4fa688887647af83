package sim

import (
	"slices"
	"strings"

	"github.com/restoresim/restoresim/model"
)

// The system under test: where a world takes the assignment of every restore from. By default
// the model (model.AssignStates); a Plan's SUT can hand it to another implementation of
// StateAssignmentOperation — Flink's own classes through the reference (package sut) — or ask
// two and report where they differ. The oracle is the same whatever answers.

// InvReference is the invariant of a restore on which two systems under test (the model and
// Flink's classes, --sut both) gave different assignments, or on which the system under test
// could not answer.
const InvReference = "reference"

// Assigner is a system under test: it assigns a restored checkpoint's state to the new job, as
// StateAssignmentOperation.assignStates does. Implementations outside this package may run
// other processes; the world calls them synchronously, one restore at a time.
type Assigner interface {
	// Name names the system under test in the trace ("model", "flink", "both").
	Name() string
	// Assign answers one restore.
	Assign(in model.AssignmentInput) Assigned
}

// Assigned is an Assigner's answer: the assignment or the refusal the world goes on with, and
// where the systems asked disagree.
type Assigned struct {
	Assignment *model.Assignment
	// Err is the refusal (a *model.RefusalError where the check is known), nil when assigned.
	Err error
	// Difference, when not empty, is a violation InvReference: the systems asked gave different
	// answers, or the system under test could not answer (the answer above is then the
	// model's). Its first line is the violation's detail, the rest (both answers, their
	// differences: deterministic text) its diff.
	Difference string
}

// ModelAssigner is the model as the system under test (a Plan's nil SUT).
type ModelAssigner struct{}

// Name implements Assigner.
func (ModelAssigner) Name() string { return "model" }

// Assign implements Assigner with model.AssignStates.
func (ModelAssigner) Assign(in model.AssignmentInput) Assigned {
	a, err := model.AssignStates(in)
	return Assigned{Assignment: a, Err: err}
}

// sutName is the name of p's system under test.
func (p Plan) sutName() string {
	if p.SUT == nil {
		return "model"
	}
	return p.SUT.Name()
}

// assignWith returns the coordinator's assignment hook for the plan's system under test (the
// model: assignModel): a difference the SUT reports is a violation of the current step.
func (w *World) assignWith() func(model.AssignmentInput) (*model.Assignment, error) {
	if w.plan.SUT == nil {
		return w.assignModel
	}
	return func(in model.AssignmentInput) (*model.Assignment, error) {
		ans := w.plan.SUT.Assign(in)
		if ans.Difference != "" {
			// Not attributed to a known issue: whatever the oracle says, two implementations of
			// one restore disagree.
			detail, diff, _ := strings.Cut(ans.Difference, "\n")
			w.violations = append(w.violations, Violation{Step: w.at, Invariant: InvReference, Detail: detail, Diff: diff})
		}
		return ans.Assignment, ans.Err
	}
}

// Validator is a system under test that also loads and validates every restored snapshot, as
// Checkpoints.loadAndValidateCheckpoint does, from the _metadata file's bytes: Flink's own
// classes read the file the world wrote and decide which operator states are kept, or refuse.
// A Plan's SUT that is a Validator is asked at every restore from a savepoint or retained
// checkpoint; one that is not leaves it to the model.
type Validator interface {
	// LoadAndValidate answers one load: in is what the model would load (the file as the
	// model reads it), metadataFile the bytes the world stored.
	LoadAndValidate(in model.LoadInput, metadataFile []byte) Validated
}

// Validated is a Validator's answer: the checkpoint or the refusal the world goes on with,
// and where the systems asked disagree (a violation InvReference, as Assigned.Difference).
type Validated struct {
	Checkpoint *model.CompletedCheckpoint
	Err        error
	Difference string
}

// loadWith returns the coordinator's load hook for the plan's system under test (nil: the
// model, directly).
func (w *World) loadWith() func(model.LoadInput, model.CheckpointLocation) (*model.CompletedCheckpoint, error) {
	v, ok := w.plan.SUT.(Validator)
	if !ok {
		return nil
	}
	return func(in model.LoadInput, loc model.CheckpointLocation) (*model.CompletedCheckpoint, error) {
		raw, err := w.fs.read(loc.Metadata)
		b, isBytes := raw.([]byte)
		if err != nil || !isBytes {
			// (ReadMetadata read it a moment ago: not reached.)
			return model.LoadAndValidateCheckpoint(in)
		}
		ans := v.LoadAndValidate(in, b)
		if ans.Difference != "" {
			detail, diff, _ := strings.Cut(ans.Difference, "\n")
			w.violations = append(w.violations, Violation{Step: w.at, Invariant: InvReference, Detail: detail, Diff: diff})
		}
		return ans.Checkpoint, ans.Err
	}
}

// assignModel is model.AssignStates, remembering its last assignment during a restore from a
// pointer (startFrom): the plan check plans the restore again from the same conversion of the
// same _metadata file into the same job (savepoint.Options.Assign), and is handed the
// assignment for an input equal to the restore's — the same vertices, and the same operator
// states holding the same subtask states (read only) — instead of computing it again.
func (w *World) assignModel(in model.AssignmentInput) (*model.Assignment, error) {
	m := &w.assigned
	if m.on && m.out != nil && sameAssignmentInput(m.in, in) {
		return m.out, nil
	}
	a, err := model.AssignStates(in)
	if m.on && err == nil {
		m.in, m.out = in, a
	}
	return a, err
}

// assignMemo is assignModel's memory (on during a restore from a pointer).
type assignMemo struct {
	on  bool
	in  model.AssignmentInput
	out *model.Assignment
}

// sameAssignmentInput reports whether a and b are one input: equal scalars and vertices, and
// operator states equal but for their subtask states, which must be the same ones (the same
// list: a conversion of a _metadata file is read only).
func sameAssignmentInput(a, b model.AssignmentInput) bool {
	return a.Version == b.Version && a.CheckpointID == b.CheckpointID && a.AllowNonRestoredState == b.AllowNonRestoredState &&
		slices.EqualFunc(a.Vertices, b.Vertices, sameJobVertex) && slices.EqualFunc(a.Operators, b.Operators, sameOperatorStates)
}

func sameJobVertex(a, b model.JobVertex) bool {
	return a.Name == b.Name && a.Parallelism == b.Parallelism && a.MaxParallelism == b.MaxParallelism &&
		a.MaxParallelismConfigured == b.MaxParallelismConfigured && slices.Equal(a.Inputs, b.Inputs) &&
		slices.EqualFunc(a.Operators, b.Operators, func(x, y model.JobOperator) bool {
			return x.ID == y.ID && (x.UserDefinedID == nil) == (y.UserDefinedID == nil) && (x.UserDefinedID == nil || *x.UserDefinedID == *y.UserDefinedID)
		})
}

func sameOperatorStates(a, b model.OperatorState) bool {
	return a.OperatorID == b.OperatorID && a.Parallelism == b.Parallelism && a.MaxParallelism == b.MaxParallelism &&
		a.FullyFinished == b.FullyFinished && (a.CoordinatorState == nil) == (b.CoordinatorState == nil) &&
		(a.CoordinatorState == nil || *a.CoordinatorState == *b.CoordinatorState) &&
		len(a.Subtasks) == len(b.Subtasks) && (len(a.Subtasks) == 0 || &a.Subtasks[0] == &b.Subtasks[0])
}
