//go:build mutants

package sim

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/restoresim/restoresim/model"
)

// TestShrinkMutantFailures is the mutants build's half of TestShrunkMutantFailuresReplay (which
// runs it): with RESTORESIM_MUTANT set and RESTORESIM_SHRINK_OUT naming a directory, it runs the
// seeds from 1 on (at most shrinkSeeds) until RESTORESIM_SHRINK_FAILURES of them fail, shrinks
// each (ShrinkOutcome), checks that the shrunk plan still fails the same way on the mutant
// (SameFailure: the same invariant, a panic at the same place), and writes it to the directory
// as seed-N.txt, its first line a comment naming the failure. Without them it is skipped.
func TestShrinkMutantFailures(t *testing.T) {
	out, m := os.Getenv("RESTORESIM_SHRINK_OUT"), os.Getenv("RESTORESIM_MUTANT")
	if out == "" || m == "" {
		t.Skip("run by TestShrunkMutantFailuresReplay (RESTORESIM_MUTANT and RESTORESIM_SHRINK_OUT unset)")
	}
	want, err := strconv.Atoi(os.Getenv("RESTORESIM_SHRINK_FAILURES"))
	if err != nil || want < 1 {
		t.Fatalf("RESTORESIM_SHRINK_FAILURES=%q: want a count >= 1", os.Getenv("RESTORESIM_SHRINK_FAILURES"))
	}
	found := 0
	for seed := uint64(1); seed <= shrinkSeeds && found < want; seed++ {
		o := RunSeed(seed, model.Flink118, DefaultSteps)
		if !o.Verdict().Failed() {
			continue
		}
		found++
		s := ShrinkOutcome(o)
		if s.Min == nil {
			t.Errorf("%s seed %d: not shrunk (the plan does not fail the same way when run again)", m, seed)
			continue
		}
		if !SameFailure(o)(*s.Min) {
			t.Errorf("%s seed %d: the shrunk plan fails %q (%s), the seed %q (%s):\n%s", m, seed,
				FirstFailure(s.Min.Violations), s.Min.PanicAt, FirstFailure(o.Violations), o.PanicAt, s.Min.Plan.Render())
		}
		text := fmt.Sprintf("# %s seed %d: %s %s\n%s", m, seed, FirstFailure(o.Violations), o.PanicAt, s.Min.Plan.Render())
		if err := os.WriteFile(filepath.Join(out, fmt.Sprintf("seed-%d.txt", seed)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if found < want {
		t.Errorf("%s: %d of seeds 1..%d fail, want %d", m, found, shrinkSeeds, want)
	}
}

// shrinkSeeds bounds the seeds TestShrinkMutantFailures runs.
const shrinkSeeds = 400
