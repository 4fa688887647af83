package main

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/restoresim/restoresim/internal/cliflags"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/plots"
)

func init() {
	register(&command{name: "advise", summary: "rank candidate max parallelisms by worst-case key-group skew over 1..N", run: runAdvise})
}

const adviseHelp = `Ranks candidate max parallelisms M (changing M later invalidates all keyed state, so it is
chosen once) by the worst key-group skew a job would see at any parallelism p in 1..N, where N is
--max-expected-parallelism: worst = max over p of (max key groups per subtask) / (M/p), as in
'simulate skew'. Candidates below N are dropped (Flink cannot run p > M).
--min-expected-parallelism L takes the worst case, the mean and the balanced count over p in
L..N instead (default 1): parallelisms the job never runs at do not count.

Default candidates: the powers of two 128..32768 (Flink's defaults) and the highly composite
numbers 180..27720 (more divisors than any smaller number: 180, 240, 360, 720, 840, 1260,
1680, 2520, 5040, 7560, 10080, 15120, 20160, 25200, 27720); --candidates replaces them.

Ranking: a larger M always shrinks the worst case (it stays below 1 + N/M), but every key group
costs bookkeeping: an 8-byte offset per key group in each keyed-state checkpoint handle, and on
the heap (hashmap) backend one state map per key group and state plus one timer
deduplication map per key group; RocksDB keys carry a 2-byte key-group prefix once M > 128
(1 byte up to 128). So worst cases are compared in steps of --tolerance (default 0.05, i.e.
5 percentage points): each is rounded up to the next multiple of the tolerance above 1 (the
"within" column, e.g. <=1.05; exact balance is in the first step, not a step of its own), and
within a step the smaller M ranks first; the first choice is thus the smallest candidate as
good as the best one at that resolution (Flink's default 128 stays first unless a candidate
beats it by a step). --tolerance 0 ranks
on the exact values (exact ties: smaller M first). The table shows the step bound, the exact
worst case (6 decimals, printf %.6f), the p where it occurs, how many p in L..N divide M (perfect balance), the mean over L..N, M/N key groups
per subtask at N and the RocksDB prefix bytes. The last line is the recommendation and why.

With --keys FILE (same format and flags as 'simulate skew --keys': --key-type, --weights) it
also reports, per candidate, the worst record skew of the sample over p in L..N (max records
per subtask / mean) and where it occurs; this does not change the ranking (it is the same
hashing at every M, so it mostly reflects the sample's own key skew).

--csv prints the table as CSV:
  rank,max_parallelism,step,worst_max_over_mean,worst_parallelism,balanced_parallelisms,
  mean_max_over_mean,key_groups_per_subtask_at_n,rocksdb_prefix_bytes
  (+ sample_worst_max_over_mean,sample_worst_parallelism with --keys)`

