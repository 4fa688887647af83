package oracle

import (
	"go/build"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoModelImport checks that the oracle (its code and its tests) imports no package of the
// code under test, directly or through another package of the module: a bug shared by the model
// and the oracle would be invisible to every simulation.
func TestNoModelImport(t *testing.T) {
	const module = "github.com/restoresim/restoresim"
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, tags := range [][]string{nil, {"mutants"}} {
		ctxt := build.Default
		ctxt.BuildTags = tags
		seen := map[string]bool{}
		var visit func(path string, chain []string, withTests bool)
		visit = func(path string, chain []string, withTests bool) {
			if seen[path] {
				return
			}
			seen[path] = true
			rel := strings.TrimPrefix(path, module+"/")
			if rel == "model" || strings.HasPrefix(rel, "model/") {
				t.Errorf("build tags %v: sim/oracle depends on %s (%s)", tags, rel, strings.Join(append(chain, rel), " -> "))
				return
			}
			bp, err := ctxt.ImportDir(filepath.Join(root, filepath.FromSlash(rel)), 0)
			if err != nil {
				t.Fatalf("%s: %v", rel, err)
			}
			imports := bp.Imports
			if withTests {
				imports = append(append(imports, bp.TestImports...), bp.XTestImports...)
			}
			for _, imp := range imports {
				if imp == module || strings.HasPrefix(imp, module+"/") {
					visit(imp, append(chain, rel), false)
				}
			}
		}
		visit(module+"/sim/oracle", nil, true)
	}
}
