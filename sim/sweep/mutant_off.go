//go:build !mutants

package sweep

// mutantEnvVar names the mutant a mutants build runs (see mutant_on.go).
const mutantEnvVar = "RESTORESIM_MUTANT"

// activeMutant is "" in a normal build: it cannot run a mutant.
func activeMutant() string { return "" }
