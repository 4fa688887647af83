package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplayBadInput: a binary or huge-line file is refused on one short, escaped line
// (issue 16: replay used to write raw binary, NUL bytes included, into the error line).
func TestReplayBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bin := write("bin.dat", []byte("seed 1\nflink 1.18\njob\x00\x01\xfe\xff x"))
	nul := write("nul.txt", []byte("seed 1\n\x00"))
	long := write("long.txt", []byte("seed 1\n"+strings.Repeat("x", 5000)+"\n"))
	for _, c := range []struct {
		want, stdin string
		args        []string
	}{
		{"bin.dat: not a scenario: line 3, column 4: control character U+0000 is not text", "", []string{"replay", bin}},
		{"nul.txt: not a scenario: line 2, column 1: control character U+0000", "", []string{"replay", nul}},
		{"stdin: not a scenario: line 1, column 1: byte 0xff is not UTF-8 text", "\xff\xfe", []string{"replay", "-"}},
		{"stdin: scenario: no 'job' line", "", []string{"replay", "-"}},
		{"long.txt: scenario: line 2: xxxx", "", []string{"replay", long}},
	} {
		code, out, errs := runCLI(t, c.stdin, c.args...)
		wantUsageError(t, c.want, code, out, errs)
		if len(errs) > maxErrorLine+200 {
			t.Errorf("%d bytes of error line", len(errs))
		}
		for _, r := range errs[:len(errs)-1] {
			if r < ' ' && r != '\t' || r == 0x7f || r == 0xfffd {
				t.Errorf("error line %q holds a control character or a bad byte", errs)
				break
			}
		}
	}
}

// TestReplayStdin: "-" reads the scenario from stdin, and replays like the file.
func TestReplayStdin(t *testing.T) {
	_, run, _ := runCLI(t, "", "run", "--seed", "3", "--steps", "6")
	path := filepath.Join(t.TempDir(), "saved.txt")
	if err := os.WriteFile(path, []byte(run), 0o644); err != nil {
		t.Fatal(err)
	}
	codeFile, fromFile, _ := runCLI(t, "", "replay", path)
	codeStdin, fromStdin, errs := runCLI(t, run, "replay", "-")
	if codeFile != codeStdin || fromFile != fromStdin || errs != "" {
		t.Errorf("replay FILE: exit %d, replay - : exit %d, stderr %q\n%s\n---\n%s", codeFile, codeStdin, errs, fromFile, fromStdin)
	}
}

// TestReplayFailIndexRefused: a fail step naming a subtask or vertex the job does not have is
// refused when the file is parsed, naming the index (issue 28: it ran, exit 0, the index taken
// modulo the parallelism).
func TestReplayFailIndexRefused(t *testing.T) {
	const job = "seed 1\nflink 1.18\njob keys=int/uniform/10 splits=2 source=p2/uid:source keyed=p2/uid:keyed\nprocess n=3\n"
	for _, c := range []struct{ step, want string }{
		{"fail vertex=1 subtask=99", "plan.txt: scenario: line 5: fail: keyed has no subtask 99: it runs at parallelism 2 at most up to this step (want subtask 0..1)"},
		{"fail vertex=5 subtask=0", "plan.txt: scenario: line 5: fail: the job has no vertex 5 (its vertices: 0 source, 1 keyed)"},
	} {
		path := filepath.Join(t.TempDir(), "plan.txt")
		if err := os.WriteFile(path, []byte(job+c.step+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errs := runCLI(t, "", "replay", path)
		wantUsageError(t, c.want, code, out, errs)
	}
}
