package sweep

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/sim"
)

func TestShardsPartitionSeeds(t *testing.T) {
	seen := map[uint64]int{}
	for i := range 4 {
		cfg := Config{Seeds: 10, Start: 5, Shard: i, Of: 4}
		for k := range cfg.Count() {
			seen[cfg.SeedAt(k)]++
		}
	}
	for s := uint64(5); s < 15; s++ {
		if seen[s] != 1 {
			t.Errorf("seed %d run by %d shards, want 1", s, seen[s])
		}
	}
	if len(seen) != 10 {
		t.Errorf("%d seeds run, want 10: %v", len(seen), seen)
	}
	if n := (Config{Seeds: 2, Shard: 3, Of: 4}).Count(); n != 0 {
		t.Errorf("shard 3/4 of 2 seeds runs %d, want 0", n)
	}
}

// TestSummaryListsSmallestFailing adds failing seeds in descending order: the summary lists the
// 100 smallest and counts the rest.
func TestSummaryListsSmallestFailing(t *testing.T) {
	s := NewSummary()
	for seed := 249; seed >= 0; seed-- {
		s.Add(&Record{Seed: uint64(seed), Flink: "1.18", Steps: 40, Result: "fail",
			Violations: []Violation{{Step: 1, Invariant: "splits", Detail: "x"}, {Step: 2, Invariant: "splits", Detail: "y"}}})
	}
	var b bytes.Buffer
	s.WriteText(&b)
	out := b.String()
	listed := regexp.MustCompile(`(?m)^  simulate run --seed (\d+) `).FindAllStringSubmatch(out, -1)
	var got []string
	for _, m := range listed {
		got = append(got, m[1])
	}
	var want []string
	for i := range MaxListed {
		want = append(want, fmt.Sprint(i))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("listed seeds (-want +got):\n%s", diff)
	}
	for _, line := range []string{
		"\nviolations by invariant             seeds  violations\n  splits                              250         500\n\nknown issues (do not fail a seed)   seeds    findings\n  (none)\n",
		"  ... and 150 more (the 100 smallest seeds are listed)\n",
		"FAIL: 250 of 250 seeds failed\n",
	} {
		if !strings.Contains(out, line) {
			t.Errorf("summary lacks %q:\n%s", line, out)
		}
	}
}

// TestRunInSeedOrder: the outcomes come in seed order, each the seed's own, whatever the number
// of workers; stopping early stops.
func TestRunInSeedOrder(t *testing.T) {
	var seeds []uint64
	cfg := Config{Start: 10, Seeds: 30, Shard: 1, Of: 3, Workers: 4, Version: model.Flink118, Steps: 3,
		RunSeed: func(seed uint64, v model.FlinkVersion, steps int) sim.Outcome {
			return sim.Outcome{Result: sim.Result{Plan: sim.Plan{Seed: seed, Version: v}}, Steps: steps}
		}}
	Run(cfg, func(o *sim.Outcome) bool {
		seeds = append(seeds, o.Plan.Seed)
		return len(seeds) < 7
	})
	if diff := cmp.Diff([]uint64{11, 14, 17, 20, 23, 26, 29}, seeds); diff != "" {
		t.Errorf("seeds (-want +got):\n%s", diff)
	}
}

// TestRunSurvivesPanic: a panicking seed is a failed record with the panic violation.
func TestRunSurvivesPanic(t *testing.T) {
	var recs []*Record
	cfg := Config{Seeds: 3, Version: model.Flink118, Steps: 5,
		RunSeed: func(seed uint64, v model.FlinkVersion, steps int) sim.Outcome {
			p := sim.Generate(seed, v, steps)
			if seed == 1 {
				p.Steps = append(p.Steps, sim.Step{Kind: sim.StepKind(250)}) // no such step: Run panics
			}
			return sim.RunSafe(p)
		}}
	Run(cfg, func(o *sim.Outcome) bool {
		recs = append(recs, NewRecord(o))
		return true
	})
	if len(recs) != 3 || recs[0].Failed() || !recs[1].Failed() || recs[2].Failed() {
		t.Fatalf("records %+v, want seed 1 failed only", recs)
	}
	if v := recs[1].Violations; len(v) != 1 || v[0].Invariant != sim.InvPanic || !strings.Contains(v[0].Detail, "unknown step kind") {
		t.Errorf("seed 1: violations %+v, want one %q", v, sim.InvPanic)
	}
}

// rec is a line of the shard format.
func rec(seed uint64, flink string, steps int) string {
	return fmt.Sprintf(`{"seed":%d,"flink":%q,"steps":%d,"result":"ok","violations":[],"labels":[]}`, seed, flink, steps)
}

