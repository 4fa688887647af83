package sim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkRunPerf replays the ten 60-step scenario files of issue 30 (../shared/perf-scenarios
// beside the repository, or the folder in $PERF_SCENARIOS), each its own sub-benchmark, as RunSafe runs it
// for `simulate replay`; it is skipped where the folder is missing. The whole-process figure,
// start-up included, is sim/testdata/fixed/replay.sh's (make bench-replay).
func BenchmarkRunPerf(b *testing.B) {
	dir := os.Getenv("PERF_SCENARIOS")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "perf-scenarios")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	if len(files) == 0 {
		b.Skipf("no scenario files in %s", dir)
	}
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		// (the header "seed N flink V" of a saved run, as sweep.ParseScenario reads it)
		first, rest, _ := strings.Cut(string(text), "\n")
		seed, version, _ := strings.Cut(first, " flink ")
		p, err := ParsePlan(seed + "\nflink " + version + "\n" + rest)
		if err != nil {
			b.Fatal(f, err)
		}
		b.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(b *testing.B) {
			for b.Loop() {
				RunSafe(p)
			}
		})
	}
}
