package sim

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// BenchmarkRunFixed replays a fixed scenario, one plan per op: the 64 plans in testdata/fixed,
// which commit 84ebf78's generator drew for seeds 1–64 (Flink 1.18, the default steps),
// rendered. Unlike BenchmarkRunDefault, which generates its plans, it replays the same work on
// every commit that parses them, so two commits compare side by side:
// testdata/fixed/compare.sh builds this file into both and runs them alternately (make
// bench-fixed). It uses nothing but ParsePlan and Run, so it builds in older trees too.
func BenchmarkRunFixed(b *testing.B) {
	plans := fixedPlans(b)
	i := 0
	for b.Loop() {
		Run(plans[i%len(plans)])
		i++
	}
}

// BenchmarkRunFixedParallel replays the same plans on GOMAXPROCS goroutines at once, as a sweep
// runs its seeds on that many workers: ns/op is wall time over the plans run, the throughput
// of the machine's cores together (the garbage collector shares them with the replays).
func BenchmarkRunFixedParallel(b *testing.B) {
	plans := fixedPlans(b)
	var next atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			Run(plans[int(next.Add(1)-1)%len(plans)])
		}
	})
}

func fixedPlans(b *testing.B) []Plan {
	files, err := filepath.Glob(filepath.Join("testdata", "fixed", "*.txt"))
	if err != nil || len(files) == 0 {
		b.Fatalf("no plans in testdata/fixed (%v)", err)
	}
	var plans []Plan
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		p, err := ParsePlan(string(text))
		if err != nil {
			b.Fatal(f, err)
		}
		plans = append(plans, p)
	}
	return plans
}
