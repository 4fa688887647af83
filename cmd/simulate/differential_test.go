package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/reference"
)

// needFlink skips (fails with CI set) when the reference cannot run Flink v: one line naming
// what is missing.
func needFlink(t *testing.T, v model.FlinkVersion) {
	t.Helper()
	j, err := reference.Start(v, reference.Options{})
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	j.Close()
}

// TestDifferentialDocTranscript runs the `$ simulate differential --flink …` lines of
// docs/reference.md that run Flink (TestEveryDocTranscript leaves them out: they need Java and
// Flink's sources) and compares their output with the doc's.
func TestDifferentialDocTranscript(t *testing.T) {
	needFlink(t, model.Flink118)
	doc, err := os.ReadFile("../../docs/reference.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(doc), "\n")
	checked := 0
	for i, line := range lines {
		cmdLine, ok := strings.CutPrefix(line, "$ simulate ")
		if !ok || !strings.HasPrefix(cmdLine, "differential ") {
			continue
		}
		if _, skip := docSkips["docs/reference.md: "+cmdLine]; !skip {
			continue // run by TestEveryDocTranscript
		}
		var want []string
		for _, l := range lines[i+1:] {
			if strings.HasPrefix(l, "$ ") || strings.HasPrefix(l, "```") {
				break
			}
			want = append(want, l)
		}
		wantCode := 0
		if n := len(want); n > 0 && strings.HasPrefix(want[n-1], "(exit ") {
			wantCode = int(want[n-1][6] - '0')
			want = want[:n-1]
		}
		args := strings.Fields(cmdLine)
		for k, a := range args {
			if a == "--out" && k+1 < len(args) {
				args[k+1] = filepath.Join(t.TempDir(), args[k+1])
			}
		}
		code, out, _ := runCLI(t, "", args...)
		if code != wantCode {
			t.Errorf("docs/reference.md:%d: `simulate %s` exits %d, the doc shows %d", i+1, cmdLine, code, wantCode)
		}
		got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("docs/reference.md:%d: `simulate %s` prints something else than the doc shows (-doc +now):\n%s", i+1, cmdLine, d)
		}
		checked++
	}
	if checked == 0 {
		t.Error("docs/reference.md shows no `simulate differential` run")
	}
}

// TestDifferentialBadInput: bad input is one line on stderr and exit 2, before any JVM starts.
func TestDifferentialBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"checkpoint_id": 1, "vertices": [], "operators": [], "x": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"differential"}, "--flink: give the versions"},
		{[]string{"differential", "--flink", "9.9"}, "unknown Flink version"},
		{[]string{"differential", "--flink", "1.10.1"}, "release-1.10 is not in the mirror"},
		{[]string{"differential", "--flink", "1.18", "--cases", "0"}, "--cases: 0"},
		{[]string{"differential", "--flink", "1.18", "--from", "-1"}, "--from: -1"},
		{[]string{"differential", "--flink", "1.18,2.3", "--flink-src", dir}, "one checkout is one version"},
		{[]string{"differential", "--flink", "1.18", "--replay", bad}, `unknown field "x"`},
		{[]string{"differential", "--flink", "1.18", "--replay", filepath.Join(dir, "none.json")}, "none.json"},
		{[]string{"differential", "--flink", "1.18", "extra"}, `unexpected argument "extra"`},
	} {
		code, out, errs := runCLI(t, "", tc.args...)
		wantUsageError(t, tc.want, code, out, errs)
	}
}

// TestDifferentialSavesReplayableDisagreement: a disagreement is saved under --out, and
// --replay of the saved file judges its case again (here against a Flink that answers
// otherwise, so that it disagrees without a broken model).
func TestDifferentialSavesReplayableDisagreement(t *testing.T) {
	needFlink(t, model.Flink118)
	dir := t.TempDir()
	c := `{"checkpoint_id":3,"vertices":[{"name":"v0","operators":[{"id":"0000000000000000000000000000000a"}],"parallelism":2,"max_parallelism":8,"max_parallelism_configured":true}],"operators":[{"operator_id":"0000000000000000000000000000000a","parallelism":2,"max_parallelism":8,"subtasks":[{"managed_operator_state":[{"delegate":{"path":"file:/x","size":9},"states":[{"name":"b","mode":"SPLIT_DISTRIBUTE","offsets":[1]},{"name":"a","mode":"SPLIT_DISTRIBUTE","offsets":[5]}]}]}]}]}`
	path := filepath.Join(dir, "case.json")
	if err := os.WriteFile(path, []byte(c), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "", "differential", "--flink", "1.18", "--replay", path)
	if code != 0 || !strings.Contains(out, "the model agrees (assigned)") {
		t.Fatalf("replay of an agreeing case: exit %d, %q %q", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "differential-out")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an agreeing run made an --out directory: %v", err)
	}
}
