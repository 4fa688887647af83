package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restoresim/restoresim/assigncase"
	"github.com/restoresim/restoresim/model"
)

// exampleCaseLines gives the worked examples of assigncase/testdata as case lines, and the
// name of each.
func exampleCaseLines(t *testing.T) (lines, names []string) {
	t.Helper()
	files, err := filepath.Glob("../../assigncase/testdata/*.case.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example cases (%v)", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := json.Compact(&b, data); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, b.String())
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".case.json"))
	}
	return lines, names
}

// The command answers each case line in order, as the package does, from stdin or a file.
func TestAssignCommand(t *testing.T) {
	lines, names := exampleCaseLines(t)
	lines, names = lines[:len(lines)-1], names[:len(names)-1] // the last (ex5) is not modelled at 2.3
	stdin := strings.Join(lines, "\n") + "\n\n"
	file := filepath.Join(t.TempDir(), "cases.jsonl")
	if err := os.WriteFile(file, []byte(stdin), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"assign"}, {"assign", "-"}, {"assign", "--flink", "2.3", file}} {
		code, out, errs := runCLI(t, stdin, args...)
		if code != 0 || errs != "" {
			t.Fatalf("%v: exit %d, stderr %q", args, code, errs)
		}
		got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(got) != len(lines) {
			t.Fatalf("%v: %d answer lines for %d cases", args, len(got), len(lines))
		}
		v := "1.18"
		if len(args) > 2 {
			v = "2.3"
		}
		for i, l := range lines {
			c, err := assigncase.DecodeCase([]byte(l))
			if err != nil {
				t.Fatal(err)
			}
			want, err := c.Answer(mustVersion(t, v))
			if err != nil {
				t.Fatal(err)
			}
			if got[i] != want.String() {
				t.Errorf("%v, %s: line %d is\n%s\nwant\n%s", args, names[i], i+1, got[i], want)
			}
		}
	}
}

// Bad input: exit 2, one line on stderr naming the line, nothing on stdout (also when earlier
// lines were answered).
func TestAssignCommandErrors(t *testing.T) {
	lines, _ := exampleCaseLines(t)
	good := lines[0]
	ex5 := lines[len(lines)-1]
	for _, tc := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{good + "\n{\"checkpoint_id\": 1,", []string{"assign"}, "stdin line 2: invalid case: malformed JSON"},
		{good + "\n\n" + strings.Replace(good, `"parallelism":3`, `"parallelism":3,"paralelism":3`, 1), []string{"assign"}, `stdin line 3: invalid case: vertices[0]: unknown field "paralelism"`},
		{good + "\n" + ex5, []string{"assign", "--flink", "master"}, "stdin line 2: recover_output_on_downstream_task: not modelled"},
		{"\n \n", []string{"assign"}, "stdin: no case (one JSON object a line)"},
		{good, []string{"assign", "--flink", "1.17"}, "--flink: unknown Flink version"},
		{good, []string{"assign", "a", "b"}, "one FILE at most, got 2 arguments"},
		{good, []string{"assign", "no-such-file.jsonl"}, "no-such-file.jsonl: no such file or directory"},
	} {
		code, out, errs := runCLI(t, tc.stdin, tc.args...)
		wantUsageError(t, tc.want, code, out, errs)
	}
	// 1.18 answers the same case with Flink's refusal of the field.
	code, out, errs := runCLI(t, ex5, "assign")
	if code != 0 || !strings.Contains(out, `{"error":{"stage":"input","kind":"input","class":"java.lang.IllegalArgumentException","message":"recover_output_on_downstream_task does not exist in this Flink version"`) {
		t.Errorf("exit %d, %q, %q", code, out, errs)
	}
}

func mustVersion(t *testing.T, s string) model.FlinkVersion {
	t.Helper()
	v, err := model.ParseFlinkVersion(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
