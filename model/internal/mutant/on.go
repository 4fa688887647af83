//go:build mutants

package mutant

import (
	"fmt"
	"os"
	"strings"
)

// active is the mutant RESTORESIM_MUTANT names, set at start-up.
var active ID

// init reads RESTORESIM_MUTANT once. An unknown name is an error: one line on stderr and exit
// status 2, before any test or command runs, never a silent run of the real model.
func init() {
	name := os.Getenv(EnvVar)
	if name == "" {
		return
	}
	m, ok := Lookup(name)
	if !ok {
		fmt.Fprintf(os.Stderr, "%s=%q: no such mutant (the catalogue: %s)\n", EnvVar, name, names())
		os.Exit(2)
	}
	active = m.ID
}

// On reports whether the mutant id is switched on.
func On(id ID) bool { return id != ID{} && id == active }

// names lists the catalogue's names, comma-separated.
func names() string {
	out := make([]string, len(catalogue))
	for i, m := range catalogue {
		out[i] = m.Name
	}
	return strings.Join(out, ", ")
}
