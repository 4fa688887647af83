package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/sim"
	"github.com/restoresim/restoresim/sim/sweep"
)

func init() {
	register(&command{name: "run", summary: "run one seed's simulation and print its trace and violations", run: runRun})
}

// maxSteps bounds --steps: a plan is held in memory whole.
const maxSteps = sweep.MaxSteps

// outcome is one executed plan, judged by sim, with the one command that reproduces it.
type outcome struct {
	sim.Outcome
	replay string
}

// runSeed generates and runs one seed (a panic of the simulator is a failed outcome).
func runSeed(seed uint64, v model.FlinkVersion, steps int) outcome {
	return outcome{sim.RunSeed(seed, v, steps), runCommand(seed, v, steps)}
}

// runCommand is the replay command of a generated plan, from the effective configuration.
func runCommand(seed uint64, v model.FlinkVersion, steps int) string {
	return fmt.Sprintf("simulate run --seed %d --flink %s --steps %d", seed, v, steps)
}

// commonFlags are the flags run and sweep share.
type commonFlags struct {
	flink  *string
	steps  optInt
	format *string
}

func addCommonFlags(fs *flags) *commonFlags {
	c := &commonFlags{}
	c.flink = fs.String("flink", "1.18", "the Flink version `V` to model: "+model.FlinkVersionNames())
	fs.Var(&c.steps, "steps", fmt.Sprintf("the number of steps `K` per plan (1..%d; default %d)", maxSteps, sim.DefaultSteps))
	c.format = fs.String("format", "text", "output format: text or json")
	return c
}

// resolve checks the shared flags.
func (c *commonFlags) resolve() (model.FlinkVersion, int, error) {
	v, err := model.ParseFlinkVersion(*c.flink)
	if err != nil {
		return 0, 0, fmt.Errorf("--flink: %w", err)
	}
	steps := sim.DefaultSteps
	if c.steps.set {
		if c.steps.v < 1 || c.steps.v > maxSteps {
			return 0, 0, fmt.Errorf("--steps %d is out of range (want 1..%d)", c.steps.v, maxSteps)
		}
		steps = c.steps.v
	}
	if err := checkFormat(*c.format); err != nil {
		return 0, 0, err
	}
	return v, steps, nil
}

func checkFormat(f string) error {
	if f != "text" && f != "json" {
		return fmt.Errorf("unknown --format %q (want text or json)", f)
	}
	return nil
}

// seedFlag is a uint64 flag that remembers whether it was given.
type seedFlag struct {
	v   uint64
	set bool
}

func (s *seedFlag) String() string {
	if s == nil || !s.set {
		return ""
	}
	return fmt.Sprint(s.v)
}

func (s *seedFlag) Set(text string) error {
	v, err := strconv.ParseUint(text, 10, 64)
	if err != nil {
		return fmt.Errorf("not an unsigned 64-bit integer: %q", text)
	}
	s.v, s.set = v, true
	return nil
}

func runRun(e *env, args []string) int {
	fs := newFlags("run", "run --seed N [--flink V] [--steps K] [--format text|json]",
		`Generates the plan of seed N (a job, its state and a schedule of K steps: records,
checkpoints, savepoints, failures, restarts with rescaling), runs it on the simulated cluster
and prints the trace: first "seed N flink V", then the job and one line per step in scenario
syntax with its outcome after " -> ", then each violation (step, invariant, detail, the
(-want +got) diff) and one replay command, all as '#' comments. The whole output, saved to a
file, replays with 'simulate replay FILE'.

A violation that reproduces a known Flink issue (e.g. FLINK-16638 on 1.10.1, or FLINK-40113,
the max-parallelism adoption hazard of SPEC §F.1) is reported as a known-issue finding and does not
fail the seed. Exit code: 0 when every invariant held or only known-issue findings were
made, 1 when some other invariant was violated, 2 on bad usage.

--format json prints JSON lines: one {"seed","step","line"} object per trace line (the job
line has step -1), one object per violation, and a final {"seed","result",...} object with
result "ok", "known" or "fail".`)
	var seed seedFlag
	fs.Var(&seed, "seed", "the seed `N` (an unsigned 64-bit integer)")
	c := addCommonFlags(fs)
	pos, done, code := e.parseFlags(fs, args)
	if done {
		return code
	}
	if len(pos) > 0 {
		return e.failf("run", "unexpected argument %q (run takes only flags)", pos[0])
	}
	if !seed.set {
		return e.failf("run", "--seed is required")
	}
	v, steps, err := c.resolve()
	if err != nil {
		return e.failf("run", "%v", err)
	}
	return e.report("run", *c.format, seed.v, v, func() outcome { return runSeed(seed.v, v, steps) })
}

