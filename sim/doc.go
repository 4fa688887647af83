// Package sim is restoresim's deterministic simulator: from one uint64 seed it generates a job
// graph (a source, a keyed vertex and up to four stages: see Job and Stage), keyed and operator
// state, input records and a schedule of checkpoints, failures and rescales,
// runs them through package model's restore path on a simulated world (subtasks, TaskManagers,
// checkpoint storage), and checks the result against an oracle that recomputes the expected
// state from the input log and judges routing, restores and the checkpoint store with package
// sim/oracle, which shares no code with package model. Its invariants are the Inv… constants
// (oracle.go); with unaligned checkpoints (Job.Unaligned, inflight.go) InvInFlight checks that
// every record in flight at a restored barrier is processed exactly once, by its key's owner;
// after an in-place rescale with local recovery (localrescale.go) InvLocalRead checks that each
// subtask reads the local copies oracle.ExpectLocalRead approves, and the swapped state of the
// hazard KnownLocalAfterRescale is reported under that known issue. At
// every restore from a pointer it also runs the restore planner (model/savepoint.PlanRestore) on
// the _metadata the world wrote and checks the plan against the restore and the oracle (InvPlan).
// It never prints and never reads the wall clock.
package sim
