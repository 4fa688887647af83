package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/restoresim/restoresim/internal/cliflags"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/sim"
	"github.com/restoresim/restoresim/sim/sweep"
	"github.com/restoresim/restoresim/sut"
)

func init() {
	register(&command{name: "run", summary: "run one seed's simulation and print its trace and violations", run: runRun})
}

// commonFlags are the flags run and sweep share.
type commonFlags struct {
	flink  *string
	steps  cliflags.Int
	format *string
	// noShrink turns shrinking failing seeds off (sim.ShrinkOutcome).
	noShrink *bool
	sutFlags
}

// sutFlags choose the system under test: --sut and --flink-src (run, sweep, replay).
type sutFlags struct {
	sut, flinkSrc, mutant *string
}

func addSUTFlags(fs *cliflags.Set) sutFlags {
	return sutFlags{
		sut:      fs.String("sut", sut.Model, "the system under test `S` every restore's assignment comes from: model, flink (Flink's own classes, through the reference) or both (each restore asked of both; a difference is a violation 'reference')"),
		flinkSrc: fs.String("flink-src", "", "with --sut flink|both: the Flink source tree `DIR` to compile (a checkout, or an extracted archive; default $RESTORESIM_FLINK_SRC, else the version's archive in shared/flink-src)"),
		mutant:   fs.String("flink-mutant", "", "with --sut flink|both: run the version's archive with the injected Flink bug `NAME` (reference/mutants: "+strings.Join(sut.MutantNames(), ", ")+")"),
	}
}

// check checks --sut's value alone (before a scenario file names the version).
func (f sutFlags) check() error {
	if !slices.Contains(sut.Names(), *f.sut) {
		return fmt.Errorf("--sut %s: unknown system under test %q (want %s)", *f.sut, *f.sut, strings.Join(sut.Names(), ", "))
	}
	return nil
}

// assigners resolves --sut for the versions (sut.NewSet): nil for the model, else a system
// under test per version with up to workers JVMs each, and the function that stops them.
func (f sutFlags) assigners(vs []model.FlinkVersion, workers int) (map[model.FlinkVersion]sim.Assigner, func(), error) {
	return sut.NewSet(*f.sut, vs, sut.SetOptions{FlinkSrc: *f.flinkSrc, Mutant: *f.mutant, Workers: workers})
}

func addCommonFlags(fs *cliflags.Set) *commonFlags {
	c := &commonFlags{}
	c.flink = fs.String("flink", simFlinkDefault.String(), "the Flink version `V` to model: "+model.FlinkVersionNames())
	fs.Description += "\n\n" + simFlinkNote
	fs.Var(&c.steps, "steps", fmt.Sprintf("the number of steps `K` per plan (1..%d; default %d)", sweep.MaxSteps, sim.DefaultSteps))
	c.format = fs.String("format", "text", "output format: text or json")
	c.noShrink = fs.Bool("no-shrink", false, "do not shrink failing seeds to a minimal plan")
	c.sutFlags = addSUTFlags(fs)
	return c
}

// resolve checks the shared flags.
func (c *commonFlags) resolve() (model.FlinkVersion, int, error) {
	v, err := model.ParseFlinkVersion(*c.flink)
	if err != nil {
		return 0, 0, fmt.Errorf("--flink: %w", err)
	}
	steps := sim.DefaultSteps
	if c.steps.Given {
		if c.steps.V < 1 || c.steps.V > sweep.MaxSteps {
			return 0, 0, fmt.Errorf("--steps %d is out of range (want 1..%d)", c.steps.V, sweep.MaxSteps)
		}
		steps = c.steps.V
	}
	if err := checkFormat(*c.format); err != nil {
		return 0, 0, err
	}
	return v, steps, nil
}

// shrink is sim.ShrinkOutcome unless --no-shrink was given.
func (c *commonFlags) shrink(o sim.Outcome) sim.Outcome {
	if *c.noShrink {
		return o
	}
	return sim.ShrinkOutcome(o)
}

func checkFormat(f string) error {
	if f != "text" && f != "json" {
		return fmt.Errorf("unknown --format %q (want text or json)", f)
	}
	return nil
}

