package model

import "github.com/restoresim/restoresim/model/internal/mutant"

// MutantEnvVar is the environment variable that switches a mutant on in a build with the
// "mutants" tag (test machinery: see model/internal/mutant).
const MutantEnvVar = mutant.EnvVar

// ActiveMutant is test machinery: the name of the catalogued bug this build of the model runs
// with (RESTORESIM_MUTANT in a build with -tags mutants), "" in a normal build, which cannot run
// one. A replay command uses it to carry the build tag and the environment that reproduce a run.
func ActiveMutant() string { return mutant.Active() }
