package lint

import (
	"errors"
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// pkg is the part of a package's build information the rules read.
type pkg struct {
	ImportPath   string
	Imports      []string // direct imports of the non-test files
	TestImports  []string // of the package's _test files
	XTestImports []string // of its external (package x_test) test files
}

// graph is the module's packages by import path, as one build (set of tags) sees them.
type graph struct {
	module string
	pkgs   map[string]*pkg
}

// rel is path relative to the module ("model/metadata"), or path itself outside the module.
func (g *graph) rel(path string) string {
	if path == g.module {
		return "."
	}
	if r, ok := strings.CutPrefix(path, g.module+"/"); ok {
		return r
	}
	return path
}

// under reports whether the module package path is dir or below it (dir relative to the module).
func (g *graph) under(path, dir string) bool {
	r := g.rel(path)
	return r == dir || strings.HasPrefix(r, dir+"/")
}

// inModule reports whether path is a package of this module.
func (g *graph) inModule(path string) bool {
	_, ok := g.pkgs[path]
	return ok
}

// leafInternal reports whether path is a package under the module root's internal/ that
// imports no package of the module.
func (g *graph) leafInternal(path string) bool {
	if !g.under(path, "internal") {
		return false
	}
	for _, imp := range g.pkgs[path].Imports {
		if g.inModule(imp) {
			return false
		}
	}
	return true
}

// chain is the shortest import chain from one module package to another through non-test
// imports ("plots -> x -> sim"), or nil if from does not depend on to.
func (g *graph) chain(from, to string) []string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p == to {
			var c []string
			for ; p != ""; p = prev[p] {
				c = append(c, g.rel(p))
			}
			slices.Reverse(c)
			return c
		}
		q := g.pkgs[p]
		if q == nil {
			continue
		}
		for _, imp := range q.Imports {
			if _, seen := prev[imp]; !seen && g.inModule(imp) {
				prev[imp] = p
				queue = append(queue, imp)
			}
		}
	}
	return nil
}

// violations checks the layering rules and returns one line per offending import, each naming
// the importing package and the import (module-relative paths), in a deterministic order.
//
//  1. model and its subpackages (the pure model of Flink) import, in their code and their
//     tests, no package of this module but model's own subpackages and leaf packages under the
//     module's internal/. The exception exists because small utilities shared with the rest of
//     the module (e.g. internal/atomicfile, or one Java HashMap emulation used by the model and
//     its metadata reader) belong in neither model nor a copy; being leaves (importing nothing
//     of the module), they cannot pull sim, plots or cmd into the model through the back door.
//  2. plots (the charts) does not depend on sim, directly or transitively: charts draw numbers,
//     whoever computed them.
//  3. No package outside cmd/ depends on cmd/..., directly, transitively or from its tests: the
//     commands are the top of the graph (library first).
//  4. sim/oracle (the simulator's judge) does not depend on model, directly, transitively or from
//     its tests: an oracle sharing the model's code would share its bugs.
//  5. Only objstore imports gocloud.dev and the cloud SDKs (cloudSDKs), in code or tests: reading
//     object stores is one package's business, and the model (rule 1 keeps objstore out of it)
//     and everything else stay free of the SDKs' weight and I/O.
//  6. The in-process S3 server (github.com/johannesboyne/gofakes3) is imported only by
//     internal/fakes3, and internal/fakes3 only from tests: the fake never reaches a binary.
//  7. cmd/simulate does not link the cloud SDKs, directly or transitively: their package
//     initialisation and size cost every simulate process 14 ms of start-up, three times the
//     rest of it (a replay of a short scenario paid it whole); it reads buckets through the
//     simulate-objstore command (objstore.HelperBucket), which links them.
func (g *graph) violations() []string {
	var out []string
	paths := make([]string, 0, len(g.pkgs))
	for p := range g.pkgs {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		q := g.pkgs[p]
		all := [][]string{q.Imports, q.TestImports, q.XTestImports}
		kinds := []string{"imports", "imports in its tests", "imports in its external tests"}

		if g.under(p, "model") {
			for k, imps := range all {
				for _, imp := range imps {
					if g.inModule(imp) && !g.under(imp, "model") && !g.leafInternal(imp) {
						out = append(out, fmt.Sprintf("%s %s %s: model may import only its own subpackages and leaf internal/ packages of the module",
							g.rel(p), kinds[k], g.rel(imp)))
					}
				}
			}
		}

		for k, imps := range all {
			for _, imp := range imps {
				if cloudSDK(imp) && !g.under(p, "objstore") {
					out = append(out, fmt.Sprintf("%s %s %s: only objstore may import gocloud.dev and the cloud SDKs",
						g.rel(p), kinds[k], imp))
				}
				if under(imp, fakeS3Module) && !g.under(p, "internal/fakes3") {
					out = append(out, fmt.Sprintf("%s %s %s: only internal/fakes3 may import the fake S3 server",
						g.rel(p), kinds[k], imp))
				}
			}
		}
		for _, imp := range q.Imports {
			if under(imp, goCmpModule) {
				out = append(out, fmt.Sprintf("%s imports %s: only tests may import go-cmp (its diff text changes from process to process, on purpose)", g.rel(p), imp))
			}
			if g.inModule(imp) && g.under(imp, "internal/fakes3") {
				out = append(out, fmt.Sprintf("%s imports %s: only tests may import internal/fakes3", g.rel(p), g.rel(imp)))
			}
		}

		if g.under(p, "cmd/simulate") {
			for _, s := range paths {
				i := slices.IndexFunc(g.pkgs[s].Imports, cloudSDK)
				if i < 0 {
					continue
				}
				if c := g.chain(p, s); c != nil {
					out = append(out, fmt.Sprintf("%s depends on %s (%s), which imports %s: simulate must not link the cloud SDKs (start-up); it runs simulate-objstore",
						g.rel(p), g.rel(s), strings.Join(c, " -> "), g.pkgs[s].Imports[i]))
				}
			}
		}

		if g.under(p, "plots") {
			for _, s := range paths {
				if g.under(s, "sim") {
					if c := g.chain(p, s); c != nil {
						out = append(out, fmt.Sprintf("%s depends on %s (%s): plots must not depend on sim",
							g.rel(p), g.rel(s), strings.Join(c, " -> ")))
					}
				}
			}
		}

		if g.under(p, "sim/oracle") {
			for _, s := range paths {
				if g.under(s, "model") {
					if c := g.chain(p, s); c != nil {
						out = append(out, fmt.Sprintf("%s depends on %s (%s): the oracle must not depend on model",
							g.rel(p), g.rel(s), strings.Join(c, " -> ")))
					}
				}
			}
			for k, imps := range all[1:] {
				for _, imp := range imps {
					if g.under(imp, "model") {
						out = append(out, fmt.Sprintf("%s %s %s: the oracle must not depend on model",
							g.rel(p), kinds[k+1], g.rel(imp)))
					}
				}
			}
		}

		if !g.under(p, "cmd") {
			for _, s := range paths {
				if g.under(s, "cmd") && s != p {
					if c := g.chain(p, s); c != nil {
						out = append(out, fmt.Sprintf("%s depends on %s (%s): no library package may depend on cmd/",
							g.rel(p), g.rel(s), strings.Join(c, " -> ")))
					}
				}
			}
			for k, imps := range all[1:] {
				for _, imp := range imps {
					if g.under(imp, "cmd") {
						out = append(out, fmt.Sprintf("%s %s %s: no library package may depend on cmd/",
							g.rel(p), kinds[k+1], g.rel(imp)))
					}
				}
			}
		}
	}
	return out
}

