//go:build !mutants

package sim

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// shrinkMutants are the mutants whose shrunk failures TestShrunkMutantFailuresReplay replays:
// one that makes the model panic (broadcast-no-modulo), and bugs of operator state, keyed
// state and the checkpoint store.
var shrinkMutants = []string{"broadcast-no-modulo", "broadcast-subtask-zero", "union-as-split", "range-end-exclusive", "retain-one-extra"}

// shrinkFailures is how many failing seeds of each mutant TestShrunkMutantFailuresReplay shrinks.
const shrinkFailures = 6

// TestShrunkMutantFailuresReplay: a shrunk failure is the same failure, of a plan the world
// accepts. For each of shrinkMutants it runs TestShrinkMutantFailures in this package's test
// binary built with -tags mutants (the mutant is chosen at start-up, so in another process),
// which shrinks the first shrinkFailures failing seeds and checks that each shrunk plan fails on
// the mutant as the seed did; here, on the correct model, every shrunk plan must parse (so
// Validate accepts it) and pass: a shrunk plan failing without the mutant is a failure the
// shrinker made, not the mutant's.
func TestShrunkMutantFailuresReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the package with -tags mutants and shrinks 30 failures")
	}
	bin := filepath.Join(t.TempDir(), "sim-mutants.test")
	if out, err := exec.Command("go", "test", "-c", "-tags", "mutants", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go test -c -tags mutants: %v\n%s", err, out)
	}
	for _, m := range shrinkMutants {
		dir := t.TempDir()
		cmd := exec.Command(bin, "-test.run=^TestShrinkMutantFailures$", "-test.count=1")
		cmd.Env = append(os.Environ(), "RESTORESIM_MUTANT="+m, "RESTORESIM_SHRINK_OUT="+dir,
			"RESTORESIM_SHRINK_FAILURES="+strconv.Itoa(shrinkFailures))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: the mutants build's half failed: %v\n%s", m, err, out)
			continue
		}
		files, _ := filepath.Glob(filepath.Join(dir, "seed-*.txt"))
		slices.Sort(files)
		if len(files) == 0 {
			t.Errorf("%s: no shrunk plan", m)
		}
		bad := 0
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			what, _, _ := strings.Cut(string(data), "\n")
			p, err := ParsePlan(string(data))
			if err != nil {
				bad++
				t.Errorf("%s: the shrunk plan is refused: %v\n%s", what, err, data)
				continue
			}
			if o := RunSafe(p); o.Verdict().Failed() {
				bad++
				t.Errorf("%s: the shrunk plan fails on the correct model too: %s: %s\n%s", what, FirstFailure(o.Violations), o.Violations[0].Detail, data)
			}
		}
		t.Logf("%s: %d of %d shrunk plans fail on the correct model", m, bad, len(files))
	}
}
