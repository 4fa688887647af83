package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/restoresim/restoresim/internal/atomicfile"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/sim"
)

func init() {
	register(&command{name: "sweep", summary: "run many seeds in parallel and summarize outcomes, violations and features", run: runSweep})
}

// defaultSweepSeeds is the seed count of a bare 'simulate sweep': about a minute on the
// project's 2-core machine at the default steps (measured: 2000 seeds took 100 CPU-seconds;
// see docs/simulate.md).
const defaultSweepSeeds = 1500

// Bounds on sweep flags.
const (
	maxSweepSeeds = math.MaxInt32
	maxWorkers    = 1024
	maxShards     = 1 << 20
)

// sweepConfig is a validated sweep.
type sweepConfig struct {
	seeds        int    // N: seeds start..start+N-1
	start        uint64 // S
	shard, of    int    // run only the seeds whose index (seed-S) ≡ shard mod of
	workers      int
	version      model.FlinkVersion
	steps        int
	out          string // directory for failing scenarios, "" for none
	json         bool
	showProgress bool
}

func runSweep(e *env, args []string) int {
	fs := newFlags("sweep", "sweep [--seeds N] [--start S] [--workers W] [--shard i/n] [--flink V] [--steps K] [--out DIR] [--format text|json]",
		fmt.Sprintf(`Runs the seeds S..S+N-1 (as 'simulate run --seed' would) on W workers and prints a summary:
outcome counts (ok, known-issue findings only, failed), violations by invariant, known issues
by name, the share of seeds exercising each feature (sim.Labels), and the replay command of
each failing seed (the %d smallest; the rest are counted). The summary is byte-identical for
any --workers. A seed fails iff it has a violation that is not a known Flink issue; known-issue
findings (e.g. FLINK-16638 on 1.10.1) are counted but do not fail it.

--shard i/n runs only the seeds whose index (seed - S) is i mod n, for running one sweep as n
jobs; merge their --format json outputs with 'simulate summarize'. --format json prints one
JSON object per seed, in seed order, instead of the summary. --out DIR saves every failing
seed as a scenario file DIR/seed-S-flink-V-steps-K.txt (its plan, with the trace and the
violations as comments) that 'simulate replay' runs. A progress bar is drawn on stderr when
it is a terminal; nothing else is written there. Exit code: 0 no seed failed, 1 some seed
failed, 2 bad usage.`, maxListed))
	var seeds, workers optInt
	var start seedFlag
	fs.Var(&seeds, "seeds", fmt.Sprintf("the number of seeds `N` (default %d)", defaultSweepSeeds))
	fs.Var(&start, "start", "the first seed `S` (default 0)")
	fs.Var(&workers, "workers", "run on `W` workers (default GOMAXPROCS)")
	shard := fs.String("shard", "", "run shard `i/n` of the seeds (0 <= i < n)")
	out := fs.String("out", "", "save failing seeds as scenario files in `DIR` (created if missing)")
	c := addCommonFlags(fs)
	pos, done, code := e.parseFlags(fs, args)
	if done {
		return code
	}
	if len(pos) > 0 {
		return e.failf("sweep", "unexpected argument %q (sweep takes only flags)", pos[0])
	}
	cfg := sweepConfig{seeds: defaultSweepSeeds, start: start.v, of: 1, workers: runtime.GOMAXPROCS(0),
		out: *out, json: *c.format == "json", showProgress: e.stderrIsTerminal}
	var err error
	if cfg.version, cfg.steps, err = c.resolve(); err != nil {
		return e.failf("sweep", "%v", err)
	}
	if seeds.set {
		if seeds.v < 1 || seeds.v > maxSweepSeeds {
			return e.failf("sweep", "--seeds %d is out of range (want 1..%d)", seeds.v, maxSweepSeeds)
		}
		cfg.seeds = seeds.v
	}
	if uint64(cfg.seeds-1) > math.MaxUint64-cfg.start {
		return e.failf("sweep", "--start %d with --seeds %d runs past the largest seed %d", cfg.start, cfg.seeds, uint64(math.MaxUint64))
	}
	if workers.set {
		if workers.v < 1 || workers.v > maxWorkers {
			return e.failf("sweep", "--workers %d is out of range (want 1..%d)", workers.v, maxWorkers)
		}
		cfg.workers = workers.v
	}
	if *shard != "" {
		if cfg.shard, cfg.of, err = parseShard(*shard); err != nil {
			return e.failf("sweep", "%v", err)
		}
	}
	if cfg.out != "" {
		if err := os.MkdirAll(cfg.out, 0o755); err != nil {
			return e.failf("sweep", "--out: %v", err)
		}
	}
	defer sweepMemoryMode()()
	return e.sweep(cfg)
}

// parseShard parses "i/n".
func parseShard(s string) (int, int, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("--shard %q is not i/n (e.g. 0/4)", s)
	}
	if n < 1 || n > maxShards {
		return 0, 0, fmt.Errorf("--shard %q: n must be in 1..%d", s, maxShards)
	}
	if i < 0 || i >= n {
		return 0, 0, fmt.Errorf("--shard %q: i must be in 0..%d", s, n-1)
	}
	return i, n, nil
}

// count is the number of seeds the shard runs.
func (c sweepConfig) count() int {
	if c.shard >= c.seeds {
		return 0
	}
	return (c.seeds-1-c.shard)/c.of + 1
}

// seedAt is the seed of the shard's k-th run.
func (c sweepConfig) seedAt(k int) uint64 { return c.start + uint64(c.shard) + uint64(k)*uint64(c.of) }