// report prints the text header first, so that the seed is on stdout even if the run never
// ends, then runs and prints the outcome. It returns the exit code.
func (e *env) report(cmd, format string, seed uint64, v model.FlinkVersion, runIt func() outcome) int {
	w := bufio.NewWriter(e.stdout)
	if format == "text" {
		writeHeader(w, seed, v)
		if err := w.Flush(); err != nil {
			fmt.Fprintf(e.stderr, "simulate %s: writing output: %v\n", cmd, err)
			return exitUsage
		}
	}
	o := runIt()
	if format == "json" {
		writeJSONOutcome(w, &o)
	} else {
		writeTextBody(w, &o)
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

// stepName is the scenario text of step i of p, or "" when i is not a step of the plan.
func stepName(p sim.Plan, i int) string {
	if i >= 0 && i < len(p.Steps) {
		return p.Steps[i].String()
	}
	return ""
}

// writeHeader prints the first line of the text output.
func writeHeader(w io.Writer, seed uint64, v model.FlinkVersion) {
	fmt.Fprintf(w, "seed %d flink %s\n", seed, v)
}

// writeTextBody prints an outcome after its header: the trace, then the violations and the
// verdict as '#' comments, so the whole output parses back as a scenario.
func writeTextBody(w io.Writer, o *outcome) {
	for _, l := range o.Trace {
		fmt.Fprintln(w, l)
	}
	var known []string
	nKnown := 0
	for _, v := range o.Violations {
		what := "violation"
		if v.Known != "" {
			what = "known issue " + v.Known
			known = append(known, v.Known)
			nKnown++
		}
		where := fmt.Sprintf("step %d", v.Step)
		if s := stepName(o.Plan, v.Step); s != "" {
			where += " (" + s + ")"
		}
		if v.Step < 0 {
			where = "before step 0"
		}
		fmt.Fprintf(w, "# %s at %s: %s: %s\n", what, where, v.Invariant, v.Detail)
		if d := strings.TrimRight(sim.StableDiff(v.Diff), "\n"); d != "" {
			fmt.Fprintln(w, "#   (-want +got):")
			for _, l := range strings.Split(d, "\n") {
				fmt.Fprintf(w, "#     %s\n", l)
			}
		}
	}
	n := len(o.Violations)
	switch o.Verdict() {
	case sim.VerdictOK:
		fmt.Fprintln(w, "# ok: every invariant held")
		return
	case sim.VerdictKnown:
		fmt.Fprintf(w, "# known: %s reproducing known Flink issues (%s), no other violation\n", countNoun(nKnown, "finding"), strings.Join(uniqueSortedStrings(known), ", "))
	case sim.VerdictFailed:
		fmt.Fprintf(w, "# FAIL: %s", countNoun(n-nKnown, "violation"))
		if nKnown > 0 {
			fmt.Fprintf(w, ", plus %s of known Flink issues (%s)", countNoun(nKnown, "finding"), strings.Join(uniqueSortedStrings(known), ", "))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "# To reproduce: %s\n", o.replay)
}

func countNoun(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func uniqueSortedStrings(ss []string) []string {
	out := append([]string(nil), ss...)
	sort.Strings(out)
	j := 0
	for i, s := range out {
		if i == 0 || s != out[j-1] {
			out[j] = s
			j++
		}
	}
	return out[:j]
}

// JSON lines of run and replay.
type (
	traceLine struct {
		Seed uint64 `json:"seed"`
		Step int    `json:"step"` // -1 for the job line
		Line string `json:"line"`
	}
	violationLine struct {
		Seed      uint64 `json:"seed"`
		Step      int    `json:"step"`
		Invariant string `json:"invariant"`
		Detail    string `json:"detail"`
		Diff      string `json:"diff,omitempty"`
		Known     string `json:"known,omitempty"`
	}
	resultLine struct {
		Seed       uint64 `json:"seed"`
		Flink      string `json:"flink"`
		Steps      int    `json:"steps"`
		Result     string `json:"result"`
		Violations int    `json:"violations"` // not attributed to a known issue
		Known      int    `json:"known"`      // known-issue findings
		Replay     string `json:"replay,omitempty"`
	}
)

func writeJSONOutcome(w io.Writer, o *outcome) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i, l := range o.Trace {
		_ = enc.Encode(traceLine{Seed: o.Plan.Seed, Step: i - 1, Line: l})
	}
	r := resultLine{Seed: o.Plan.Seed, Flink: o.Plan.Version.String(), Steps: o.Steps, Result: o.Verdict().String()}
	for _, v := range o.Violations {
		_ = enc.Encode(violationLine{Seed: o.Plan.Seed, Step: v.Step, Invariant: v.Invariant, Detail: v.Detail, Diff: sim.StableDiff(v.Diff), Known: v.Known})
		if v.Known != "" {
			r.Known++
		} else {
			r.Violations++
		}
	}
	if o.Verdict() != sim.VerdictOK {
		r.Replay = o.replay
	}
	_ = enc.Encode(r)
}

// render is the text output of an outcome, for tests and saved scenario files.
func renderOutcome(o *outcome) string {
	var b bytes.Buffer
	writeHeader(&b, o.Plan.Seed, o.Plan.Version)
	writeTextBody(&b, o)
	return b.String()
}
