package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/sim"
)

// Report is one judged run with the one command that reproduces it: what 'simulate run' and
// 'simulate replay' print, and what a sweep saves for a failing seed.
type Report struct {
	sim.Outcome
	Replay string // the replay command, e.g. RunCommand or ReplayCommand
}

// NewReport is the report of a generated seed's outcome, reproduced by RunCommand.
func NewReport(o sim.Outcome) Report {
	return Report{o, RunCommand(o.Plan.Seed, o.Plan.Version, o.Steps) + SUTFlags(o.Plan)}
}

// SUTFlags are the flags naming a plan's system under test in its replay commands: "" for the
// model, else " --sut NAME" and what else the SUT names (its Flags method, e.g. --flink-src).
func SUTFlags(p sim.Plan) string {
	if p.SUT == nil {
		return ""
	}
	if f, ok := p.SUT.(interface{ Flags() string }); ok {
		return " " + f.Flags()
	}
	return " --sut " + p.SUT.Name()
}

// RunCommand is the replay command of a generated plan, from the effective configuration
// (Command).
func RunCommand(seed uint64, v model.FlinkVersion, steps int) string {
	return Command(fmt.Sprintf("run --seed %d --flink %s --steps %d", seed, v, steps))
}

// Command is the shell command running 'simulate ARGS' the way this process models Flink:
// "simulate ARGS", or in a mutants build running a mutant (activeMutant) the build tag
// and environment it needs, "RESTORESIM_MUTANT=name go run -tags mutants ./cmd/simulate ARGS".
func Command(args string) string {
	if m := activeMutant(); m != "" {
		return fmt.Sprintf("%s=%s go run -tags mutants ./cmd/simulate %s", mutantEnvVar, m, args)
	}
	return "simulate " + args
}

// ReplayCommand is the one command that reproduces p, read from the scenario file path:
// 'simulate run' when p is exactly the plan its seed generates (so replaying a rendered plan
// prints what running the seed prints), else 'simulate replay FILE' (quoted for a POSIX shell).
func ReplayCommand(p sim.Plan, path string) string {
	if len(p.Steps) > 0 {
		if g, ok := sim.GenerateSafe(p.Seed, p.Version, len(p.Steps)); ok && g.Render() == p.Render() {
			return RunCommand(p.Seed, p.Version, len(p.Steps)) + SUTFlags(p)
		}
	}
	return Command("replay" + SUTFlags(p) + " " + quoteShellArg(path))
}

// shellSafe reports whether s is not empty and every byte of it is in [A-Za-z0-9_@%+=:,./-]:
// a word a POSIX shell takes as it is. (A loop, not a regexp compiled at start-up.)
func shellSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("_@%+=:,./-", c) >= 0) {
			return false
		}
	}
	return s != ""
}

// quoteShellArg quotes s for a POSIX shell when it needs quoting.
func quoteShellArg(s string) string {
	if shellSafe(s) {
		return s
	}
	out := "'"
	for _, r := range s {
		if r == '\'' {
			out += `'\''`
		} else {
			out += string(r)
		}
	}
	return out + "'"
}