// cloudSDKs are the module paths of gocloud.dev and the SDKs its blob drivers pull in.
var cloudSDKs = []string{"gocloud.dev", "github.com/aws", "cloud.google.com", "github.com/Azure", "google.golang.org/api"}

// goCmpModule is go-cmp's module: its Diff varies its output between processes, so no output
// of the module may come from it (a failing seed's report must be the same bytes every run).
const goCmpModule = "github.com/google/go-cmp"

// fakeS3Module is the module of the in-process S3 server.
const fakeS3Module = "github.com/johannesboyne/gofakes3"

// cloudSDK reports whether the import path is one of cloudSDKs or below one.
func cloudSDK(path string) bool {
	return slices.ContainsFunc(cloudSDKs, func(m string) bool { return under(path, m) })
}

// under reports whether the import path is root or below it.
func under(path, root string) bool { return path == root || strings.HasPrefix(path, root+"/") }

// loadGraph reads the import lists of every package of the module with go/build, for a build
// with the given tags. It reads the files itself (rather than running `go list`), so the test
// cache knows them: a changed import reruns the test.
func loadGraph(t *testing.T, tags ...string) *graph {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^module\s+(\S+)\s*$`).FindSubmatch(gomod)
	if m == nil {
		t.Fatal("go.mod names no module")
	}
	g := &graph{module: string(m[1]), pkgs: map[string]*pkg{}}
	ctxt := build.Default
	ctxt.BuildTags = tags
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		name := d.Name()
		if path != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != root {
			return filepath.SkipDir // another module
		}
		bp, err := ctxt.ImportDir(path, 0)
		var noGo *build.NoGoError
		if errors.As(err, &noGo) {
			return nil
		} else if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		ip := g.module
		if rel != "." {
			ip += "/" + filepath.ToSlash(rel)
		}
		g.pkgs[ip] = &pkg{ImportPath: ip, Imports: bp.Imports, TestImports: bp.TestImports, XTestImports: bp.XTestImports}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if g.pkgs[g.module+"/model"] == nil {
		t.Fatalf("found %d packages and no %s/model", len(g.pkgs), g.module)
	}
	return g
}

// TestImportGraph checks the layering rules of graph.violations on the module as the normal
// build and the mutants build (-tags mutants, which swaps model code) see it.
func TestImportGraph(t *testing.T) {
	for _, tags := range []string{"", "mutants"} {
		g := loadGraph(t, strings.Fields(tags)...)
		for _, v := range g.violations() {
			t.Errorf("build tags %q: %s", tags, v)
		}
	}
}

// TestImportGraphRules feeds the rules a made-up module that breaks each of them once and
// checks that each break is reported, naming the offending import.
func TestImportGraphRules(t *testing.T) {
	const m = "example.com/m"
	g := &graph{module: m, pkgs: map[string]*pkg{}}
	add := func(path string, imports, testImports []string) {
		abs := func(ps []string) []string {
			var out []string
			for _, p := range ps {
				if strings.Contains(p, ".") {
					out = append(out, p) // outside the module
				} else {
					out = append(out, m+"/"+p)
				}
			}
			return out
		}
		g.pkgs[m+"/"+path] = &pkg{ImportPath: m + "/" + path, Imports: abs(imports), TestImports: abs(testImports)}
	}
	add("internal/leaf", []string{"fmt"}, nil)
	add("internal/nonleaf", []string{"internal/leaf", "sim"}, nil)
	add("model", []string{"internal/leaf", "model/metadata"}, nil)
	add("model/metadata", []string{"model", "internal/nonleaf"}, []string{"plots"})
	add("sim", []string{"model"}, nil)
	add("sim/sweep", []string{"sim", "github.com/google/go-cmp/cmp"}, []string{"github.com/google/go-cmp/cmp"})
	add("sim/oracle", []string{"internal/leaf"}, []string{"model"})
	add("sim/oracle/deep", []string{"bridge2"}, nil)
	add("bridge2", []string{"model/metadata"}, nil)
	add("plots", []string{"model", "bridge"}, nil)
	add("bridge", []string{"sim/sweep"}, nil)
	add("scenarios", []string{"sim"}, []string{"cmd/simulate"})
	add("cmd/simulate", []string{"sim", "plots", "objstore"}, []string{"internal/fakes3"})
	add("cmd/other", []string{"cmd/simulate"}, nil)
	add("objstore", []string{"model", "gocloud.dev/blob", "github.com/aws/aws-sdk-go-v2/aws"}, []string{"internal/fakes3"})
	add("objstore/deep", []string{"gocloud.dev/blob/s3blob"}, nil)
	add("objstorex", []string{"gocloud.dev/blob"}, nil)
	add("model/savepoint", []string{"model", "cloud.google.com/go/storage"}, []string{"github.com/johannesboyne/gofakes3"})
	add("internal/fakes3", []string{"github.com/johannesboyne/gofakes3/backend/s3mem", "gocloud.dev.example/x"}, nil)
	add("internal/fakes3/user", []string{"internal/fakes3", "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"}, nil)

	want := []string{
		"cmd/simulate depends on objstore (cmd/simulate -> objstore), which imports gocloud.dev/blob: simulate must not link the cloud SDKs (start-up); it runs simulate-objstore",
		"internal/fakes3/user imports github.com/Azure/azure-sdk-for-go/sdk/storage/azblob: only objstore may import gocloud.dev and the cloud SDKs",
		"internal/fakes3/user imports internal/fakes3: only tests may import internal/fakes3",
		"model/metadata imports internal/nonleaf: model may import only its own subpackages and leaf internal/ packages of the module",
		"model/metadata imports in its tests plots: model may import only its own subpackages and leaf internal/ packages of the module",
		"model/savepoint imports cloud.google.com/go/storage: only objstore may import gocloud.dev and the cloud SDKs",
		"model/savepoint imports in its tests github.com/johannesboyne/gofakes3: only internal/fakes3 may import the fake S3 server",
		"objstorex imports gocloud.dev/blob: only objstore may import gocloud.dev and the cloud SDKs",
		"plots depends on sim (plots -> bridge -> sim/sweep -> sim): plots must not depend on sim",
		"plots depends on sim/sweep (plots -> bridge -> sim/sweep): plots must not depend on sim",
		"scenarios imports in its tests cmd/simulate: no library package may depend on cmd/",
		"sim/oracle imports in its tests model: the oracle must not depend on model",
		"sim/oracle/deep depends on model (sim/oracle/deep -> bridge2 -> model/metadata -> model): the oracle must not depend on model",
		"sim/oracle/deep depends on model/metadata (sim/oracle/deep -> bridge2 -> model/metadata): the oracle must not depend on model",
		"sim/sweep imports github.com/google/go-cmp/cmp: only tests may import go-cmp (its diff text changes from process to process, on purpose)",
	}
	got := g.violations()
	if !slices.Equal(got, want) {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	add("sim", []string{"model", "cmd/simulate"}, nil)
	got = g.violations()
	for _, w := range []string{
		"sim depends on cmd/simulate (sim -> cmd/simulate): no library package may depend on cmd/",
		"model/metadata imports internal/nonleaf",
		"bridge depends on cmd/simulate (bridge -> sim/sweep -> sim -> cmd/simulate): no library package may depend on cmd/",
	} {
		if !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, w) }) {
			t.Errorf("no violation %q in:\n%s", w, strings.Join(got, "\n"))
		}
	}
}