// sweep runs the seeds on cfg.workers goroutines and merges their outcomes in seed order, so
// everything it writes is independent of the number of workers and of scheduling. At most
// sweepWindow×workers outcomes are in flight, so memory does not grow with the number of seeds.
func (e *env) sweep(cfg sweepConfig) int {
	w := bufio.NewWriterSize(e.stdout, 64<<10)
	s := newSummary()
	var bar *progressbar.ProgressBar
	if cfg.showProgress {
		bar = progressbar.NewOptions64(int64(cfg.count()), progressbar.OptionSetWriter(e.stderr),
			progressbar.OptionSetDescription("sweep"), progressbar.OptionShowCount(), progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("seeds"), progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionSetPredictTime(true), progressbar.OptionClearOnFinish())
	}
	var failure error
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	forEachOutcome(cfg, func(o *outcome) bool {
		rec := recordOf(o)
		s.add(rec)
		if cfg.json {
			_ = enc.Encode(rec)
		}
		if rec.Result == resultFail && cfg.out != "" {
			if err := saveFailure(cfg.out, o); err != nil {
				failure = err
				return false
			}
		}
		if bar != nil {
			_ = bar.Add(1)
		}
		return true
	})
	if bar != nil {
		_ = bar.Finish()
	}
	if failure != nil {
		_ = w.Flush()
		return e.failf("sweep", "%v", failure)
	}
	if !cfg.json {
		s.write(w)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintf(e.stderr, "simulate sweep: writing output: %v\n", err)
		return exitUsage
	}
	if s.failed > 0 {
		return exitViolation
	}
	return exitOK
}

// forEachOutcome runs the shard's seeds on cfg.workers goroutines and calls f with each outcome
// in seed order, from the calling goroutine; f returns false to stop early.
func forEachOutcome(cfg sweepConfig, f func(*outcome) bool) {
	n := cfg.count()
	type job struct {
		k   int
		out chan outcome
	}
	jobs := make(chan job)
	order := make(chan chan outcome, sweepWindow*cfg.workers) // the in-flight window, in seed order
	stop := make(chan struct{})
	go func() { // dispatcher
		defer close(jobs)
		defer close(order)
		for k := range n {
			ch := make(chan outcome, 1)
			select {
			case order <- ch:
			case <-stop:
				return
			}
			select {
			case jobs <- job{k, ch}:
			case <-stop:
				return
			}
		}
	}()
	for range cfg.workers {
		go func() {
			for j := range jobs {
				j.out <- sweepRunSeed(cfg.seedAt(j.k), cfg.version, cfg.steps)
			}
		}()
	}
	for ch := range order {
		o := <-ch
		if !f(&o) {
			// The dispatcher stops; the workers finish their current seed into its buffered
			// channel and end when the dispatcher closes jobs.
			close(stop)
			return
		}
	}
}

// recordOf is the seed record of an outcome.
func recordOf(o *outcome) *seedRecord {
	r := &seedRecord{Seed: o.plan.Seed, Flink: o.plan.Version.String(), Steps: o.steps, Result: o.result(),
		Violations: []recordViolation{}, Labels: []string{}}
	for _, v := range o.res.Violations {
		r.Violations = append(r.Violations, recordViolation{Step: v.Step, Invariant: v.Invariant, Detail: v.Detail, Known: v.Known})
	}
	if o.stack == "" || len(o.plan.Steps) > 0 {
		r.Labels = append(r.Labels, sim.Labels(o.plan)...)
	}
	return r
}

// failureFileName is where --out saves a failing seed.
func failureFileName(o *outcome) string {
	return fmt.Sprintf("seed-%d-flink-%s-steps-%d.txt", o.plan.Seed, o.plan.Version, o.steps)
}

// saveFailure writes a failing seed's scenario file atomically (a temporary file, synced and
// renamed into place): the trace and violations as comments, then the plan.
func saveFailure(dir string, o *outcome) error {
	name := failureFileName(o)
	var b strings.Builder
	fmt.Fprintf(&b, "# simulate sweep: seed %d failed (flink %s, %d steps).\n", o.plan.Seed, o.plan.Version, o.steps)
	fmt.Fprintf(&b, "# To reproduce: %s   (or: simulate replay %s)\n#\n", o.replay, name)
	for _, l := range strings.SplitAfter(strings.TrimRight(renderOutcome(o), "\n"), "\n") {
		b.WriteString("# " + l)
	}
	b.WriteString("\n\n")
	b.WriteString(o.plan.Render())
	return atomicfile.WriteFile(filepath.Join(dir, name), []byte(b.String()))
}

// sweepWindow is how many outcomes per worker may wait for the seed-ordered merge. Seeds differ
// in cost by orders of magnitude (parallelism up to 1024), so a small window lets one slow seed
// at the head idle the other workers; 64 per worker keeps them busy while memory stays bounded
// by the window, not the number of seeds.
const sweepWindow = 64

// sweepMemoryLimit is the soft heap limit a sweep runs under.
const sweepMemoryLimit = 1 << 30

// sweepMemoryMode runs the garbage collector against a soft memory limit for the sweep, unless
// the user set GOGC or GOMEMLIMIT: no proportional collection, a collection whenever the heap
// nears 1 GiB. Simulations allocate fast and keep little, so proportional collection spent a
// core's fifth on GC and left a second worker little to gain; with the limit, peak memory is set
// by the limit, not by the number of seeds. It returns the function restoring the settings.
func sweepMemoryMode() (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	oldLimit := debug.SetMemoryLimit(sweepMemoryLimit)
	oldPercent := debug.SetGCPercent(-1)
	return func() {
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	}
}

// sweepRunSeed runs one seed of a sweep. A variable only so that a test can make a seed fail: the
// model has no failing seed to test the failure path with.
var sweepRunSeed = runSeed
