//go:build !mutants

package model

// mutant reports whether the named known bug is switched on. In the normal build it is always
// false and every `if mutant(…)` branch is compiled away: the normal build cannot reach a mutant.
// Build with -tags mutants and set RESTORESIM_MUTANT to switch one on (see mutant_on.go and
// properties/internal/mutants).
func mutant(string) bool { return false }
