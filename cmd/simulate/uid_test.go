package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restoresim/restoresim/internal/realmeta"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/savepoint"
)

// Issue 17 on the real savepoint with a non-parallel source (max parallelism 1).
const (
	issue17File   = "target.test-classes.stateful-scala-udf-migration-itcase-flink1.7-rocksdb-savepoint.metadata"
	issue17Source = "4df504eeb6a1733fdcdc90f79c5fcb20"
	issue17Keyed  = "d1392353922252257afa15351a98bae9"
	issue17Other  = "311e8aa7918feea773fb3d9a8307a118"
)

func planJSON(t *testing.T, wantCode int, args ...string) *savepoint.RestorePlan {
	t.Helper()
	code, out, errs := runCLI(t, "", append([]string{"plan", "--format", "json"}, args...)...)
	if code != wantCode || errs != "" {
		t.Fatalf("plan %q: exit %d (want %d), stderr %q", args, code, wantCode, errs)
	}
	var pl savepoint.RestorePlan
	if err := json.Unmarshal([]byte(out), &pl); err != nil {
		t.Fatal(err)
	}
	return &pl
}

func newParallelisms(pl *savepoint.RestorePlan) map[string]string {
	out := map[string]string{}
	for _, o := range pl.Operators {
		out[o.OperatorID] = o.Status + " " + string(o.ParallelismSource)
		if o.Status == "restored" {
			out[o.OperatorID] += " " + strings.Repeat("|", o.Parallelism)
		}
	}
	return out
}

func TestPlanKeepAndVertex(t *testing.T) {
	path := filepath.Join(realMetadata(t), issue17File)
	// At P=2 the source (max parallelism 1) stays at 1, non-parallel, and the plan says so.
	pl := planJSON(t, 0, path, "--parallelism", "2")
	if o := pl.Operators[0]; o.ParallelismSource != savepoint.SourceNonParallel || o.Parallelism != 1 || pl.Vertices[0].ParallelismSource != savepoint.SourceNonParallel {
		t.Errorf("source: parallelism %d (%s), task %+v; want 1, non-parallel", o.Parallelism, o.ParallelismSource, pl.Vertices[0])
	}
	if m := pl.MaxRestorableParallelism; m == nil || *m != 4 {
		t.Errorf("whole restore: max_restorable_parallelism %v, want 4", m)
	}
	code, out, _ := runCLI(t, "", "plan", path, "--parallelism", "2")
	for _, want := range []string{
		"; Flink 2.3 restore into parallelism 2, 1 non-parallel task at 1 (max parallelism 1)\nrestore: OK\n",
		"\noperator " + issue17Source + ": parallelism 1 -> 1 (non-parallel), max parallelism 1,",
		"\n  note: " + savepoint.NonParallelNote + "\n",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("exit %d; text lacks %q:\n%s", code, want, out)
		}
	}
	// Set to 2 by hand, Flink refuses the source; the plan says what would work.
	pl = planJSON(t, 1, path, "--parallelism", "2", "--vertex", issue17Source+"=2")
	if m := pl.Operators[0].MaxRestorableParallelism; m == nil || *m != 1 {
		t.Errorf("refused source: max_restorable_parallelism %v, want 1", m)
	}
	code, out, _ = runCLI(t, "", "plan", path, "--parallelism", "2", "--vertex", issue17Source+"=2")
	for _, want := range []string{
		"\n  max restorable parallelism: 1; fix: keep it at 1 (--vertex " + issue17Source + "=1, or --keep-parallelism)\n",
	} {
		if code != 1 || !strings.Contains(out, want) {
			t.Errorf("exit %d; text lacks %q:\n%s", code, want, out)
		}
	}

	// --keep-parallelism restores (exit 0); --vertex ID=2 changes that operator alone.
	keep := planJSON(t, 0, path, "--keep-parallelism")
	want := map[string]string{issue17Source: "restored non-parallel |", issue17Keyed: "restored keep ||||", issue17Other: "restored keep ||||"}
	if diff := cmp.Diff(want, newParallelisms(keep)); diff != "" {
		t.Errorf("--keep-parallelism (-want +got):\n%s", diff)
	}
	one := planJSON(t, 0, path, "--keep-parallelism", "--vertex", issue17Keyed+"=2")
	want[issue17Keyed] = "restored vertex ||"
	if diff := cmp.Diff(want, newParallelisms(one)); diff != "" {
		t.Errorf("--keep-parallelism --vertex ID=2 (-want +got):\n%s", diff)
	}
	for i := range one.Operators {
		if one.Operators[i].OperatorID != issue17Keyed {
			a, b := one.Operators[i], keep.Operators[i]
			if diff := cmp.Diff(b.Subtasks, a.Subtasks); diff != "" {
				t.Errorf("--vertex changed operator %s too (-keep +vertex):\n%s", a.OperatorID, diff)
			}
		}
	}
	_, text, _ := runCLI(t, "", "plan", path, "--keep-parallelism", "--vertex", issue17Keyed+"=2")
	for _, want := range []string{
		"; Flink 2.3 restore into the old parallelisms (--keep-parallelism), 1 task set by --vertex, 1 non-parallel task at 1 (max parallelism 1)\nrestore: OK\noperator ",
		"operator " + issue17Source + ": parallelism 1 -> 1 (non-parallel), max parallelism 1,",
		"operator " + issue17Keyed + ": parallelism 4 -> 2 (--vertex), max parallelism 4,",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "max restorable parallelism") {
		t.Errorf("no task follows --parallelism, yet:\n%s", text)
	}
	// The same by uid-less default: --parallelism 4 with the source at 1.
	pl = planJSON(t, 0, path, "--parallelism", "4", "--vertex", issue17Source+"=1")
	if m := pl.MaxRestorableParallelism; m == nil || *m != 4 {
		t.Errorf("max_restorable_parallelism %v, want 4", m)
	}
	var srcs []string
	for _, v := range pl.Vertices {
		srcs = append(srcs, string(v.ParallelismSource))
	}
	if diff := cmp.Diff([]string{"vertex", "default", "default"}, srcs); diff != "" {
		t.Errorf("vertices[].parallelism_source (-want +got):\n%s", diff)
	}
}