func shard(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

// merge merges the shards named a, b, … and returns the error of the first failing step.
func merge(shards ...string) (*Summary, error) {
	m := NewMerger()
	for i, s := range shards {
		if err := m.ReadShard(string(rune('a'+i)), strings.NewReader(s)); err != nil {
			return nil, err
		}
	}
	return m.Summary()
}

func TestMergeRejects(t *testing.T) {
	for _, tc := range []struct {
		name   string
		shards []string
		want   string // a regexp of the error
	}{
		{"no shard", nil, "^no seed records$"},
		{"empty", []string{""}, "^no seed records$"},
		{"blank lines", []string{"\n \n", ""}, "^no seed records$"},
		{"flink", []string{shard(rec(0, "1.18", 40), rec(2, "1.18", 40)), shard(rec(1, "1.10.1", 40))},
			`^b:1: seed 1 has flink 1.10.1, but seed 0 \(a:1\) has flink 1.18: the shards of one sweep share --flink$`},
		{"steps", []string{shard(rec(0, "1.18", 40), rec(1, "1.18", 12))},
			`^a:2: seed 1 has steps 12, but seed 0 \(a:1\) has steps 40: the shards of one sweep share --steps$`},
		{"overlap", []string{shard(rec(0, "1.18", 9), rec(3, "1.18", 9), rec(6, "1.18", 9)), shard(rec(1, "1.18", 9), rec(6, "1.18", 9))},
			`^seed 6 is in both a and b: overlapping shards`},
		{"same shard twice", []string{shard(rec(0, "1.18", 9), rec(2, "1.18", 9)), shard(rec(0, "1.18", 9), rec(2, "1.18", 9))},
			`^seed 0 is in both a and b`},
		{"twice in a shard", []string{shard(rec(5, "1.18", 9), rec(7, "1.18", 9), rec(7, "1.18", 9))},
			`^seed 7 is in a twice`},
		{"strided overlap", []string{shard(rec(100, "1.18", 9), rec(106, "1.18", 9), rec(112, "1.18", 9), rec(118, "1.18", 9)),
			shard(rec(82, "1.18", 9), rec(94, "1.18", 9), rec(106, "1.18", 9), rec(118, "1.18", 9))},
			`^seed 106 is in both a and b`},
	} {
		_, err := merge(tc.shards...)
		if err == nil || !regexp.MustCompile(tc.want).MatchString(err.Error()) {
			t.Errorf("%s: error %v, want %s", tc.name, err, tc.want)
		}
		if strings.Contains(fmt.Sprint(err), "\n") {
			t.Errorf("%s: error of more than one line: %q", tc.name, err)
		}
	}
	if _, err := merge(""); !errors.Is(err, ErrNoSeeds) {
		t.Errorf("empty merge: %v, want ErrNoSeeds", err)
	}
}

// TestMergeShardsOfASweep: the shards of one sweep merge, in any order, concatenated or not.
func TestMergeShardsOfASweep(t *testing.T) {
	var shards [4][]string
	for s := uint64(7); s < 50; s++ {
		shards[(s-7)%4] = append(shards[(s-7)%4], rec(s, "1.18", 9))
	}
	one := func(i int) string { return shard(shards[i]...) }
	for _, in := range [][]string{
		{one(0), one(1), one(2), one(3)},
		{one(3), one(1), one(0), one(2)},
		{one(2) + one(0) + one(3) + one(1)},
	} {
		s, err := merge(in...)
		if err != nil || s.Seeds() != 43 {
			t.Errorf("merge: %v, seeds %v; want 43 seeds", err, s)
		}
	}
	// Progressions with overlapping ranges but no common seed (even and odd).
	a := shard(rec(100, "1.18", 9), rec(106, "1.18", 9), rec(112, "1.18", 9), rec(118, "1.18", 9))
	b := shard(rec(91, "1.18", 9), rec(103, "1.18", 9), rec(115, "1.18", 9), rec(127, "1.18", 9))
	if _, err := merge(a, b); err != nil {
		t.Errorf("disjoint progressions: %v", err)
	}
}

// FuzzSummarizeInput feeds arbitrary shards to the merge: it never panics, its errors are one
// line, and it reports an overlap iff a seed is in two records.
//
//	go test -fuzz FuzzSummarizeInput -fuzztime 60s ./sim/sweep
func FuzzSummarizeInput(f *testing.F) {
	f.Add(shard(rec(0, "1.18", 40), rec(2, "1.18", 40)), shard(rec(1, "1.18", 40), rec(3, "1.18", 40)))
	f.Add(shard(rec(0, "1.18", 40), rec(3, "1.18", 40), rec(6, "1.18", 40)), shard(rec(1, "1.18", 40), rec(6, "1.18", 40)))
	f.Add(shard(rec(18446744073709551615, "1.18", 1), rec(5, "1.18", 1)), shard(rec(18446744073709551614, "1.18", 1)))
	f.Add(shard(rec(0, "1.18", 40)), shard(rec(1, "1.10.1", 40)))
	f.Add("", "")
	f.Add("\n\n", "{}")
	f.Add(`{"seed":3,"flink":"1.18","steps":4,"result":"fail","violations":[{"step":1,"invariant":"splits","detail":"x"}],"labels":["a"]}`,
		`{"seed":4,"flink":"1.18","steps":4,"result":"known","violations":[{"step":1,"invariant":"splits","detail":"x","known":"FLINK-16638"}],"labels":[]}`)
	f.Add(`{"seed":1,"flink":"1.18","steps":4,"result":"ok","violations":[],"labels":[]} {}`, "not json")
	f.Fuzz(func(t *testing.T, a, b string) {
		m := NewMerger()
		seen := map[uint64]int{}
		dup := false
		for i, in := range []string{a, b} {
			if err := m.ReadShard(fmt.Sprint("shard", i), strings.NewReader(in)); err != nil {
				if strings.Contains(err.Error(), "\n") {
					t.Fatalf("error of more than one line: %q", err)
				}
				return
			}
			for _, l := range strings.Split(in, "\n") {
				if r, err := ParseRecord([]byte(strings.TrimSpace(l))); err == nil {
					seen[r.Seed]++
					dup = dup || seen[r.Seed] > 1
				}
			}
		}
		if m.CrossVersion() { // cross-version records: TestMergeVersionShards
			return
		}
		s, err := m.Summary()
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatalf("error of more than one line: %q", err)
		}
		if gotDup := err != nil && !errors.Is(err, ErrNoSeeds); gotDup != dup {
			t.Fatalf("overlap error %v, but a seed is in two records: %t (%v)", err, dup, seen)
		}
		if err == nil {
			var w bytes.Buffer
			s.WriteText(&w)
			if s.Seeds() != len(seen) {
				t.Fatalf("%d seeds summarized, %d read", s.Seeds(), len(seen))
			}
		}
	})
}