func runAdvise(e *env, args []string) int {
	fs := cliflags.New("advise", "advise --max-expected-parallelism N [--min-expected-parallelism L] [--candidates LIST] [--tolerance T] [--keys FILE --key-type int|long|string [--weights]] [--csv]", adviseHelp)
	var n cliflags.Int
	fs.Var(&n, "max-expected-parallelism", "the highest parallelism `N` the job may ever run at (1..32768)")
	var lo cliflags.Int
	fs.Var(&lo, "min-expected-parallelism", "the lowest parallelism `L` the job may run at (1..N, default 1)")
	candList := fs.String("candidates", "", "candidate max parallelisms `LIST` (default: powers of two and highly composite numbers, see above)")
	tol := fs.Float64("tolerance", 0.05, "compare worst-case skews in steps of `T` (0: exact)")
	keysPath := fs.String("keys", "", "key sample `FILE`, one key per line (- for stdin)")
	keyType := fs.String("key-type", "", "with --keys: the key's Java `TYPE`: int, long or string")
	weights := fs.Bool("weights", false, "with --keys: every line is key,weight (weight = records)")
	csvOut := fs.Bool("csv", false, "print the table as CSV, without the notes")
	pos, done, code := e.parseFlags(fs, args)
	if done {
		return code
	}
	if len(pos) > 0 {
		return e.failf("advise", "unexpected argument %q (advise takes only flags)", pos[0])
	}
	if !n.Given {
		return e.failf("advise", "--max-expected-parallelism N is required")
	}
	if err := model.CheckParallelismPreconditions(n.V); err != nil {
		return e.failf("advise", "--max-expected-parallelism %d is out of bounds (want 1..%d)", n.V, model.UpperBoundMaxParallelism)
	}
	if lo.Given && (lo.V < 1 || lo.V > n.V) {
		return e.failf("advise", "--min-expected-parallelism %d is out of bounds (want 1..%d, the max expected parallelism)", lo.V, n.V)
	}
	if *tol < 0 || math.IsNaN(*tol) || math.IsInf(*tol, 0) || *tol >= 1 {
		return e.failf("advise", "--tolerance %v: want a number in [0, 1), e.g. 0.01", *tol)
	}
	opts := plots.AdviseOptions{MaxExpectedParallelism: n.V, MinExpectedParallelism: lo.V, Tolerance: *tol}
	if *candList != "" {
		cs, err := parseIntList("--candidates", *candList)
		if err != nil {
			return e.failf("advise", "%v", err)
		}
		opts.Candidates = cs
	}
	var ks plots.KeySample
	if *keysPath != "" {
		var err error
		if ks, err = readKeySample(e, *keysPath, *keyType, *weights); err != nil {
			return e.failf("advise", "%v", err)
		}
		opts.Keys = ks.Keys
	} else if *keyType != "" || *weights {
		return e.failf("advise", "--key-type and --weights need --keys FILE")
	}
	cands, err := plots.Advise(opts)
	if err != nil {
		return e.failf("advise", "%v", err)
	}
	var out bytes.Buffer
	if *csvOut {
		writeAdviseCSV(&out, cands, opts.Keys != nil)
	} else {
		writeAdviseReport(&out, cands, opts, ks)
	}
	return writeOut(e, "advise", out.Bytes())
}

func writeAdviseCSV(w io.Writer, cands []plots.Candidate, sample bool) {
	head := "rank,max_parallelism,step,worst_max_over_mean,worst_parallelism,balanced_parallelisms,mean_max_over_mean,key_groups_per_subtask_at_n,rocksdb_prefix_bytes"
	if sample {
		head += ",sample_worst_max_over_mean,sample_worst_parallelism"
	}
	fmt.Fprintln(w, head)
	for i, c := range cands {
		fmt.Fprintf(w, "%d,%d,%d,%s,%d,%d,%s,%s,%d", i+1, c.MaxParallelism, c.Step, ffmt(c.Worst.MaxOverMean), c.Worst.Parallelism,
			c.Balanced, ffmt(c.MeanMaxOverMean), ffmt(c.KeyGroupsPerSubtaskAtN), c.RocksDBPrefixBytes)
		if sample {
			fmt.Fprintf(w, ",%s,%d", ffmt(c.Sample.MaxOverMean), c.Sample.Parallelism)
		}
		fmt.Fprintln(w)
	}
}