// TestPlanDroppedIsLoud: with --allow-non-restored-state the header counts the dropped
// operators and bytes.
func TestPlanDroppedIsLoud(t *testing.T) {
	path := filepath.Join(realMetadata(t), issue17File)
	job := writeJob(t, "job.yaml", `
vertices:
  - name: src
    operators:
      - id: `+issue17Source+`
  - name: other
    operators:
      - id: `+issue17Other+`
`)
	code, out, _ := runCLI(t, "", "plan", path, "--job", job, "--parallelism", "1")
	want := "\n  max restorable parallelism: none; fix: add --allow-non-restored-state: drops 227168 bytes of keyed state of operator " + issue17Keyed + "\n"
	if code != 1 || !strings.Contains(out, want) {
		t.Errorf("exit %d; text lacks %q:\n%s", code, want, out)
	}
	code, out, _ = runCLI(t, "", "plan", path, "--job", job, "--parallelism", "1", "--allow-non-restored-state")
	for _, want := range []string{
		"\nrestore: OK, DROPPING the state of 1 operator (227168 bytes) (--allow-non-restored-state)\n",
		"\n  DROPPED: 227168 state bytes\n",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("exit %d; text lacks %q:\n%s", code, want, out)
		}
	}
	pl := planJSON(t, 1, path, "--job", job, "--parallelism", "2", "--allow-non-restored-state")
	if pl.DroppedOperators != 1 || pl.DroppedStateBytes != 227168 {
		t.Errorf("dropped_operators %d, dropped_state_bytes %d", pl.DroppedOperators, pl.DroppedStateBytes)
	}
	_, out, _ = runCLI(t, "", "plan", path, "--job", job, "--parallelism", "2", "--allow-non-restored-state")
	if !strings.Contains(out, "\nrestore also DROPS the state of 1 operator (227168 bytes) (--allow-non-restored-state)\n") {
		t.Errorf("refused plan does not say what it drops:\n%s", out)
	}
	// --keep-parallelism with a job: the vertices without a parallelism keep the old one.
	pl = planJSON(t, 0, path, "--job", job, "--keep-parallelism", "--allow-non-restored-state")
	if pl.Vertices[0].Parallelism != 1 || pl.Vertices[1].Parallelism != 4 || pl.Vertices[0].ParallelismSource != "keep" {
		t.Errorf("vertices %+v", pl.Vertices)
	}
}

