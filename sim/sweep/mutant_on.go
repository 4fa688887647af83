//go:build mutants

package sweep

import "os"

// mutantEnvVar names the mutant a mutants build runs (model/internal/mutant.EnvVar; a model
// built with -tags mutants refuses an unknown name at start-up, so a name read here is valid).
const mutantEnvVar = "RESTORESIM_MUTANT"

// activeMutant is the catalogued bug this mutants build runs, "" for none. It is what a replay
// command needs to reproduce a failure of a mutant build.
func activeMutant() string { return os.Getenv(mutantEnvVar) }
