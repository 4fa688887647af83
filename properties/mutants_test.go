package properties

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/restoresim/restoresim/model"
)

// TestMutantCatalogueMatchesHooks: every mutant in model.Mutants() has a hook in package model
// (`mutant("name")`), every hook names a catalogued mutant, and names are unique.
func TestMutantCatalogueMatchesHooks(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "model", "*.go"))
	if err != nil || len(files) == 0 {
		t.Skipf("model sources not found: %v", err)
	}
	hook := regexp.MustCompile(`mutant\("([a-z0-9-]+)"\)`)
	hooked := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range hook.FindAllSubmatch(b, -1) {
			hooked[string(m[1])] = true
		}
	}
	var names []string
	for _, m := range model.Mutants() {
		if slices.Contains(names, m.Name) {
			t.Errorf("mutant %q listed twice", m.Name)
		}
		names = append(names, m.Name)
		if !hooked[m.Name] {
			t.Errorf("mutant %q has no `if mutant(%q)` hook in package model", m.Name, m.Name)
		}
	}
	for h := range hooked {
		if !slices.Contains(names, h) {
			t.Errorf("hook mutant(%q) in package model is not in model.Mutants()", h)
		}
	}
}