func TestUIDCommand(t *testing.T) {
	code, out, errs := runCLI(t, "", "uid", "kafka-source-operator-uid", "a,b")
	want := "kafka-source-operator-uid,cb16aa5adb311e8ac72482def19accbe\n\"a,b\",c749dc90823a67e6c4c9adb384f6e617\n"
	if code != 0 || errs != "" || out != want {
		t.Errorf("exit %d, stderr %q, stdout %q, want %q", code, errs, out, want)
	}
}

// TestUIDLabels: --uid and --uids name operators in inspect and plan.
func TestUIDLabels(t *testing.T) {
	path := filepath.Join(realMetadata(t), "kafka-enum1.metadata")
	_, uids, _ := runCLI(t, "", "uid", "kafka-source-operator-uid", "unused")
	file := filepath.Join(t.TempDir(), "uids.csv")
	if err := os.WriteFile(file, []byte(uids), 0o644); err != nil {
		t.Fatal(err)
	}
	const labelled = `operator cb16aa5adb311e8ac72482def19accbe uid "kafka-source-operator-uid": parallelism 3`
	for _, args := range [][]string{
		{"inspect", path, "--uid", "kafka-source-operator-uid"},
		{"inspect", path, "--uids", file},
		{"plan", path, "--parallelism", "2", "--uids", file},
		{"plan", path, "--parallelism", "2", "--vertex", "uid:kafka-source-operator-uid=1"},
	} {
		code, out, errs := runCLI(t, "", args...)
		if code != 0 || !strings.Contains(out, labelled) {
			t.Errorf("%q: exit %d %q; output lacks %q:\n%s", args, code, errs, labelled, out)
		}
	}
	code, out, _ := runCLI(t, uids, "inspect", "--format", "json", path, "--uids", "-")
	if code != 0 || !strings.Contains(out, `"uid": "kafka-source-operator-uid"`) {
		t.Errorf("JSON lacks the uid:\n%s", out)
	}
}

