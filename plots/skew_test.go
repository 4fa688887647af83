package plots

import (
	"encoding/csv"
	"errors"
	"fmt"
	"math/big"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/autoscaler"
)

// rangeSkew computes a Skew the slow, independent way: by asking the model for every subtask's
// key-group range and counting.
func rangeSkew(t *testing.T, m, p int) Skew {
	t.Helper()
	s := Skew{MaxParallelism: m, Parallelism: p, MinKeyGroups: m + 1}
	for i := range p {
		r, err := model.ComputeKeyGroupRangeForOperatorIndex(m, p, i)
		if err != nil {
			t.Fatalf("range(%d, %d, %d): %v", m, p, i, err)
		}
		n := r.NumberOfKeyGroups()
		s.MinKeyGroups = min(s.MinKeyGroups, n)
		switch {
		case n > s.MaxKeyGroups:
			s.MaxKeyGroups, s.SubtasksAtMax = n, 1
		case n == s.MaxKeyGroups:
			s.SubtasksAtMax++
		}
	}
	// max/mean = max·p/M, the float64 nearest to the exact rational.
	s.MaxOverMean, _ = new(big.Rat).SetFrac64(int64(s.MaxKeyGroups*p), int64(m)).Float64()
	return s
}

// TestKeyGroupSkewAgainstRanges checks the O(1) closed form against the model's ranges for
// every parallelism up to 300 (or M) and a spread of max parallelisms.
func TestKeyGroupSkewAgainstRanges(t *testing.T) {
	for _, m := range []int{1, 2, 3, 7, 10, 100, 127, 128, 129, 180, 256, 300, 360, 720, 1000, 1024, 1260, 2520, 5040, 32767, 32768} {
		for p := 1; p <= min(m, 300); p++ {
			got, err := KeyGroupSkew(m, p)
			if err != nil {
				t.Fatalf("KeyGroupSkew(%d, %d): %v", m, p, err)
			}
			if diff := cmp.Diff(rangeSkew(t, m, p), got); diff != "" {
				t.Fatalf("KeyGroupSkew(%d, %d) (-want +got):\n%s", m, p, diff)
			}
		}
	}
}

// TestKeyGroupSkewFlinkGolden checks the key-group counts against ranges computed by Flink's own
// KeyGroupRangeAssignment (model/testdata/flink/ranges.csv).
func TestKeyGroupSkewFlinkGolden(t *testing.T) {
	f, err := os.Open("../model/testdata/flink/ranges.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	type pair struct{ m, p int }
	sizes := map[pair][]int{}
	var order []pair
	for _, r := range recs[1:] { // max_parallelism,parallelism,operator_index,start,end
		v := make([]int, 5)
		for i := range v {
			if v[i], err = strconv.Atoi(r[i]); err != nil {
				t.Fatal(err)
			}
		}
		k := pair{v[0], v[1]}
		if _, ok := sizes[k]; !ok {
			order = append(order, k)
		}
		sizes[k] = append(sizes[k], v[4]-v[3]+1)
	}
	if len(order) < 100 {
		t.Fatalf("only %d pairs in the golden file", len(order))
	}
	for _, k := range order {
		lo, hi, atHi := k.m+1, 0, 0
		for _, n := range sizes[k] {
			lo = min(lo, n)
			if n > hi {
				hi, atHi = n, 0
			}
			if n == hi {
				atHi++
			}
		}
		got, err := KeyGroupSkew(k.m, k.p)
		if err != nil {
			t.Fatal(err)
		}
		if got.MinKeyGroups != lo || got.MaxKeyGroups != hi || got.SubtasksAtMax != atHi {
			t.Errorf("M=%d p=%d: got min %d max %d (%d at max), Flink: %d %d (%d)", k.m, k.p, got.MinKeyGroups, got.MaxKeyGroups, got.SubtasksAtMax, lo, hi, atHi)
		}
	}
}

func TestKeyGroupSkewGolden(t *testing.T) {
	for _, want := range []Skew{
		{MaxParallelism: 128, Parallelism: 80, MinKeyGroups: 1, MaxKeyGroups: 2, SubtasksAtMax: 48, MaxOverMean: 1.25}, // the issue's example
		{MaxParallelism: 10, Parallelism: 3, MinKeyGroups: 3, MaxKeyGroups: 4, SubtasksAtMax: 1, MaxOverMean: 1.2},
		{MaxParallelism: 128, Parallelism: 5, MinKeyGroups: 25, MaxKeyGroups: 26, SubtasksAtMax: 3, MaxOverMean: 1.015625},
		{MaxParallelism: 128, Parallelism: 127, MinKeyGroups: 1, MaxKeyGroups: 2, SubtasksAtMax: 1, MaxOverMean: 1.984375},
		{MaxParallelism: 720, Parallelism: 48, MinKeyGroups: 15, MaxKeyGroups: 15, SubtasksAtMax: 48, MaxOverMean: 1},
		{MaxParallelism: 32768, Parallelism: 3, MinKeyGroups: 10922, MaxKeyGroups: 10923, SubtasksAtMax: 2, MaxOverMean: 32769.0 / 32768},
		{MaxParallelism: 1, Parallelism: 1, MinKeyGroups: 1, MaxKeyGroups: 1, SubtasksAtMax: 1, MaxOverMean: 1},
	} {
		got, err := KeyGroupSkew(want.MaxParallelism, want.Parallelism)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("KeyGroupSkew(%d, %d) (-want +got):\n%s", want.MaxParallelism, want.Parallelism, diff)
		}
	}
}