func runRun(e *env, args []string) int {
	fs := cliflags.New("run", "run --seed N [--flink V] [--steps K] [--sut model|flink|both] [--flink-src DIR | --flink-mutant NAME] [--no-shrink] [--format text|json]",
		`Generates the plan of seed N (a job, its state and a schedule of K steps: records,
checkpoints, savepoints, failures, restarts with rescaling), runs it on the simulated cluster
and prints the trace: first "seed N flink V", then the job and one line per step in scenario
syntax with its outcome after " -> ", then each violation (step, invariant, detail, the
(-want +got) diff) and one replay command, all as '#' comments. The whole output, saved to a
file, replays with 'simulate replay FILE'. A failing seed is then shrunk (unless --no-shrink)
to a minimal plan that still fails with the same invariant, printed as '#' comments.

A violation that reproduces a known Flink issue (e.g. FLINK-16638 on 1.10.1, or FLINK-40113,
the max-parallelism adoption hazard of SPEC §F.1) is reported as a known-issue finding and does not
fail the seed. Exit code: 0 when every invariant held or only known-issue findings were
made, 1 when some other invariant was violated, 2 on bad usage.

--format json prints JSON lines: one {"seed","step","line"} object per trace line (the job
line has step -1), one object per violation, and a final {"seed","result",...} object with
result "ok", "known" or "fail".`)
	var seed cliflags.Uint64
	fs.Var(&seed, "seed", "the seed `N` (an unsigned 64-bit integer)")
	c := addCommonFlags(fs)
	pos, done, code := e.parseFlags(fs, args)
	if done {
		return code
	}
	if len(pos) > 0 {
		return e.failf("run", "unexpected argument %q (run takes only flags)", pos[0])
	}
	if !seed.Given {
		return e.failf("run", "--seed is required")
	}
	v, steps, err := c.resolve()
	if err != nil {
		return e.failf("run", "%v", err)
	}
	suts, stop, err := c.assigners([]model.FlinkVersion{v}, 1)
	if err != nil {
		return e.failf("run", "%v", err)
	}
	defer stop()
	return e.report("run", *c.format, seed.V, v, func() sweep.Report {
		return sweep.NewReport(c.shrink(sim.RunSeedWith(seed.V, v, steps, suts[v])))
	})
}

// report prints the text header first, so that the seed is on stdout even if the run never
// ends, then runs and prints the outcome. It returns the exit code. The run collects garbage
// less often than Go's default (runGCPercent).
func (e *env) report(cmd, format string, seed uint64, v model.FlinkVersion, runIt func() sweep.Report) int {
	defer runMemoryMode()()
	w := bufio.NewWriter(e.stdout)
	if format == "text" {
		sweep.WriteHeader(w, seed, v)
		if err := w.Flush(); err != nil {
			fmt.Fprintf(e.stderr, "simulate %s: writing output: %v\n", cmd, err)
			return exitUsage
		}
	}
	o := runIt()
	if format == "json" {
		o.WriteJSON(w)
	} else {
		o.WriteText(w)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintf(e.stderr, "simulate %s: writing output: %v\n", cmd, err)
		return exitUsage
	}
	if o.Stack != "" {
		fmt.Fprintf(e.stderr, "simulate %s: the simulator panicked: %s\n%s", cmd, o.Violations[0].Detail, o.Stack)
	}
	if o.Verdict().Failed() {
		return exitViolation
	}
	return exitOK
}

// runGCPercent is the GOGC a single run or replay collects garbage at: a scenario allocates fast
// and keeps little (a 60-step replay of a 957-way job allocates 200 MB around a live heap of a
// few MB), so at Go's default of 100 collection cost a fifth of a replay's CPU; at 400, measured
// side by side, a replay takes 0.8x the CPU (GOGC=off under the sweep's 128 MiB limit the same,
// but a run's live heap is not bounded as a sweep's is, and over the limit it would collect
// all the time).
const runGCPercent = 400

// runMemoryMode sets runGCPercent unless the user set GOGC or GOMEMLIMIT, and returns the
// function restoring the setting.
func runMemoryMode() (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(runGCPercent)
	return func() { debug.SetGCPercent(old) }
}