func TestPlanInspectUIDBadInput(t *testing.T) {
	dir := realMetadata(t)
	path := filepath.Join(dir, issue17File)
	bad := filepath.Join(t.TempDir(), "bad.csv")
	if err := os.WriteFile(bad, []byte("ok-uid\nx,cb16aa5adb311e8ac72482def19accbe\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		want string
		args []string
	}{
		{"--vertex \"" + issue17Keyed + "\": want ID=P", []string{"plan", path, "--vertex", issue17Keyed}},
		{`"xyz" is not an operator ID`, []string{"plan", path, "--vertex", "xyz=2"}},
		{"parallelism \"two\" is not an integer", []string{"plan", path, "--vertex", issue17Keyed + "=two"}},
		{"parallelism 0 is out of bounds (want 1..32768)", []string{"plan", path, "--vertex", issue17Keyed + "=0"}},
		{"parallelism 40000 is out of bounds", []string{"plan", path, "--keep-parallelism", "--vertex", issue17Keyed + "=40000"}},
		{"empty uid", []string{"plan", path, "--vertex", "uid:=2"}},
		{"is also set by --vertex", []string{"plan", path, "--keep-parallelism", "--vertex", issue17Keyed + "=2", "--vertex", issue17Keyed + "=3"}},
		{`--vertex "uid:nope=2": operator ` + model.OperatorIDFromUID("nope").String() + " is not an operator of the checkpoint", []string{"plan", path, "--keep-parallelism", "--vertex", "uid:nope=2"}},
		{"is not an operator of the checkpoint", []string{"plan", path, "--parallelism", "2", "--vertex", "0123456789abcdef0123456789abcdef=2"}},
		{"has no parallelism", []string{"plan", path, "--vertex", issue17Keyed + "=2"}},
		{"--parallelism and --keep-parallelism: without --job every task keeps its parallelism", []string{"plan", path, "--parallelism", "2", "--keep-parallelism"}},
		{"--uid: empty uid", []string{"plan", path, "--parallelism", "1", "--uid", ""}},
		{"--uids: ", []string{"plan", path, "--parallelism", "1", "--uids", "/nonexistent/uids"}},
		{"line 2: uid \"x\" gives operator ID", []string{"plan", path, "--parallelism", "1", "--uids", bad}},
		{"--uids - and another input both read stdin", []string{"plan", "-", "--parallelism", "1", "--uids", "-"}},
		{"--uid: empty uid", []string{"inspect", path, "--uid", ""}},
		{"line 2: uid \"x\" gives operator ID", []string{"inspect", path, "--uids", bad}},
		{"--uids - and PATH - both read stdin", []string{"inspect", "-", "--uids", "-"}},
		{"want at least one uid NAME", []string{"uid"}},
		{"empty uid", []string{"uid", "a", ""}},
	} {
		code, out, errs := runCLI(t, "", c.args...)
		wantUsageError(t, c.want, code, out, errs)
	}
}

// TestPlanDocsIssue17 checks the examples of --keep-parallelism, --vertex and 'simulate uid' in
// docs/plan.md: each "$ simulate …" line (optionally "| head -N") against the lines under it.
func TestPlanDocsIssue17(t *testing.T) {
	dir := realMetadata(t)
	doc, err := os.ReadFile("../../docs/plan.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(doc), "\n")
	checked := 0
	for i, line := range lines {
		cmdLine, ok := strings.CutPrefix(line, "$ simulate ")
		if !ok || !(strings.Contains(cmdLine, issue17File) || strings.HasPrefix(cmdLine, "uid ")) {
			continue
		}
		head := 0
		if a, n, piped := strings.Cut(cmdLine, " | head -"); piped {
			cmdLine = a
			if head, err = strconv.Atoi(n); err != nil {
				t.Fatalf("line %d: %q", i+1, line)
			}
		}
		var want []string
		for _, l := range lines[i+1:] {
			if strings.HasPrefix(l, "```") {
				break
			}
			want = append(want, l)
		}
		args := strings.Fields(strings.ReplaceAll(cmdLine, issue17File, filepath.Join(dir, issue17File)))
		_, out, _ := runCLI(t, "", args...)
		got := strings.Split(strings.TrimSuffix(strings.ReplaceAll(out, dir+string(os.PathSeparator), ""), "\n"), "\n")
		if head > 0 && len(got) > head {
			got = got[:head]
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("docs/plan.md:%d: `simulate %s` (-doc +now):\n%s", i+1, cmdLine, diff)
		}
		checked++
	}
	if checked != 4 {
		t.Errorf("%d examples checked, want 4", checked)
	}
}

// TestInspectDocsNames checks the --uid example and the help of docs/inspect.md.
func TestInspectDocsNames(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(realMetadata(t), "kafka-enum1.metadata"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "chk-1")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "_metadata"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	want := docExample(t, "../../docs/inspect.md", "$ simulate inspect chk-1 --uid kafka-source-operator-uid | head -8\n")
	_, out, _ := runCLI(t, "", "inspect", dir, "--uid", "kafka-source-operator-uid")
	got := strings.Join(strings.SplitAfter(strings.ReplaceAll(out, filepath.Dir(dir)+string(os.PathSeparator), ""), "\n")[:8], "")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("docs/inspect.md --uid example (-doc +now):\n%s", diff)
	}
	want = docExample(t, "../../docs/inspect.md", "$ simulate inspect --help\n")
	_, out, errs := runCLI(t, "", "inspect", "--help")
	if diff := cmp.Diff(want, out+errs); diff != "" {
		t.Errorf("docs/inspect.md help (-doc +now):\n%s", diff)
	}
}

// TestStoredNamesShown: the names and uids a format version 5+ file stores are printed by
// inspect and plan (text and JSON).
func TestStoredNamesShown(t *testing.T) {
	path := filepath.Join(realmeta.Sub(t, "recent"), "new-stateful-broadcast-udf-migration-itcase-flink2.1-hashmap-savepoint.metadata")
	const want = `operator 1f2b5df5a66154aca61fcb26193792be "Source: Custom Source" uid "CheckpointingSource2": parallelism 1`
	for _, args := range [][]string{{"inspect", path}, {"plan", path, "--parallelism", "2"}} {
		_, out, errs := runCLI(t, "", args...)
		if !strings.Contains(out, want) {
			t.Errorf("%s: output lacks %q (stderr %q):\n%s", args[0], want, errs, out)
		}
	}
	pl := planJSON(t, 0, path, "--parallelism", "2") // Flink 2.3 (the default) reads format version 6
	if o := pl.Operators[0]; o.Name != "Source: Custom Source" || o.UID != "CheckpointingSource2" {
		t.Errorf("JSON name %q uid %q", o.Name, o.UID)
	}
}
