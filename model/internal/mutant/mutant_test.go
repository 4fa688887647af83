package mutant

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestCatalogueMatchesHooks: every catalogue entry has an `if mutant.On(mutant.X)` hook in
// package model or one of its subpackages (a misspelt hook does not compile, so the converse
// needs no test), names are unique and kebab-case, and every entry says what its bug is.
func TestCatalogueMatchesHooks(t *testing.T) {
	// The Go names of the entries, in catalogue order, from catalogue.go.
	f, err := parser.ParseFile(token.NewFileSet(), "catalogue.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var idents []string
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
			for _, s := range g.Specs {
				for _, n := range s.(*ast.ValueSpec).Names {
					idents = append(idents, n.Name)
				}
			}
		}
	}
	all := All()
	if len(idents) != len(all) {
		t.Fatalf("catalogue.go declares %d IDs, the catalogue holds %d mutants", len(idents), len(all))
	}

	hook := regexp.MustCompile(`\bmutant\.On\(mutant\.(\w+)\)`)
	hooked := map[string]bool{}
	root := filepath.Join("..", "..")
	walkErr := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range hook.FindAllSubmatch(b, -1) {
			hooked[string(m[1])] = true
		}
		return nil
	})
	if walkErr != nil {
		t.Fatal(walkErr)
	}
	kebab := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	var names []string
	for i, m := range all {
		if m.ID != (ID{i + 1}) || m.ID.String() != m.Name {
			t.Errorf("mutant %d (%s): ID %v", i, m.Name, m.ID)
		}
		if slices.Contains(names, m.Name) {
			t.Errorf("mutant %q listed twice", m.Name)
		}
		names = append(names, m.Name)
		if !kebab.MatchString(m.Name) || m.Bug == "" {
			t.Errorf("mutant %q: want a kebab-case name and a bug text, got %q", m.Name, m.Bug)
		}
		if !hooked[idents[i]] {
			t.Errorf("mutant %s (%q) has no `if mutant.On(mutant.%s)` hook under model/", idents[i], m.Name, idents[i])
		}
		if got, ok := Lookup(m.Name); !ok || got != m {
			t.Errorf("Lookup(%q) = %v, %v", m.Name, got, ok)
		}
	}
	if _, ok := Lookup("no-such-mutant"); ok {
		t.Error(`Lookup("no-such-mutant") found one`)
	}
	if (ID{}).String() != "" || On(ID{}) {
		t.Error("the zero ID is not \"no mutant\"")
	}
}
