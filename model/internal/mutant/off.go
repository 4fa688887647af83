//go:build !mutants

package mutant

// Enabled reports whether this is a mutants build (build tag mutants).
const Enabled = false

// On reports whether the mutant id is switched on: in the normal build always false, so every
// `if mutant.On(…)` branch is compiled away and RESTORESIM_MUTANT is ignored.
func On(ID) bool { return false }
