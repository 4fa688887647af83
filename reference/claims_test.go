package reference

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/restoresim/restoresim/assigncase"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
	"github.com/restoresim/restoresim/sim"
)

var rewrite = flag.Bool("rewrite", false, "rewrite docs/verified.md from Claims")

// TestClaims runs every claim's cases through the model and Flink's assignStates, on each of the
// versions the run names, and checks what the run says.
func TestClaims(t *testing.T) {
	jvms := map[model.FlinkVersion]*JVM{}
	jvmOf := func(t *testing.T, v model.FlinkVersion) *JVM {
		if j, ok := jvms[v]; ok {
			return j
		}
		j := need(t, v)
		jvms[v] = j
		return j
	}
	for _, c := range Claims() {
		for _, r := range c.Runs {
			if r.Case == "" {
				continue
			}
			t.Run(c.Name+"/"+r.Case, func(t *testing.T) {
				vs := r.Versions
				if len(vs) == 0 {
					vs = allSourceVersions()
				}
				b, err := os.ReadFile(filepath.Join("testdata", "claims", r.Case+".case.json"))
				if err != nil {
					t.Fatal(err)
				}
				cs, err := assigncase.DecodeCase(b)
				if err != nil {
					t.Fatal(err)
				}
				for _, name := range vs {
					v, err := model.ParseFlinkVersion(name)
					if err != nil {
						t.Fatal(err)
					}
					if msg := checkRun(jvmOf(t, v), v, cs, b, r); msg != "" {
						t.Errorf("Flink %s: %s", v, msg)
					}
				}
			})
		}
	}
}

func allSourceVersions() []string {
	var out []string
	for _, v := range Versions() {
		out = append(out, v.String())
	}
	return out
}

// checkRun runs one case on one version; "" when the run shows what it says.
func checkRun(j *JVM, v model.FlinkVersion, cs *assigncase.Case, b []byte, r Run) string {
	m, err := cs.Answer(v)
	if err != nil {
		return "model: " + err.Error()
	}
	fb, err := j.Assign(b)
	if err != nil {
		return "Flink: " + err.Error()
	}
	f, err := assigncase.DecodeAnswer(fb)
	if err != nil {
		return "Flink's answer: " + err.Error()
	}
	if d := assigncase.Compare(m, *f); len(d) > 0 {
		return fmt.Sprintf("the model and Flink differ: %v", d[0])
	}
	got := "assigned"
	if m.Error != nil {
		got = m.Error.Stage
		if m.Error.Kind != nil && *m.Error.Kind != assigncase.KindInput {
			got = *m.Error.Kind
		}
	}
	if got != r.Outcome {
		return fmt.Sprintf("outcome %s, the claim says %s", got, r.Outcome)
	}
	if r.FlinkSays != "" && (f.Error == nil || !strings.Contains(f.Error.Message, r.FlinkSays)) {
		return fmt.Sprintf("Flink's answer %s does not say %q", fb, r.FlinkSays)
	}
	if r.MaxParallelism != 0 && (len(f.Vertices) == 0 || f.Vertices[0].MaxParallelism != r.MaxParallelism) {
		return fmt.Sprintf("Flink's answer %s: the first vertex's max parallelism is not %d", fb, r.MaxParallelism)
	}
	return ""
}

