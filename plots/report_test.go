package plots

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var errWrite = errors.New("disk full")

// failingWriter fails every Write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errWrite }

// render runs write into a buffer, and checks that it returns the error of a failing writer.
func render(t *testing.T, write func(w io.Writer) error) string {
	t.Helper()
	var b bytes.Buffer
	if err := write(&b); err != nil {
		t.Fatal(err)
	}
	if err := write(failingWriter{}); !errors.Is(err, errWrite) {
		t.Errorf("a failing writer: %v", err)
	}
	return b.String()
}

func TestWriteSkewSummaryAndCSV(t *testing.T) {
	ps := make([]int, 200)
	for i := range ps {
		ps[i] = i + 1
	}
	series, err := KeyGroupSkews([]int{128, 720}, false, ps)
	if err != nil {
		t.Fatal(err)
	}
	got := render(t, func(w io.Writer) error { return WriteSkewSummary(w, series, len(ps)) })
	want := "max_parallelism  parallelisms  balanced  worst_max_over_mean  at_parallelism  mean_max_over_mean\n" +
		"128              128           8         1.984375             127             1.314453\n" +
		"720              200           27        1.243056             179             1.062514\n" +
		"(72 pairs with parallelism > max parallelism skipped)\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	series, err = KeyGroupSkews(nil, true, []int{1, 84, 86, 171})
	if err != nil {
		t.Fatal(err)
	}
	got = render(t, func(w io.Writer) error { return WriteSkewCSV(w, series) })
	want = "max_parallelism,parallelism,min_key_groups,max_key_groups,max_over_mean\n" +
		"128,1,128,128,1.000000\n" +
		"128,84,1,2,1.312500\n" +
		"256,86,2,3,1.007812\n" + // 3·86/256 = 1.0078125: a tie, rounded to even
		"256,171,1,2,1.335938\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CSV (-want +got):\n%s", diff)
	}
	got = render(t, func(w io.Writer) error { return WriteSkewSummary(w, series, 4) })
	if !strings.Contains(got, "\ndefault          4             1         1.335938             171 (M=256)     1.164062\n") || strings.Contains(got, "skipped") {
		t.Errorf("default series:\n%s", got)
	}
}

func TestLoadWriteCSVAndReport(t *testing.T) {
	// int keys 0 → key group 94, 1 → 86, 42 → 29, -1 → 80 at M=128 (SPEC §C); p=3 owns
	// [0,42] [43,85] [86,127]. "00" is the int 0, the same key as "0".
	ks, err := ReadKeySample(strings.NewReader("key,weight\n0,5\n1,1\n42,2\n-1,3\n00,1\n"), IntKey, true)
	if err != nil {
		t.Fatal(err)
	}
	l, err := LoadPerSubtask(ks.Keys, 128, 3)
	if err != nil {
		t.Fatal(err)
	}
	got := render(t, l.WriteCSV)
	want := "subtask,key_groups,records,distinct_keys,records_share\n" +
		"0,43,2,1,0.166667\n" +
		"1,43,3,1,0.250000\n" +
		"2,42,7,2,0.583333\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CSV (-want +got):\n%s", diff)
	}
	got = render(t, func(w io.Writer) error { return l.WriteReport(w, ks) })
	want = strings.Join([]string{
		"max parallelism 128, parallelism 3: 12 records, 4 distinct keys, 5 lines",
		"",
		"  subtask  key_groups  records  distinct_keys  records_share",
		"        0          43        2              1       0.166667",
		"        1          43        3              1       0.250000",
		"        2          42        7              2       0.583333",
		"",
		"key-group skew (layout):  max/mean 1.007812  (subtask 0: 43, mean 42.666667)",
		"record skew:              max/mean 1.750000  (subtask 2: 7, mean 4.000000)",
		"distinct-key skew:        max/mean 1.500000  (subtask 2: 2, mean 1.333333)",
		"busiest subtask 2: 1.750000 x the mean records = 0.984375 x the mean key groups (layout) x 1.777778 x the mean records per key group (key skew)",
		`heaviest key: "0" with 6 records (0.500000 of all records, 1.500000 x a subtask's mean)`,
		"verdict: mostly key skew: the busiest subtask's key groups hold more records per key group than average; another max parallelism or parallelism only regroups whole key groups and cannot split a key",
		"note: the heaviest key alone exceeds a subtask's fair share, so no parallelism can balance this sample",
		""}, "\n")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	// One record per key at p=1: balanced, and "record" in the singular.
	ks, _ = ReadKeySample(strings.NewReader("a\nb\n"), StringKey, false)
	l, _ = LoadPerSubtask(ks.Keys, 1, 1)
	got = render(t, func(w io.Writer) error { return l.WriteReport(w, ks) })
	if !strings.Contains(got, `heaviest key: "a" with 1 record (`) || !strings.Contains(got, "verdict: balanced") || strings.Contains(got, "note:") {
		t.Errorf("balanced sample:\n%s", got)
	}
}