// TestIntersectBruteForce checks the smallest common seed of two progressions against a
// brute-force search over small progressions.
func TestIntersectBruteForce(t *testing.T) {
	members := func(r seedRun) map[uint64]bool {
		m := map[uint64]bool{}
		for i := range r.n {
			m[r.first+i*r.stride] = true
		}
		return m
	}
	var runs []seedRun
	for first := uint64(0); first < 9; first++ {
		runs = append(runs, seedRun{first: first, n: 1})
		for stride := uint64(1); stride < 7; stride++ {
			for n := uint64(2); n < 6; n++ {
				runs = append(runs, seedRun{first: first, stride: stride, n: n})
			}
		}
	}
	for _, a := range runs {
		ma := members(a)
		for _, b := range runs {
			want, wantOK := uint64(0), false
			for x := range members(b) {
				if ma[x] && (!wantOK || x < want) {
					want, wantOK = x, true
				}
			}
			if got, ok := intersect(a, b); ok != wantOK || ok && got != want {
				t.Fatalf("intersect(%+v, %+v) = %d, %t; want %d, %t", a, b, got, ok, want, wantOK)
			}
		}
	}
	// Near the top of the seed space nothing overflows.
	top := uint64(1<<64 - 1)
	a := seedRun{first: top - 12, stride: 6, n: 3} // top-12, top-6, top
	b := seedRun{first: top - 8, stride: 4, n: 3}  // top-8, top-4, top
	if got, ok := intersect(a, b); !ok || got != top {
		t.Errorf("intersect near the top = %d, %t; want %d", got, ok, top)
	}
}

// TestMaxStepsRunsInBoundedMemory pins the steps bound to what was measured to run (issue 28:
// the former bound, 100,000, grew past 1.75 GB): 5,000 steps peaked at 0.46-0.47 GB and took
// 100-233 s on seeds 2-4 (10,000 steps: 0.73-1.38 GB, 210-702 s). A shard record beyond it is
// refused, as --steps is.
func TestMaxStepsRunsInBoundedMemory(t *testing.T) {
	if MaxSteps != 5000 {
		t.Errorf("MaxSteps = %d: measure peak RSS and time of 'simulate run --steps MAX' (docs/simulate.md) before changing it", MaxSteps)
	}
	if _, err := ParseRecord([]byte(rec(1, "1.18", 5001))); err == nil || !strings.Contains(err.Error(), "steps 5001 is out of range (1..5000)") {
		t.Errorf("a record of 5001 steps: %v", err)
	}
}