func TestKeyGroupSkewErrors(t *testing.T) {
	for _, c := range []struct {
		m, p int
		want error
	}{
		{0, 1, model.ErrParallelismOutOfBounds},
		{32769, 1, model.ErrParallelismOutOfBounds},
		{128, 0, model.ErrParallelismOutOfBounds},
		{128, -1, model.ErrParallelismOutOfBounds},
		{128, 129, model.ErrMaxParallelismBelowParallelism},
	} {
		if _, err := KeyGroupSkew(c.m, c.p); !errors.Is(err, c.want) {
			t.Errorf("KeyGroupSkew(%d, %d) = %v, want %v", c.m, c.p, err, c.want)
		}
		if _, err := MovedFraction(c.m, c.p, 1); !errors.Is(err, c.want) {
			t.Errorf("MovedFraction(%d, %d, 1) = %v, want %v", c.m, c.p, err, c.want)
		}
		if _, err := MovedFraction(c.m, 1, c.p); !errors.Is(err, c.want) {
			t.Errorf("MovedFraction(%d, 1, %d) = %v, want %v", c.m, c.p, err, c.want)
		}
	}
}

// TestMovedFractionAgainstRanges counts the key groups that stay independently: subtask i keeps
// exactly the intersection of its old and new ranges.
func TestMovedFractionAgainstRanges(t *testing.T) {
	for _, m := range []int{1, 7, 10, 128, 129, 256, 720} {
		for from := 1; from <= min(m, 24); from++ {
			for to := 1; to <= min(m, 24); to++ {
				stay := 0
				for i := range min(from, to) {
					a, _ := model.ComputeKeyGroupRangeForOperatorIndex(m, from, i)
					b, _ := model.ComputeKeyGroupRangeForOperatorIndex(m, to, i)
					stay += a.Intersection(b).NumberOfKeyGroups()
				}
				got, err := MovedFraction(m, from, to)
				if err != nil {
					t.Fatal(err)
				}
				want := Moved{MaxParallelism: m, From: from, To: to, KeyGroupsMoved: m - stay, Fraction: float64(m-stay) / float64(m)}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("MovedFraction(%d, %d, %d) (-want +got):\n%s", m, from, to, diff)
				}
			}
		}
	}
}

// TestMovedFractionPerKeyGroup checks the O(min(from, to)) count against the definition: every
// key group's subtask before and after (computeOperatorIndexForKeyGroup), one at a time.
func TestMovedFractionPerKeyGroup(t *testing.T) {
	for _, m := range []int{1, 2, 3, 7, 64, 127, 128, 720, 32768} {
		for _, from := range []int{1, 2, 3, 5, 8, 31, 100, 127, 128, 719, 32767} {
			for _, to := range []int{1, 2, 4, 6, 9, 64, 99, 128, 720, 32768} {
				if from > m || to > m {
					continue
				}
				n := 0
				for kg := range m {
					if model.ComputeOperatorIndexForKeyGroup(m, from, kg) != model.ComputeOperatorIndexForKeyGroup(m, to, kg) {
						n++
					}
				}
				got, err := MovedFraction(m, from, to)
				if err != nil || got.KeyGroupsMoved != n {
					t.Fatalf("MovedFraction(%d, %d, %d) = %d, %v; want %d moved", m, from, to, got.KeyGroupsMoved, err, n)
				}
			}
		}
	}
}

