// Package mutant is the catalogue of known bugs the model can be built with, to show that the
// property suite catches them, and the hooks that switch them on.
//
// A hook is `if mutant.On(mutant.RangeFloor) { …the bug… }` at the place of the bug. In the
// normal build On is a constant false and every hook is compiled away: the normal build cannot
// reach a mutant. Built with -tags mutants, the mutant named by the environment variable
// RESTORESIM_MUTANT (its kebab-case Name) is on; an unknown name stops the program at start-up
// with a one-line message and exit status 2, so a typo never runs the real model instead.
// Mutant IDs are Go identifiers, so a misspelt hook does not compile.
//
// The driver (go run ./model/internal/mutant/driver, `make mutants`) runs the property suite
// against every mutant and prints the kill matrix; it lives under model/ because only packages
// under model/ may import this one.
package mutant

// EnvVar is the environment variable that names the active mutant in a mutants build.
const EnvVar = "RESTORESIM_MUTANT"

// ID is a mutant of the catalogue. The zero ID is no mutant.
type ID struct{ n int } // 1 + index in catalogue

// Mutant is one known bug.
type Mutant struct {
	// ID is what the hooks test.
	ID ID
	// Name is the kebab-case name RESTORESIM_MUTANT selects.
	Name string
	// Bug says what the mutant gets wrong, and where.
	Bug string
}

var catalogue []Mutant

// add appends a mutant to the catalogue (package initialisation, in declaration order).
func add(name, bug string) ID {
	id := ID{len(catalogue) + 1}
	catalogue = append(catalogue, Mutant{ID: id, Name: name, Bug: bug})
	return id
}

// All returns the catalogue, in its fixed order.
func All() []Mutant { return append([]Mutant(nil), catalogue...) }

// Lookup returns the mutant with the given name.
func Lookup(name string) (Mutant, bool) {
	for _, m := range catalogue {
		if m.Name == name {
			return m, true
		}
	}
	return Mutant{}, false
}

// String returns the mutant's name ("" for the zero ID).
func (id ID) String() string {
	if id.n < 1 || id.n > len(catalogue) {
		return ""
	}
	return catalogue[id.n-1].Name
}