func writeAdviseReport(w io.Writer, cands []plots.Candidate, opts plots.AdviseOptions, ks plots.KeySample) {
	n := opts.MaxExpectedParallelism
	if opts.MinExpectedParallelism > 1 {
		fmt.Fprintf(w, "expected parallelism L=%d..N=%d: worst max/mean key groups per subtask over p=%s", opts.MinExpectedParallelism, n, adviseRange(opts))
	} else {
		fmt.Fprintf(w, "max expected parallelism N=%d: worst max/mean key groups per subtask over p=%s", n, adviseRange(opts))
	}
	if opts.Tolerance > 0 {
		fmt.Fprintf(w, ", compared in steps of %s", strconv.FormatFloat(opts.Tolerance, 'f', -1, 64))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "rank\tM\twithin\tworst\tat p\tbalanced p\tmean\tM/N\tprefix bytes\t"
	if opts.Keys != nil {
		head += "sample worst\tat p\t"
	}
	fmt.Fprintln(tw, head)
	for i, c := range cands {
		within := "-"
		if opts.Tolerance > 0 {
			within = "<=" + strconv.FormatFloat(math.Round((1+float64(c.Step)*opts.Tolerance)*1e9)/1e9, 'f', -1, 64)
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%d\t%d\t%s\t%s\t%d\t", i+1, c.MaxParallelism, within, ffmt(c.Worst.MaxOverMean), c.Worst.Parallelism,
			c.Balanced, ffmt(c.MeanMaxOverMean), strconv.FormatFloat(c.KeyGroupsPerSubtaskAtN, 'f', 1, 64), c.RocksDBPrefixBytes)
		if c.Sample != nil {
			fmt.Fprintf(tw, "%s\t%d\t", ffmt(c.Sample.MaxOverMean), c.Sample.Parallelism)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	fmt.Fprintln(w)
	var dropped []string
	for _, m := range opts.Dropped() {
		dropped = append(dropped, strconv.Itoa(m))
	}
	if len(dropped) > 0 {
		fmt.Fprintf(w, "dropped (below N=%d): %s\n", n, strings.Join(dropped, ", "))
	}
	fmt.Fprintln(w, "overhead per key group (grows with M): an 8-byte offset in every keyed-state checkpoint handle; on the heap backend a state map per state and a timer deduplication map; RocksDB keys carry a 2-byte key-group prefix when M > 128 (1 byte up to 128)")
	if opts.Keys != nil {
		fmt.Fprintf(w, "sample: %d records, %d distinct keys; its worst record skew is mostly key skew when it is far above the key-group worst\n", ks.Records, len(ks.Keys))
	}
	fmt.Fprintln(w, recommendation(cands, opts))
}

// adviseRange is the parallelisms advise ranks over, "L..N".
func adviseRange(opts plots.AdviseOptions) string {
	return fmt.Sprintf("%d..%d", max(1, opts.MinExpectedParallelism), opts.MaxExpectedParallelism)
}

// recommendation explains the first choice: lowest worst case, or the smallest M within the
// same tolerance step as the lowest.
func recommendation(cands []plots.Candidate, opts plots.AdviseOptions) string {
	rng := adviseRange(opts)
	first, lowest := cands[0], plots.Lowest(cands)
	var b strings.Builder
	fmt.Fprintf(&b, "recommendation: M=%d because ", first.MaxParallelism)
	switch {
	case first.Worst.MaxOverMean == 1:
		fmt.Fprintf(&b, "every parallelism %s divides it, so every subtask always gets the same number of key groups (max/mean 1.000000), and no smaller candidate does", rng)
	case lowest.MaxParallelism == first.MaxParallelism:
		fmt.Fprintf(&b, "its worst max/mean key groups per subtask over p=%s is %s (at p=%d), the lowest of all candidates", rng, ffmt(first.Worst.MaxOverMean), first.Worst.Parallelism)
	default:
		fmt.Fprintf(&b, "its worst max/mean key groups per subtask over p=%s is %s (at p=%d), in the same %s step as the lowest (M=%d: %s), with %s× fewer key groups to pay overhead for",
			rng, ffmt(first.Worst.MaxOverMean), first.Worst.Parallelism, strconv.FormatFloat(opts.Tolerance, 'f', -1, 64),
			lowest.MaxParallelism, ffmt(lowest.Worst.MaxOverMean), strconv.FormatFloat(float64(lowest.MaxParallelism)/float64(first.MaxParallelism), 'f', 1, 64))
	}
	fmt.Fprintf(&b, "; %d of the parallelisms %s divide it evenly", first.Balanced, rng)
	return b.String()
}
