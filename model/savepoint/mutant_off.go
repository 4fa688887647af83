//go:build !mutants

package savepoint

// mutant reports whether the named known bug of the planner is switched on. In the normal build
// it is always false and every `if mutant(…)` branch is compiled away. Build with -tags mutants
// and set RESTORESIM_MUTANT to switch one on (a local copy of model's hook; see mutant_on.go).
//
// The planner's mutants:
//
//	plan-bytes-to-stream-end  elementBytes: a key group's or operator-state entry's bytes run to
//	                          the end of the handle's stream, not to the next larger offset
//	plan-refusal-ends-plan    runRestore: the first refusal is charged to every operator not yet
//	                          judged, so no operator after it is planned
func mutant(string) bool { return false }
