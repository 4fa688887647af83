// Package differential runs generated assignment cases (ASSIGN-CASE.md) through the model and
// through Flink's own classes (package reference) and reports where they disagree: an agreement
// table by outcome and by field, and each disagreement shrunk to a minimal case that replays
// (case, model answer, Flink answer).
//
// The generator (Generate) draws jobs of one to seven vertices with chains, edges of every
// partitioner, keyed (full and incremental), operator (SPLIT_DISTRIBUTE, UNION, BROADCAST) and
// channel state, finished subtasks and fully finished operators, missing subtask entries,
// user-defined IDs, max-parallelism adoption and every refusal the job or the state can cause.
// Its answers are not asked of either side: the judge is their agreement, field by field, after
// the conventions of ASSIGN-CASE.md.
package differential