// TestClaimsComplete: every known-issue label, versions.md row, refusal check and the SPEC
// sections the model implements have exactly one claim; every verified claim has a run, every
// other one a reason; every test a run names exists.
func TestClaimsComplete(t *testing.T) {
	want := map[ClaimKind][]string{
		ClaimKnownIssue: {sim.KnownAdoptionHazard, sim.KnownFLINK16638, sim.KnownFLINK13973, sim.KnownLocalAfterRescale},
	}
	for _, c := range model.Checks() {
		want[ClaimCheck] = append(want[ClaimCheck], string(c))
	}
	doc, err := os.ReadFile(filepath.Join("..", "docs", "versions.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`(?m)^\| ([0-9.]+) \| (FLINK-[0-9]+) \|`)
	for _, m := range row.FindAllSubmatch(doc, -1) {
		want[ClaimVersionRow] = append(want[ClaimVersionRow], "§"+string(m[1])+" "+string(m[2]))
	}
	if len(want[ClaimVersionRow]) < 15 {
		t.Fatalf("found %d rows in docs/versions.md; the row pattern is stale", len(want[ClaimVersionRow]))
	}
	got := map[ClaimKind][]string{}
	for _, c := range Claims() {
		got[c.Kind] = append(got[c.Kind], c.Name)
		if c.Verified != (len(c.Runs) > 0) {
			t.Errorf("%s: verified %v with %d runs", c.Name, c.Verified, len(c.Runs))
		}
		if !c.Verified && c.Why == "" {
			t.Errorf("%s: read from the source only, without a reason", c.Name)
		}
		for _, r := range c.Runs {
			if (r.Case == "") == (r.Test == "") || r.Shows == "" {
				t.Errorf("%s: a run needs a case or a test, and what it shows: %+v", c.Name, r)
			}
			if r.Test != "" && !testExists(t, r.Test) {
				t.Errorf("%s: test %s does not exist", c.Name, r.Test)
			}
		}
	}
	for _, k := range []ClaimKind{ClaimKnownIssue, ClaimVersionRow, ClaimCheck} {
		w, g := slices.Clone(want[k]), slices.Clone(got[k])
		slices.Sort(w)
		slices.Sort(g)
		if !slices.Equal(w, g) {
			t.Errorf("%s claims %v, want one for each of %v", k, g, w)
		}
	}
	if len(got[ClaimSpecRule]) < 10 {
		t.Errorf("%d SPEC rules", len(got[ClaimSpecRule]))
	}
}

// testExists finds "pkg.TestName[/case]" in the module: the function in the package's test
// files, and for TestLoadAndValidate the case in validateCases.
func testExists(t *testing.T, name string) bool {
	pkg, rest, ok := strings.Cut(name, ".")
	if !ok {
		return false
	}
	fn, sub, _ := strings.Cut(rest, "/")
	if sub != "" {
		if pkg != "reference" || fn != "TestLoadAndValidate" {
			return false
		}
		return slices.ContainsFunc(validateCases(), func(c validateCase) bool { return c.name == sub })
	}
	files, _ := filepath.Glob(filepath.Join("..", pkg, "*_test.go"))
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(src, []byte("\nfunc "+fn+"(t *testing.T)")) {
			return true
		}
	}
	return false
}

// TestClaimsDoc: docs/verified.md holds the claims as ClaimsMarkdown renders them (-rewrite
// writes it).
func TestClaimsDoc(t *testing.T) {
	path := filepath.Join("..", "docs", "verified.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const marker = "<!-- claims: generated by `go test ./reference -run TestClaimsDoc -rewrite` -->\n"
	head, _, ok := strings.Cut(string(doc), marker)
	if !ok {
		t.Fatalf("%s lacks the marker line %q", path, marker)
	}
	want := head + marker + ClaimsMarkdown()
	if string(doc) == want {
		return
	}
	if *rewrite {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s is stale: run go test ./reference -run TestClaimsDoc -rewrite", path)
}

// TestVersionGates: each version's Flink reads exactly the _metadata format versions the model
// says it reads (model.FlinkVersion.ReadsMetadataVersion), and refuses the others naming the
// version: files the project writes in formats 4–7, and the first real file of each older format.
func TestVersionGates(t *testing.T) {
	files := map[int32][]byte{}
	md := model.CheckpointMetadata{CheckpointID: 3, Operators: []model.OperatorState{{
		OperatorID: model.OperatorIDFromUID("gate"), Parallelism: 1, MaxParallelism: 128,
		Subtasks: []*model.OperatorSubtaskState{{ManagedKeyedState: []model.KeyedStateHandle{&model.KeyGroupsStateHandle{
			Offsets:  model.KeyGroupRangeOffsets{Range: model.KeyGroupRange{Start: 0, End: 127}, Offsets: make([]int64, 128)},
			Delegate: model.StreamHandle{Path: "file:/s", Size: 1}}}}}}}}
	for n := int32(4); n <= 7; n++ {
		f, err := metadata.FromModelAs(md, n, nil)
		if err != nil {
			t.Fatalf("format %d: %v", n, err)
		}
		if files[n], err = metadata.Marshal(f); err != nil {
			t.Fatal(err)
		}
	}
	for _, mf := range realMetadataFiles(t) {
		if n := int32(binary.BigEndian.Uint32(mf.b[4:8])); n < 4 && files[n] == nil {
			files[n] = mf.b
		}
	}
	for n := int32(1); n <= 3; n++ {
		if files[n] == nil {
			t.Fatalf("no real file of format %d", n)
		}
	}
	for _, v := range Versions() {
		j := need(t, v)
		for n := int32(1); n <= 7; n++ {
			_, err := j.MetadataRoundTripAs(files[n], 0)
			var r *Refusal
			if err != nil && !errors.As(err, &r) {
				t.Fatalf("Flink %s, format %d: %v", v, n, err)
			}
			reads := err == nil
			if r != nil && !strings.Contains(r.Message, fmt.Sprintf("version number: %d", n)) && !strings.Contains(r.Message, "no longer supported") {
				// Refused for another reason than its version (e.g. legacy state of an old
				// file): the gate let it through.
				reads = true
			}
			want := v.ReadsMetadataVersion(n)
			if v == model.FlinkMaster && n == 7 {
				// The project's master reads version 7 (flink-metadata/FORMAT.md's later
				// MetadataV7Serializer); the archived master has no such serializer.
				want = false
			}
			if reads != want {
				t.Errorf("Flink %s, format %d: Flink reads it %v, the model says %v (%v)", v, n, reads, want, err)
			}
		}
	}
}
