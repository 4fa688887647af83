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
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/restoresim/restoresim/internal/atomicfile"
	"github.com/restoresim/restoresim/internal/cliflags"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/sim"
	"github.com/restoresim/restoresim/sim/sweep"
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
	sweep.Config
	out          string // directory for failing scenarios, "" for none
	json         bool
	showProgress bool                 // a progress bar (stderr is a terminal)
	progressLine time.Duration        // else a progress line this often, 0 for none
	versions     []model.FlinkVersion // --flink A,B,…: a cross-version sweep; nil for one version
	failOnDiff   bool
}

func runSweep(e *env, args []string) int {
	fs := cliflags.New("sweep", "sweep [--seeds N] [--start S] [--workers W] [--shard i/n] [--flink V[,V...]] [--fail-on-difference] [--steps K] [--sut model|flink|both] [--flink-src DIR | --flink-mutant NAME] [--no-shrink] [--out DIR] [--progress D] [--format text|json]",
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
violations as comments) that 'simulate replay' runs. Each failing seed is shrunk (unless --no-shrink) to a minimal plan
that still fails with the same invariant: the text summary shows the shrunk plans of the failing
seeds it lists, and --out saves each as DIR/seed-S-flink-V-steps-K-min.txt. A progress bar is drawn on stderr when
it is a terminal; when it is not (a CI or pod log), a line "sweep: D of N seeds (P%%), F failed;
T elapsed, about R left" every --progress interval (default %v; 0: none), and a last one at the
end if any was printed. Only progress goes to stderr, and only there is the clock read: stdout
is the same bytes with or without it. Exit code: 0 no seed failed, 1 some seed failed, 2 bad
usage.

--flink A,B,... (a list of distinct versions) runs every seed under each version (a seed's plan
is the same under all) and prints each version's summary, then, for each version against the
one before it in the list, the seeds whose outcomes differ: the first differing step, its
outcome under each version and the violations (known issues included, named per version) only
one of them has. --format json prints one {"seed","records","differences"} object per seed
('simulate summarize' merges such shards).
Differences are findings, not failures: the exit code is 1 only when a seed fails under some
version, or, with --fail-on-difference, when some seed differs.`, sweep.MaxListed, defaultProgressEvery))
	var seeds, workers cliflags.Int
	var start cliflags.Uint64
	fs.Var(&seeds, "seeds", fmt.Sprintf("the number of seeds `N` (default %d)", defaultSweepSeeds))
	fs.Var(&start, "start", "the first seed `S` (default 0)")
	fs.Var(&workers, "workers", "run on `W` workers (default GOMAXPROCS)")
	shard := fs.String("shard", "", "run shard `i/n` of the seeds (0 <= i < n)")
	out := fs.String("out", "", "save failing seeds as scenario files in `DIR` (created if missing)")
	failOnDiff := fs.Bool("fail-on-difference", false, "with --flink A,B,…: exit 1 when the versions' outcomes differ on some seed")
	progress := fs.Duration("progress", defaultProgressEvery, "when stderr is not a terminal, print a progress line on it every `D` (0: none)")
	c := addCommonFlags(fs)
	pos, done, code := e.parseFlags(fs, args)
	if done {
		return code
	}
	if len(pos) > 0 {
		return e.failf("sweep", "unexpected argument %q (sweep takes only flags)", pos[0])
	}
	cfg := sweepConfig{Config: sweep.Config{Seeds: defaultSweepSeeds, Start: start.V, Of: 1, Workers: runtime.GOMAXPROCS(0), RunSeed: sweepRunSeed},
		out: *out, json: *c.format == "json", showProgress: e.stderrIsTerminal}
	switch {
	case *progress < 0:
		return e.failf("sweep", "--progress %v is negative (want an interval such as 10s, or 0 for none)", *progress)
	case !e.stderrIsTerminal:
		cfg.progressLine = *progress
	}
	versions, err := sweep.ParseVersions(*c.flink)
	if err != nil {
		return e.failf("sweep", "--flink: %v", err)
	}
	*c.flink = versions[0].String() // resolve checks the rest
	if cfg.Version, cfg.Steps, err = c.resolve(); err != nil {
		return e.failf("sweep", "%v", err)
	}
	if len(versions) > 1 {
		cfg.versions = versions
	} else if *failOnDiff {
		return e.failf("sweep", "--fail-on-difference needs a list of versions (--flink A,B)")
	}
	cfg.failOnDiff = *failOnDiff
	if seeds.Given && (seeds.V < 1 || seeds.V > maxSweepSeeds) {
		return e.failf("sweep", "--seeds %d is out of range (want 1..%d)", seeds.V, maxSweepSeeds)
	}
	if workers.Given && (workers.V < 1 || workers.V > maxWorkers) {
		return e.failf("sweep", "--workers %d is out of range (want 1..%d)", workers.V, maxWorkers)
	}
	nWorkers := cfg.Workers
	if workers.Given {
		nWorkers = workers.V
	}
	suts, stop, err := c.assigners(versions, nWorkers)
	if err != nil {
		return e.failf("sweep", "%v", err)
	}
	defer stop()
	if suts != nil {
		// The JVMs start once per worker and version, on first use.
		cfg.RunSeed = func(seed uint64, v model.FlinkVersion, steps int) sim.Outcome {
			return sim.RunSeedWith(seed, v, steps, suts[v])
		}
	}
	run := cfg.RunSeed
	cfg.RunSeed = func(seed uint64, v model.FlinkVersion, steps int) sim.Outcome { return c.shrink(run(seed, v, steps)) }
	if seeds.Given {
		if seeds.V < 1 || seeds.V > maxSweepSeeds {
			return e.failf("sweep", "--seeds %d is out of range (want 1..%d)", seeds.V, maxSweepSeeds)
		}
		cfg.Seeds = seeds.V
	}
	if uint64(cfg.Seeds-1) > math.MaxUint64-cfg.Start {
		return e.failf("sweep", "--start %d with --seeds %d runs past the largest seed %d", cfg.Start, cfg.Seeds, uint64(math.MaxUint64))
	}
	if workers.Given {
		if workers.V < 1 || workers.V > maxWorkers {
			return e.failf("sweep", "--workers %d is out of range (want 1..%d)", workers.V, maxWorkers)
		}
		cfg.Workers = workers.V
	}
	if *shard != "" {
		if cfg.Shard, cfg.Of, err = parseShard(*shard); err != nil {
			return e.failf("sweep", "%v", err)
		}
	}
	if cfg.out != "" {
		if err := os.MkdirAll(cfg.out, 0o755); err != nil {
			return e.failf("sweep", "--out: %v", err)
		}
	}
	defer sweepMemoryMode()()
	if cfg.versions != nil {
		return e.sweepVersions(cfg)
	}
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

// sweep runs the seeds (sweep.Run: on cfg.Workers goroutines, their outcomes in seed order, so
// everything it writes is independent of the number of workers and of scheduling) and prints
// their records or their summary.
func (e *env) sweep(cfg sweepConfig) int {
	w := bufio.NewWriterSize(e.stdout, 64<<10)
	s := sweep.NewSummary()
	bar := e.sweepBar(cfg)
	var failure error
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	lines := e.sweepLines(cfg)
	var shrunk []sweep.Report // the first sweep.MaxListed failing seeds' shrunk plans
	sweep.Run(cfg.Config, func(so *sim.Outcome) bool {
		rec := sweep.NewRecord(so)
		s.Add(rec)
		if lines != nil {
			lines.add(rec.Failed())
		}
		if so.Min != nil && len(shrunk) < sweep.MaxListed {
			shrunk = append(shrunk, sweep.NewReport(*so))
		}
		if cfg.json {
			_ = enc.Encode(rec)
		}
		if rec.Failed() && cfg.out != "" {
			if err := saveFailure(cfg.out, sweep.NewReport(*so)); err != nil {
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
	if lines != nil {
		lines.finish()
	}
	if failure != nil {
		_ = w.Flush()
		return e.failf("sweep", "%v", failure)
	}
	if !cfg.json {
		s.WriteTextShrunk(w, shrunk)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintf(e.stderr, "simulate sweep: writing output: %v\n", err)
		return exitUsage
	}
	if s.Failed() > 0 {
		return exitViolation
	}
	return exitOK
}

// sweepBar is the progress bar of a sweep on stderr, nil when stderr is not a terminal.
func (e *env) sweepBar(cfg sweepConfig) *progressbar.ProgressBar {
	if !cfg.showProgress {
		return nil
	}
	return progressbar.NewOptions64(int64(cfg.Count()), progressbar.OptionSetWriter(e.stderr),
		progressbar.OptionSetDescription("sweep"), progressbar.OptionShowCount(), progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("seeds"), progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSetPredictTime(true), progressbar.OptionClearOnFinish())
}

// sweepLines starts the progress lines of a sweep whose stderr is not a terminal (nil when
// --progress is 0 or stderr is a terminal).
func (e *env) sweepLines(cfg sweepConfig) *progressLines {
	if cfg.progressLine <= 0 {
		return nil
	}
	return startProgressLines(e.stderr, cfg.Count(), cfg.progressLine)
}

// sweepVersions runs a cross-version sweep (sweep.RunVersions, in seed order like sweep) and
// prints its comparisons (--format json) or its sweep.VersionsSummary.
func (e *env) sweepVersions(cfg sweepConfig) int {
	w := bufio.NewWriterSize(e.stdout, 64<<10)
	s := sweep.NewVersionsSummary(cfg.versions)
	bar := e.sweepBar(cfg)
	var failure error
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	lines := e.sweepLines(cfg)
	sweep.RunVersions(cfg.Config, cfg.versions, func(outs []sim.Outcome) bool {
		c := sweep.Compare(outs)
		s.Add(c)
		if lines != nil {
			lines.add(slices.ContainsFunc(c.Records, (*sweep.Record).Failed))
		}
		if cfg.json {
			_ = enc.Encode(c)
		}
		for i, rec := range c.Records {
			if rec.Failed() && cfg.out != "" && failure == nil {
				failure = saveFailure(cfg.out, sweep.NewReport(outs[i]))
			}
		}
		if bar != nil {
			_ = bar.Add(1)
		}
		return failure == nil
	})
	if bar != nil {
		_ = bar.Finish()
	}
	if lines != nil {
		lines.finish()
	}
	if failure != nil {
		_ = w.Flush()
		return e.failf("sweep", "%v", failure)
	}
	if !cfg.json {
		s.WriteText(w, cfg.Steps)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintf(e.stderr, "simulate sweep: writing output: %v\n", err)
		return exitUsage
	}
	if s.Failed() > 0 || cfg.failOnDiff && s.Differing() > 0 {
		return exitViolation
	}
	return exitOK
}

// saveFailure writes a failing seed's scenario file (sweep.Report.FailureFile), and its shrunk
// plan's (MinFile) if it has one, into dir
// atomically: a temporary file, synced and renamed into place.
func saveFailure(dir string, r sweep.Report) error {
	name, data := r.FailureFile(filepath.ToSlash(dir))
	if err := atomicfile.WriteFile(filepath.Join(dir, name), data); err != nil {
		return err
	}
	if name, data, ok := r.MinFile(filepath.ToSlash(dir)); ok {
		return atomicfile.WriteFile(filepath.Join(dir, name), data)
	}
	return nil
}

// sweepMemoryLimit is the soft memory limit a sweep runs under: well above the largest live heap
// measured (47 MB, default seeds on two workers), so that collections stay rare.
const sweepMemoryLimit = 128 << 20

// sweepMemoryMode runs the garbage collector against a soft memory limit for the sweep, unless
// the user set GOGC or GOMEMLIMIT: no proportional collection, a collection whenever the heap
// nears 128 MiB. Simulations allocate fast and keep little, so proportional collection spent a
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

// sweepRunSeed runs one seed of a sweep (sweep.Config.RunSeed). A variable only so that a test
// can make a seed fail: the model has no failing seed to test the failure path with.
var sweepRunSeed = sim.RunSeed
