package main

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSimulatorDocTranscripts runs every `$ simulate run|sweep …` line of the simulator's
// docs that needs no file of its own (optionally piped into `| tail -N`) and compares its output
// — stderr when it fails with usage errors — with the lines the doc shows under it, so the
// transcripts cannot go stale. Lines that write or read files, or use the mutant build, are
// left out (TestEveryDocTranscript checks the mutant-build ones).
func TestSimulatorDocTranscripts(t *testing.T) {
	checked, found := 0, 0
	for _, path := range []string{"../../docs/simulate.md", "../../README.md", "../../docs/versions.md"} {
		doc, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(doc), "\n")
		for i, line := range lines {
			cmdLine, ok := strings.CutPrefix(line, "$ simulate ")
			if !ok || strings.ContainsAny(cmdLine, "><;&") || !(strings.HasPrefix(cmdLine, "run ") || strings.HasPrefix(cmdLine, "sweep ")) {
				continue
			}
			args, tail := cmdLine, 0
			if a, n, piped := strings.Cut(cmdLine, " | tail -"); piped {
				args = a
				if tail, err = strconv.Atoi(n); err != nil {
					t.Fatalf("%s:%d: %q: cannot read the tail count", path, i+1, line)
				}
			}
			var want []string
			for _, l := range lines[i+1:] {
				if strings.HasPrefix(l, "$ ") || strings.HasPrefix(l, "```") {
					break
				}
				want = append(want, l)
			}
			found++
			if testing.Short() && strings.HasPrefix(args, "sweep") {
				continue
			}
			code, out, errs := runCLI(t, "", strings.Fields(args)...)
			if code == 2 {
				out = errs
			}
			got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if tail > 0 && len(got) > tail {
				got = got[len(got)-tail:]
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("%s:%d: `simulate %s` prints something else than the doc shows (-doc +now):\n%s", path, i+1, cmdLine, d)
			}
			checked++
		}
	}
	if found < 10 {
		t.Errorf("only %d transcripts found: the docs lost their examples", found)
	}
	if checked == 0 {
		t.Error("no transcript checked")
	}
}