func TestMovedFractionGolden(t *testing.T) {
	for _, c := range []struct{ m, from, to, moved int }{
		{128, 80, 100, 124},
		{128, 8, 4, 112}, // only key groups 0..15 keep subtask 0
		{128, 4, 8, 112},
		{128, 8, 16, 120}, // each old subtask keeps half of its own: 8 key groups on subtask 0
		{128, 7, 7, 0},
		{720, 80, 100, 700},
	} {
		got, err := MovedFraction(c.m, c.from, c.to)
		if err != nil {
			t.Fatal(err)
		}
		if got.KeyGroupsMoved != c.moved {
			t.Errorf("MovedFraction(%d, %d, %d) moved %d, want %d", c.m, c.from, c.to, got.KeyGroupsMoved, c.moved)
		}
	}
}

// sampleKeys are int keys whose key groups at M=128 are in SPEC §C's worked examples:
// 0 → 94, 1 → 86, 42 → 29, -1 → 80.
var sampleKeys = []KeyLoad{{Hash: 0, Records: 5}, {Hash: 1, Records: 1}, {Hash: 42, Records: 2}, {Hash: -1, Records: 3}}

func TestLoadPerSubtask(t *testing.T) {
	got, err := LoadPerSubtask(sampleKeys, 128, 3)
	if err != nil {
		t.Fatal(err)
	}
	// p=3: subtask 0 = [0,42] (29), 1 = [43,85] (80), 2 = [86,127] (86, 94).
	want := Load{MaxParallelism: 128, Parallelism: 3, Records: 11, DistinctKeys: 4, Subtasks: []SubtaskLoad{
		{Subtask: 0, KeyGroups: 43, Records: 2, DistinctKeys: 1},
		{Subtask: 1, KeyGroups: 43, Records: 3, DistinctKeys: 1},
		{Subtask: 2, KeyGroups: 42, Records: 6, DistinctKeys: 2},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("LoadPerSubtask (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Peak{Subtask: 2, Max: 6, Mean: 11.0 / 3, MaxOverMean: 6 / (11.0 / 3)}, got.RecordPeak()); diff != "" {
		t.Errorf("RecordPeak (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Peak{Subtask: 0, Max: 43, Mean: 128.0 / 3, MaxOverMean: 43 / (128.0 / 3)}, got.KeyGroupPeak()); diff != "" {
		t.Errorf("KeyGroupPeak (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Peak{Subtask: 2, Max: 2, Mean: 4.0 / 3, MaxOverMean: 2 / (4.0 / 3)}, got.DistinctKeyPeak()); diff != "" {
		t.Errorf("DistinctKeyPeak (-want +got):\n%s", diff)
	}
	h := got.Hotspot()
	if h.Subtask != 2 || !near(h.RecordsOverMean, h.KeyGroupsOverMean*h.DensityOverMean) || !near(h.KeyGroupsOverMean, 42.0*3/128) {
		t.Errorf("Hotspot = %+v: want subtask 2, records = layout × density, layout 42·3/128", h)
	}
}

func near(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }

func TestLoadErrors(t *testing.T) {
	if _, err := LoadPerKeyGroup([]KeyLoad{{Hash: 1, Records: -1}}, 128); err == nil {
		t.Error("negative records accepted")
	}
	if _, err := LoadPerKeyGroup([]KeyLoad{{Hash: 1, Records: 1 << 62}, {Hash: 2, Records: 1 << 62}}, 128); err == nil {
		t.Error("int64 overflow accepted")
	}
	if _, err := LoadPerSubtask(sampleKeys, 4, 5); !errors.Is(err, model.ErrMaxParallelismBelowParallelism) {
		t.Errorf("p > M: %v", err)
	}
}

// TestWorstRecordSkewBruteForce compares the prefix-sum scan with PerSubtask at every p.
func TestWorstRecordSkewBruteForce(t *testing.T) {
	var keys []KeyLoad
	for i := range 500 {
		keys = append(keys, KeyLoad{Hash: int32(i * 7919), Records: int64(1 + i%13)})
	}
	for _, m := range []int{7, 128, 300} {
		kgl, err := LoadPerKeyGroup(keys, m)
		if err != nil {
			t.Fatal(err)
		}
		n := min(m, 100)
		wantP, want := 0, 0.0
		for p := 1; p <= n; p++ {
			l, err := kgl.PerSubtask(p)
			if err != nil {
				t.Fatal(err)
			}
			if r := l.RecordPeak().MaxOverMean; p == 1 || r > want+1e-12 {
				wantP, want = p, r
			}
		}
		gotP, got, err := kgl.WorstRecordSkew(n)
		if err != nil {
			t.Fatal(err)
		}
		if gotP != wantP || !near(got, want) {
			t.Errorf("M=%d: WorstRecordSkew = (%d, %v), brute force (%d, %v)", m, gotP, got, wantP, want)
		}
	}
}

func TestAdvise(t *testing.T) {
	for _, c := range []struct {
		n       int
		tol     float64
		wantTop int
	}{
		// Exact balance has no step of its own: 2520 = lcm(1..10) ties with 180 (worst 1.022).
		{10, 0.05, 180},
		// 180 = 2²·3²·5 divides by 1..6, but 128 (worst 1.03125 at p=6) is in the same step.
		{6, 0.05, 128},
		{4, 0.05, 128}, // Flink's default, worst 1.0078 at p=3, keeps its 1-byte RocksDB prefix
		// Only lcm(1..12) = 27720 is perfect, but 180 (worst ≤ 1.04) is in the same step and
		// 128 (1.0547 at p=9) one step behind.
		{12, 0.05, 180},
		{4, 0, 180},      // exact ranking: perfect balance beats 128's 1.0078
		{80, 0.05, 1680}, // smallest M with worst ≤ 1.05
		{80, 0.01, 7560}, // smallest M with worst ≤ 1.01
		{80, 0, 27720},   // the exact lowest worst case
		{32768, 0.05, 32768},
	} {
		got, err := Advise(AdviseOptions{MaxExpectedParallelism: c.n, Tolerance: c.tol})
		if err != nil {
			t.Fatal(err)
		}
		if got[0].MaxParallelism != c.wantTop {
			t.Errorf("N=%d tolerance %v: first choice M=%d, want %d", c.n, c.tol, got[0].MaxParallelism, c.wantTop)
		}
		for i, cand := range got {
			if cand.MaxParallelism < c.n {
				t.Errorf("N=%d: candidate %d below N", c.n, cand.MaxParallelism)
			}
			// The worst case is the maximum over 1..N, computed from first principles.
			worst := 0.0
			for p := 1; p <= c.n && c.n <= 100; p++ {
				worst = max(worst, rangeFreeSkew(cand.MaxParallelism, p))
			}
			if c.n <= 100 && cand.Worst.MaxOverMean != worst {
				t.Errorf("N=%d M=%d: worst %v, want %v", c.n, cand.MaxParallelism, cand.Worst.MaxOverMean, worst)
			}
			if i == 0 {
				continue
			}
			prev := got[i-1]
			ordered := prev.Step < cand.Step || prev.Step == cand.Step && prev.MaxParallelism < cand.MaxParallelism
			if c.tol == 0 {
				ordered = prev.Worst.MaxOverMean < cand.Worst.MaxOverMean || prev.Worst.MaxOverMean == cand.Worst.MaxOverMean && prev.MaxParallelism < cand.MaxParallelism
			}
			if !ordered {
				t.Errorf("N=%d tolerance %v: rank %d (M=%d, step %d, worst %v) before rank %d (M=%d, step %d, worst %v)", c.n, c.tol,
					i, prev.MaxParallelism, prev.Step, prev.Worst.MaxOverMean, i+1, cand.MaxParallelism, cand.Step, cand.Worst.MaxOverMean)
			}
		}
	}
}

// rangeFreeSkew is max/mean from first principles: the most key groups any subtask gets when
// key group kg goes to subtask kg·p/M.
func rangeFreeSkew(m, p int) float64 {
	count := make([]int, p)
	for kg := range m {
		count[kg*p/m]++
	}
	hi := 0
	for _, c := range count {
		hi = max(hi, c)
	}
	return float64(hi*p) / float64(m)
}

// TestAdviseMinExpectedParallelism: worst cases, means and balanced counts are taken over L..N.
func TestAdviseMinExpectedParallelism(t *testing.T) {
	got, err := Advise(AdviseOptions{MaxExpectedParallelism: 12, MinExpectedParallelism: 10, Candidates: []int{128, 180, 27720}, Tolerance: 0.05, Keys: sampleKeys})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range got {
		var points []Skew
		for p := 10; p <= 12; p++ {
			points = append(points, Skew{Parallelism: p, MaxOverMean: rangeFreeSkew(c.MaxParallelism, p)})
		}
		want := SummarizeSkew(points)
		if c.Worst.MaxOverMean != want.Worst.MaxOverMean || c.Worst.Parallelism != want.Worst.Parallelism || c.Balanced != want.Balanced {
			t.Errorf("M=%d: worst %+v balanced %d, want %+v balanced %d", c.MaxParallelism, c.Worst, c.Balanced, want.Worst, want.Balanced)
		}
		if c.Sample == nil || c.Sample.Parallelism < 10 || c.Sample.Parallelism > 12 {
			t.Errorf("M=%d: sample worst %+v outside 10..12", c.MaxParallelism, c.Sample)
		}
	}
	// Over 10..12, 128's worst is 1.03125 (p=11, 12): the first step, and 128 is the smallest.
	if got[0].MaxParallelism != 128 {
		t.Errorf("first choice M=%d, want 128", got[0].MaxParallelism)
	}
	for _, lo := range []int{-1, 13} {
		if _, err := Advise(AdviseOptions{MaxExpectedParallelism: 12, MinExpectedParallelism: lo}); err == nil {
			t.Errorf("min expected parallelism %d accepted", lo)
		}
	}
}

func TestAdviseErrorsAndSample(t *testing.T) {
	if _, err := Advise(AdviseOptions{MaxExpectedParallelism: 0}); err == nil {
		t.Error("N=0 accepted")
	}
	if _, err := Advise(AdviseOptions{MaxExpectedParallelism: 500, Candidates: []int{128, 256}}); err == nil {
		t.Error("no candidate ≥ N accepted")
	}
	if _, err := Advise(AdviseOptions{MaxExpectedParallelism: 5, Tolerance: -1}); err == nil {
		t.Error("negative tolerance accepted")
	}
	got, err := Advise(AdviseOptions{MaxExpectedParallelism: 4, Candidates: []int{128, 8}, Keys: sampleKeys})
	if err != nil {
		t.Fatal(err)
	}
	// Tolerance 0: exact worst cases, 128 (1.0078125 at p=3) before 8 (1.125).
	if len(got) != 2 || got[0].MaxParallelism != 128 || got[0].Sample == nil || got[1].Sample == nil {
		t.Fatalf("got %+v", got)
	}
	kgl, _ := LoadPerKeyGroup(sampleKeys, 128)
	p, r, _ := kgl.WorstRecordSkew(4)
	if diff := cmp.Diff(&SampleSkew{Parallelism: p, MaxOverMean: r}, got[0].Sample); diff != "" {
		t.Errorf("sample skew of M=128 (-want +got):\n%s", diff)
	}
}

func ExampleKeyGroupSkew() {
	s, _ := KeyGroupSkew(128, 80) // Flink's default max parallelism at parallelism 80
	fmt.Printf("%d subtasks own %d key groups, %d own %d: max/mean %.4f\n",
		s.SubtasksAtMax, s.MaxKeyGroups, s.Parallelism-s.SubtasksAtMax, s.MinKeyGroups, s.MaxOverMean)
	// Output: 48 subtasks own 2 key groups, 32 own 1: max/mean 1.2500
}

func ExampleMovedFraction() {
	m, _ := MovedFraction(128, 80, 100)
	fmt.Printf("%d of %d key groups change subtask (%.1f%%)\n", m.KeyGroupsMoved, m.MaxParallelism, 100*m.Fraction)
	// Output: 124 of 128 key groups change subtask (96.9%)
}

func ExampleAdvise() {
	cands, _ := Advise(AdviseOptions{MaxExpectedParallelism: 10, Tolerance: 0.05})
	c := cands[0]
	fmt.Printf("M=%d: worst max/mean %.6f over p=1..10, %d of 10 divide it\n", c.MaxParallelism, c.Worst.MaxOverMean, c.Balanced)
	// Output: M=180: worst max/mean 1.022222 over p=1..10, 8 of 10 divide it
}

func BenchmarkKeyGroupSkew(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		_, _ = KeyGroupSkew(32768, 1+i%32768)
	}
}

func BenchmarkWorstRecordSkew(b *testing.B) {
	var keys []KeyLoad
	for i := range 10000 {
		keys = append(keys, KeyLoad{Hash: int32(i), Records: 1})
	}
	kgl, _ := LoadPerKeyGroup(keys, 4096)
	for b.Loop() {
		_, _, _ = kgl.WorstRecordSkew(1000)
	}
}

// TestDefaultCandidates checks the claims of the doc comment: powers of two 128..32768 plus the
// highly composite numbers (more divisors than every smaller number) in that range.
func TestDefaultCandidates(t *testing.T) {
	divisors := make([]int, 32769) // divisors[n] = number of divisors of n, by a sieve
	for d := 1; d <= 32768; d++ {
		for n := d; n <= 32768; n += d {
			divisors[n]++
		}
	}
	var want []int
	best := 0
	for n := 1; n <= 32768; n++ {
		d := divisors[n]
		hcn := d > best
		best = max(best, d)
		if n >= 128 && (hcn || n&(n-1) == 0) {
			want = append(want, n)
		}
	}
	if diff := cmp.Diff(want, DefaultCandidates()); diff != "" {
		t.Errorf("DefaultCandidates (-want +got):\n%s", diff)
	}
	DefaultCandidates()[0] = 7
	if DefaultCandidates()[0] != 128 {
		t.Error("DefaultCandidates shares its slice")
	}
}

// TestSkewSummaryAgreesWithAdvise: the summary 'simulate skew' prints per M is the one Advise
// ranks by, computed once in SummarizeSkew.
func TestSkewSummaryAgreesWithAdvise(t *testing.T) {
	const n = 100
	ps := make([]int, n)
	for i := range ps {
		ps[i] = i + 1
	}
	ms := []int{100, 128, 360, 720}
	series, err := KeyGroupSkews(ms, true, ps)
	if err != nil {
		t.Fatal(err)
	}
	if len(series) != len(ms)+1 || series[len(ms)].MaxParallelism != 0 || series[len(ms)].Label != "Flink default M" {
		t.Fatalf("series: %d, last %q M=%d", len(series), series[len(series)-1].Label, series[len(series)-1].MaxParallelism)
	}
	cands, err := Advise(AdviseOptions{MaxExpectedParallelism: n, Candidates: ms})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cands {
		i := slices.Index(ms, c.MaxParallelism)
		s := series[i]
		if s.MaxParallelism != c.MaxParallelism || s.Label != fmt.Sprintf("M=%d", c.MaxParallelism) {
			t.Fatalf("series %d is %q (M=%d)", i, s.Label, s.MaxParallelism)
		}
		got := SummarizeSkew(s.Points)
		want := SkewSummary{Worst: c.Worst, Balanced: c.Balanced, MeanMaxOverMean: c.MeanMaxOverMean}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("M=%d (-advise +summary):\n%s", c.MaxParallelism, diff)
		}
	}
	if (SummarizeSkew(nil) != SkewSummary{}) {
		t.Error("the summary of no points is not zero")
	}
	if _, err := KeyGroupSkews([]int{8}, false, []int{0}); err == nil {
		t.Error("parallelism 0 accepted")
	}
}

// The counts bound exactly what KeyGroupSkews and MovedFractions produce.
func TestCountsMatchWhatIsComputed(t *testing.T) {
	for _, tc := range []struct {
		ms, ps []int
		def    bool
		from   int
	}{
		{[]int{4, 8, 128}, []int{1, 3, 5, 8, 9, 200}, true, 5},
		{[]int{2}, []int{3, 4}, false, 1},
		{[]int{16, 32}, []int{1, 2, 16}, false, 20},
	} {
		series, err := KeyGroupSkews(tc.ms, tc.def, tc.ps)
		if err != nil {
			t.Fatal(err)
		}
		points := 0
		for _, s := range series {
			points += len(s.Points)
		}
		if got := CountSkewPairs(tc.ms, tc.def, tc.ps); got != points {
			t.Errorf("%+v: CountSkewPairs = %d, KeyGroupSkews gives %d points", tc, got, points)
		}
		var rows, steps int
		ms := map[int]bool{}
		err = MovedFractions(tc.ms, tc.from, tc.ps, func(m Moved) {
			rows++
			steps += min(m.From, m.To)
			ms[m.MaxParallelism] = true
		})
		if err != nil {
			t.Fatal(err)
		}
		r, s, n := CountRescales(tc.ms, tc.from, tc.ps)
		if r != rows || s != steps || n != len(ms) {
			t.Errorf("%+v: CountRescales = %d, %d, %d; MovedFractions gives %d rows, %d steps, %d series", tc, r, s, n, rows, steps, len(ms))
		}
	}
}

func TestAdviseDroppedAndLowest(t *testing.T) {
	opts := AdviseOptions{MaxExpectedParallelism: 200, Tolerance: 0.05}
	if got, want := opts.Dropped(), []int{128, 180}; !slices.Equal(got, want) {
		t.Errorf("Dropped (default candidates) = %v, want %v", got, want)
	}
	if got := (AdviseOptions{MaxExpectedParallelism: 5, Candidates: []int{8, 4, 2, 4}}).Dropped(); !slices.Equal(got, []int{4, 2, 4}) {
		t.Errorf("Dropped = %v, want [4 2 4]", got)
	}
	cands, err := Advise(opts)
	if err != nil {
		t.Fatal(err)
	}
	lowest := Lowest(cands)
	for _, c := range cands {
		if c.Worst.MaxOverMean < lowest.Worst.MaxOverMean {
			t.Errorf("M=%d has a lower worst case than Lowest's M=%d", c.MaxParallelism, lowest.MaxParallelism)
		}
	}
	if exact, _ := Advise(AdviseOptions{MaxExpectedParallelism: 200}); Lowest(exact).MaxParallelism != exact[0].MaxParallelism {
		t.Errorf("without tolerance Lowest is not the first candidate")
	}
}

// TestAdviseAutoscaler checks Advise with an operator release against autoscaler.Scale pick by
// pick, that alignment to divisors (1.10+) lifts M=128 from last to first, and the errors.
func TestAdviseAutoscaler(t *testing.T) {
	opts := AdviseOptions{MaxExpectedParallelism: 24, MinExpectedParallelism: 3, Candidates: []int{128, 180, 240, 720}, Tolerance: 0.05,
		Autoscaler: autoscaler.Operator115, Keys: []KeyLoad{{Hash: 1, Records: 3}, {Hash: 7, Records: 1}}}
	cands, err := Advise(opts)
	if err != nil {
		t.Fatal(err)
	}
	if cands[0].MaxParallelism != 128 {
		t.Errorf("first %d, want 128", cands[0].MaxParallelism)
	}
	for _, c := range cands {
		params := autoscaler.Params{Release: autoscaler.Operator115, MaxParallelism: c.MaxParallelism, Current: 3, Input: autoscaler.Hash, Lower: 3, Upper: 24}
		worst, moved, highest := 0.0, 0, 0
		for target := 3; target <= 24; target++ {
			d, err := autoscaler.Scale(params, target)
			if err != nil {
				t.Fatal(err)
			}
			if d.Parallelism != target {
				moved++
			}
			highest = max(highest, d.Parallelism)
			worst = max(worst, d.Skew)
		}
		if c.Worst.MaxOverMean != worst || c.Moved != moved || c.HighestPick != highest || c.Sample == nil {
			t.Errorf("M=%d: %+v, want worst %v, moved %d, highest %d", c.MaxParallelism, c, worst, moved, highest)
		}
		if d, _ := autoscaler.Scale(params, c.WorstTarget); d.Parallelism != c.Worst.Parallelism {
			t.Errorf("M=%d: worst target %d picks %d, not %d", c.MaxParallelism, c.WorstTarget, d.Parallelism, c.Worst.Parallelism)
		}
	}
	opts.Autoscaler = autoscaler.Release(99)
	if _, err := Advise(opts); err == nil || !strings.Contains(err.Error(), "unknown operator release") {
		t.Errorf("release 99: %v", err)
	}
	opts.Autoscaler, opts.Current = autoscaler.Operator17, 25
	if _, err := Advise(opts); err == nil || !strings.Contains(err.Error(), "current parallelism 25 is out of bounds") {
		t.Errorf("current 25: %v", err)
	}
}
