package main

import (
	"bytes"
	"math"

	"github.com/restoresim/restoresim/internal/cliflags"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/autoscaler"
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

--autoscaler RELEASE (a Kubernetes operator release, 1.7 … 1.15 or main, as 'simulate
autoscale --operator') ranks by the parallelisms that release's autoscaler actually picks: for
every target t in L..N, what its JobVertexScaler.scale returns for a keyed vertex at max
parallelism M, in the release's default mode, with job.autoscaler.vertex.min-parallelism L and
max-parallelism N, scaled from --current C (default L: every target a scale-up from the lowest
parallelism). Worst, balanced, mean and the sample are then over those picks; the table adds the
target of the worst pick, how many targets were moved and the highest pick.

--csv prints the table as CSV:
  rank,max_parallelism,step,worst_max_over_mean,worst_parallelism,balanced_parallelisms,
  mean_max_over_mean,key_groups_per_subtask_at_n,rocksdb_prefix_bytes
  (+ sample_worst_max_over_mean,sample_worst_parallelism with --keys)
  (+ worst_target,moved_targets,highest_parallelism with --autoscaler)`

func runAdvise(e *env, args []string) int {
	fs := cliflags.New("advise", "advise --max-expected-parallelism N [--min-expected-parallelism L] [--candidates LIST] [--tolerance T] [--keys FILE --key-type int|long|string|row<T1,…,Tn> [--weights]] [--autoscaler RELEASE [--current C]] [--csv]", adviseHelp)
	var n cliflags.Int
	fs.Var(&n, "max-expected-parallelism", "the highest parallelism `N` the job may ever run at (1..32768)")
	var lo cliflags.Int
	fs.Var(&lo, "min-expected-parallelism", "the lowest parallelism `L` the job may run at (1..N, default 1)")
	candList := fs.String("candidates", "", "candidate max parallelisms `LIST` (default: powers of two and highly composite numbers, see above)")
	tol := fs.Float64("tolerance", 0.05, "compare worst-case skews in steps of `T` (0: exact)")
	keysPath := fs.String("keys", "", "key sample `FILE`, one key per line (- for stdin)")
	keyType := fs.String("key-type", "", "with --keys: "+keyTypeUsage)
	weights := fs.Bool("weights", false, "with --keys: every line is key,weight (weight = records)")
	release := fs.String("autoscaler", "", "rank by what the operator `RELEASE`'s autoscaler picks for targets L..N")
	var cur cliflags.Int
	fs.Var(&cur, "current", "with --autoscaler: the parallelism `C` it scales from (1..N, default L)")
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
	if *release != "" {
		r, err := autoscaler.ParseRelease(*release)
		if err != nil {
			return e.failf("advise", "--autoscaler: %v", err)
		}
		if cur.Given && (cur.V < 1 || cur.V > n.V) {
			return e.failf("advise", "--current %d is out of bounds (want 1..%d, the max expected parallelism)", cur.V, n.V)
		}
		opts.Autoscaler, opts.Current = r, cur.V
	} else if cur.Given {
		return e.failf("advise", "--current needs --autoscaler RELEASE")
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
		_ = plots.WriteAdviseCSV(&out, cands, opts) // a bytes.Buffer does not fail
	} else {
		_ = plots.WriteAdviseReport(&out, cands, opts)
	}
	return writeOut(e, "advise", out.Bytes())
}