// runHeader is the first line of a report's text; ParseScenario splits it into the scenario
// lines "seed N" and "flink V" so that a saved report parses back.
var runHeader = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^seed ([0-9]+) flink (\S+)[ \t]*\r?$`) }) // (compiled when first used, not at start-up)

// ParseScenario parses a scenario file: a plan in scenario syntax (sim.ParsePlan), a saved
// report's text or a sweep's saved failure. Data that is not text is refused before parsing
// (an error "not a scenario: line L, column C: …"), so no error ever quotes binary data.
func ParseScenario(data []byte) (sim.Plan, error) {
	if err := checkText(data); err != nil {
		return sim.Plan{}, fmt.Errorf("not a scenario: %w", err)
	}
	return sim.ParsePlan(runHeader().ReplaceAllString(string(data), "seed $1\nflink $2"))
}

// checkText refuses data that is not text: invalid UTF-8, or a control character other than
// tab, carriage return, form feed and newline. The error names the line and column.
func checkText(data []byte) error {
	line, col := 1, 1
	for i := 0; i < len(data); col++ {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == '\n':
			line, col = line+1, 0
		case r == utf8.RuneError && size == 1:
			return fmt.Errorf("line %d, column %d: byte 0x%02x is not UTF-8 text", line, col, data[i])
		case r < 0x20 && r != '\t' && r != '\r' && r != '\f' || r == 0x7f:
			return fmt.Errorf("line %d, column %d: control character %U is not text", line, col, r)
		}
		i += size
	}
	return nil
}

// WriteHeader prints the first line of a report's text, which names the seed before the run
// starts.
func WriteHeader(w io.Writer, seed uint64, v model.FlinkVersion) {
	fmt.Fprintf(w, "seed %d flink %s\n", seed, v)
}

// stepName is the scenario text of step i of p, or "" when i is not a step of the plan.
func stepName(p sim.Plan, i int) string {
	if i >= 0 && i < len(p.Steps) {
		return p.Steps[i].String()
	}
	return ""
}

// WriteText prints the report after its header: the trace, then the violations and the
// verdict as '#' comments, so the whole text parses back as a scenario (ParseScenario); a run
// that did not pass ends with "# To reproduce: " and the replay command.
func (r *Report) WriteText(w io.Writer) {
	for _, l := range r.Trace {
		fmt.Fprintln(w, l)
	}
	var known []string
	nKnown := 0
	for _, v := range r.Violations {
		what := "violation"
		if v.Known != "" {
			what = "known issue " + v.Known
			known = append(known, v.Known)
			nKnown++
		}
		where := fmt.Sprintf("step %d", v.Step)
		if s := stepName(r.Plan, v.Step); s != "" {
			where += " (" + s + ")"
		}
		if v.Step < 0 {
			where = "before step 0"
		}
		fmt.Fprintf(w, "# %s at %s: %s: %s\n", what, where, v.Invariant, v.Detail)
		if d := strings.TrimRight(v.Diff, "\n"); d != "" {
			fmt.Fprintln(w, "#   (-want +got):")
			for _, l := range strings.Split(d, "\n") {
				fmt.Fprintf(w, "#     %s\n", l)
			}
		}
	}
	n := len(r.Violations)
	switch r.Verdict() {
	case sim.VerdictOK:
		fmt.Fprintln(w, "# ok: every invariant held")
		return
	case sim.VerdictKnown:
		fmt.Fprintf(w, "# known: %s reproducing known Flink issues (%s), no other violation\n", countNoun(nKnown, "finding"), strings.Join(uniqueSorted(known), ", "))
	case sim.VerdictFailed:
		fmt.Fprintf(w, "# FAIL: %s", countNoun(n-nKnown, "violation"))
		if nKnown > 0 {
			fmt.Fprintf(w, ", plus %s of known Flink issues (%s)", countNoun(nKnown, "finding"), strings.Join(uniqueSorted(known), ", "))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "# To reproduce: %s\n", r.Replay)
	if r.Min != nil {
		r.WriteShrunk(w)
	}
}

// WriteShrunk prints the shrunk plan of a failing run (sim.ShrinkOutcome; nothing when it has
// none) as '#' comments:
// what still fails, then the scenario, which replays with 'simulate replay' once saved
// without the leading "# ".
func (r *Report) WriteShrunk(w io.Writer) {
	m := r.Min
	if m == nil {
		return
	}
	fmt.Fprintf(w, "#\n# Shrunk to %d of %d steps, still failing %s%s.\n", len(m.Plan.Steps), r.Steps, sim.FirstFailure(m.Violations), r.minWhere())
	fmt.Fprintf(w, "# To reproduce: save the lines below without \"# \" as FILE, then: %s\n", Command("replay"+SUTFlags(m.Plan)+" FILE"))
	for _, l := range strings.SplitAfter(strings.TrimRight(m.Plan.Render(), "\n"), "\n") {
		fmt.Fprint(w, "# "+l)
	}
	fmt.Fprintln(w)
}

// minWhere names the step of the shrunk run's first failing violation: " at step N (step)".
func (r *Report) minWhere() string {
	for _, v := range r.Min.Violations {
		if v.Known == "" {
			if s := stepName(r.Min.Plan, v.Step); s != "" {
				return fmt.Sprintf(" at step %d (%s)", v.Step, s)
			}
			return ""
		}
	}
	return ""
}

// Text is the report's whole text: WriteHeader, then WriteText.
func (r *Report) Text() string {
	var b bytes.Buffer
	WriteHeader(&b, r.Plan.Seed, r.Plan.Version)
	r.WriteText(&b)
	return b.String()
}

func countNoun(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func uniqueSorted(ss []string) []string {
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

// The JSON lines of a report ('simulate run --format json'): one TraceLine per trace line, one
// ViolationLine per violation, then one ResultLine.
type (
	// TraceLine is one line of the trace.
	TraceLine struct {
		Seed uint64 `json:"seed"`
		Step int    `json:"step"` // -1 for the job line
		Line string `json:"line"`
	}
	// ViolationLine is one violation with its (-want +got) diff.
	ViolationLine struct {
		Seed      uint64 `json:"seed"`
		Step      int    `json:"step"`
		Invariant string `json:"invariant"`
		Detail    string `json:"detail"`
		Diff      string `json:"diff,omitempty"`
		Known     string `json:"known,omitempty"`
	}
	// ResultLine is the verdict, with the replay command unless the run passed.
	ResultLine struct {
		Seed       uint64 `json:"seed"`
		Flink      string `json:"flink"`
		Steps      int    `json:"steps"`
		Result     string `json:"result"`
		Violations int    `json:"violations"` // not attributed to a known issue
		Known      int    `json:"known"`      // known-issue findings
		Replay     string `json:"replay,omitempty"`
	}
)

// WriteJSON prints the report as JSON lines.
func (r *Report) WriteJSON(w io.Writer) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i, l := range r.Trace {
		_ = enc.Encode(TraceLine{Seed: r.Plan.Seed, Step: i - 1, Line: l})
	}
	res := ResultLine{Seed: r.Plan.Seed, Flink: r.Plan.Version.String(), Steps: r.Steps, Result: r.Verdict().String()}
	for _, v := range r.Violations {
		_ = enc.Encode(ViolationLine{Seed: r.Plan.Seed, Step: v.Step, Invariant: v.Invariant, Detail: v.Detail, Diff: v.Diff, Known: v.Known})
		if v.Known != "" {
			res.Known++
		} else {
			res.Violations++
		}
	}
	if r.Verdict() != sim.VerdictOK {
		res.Replay = r.Replay
	}
	_ = enc.Encode(res)
}

// FailureFile is the scenario file a sweep saves for a failing seed in dir: its name
// (seed-S-flink-V-steps-K.txt) and its text, the report as comments, then the plan, so that
// it replays with 'simulate replay'. Its replay commands name it in dir, as a command the
// sweep's working directory runs (Command: with the mutant build's environment in one).
func (r *Report) FailureFile(dir string) (name string, data []byte) {
	name = fmt.Sprintf("seed-%d-flink-%s-steps-%d.txt", r.Plan.Seed, r.Plan.Version, r.Steps)
	var b strings.Builder
	fmt.Fprintf(&b, "# simulate sweep: seed %d failed (flink %s, %d steps).\n", r.Plan.Seed, r.Plan.Version, r.Steps)
	fmt.Fprintf(&b, "# To reproduce: %s   (or: %s)\n#\n", r.Replay, Command("replay"+SUTFlags(r.Plan)+" "+quoteShellArg(path.Join(dir, name))))
	for _, l := range strings.SplitAfter(strings.TrimRight(r.Text(), "\n"), "\n") {
		b.WriteString("# " + l)
	}
	b.WriteString("\n\n")
	b.WriteString(r.Plan.Render())
	return name, []byte(b.String())
}

// MinFile is the scenario file a sweep saves in dir for a failing seed's shrunk plan
// (sim.Outcome.Min), ok false when it has none: its name (FailureFile's, ending "-min.txt") and
// its text, its run's report as comments, then the plan, which replays with 'simulate replay'
// (the command names it in dir, as FailureFile's).
func (r *Report) MinFile(dir string) (name string, data []byte, ok bool) {
	if r.Min == nil {
		return "", nil, false
	}
	name = fmt.Sprintf("seed-%d-flink-%s-steps-%d-min.txt", r.Plan.Seed, r.Plan.Version, r.Steps)
	m := Report{Outcome: *r.Min, Replay: Command("replay" + SUTFlags(r.Min.Plan) + " " + quoteShellArg(path.Join(dir, name)))}
	var b strings.Builder
	fmt.Fprintf(&b, "# simulate sweep: seed %d failed (flink %s, %d steps); shrunk to %s, still failing %s.\n", r.Plan.Seed, r.Plan.Version, r.Steps, countNoun(len(m.Plan.Steps), "step"), sim.FirstFailure(m.Violations))
	fmt.Fprintf(&b, "# The original: %s\n#\n", r.Replay)
	for _, l := range strings.SplitAfter(strings.TrimRight(m.Text(), "\n"), "\n") {
		b.WriteString("# " + l)
	}
	b.WriteString("\n\n")
	b.WriteString(m.Plan.Render())
	return name, []byte(b.String()), true
}