func TestWriteAdvise(t *testing.T) {
	ks, err := ReadKeySample(strings.NewReader("0,5\n1,1\n42,2\n-1,3\n"), IntKey, true)
	if err != nil {
		t.Fatal(err)
	}
	opts := AdviseOptions{MaxExpectedParallelism: 4, Candidates: []int{128, 8, 180, 2}, Tolerance: 0.05, Keys: ks.Keys}
	cands, err := Advise(opts)
	if err != nil {
		t.Fatal(err)
	}
	got := render(t, func(w io.Writer) error { return WriteAdviseReport(w, cands, opts) })
	want := strings.Join([]string{
		"max expected parallelism N=4: worst max/mean key groups per subtask over p=1..4, compared in steps of 0.05",
		"",
		"  rank    M  within     worst  at p  balanced p      mean   M/N  prefix bytes  sample worst  at p",
		"     1  128  <=1.05  1.007812     3           3  1.001953  32.0             1      3.272727     4",
		"     2  180  <=1.05  1.000000     1           4  1.000000  45.0             2      1.818182     4",
		"     3    8  <=1.15  1.125000     3           3  1.031250   2.0             1      2.181818     4",
		"",
		"dropped (below N=4): 2",
		"overhead per key group (grows with M): an 8-byte offset in every keyed-state checkpoint handle; on the heap backend a state map per state and a timer deduplication map; RocksDB keys carry a 2-byte key-group prefix when M > 128 (1 byte up to 128)",
		"sample: 11 records, 4 distinct keys; its worst record skew is mostly key skew when it is far above the key-group worst",
		"recommendation: M=128 because its worst max/mean key groups per subtask over p=1..4 is 1.007812 (at p=3), in the same 0.05 step as the lowest (M=180: 1.000000), with 1.4× fewer key groups to pay overhead for; 3 of the parallelisms 1..4 divide it evenly",
		""}, "\n")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	opts.Tolerance = 0
	if cands, err = Advise(opts); err != nil {
		t.Fatal(err)
	}
	got = render(t, func(w io.Writer) error { return WriteAdviseCSV(w, cands, opts) })
	want = "rank,max_parallelism,step,worst_max_over_mean,worst_parallelism,balanced_parallelisms,mean_max_over_mean,key_groups_per_subtask_at_n,rocksdb_prefix_bytes,sample_worst_max_over_mean,sample_worst_parallelism\n" +
		"1,180,0,1.000000,1,4,1.000000,45.000000,2,1.818182,4\n" +
		"2,128,0,1.007812,3,3,1.001953,32.000000,1,3.272727,4\n" +
		"3,8,0,1.125000,3,3,1.031250,2.000000,1,2.181818,4\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CSV (-want +got):\n%s", diff)
	}
}

// The three reasons a recommendation gives, over 1..N and over L..N.
func TestRecommendation(t *testing.T) {
	for _, c := range []struct {
		opts AdviseOptions
		want string
	}{
		{AdviseOptions{MaxExpectedParallelism: 10, Tolerance: 0.05}, "recommendation: M=180 because its worst max/mean key groups per subtask over p=1..10 is 1.022222 (at p=8), in the same 0.05 step as the lowest (M=2520: 1.000000)"},
		{AdviseOptions{MaxExpectedParallelism: 4}, "recommendation: M=180 because every parallelism 1..4 divides it"},
		{AdviseOptions{MaxExpectedParallelism: 12, MinExpectedParallelism: 12, Candidates: []int{180, 360}}, "recommendation: M=180 because every parallelism 12..12 divides it"},
		{AdviseOptions{MaxExpectedParallelism: 300}, "recommendation: M=32768 because its worst max/mean key groups per subtask over p=1..300 is 1.008301 (at p=280), the lowest of all candidates"},
		{AdviseOptions{MaxExpectedParallelism: 12, MinExpectedParallelism: 10, Tolerance: 0.05}, "recommendation: M=128 because its worst max/mean key groups per subtask over p=10..12 is 1.031250 (at p=11)"},
	} {
		cands, err := Advise(c.opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := recommendation(cands, c.opts); !strings.HasPrefix(got, c.want) {
			t.Errorf("%+v:\n%s\nwant a prefix\n%s", c.opts, got, c.want)
		}
	}
}
