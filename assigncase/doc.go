// Package assigncase is the Go side of the assignment-case format (../shared/ASSIGN-CASE.md):
// one restore's input — the old checkpoint's operator states with their handles, and the new
// job's vertices — and its answer — what each new subtask is handed, or the refusal —, one JSON
// object a line each, the contract between the model (`simulate assign`) and a reference that
// runs Flink's own classes.
//
//   - DecodeCase reads one case strictly: an unknown, repeated or missing field, a value of the
//     wrong type or a handle of the wrong shape is an error naming the field's path.
//   - Case.Input builds the model's AssignmentInput for one Flink version, as Flink's metadata
//     loader and job graph would build the state and the job (see Case.Input for what the model
//     does not represent: such a case is refused with ErrNotModelled, never silently changed).
//   - FromAssignment turns model.AssignStates' result, or its error, into an Answer.
//   - Compare lists where two answers differ, with the conventions of the format: vertices in
//     input order, state-handle ids Flink made up ignored, paths after Flink's normalisation,
//     refusals by stage and exception class (and by kind and operators when both carry them).
//
// Answers from Flink's classes carry, in a refusal, the top stack frame ("at") instead of kind
// and operators; Answer reads both forms.
package assigncase
