package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDashIsStdinEverywhere: every command that reads a file reads stdin for "-" and prints
// what it prints for the file (issue 16: 'replay -' failed with "open -: no such file").
func TestDashIsStdinEverywhere(t *testing.T) {
	dir := t.TempDir()
	md := writeSynthetic(t, dir, "_metadata")
	mdBytes, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	v1 := filepath.Join(dir, "v1.metadata") // format version 1: refused, but still planned
	v1Bytes := append([]byte(nil), mdBytes...)
	copy(v1Bytes[4:8], []byte{0, 0, 0, 1})
	if err := os.WriteFile(v1, v1Bytes, 0o644); err != nil {
		t.Fatal(err)
	}
	job := filepath.Join(dir, "job.yaml")
	jobText := "vertices:\n  - {parallelism: 3, operators: [{uid: my-uid}]}\n"
	keys := filepath.Join(dir, "keys.txt")
	cases := filepath.Join(dir, "cases.jsonl")
	caseText := `{"checkpoint_id": 1, "vertices": [{"name": "v", "operators": [{"id": "0000000000000000000000000000000a"}], "parallelism": 2, "max_parallelism_configured": false}], "operators": []}` + "\n"
	for p, b := range map[string]string{job: jobText, keys: "a\nb\nb\nc\n", cases: caseText} {
		if err := os.WriteFile(p, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, scenario, _ := runCLI(t, "", "run", "--seed", "2", "--steps", "4")
	scen := filepath.Join(dir, "scenario.txt")
	if err := os.WriteFile(scen, []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, stdin string
		file, dash  []string
		sameText    bool // false: the file's path appears in the output, compare with "stdin" in its place
	}{
		{"inspect", string(mdBytes), []string{"inspect", md, "--format", "json"}, []string{"inspect", "-", "--format", "json"}, true},
		{"inspect text", string(mdBytes), []string{"inspect", md}, []string{"inspect", "-"}, false},
		{"plan", string(mdBytes), []string{"plan", md, "--parallelism", "3", "--format", "json"}, []string{"plan", "-", "--parallelism", "3", "--format", "json"}, false},
		{"plan version 1", string(v1Bytes), []string{"plan", v1, "--parallelism", "3", "--format", "json"}, []string{"plan", "-", "--parallelism", "3", "--format", "json"}, false},
		{"plan --job", jobText, []string{"plan", md, "--job", job}, []string{"plan", md, "--job", "-"}, true},
		{"replay", scenario, []string{"replay", scen}, []string{"replay", "-"}, true},
		{"skew --keys", "a\nb\nb\nc\n", []string{"skew", "--keys", keys, "--key-type", "string", "--parallelism", "2", "--csv"}, []string{"skew", "--keys", "-", "--key-type", "string", "--parallelism", "2", "--csv"}, true},
		{"advise --keys", "a\nb\nb\nc\n", []string{"advise", "--keys", keys, "--key-type", "string", "--max-expected-parallelism", "4", "--csv"}, []string{"advise", "--keys", "-", "--key-type", "string", "--max-expected-parallelism", "4", "--csv"}, true},
		{"assign", caseText, []string{"assign", cases}, []string{"assign", "-"}, true},
		{"repartition", `{"old_parallelism": 1, "new_parallelism": 1, "input": [[]]}`, nil, []string{"repartition", "-"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCLI(t, c.stdin, c.dash...)
			if code > 1 || out == "" {
				t.Fatalf("%q: exit %d, stderr %q", c.dash, code, errs)
			}
			if c.file == nil {
				return
			}
			fcode, fout, _ := runCLI(t, "", c.file...)
			if !c.sameText {
				// The output names its input: the file's path, or "stdin".
				fout = strings.ReplaceAll(strings.ReplaceAll(fout, md, "stdin"), v1, "stdin")
			}
			if fcode != code {
				t.Errorf("exit %d for the file, %d for stdin", fcode, code)
			}
			if diff := cmp.Diff(fout, out); diff != "" {
				t.Errorf("file and stdin differ (-file +stdin):\n%s", diff)
			}
		})
	}
	// stdin is read once: --job - and PATH - together are refused.
	code, out, errs := runCLI(t, jobText, "plan", "-", "--job", "-")
	wantUsageError(t, "--job - and PATH - both read stdin", code, out, errs)
}
