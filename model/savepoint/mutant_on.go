//go:build mutants

package savepoint

import (
	"os"
	"sync"
)

// activeMutant is the mutant named by RESTORESIM_MUTANT, read once ("" = none).
var activeMutant = sync.OnceValue(func() string { return os.Getenv("RESTORESIM_MUTANT") })

// mutant reports whether the named known bug is switched on (build tag mutants only).
func mutant(name string) bool {
	if a := activeMutant(); a != "" && a == name {
		return true
	}
	return false
}
