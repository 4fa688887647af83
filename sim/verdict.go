package sim

import (
	"fmt"
	"path"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/restoresim/restoresim/model"
)

// Verdict is the judgement of a run: every invariant held, only known Flink issues were
// reproduced, or an invariant broke with no known issue behind it. Judge decides it; the
// zero Verdict is invalid.
type Verdict int

// The verdicts, from best to worst.
const (
	VerdictOK     Verdict = iota + 1 // every invariant held
	VerdictKnown                     // violations, each reproducing a known Flink issue (Violation.Known)
	VerdictFailed                    // at least one violation with no known issue behind it
)

// verdictNames are the names String gives and ParseVerdict reads (the "result" of the CLI's
// JSON output).
var verdictNames = [...]string{VerdictOK: "ok", VerdictKnown: "known", VerdictFailed: "fail"}

// String is "ok", "known" or "fail".
func (v Verdict) String() string {
	if v >= VerdictOK && v <= VerdictFailed {
		return verdictNames[v]
	}
	return fmt.Sprintf("Verdict(%d)", int(v))
}

// ParseVerdict parses a String of a Verdict.
func ParseVerdict(s string) (Verdict, error) {
	for v := VerdictOK; v <= VerdictFailed; v++ {
		if verdictNames[v] == s {
			return v, nil
		}
	}
	return 0, fmt.Errorf("unknown verdict %q (want ok, known or fail)", s)
}

// Failed reports whether v fails a run: known-issue findings alone do not.
func (v Verdict) Failed() bool { return v == VerdictFailed }

// Judge is the one definition of a run's verdict: it fails iff some violation is not
// attributed to a known Flink issue (violations after a known issue corrupted the state are
// attributed to it: see Violation.Known); known-issue findings alone are reported but do not
// fail it.
func Judge(vs []Violation) Verdict {
	v := VerdictOK
	for _, x := range vs {
		if x.Known == "" {
			return VerdictFailed
		}
		v = VerdictKnown
	}
	return v
}

// Verdict judges the result's violations.
func (r Result) Verdict() Verdict { return Judge(r.Violations) }

// compareViolations orders violations by step, then invariant, known issue, detail and diff.
// Within a step the simulator's check order carries no meaning, and where a check walks a Go
// map (e.g. the keys of a subtask) it is not even the same from one process to the next; the
// order makes a result byte-identical regardless.
func compareViolations(a, b Violation) int {
	switch {
	case a.Step != b.Step:
		if a.Step < b.Step {
			return -1
		}
		return 1
	case a.Invariant != b.Invariant:
		return strings.Compare(a.Invariant, b.Invariant)
	case a.Known != b.Known:
		return strings.Compare(a.Known, b.Known)
	case a.Detail != b.Detail:
		return strings.Compare(a.Detail, b.Detail)
	}
	return strings.Compare(a.Diff, b.Diff)
}

// SortViolations puts violations in the order Run returns them: by step, then invariant,
// known issue, detail and diff.
func SortViolations(vs []Violation) { slices.SortStableFunc(vs, compareViolations) }

// InvPanic is the invariant of the one violation of a run in which the simulator or the model
// panicked (an internal error): the run fails, and the panic's first line is the detail.
const InvPanic = "panic"

// Outcome is one judged run, as a sweep or a command runs it: a panic is a failed verdict,
// not a crash.
type Outcome struct {
	Result
	// Steps is the schedule length asked for: len(Plan.Steps) unless generation panicked.
	Steps int
	// Stack is the stack trace of the panic when the run panicked, else "". It is for a
	// human on stderr only: it is not deterministic.
	Stack string
	// PanicAt is where the run panicked (PanicPlace), "" when it did not: the InvPanic
	// violation's detail ends with it, and SameFailure keeps a panic only at the same place.
	PanicAt string
	// Min is the run of the shrunk plan of a failing run (ShrinkOutcome), nil when it was not
	// shrunk.
	Min *Outcome
}

// RunSafe runs p as Run does, turning a panic of the simulator or the model into a failed
// outcome with one InvPanic violation (at step -1, before the first step) whose detail is the
// panic's first line and its place (PanicAt): "… (in model.repartitionBroadcast at
// model/roundrobin.go:567)".
func RunSafe(p Plan) (o Outcome) {
	o = Outcome{Result: Result{Plan: p}, Steps: len(p.Steps)}
	defer func() {
		if r := recover(); r != nil {
			o.PanicAt = panicPlace()
			o.Result = Result{Plan: p, Violations: []Violation{{Step: -1, Invariant: InvPanic, Detail: panicDetail(r, o.PanicAt)}}}
			o.Stack = string(debug.Stack())
		}
	}()
	o.Result = Run(p)
	return o
}

// modulePrefix starts the name of every function of this module.
const modulePrefix = "github.com/restoresim/restoresim/"

// panicPlace is, called by a function deferred during a panic, the place of the panic: the
// innermost frame of this module's code (the model's, the simulator's, not the runtime's or
// the standard library's) below the panic, as "FUNCTION at PACKAGE/FILE:LINE" with the
// function and package named from the module root (e.g. "sim.(*World).broadcast at
// sim/run.go:408"). It is the same for the same panic in every process and on every machine
// (no absolute path, no address), and "" when no frame of the module is found.
func panicPlace() string {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(1, pcs)])
	panicking := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic":
			panicking = true
		case panicking && strings.HasPrefix(f.Function, modulePrefix):
			fn := strings.TrimPrefix(f.Function, modulePrefix)
			pkg := fn
			if i := strings.IndexByte(fn[strings.LastIndexByte(fn, '/')+1:], '.'); i >= 0 {
				pkg = fn[:strings.LastIndexByte(fn, '/')+1+i]
			}
			return fmt.Sprintf("%s at %s/%s:%d", fn, pkg, path.Base(f.File), f.Line)
		}
		if !more {
			return ""
		}
	}
}

// panicDetail is an InvPanic violation's detail: the first line of the panic value r, and its
// place when known.
func panicDetail(r any, place string) string {
	if place == "" {
		return firstLine(r)
	}
	return fmt.Sprintf("%s (in %s)", firstLine(r), place)
}

// RunSeed generates the plan of seed (Generate) and runs it with RunSafe; a panic of the
// generator is a failed outcome too, with the plan's seed and version only and the detail
// "generate: …".
func RunSeed(seed uint64, v model.FlinkVersion, steps int) Outcome {
	return RunSeedWith(seed, v, steps, nil)
}

// RunSeedWith is RunSeed with the system under test sut (nil: the model): the plan is the
// seed's, whatever the system under test.
func RunSeedWith(seed uint64, v model.FlinkVersion, steps int, sut Assigner) Outcome {
	p, failed := generateSafe(seed, v, steps)
	if failed != nil {
		return *failed
	}
	p.SUT = sut
	return RunSafe(p)
}

// generateSafe is Generate, a panic becoming a failed outcome.
func generateSafe(seed uint64, v model.FlinkVersion, steps int) (p Plan, failed *Outcome) {
	defer func() {
		if r := recover(); r != nil {
			p = Plan{Seed: seed, Version: v}
			at := panicPlace()
			failed = &Outcome{Steps: steps, Stack: string(debug.Stack()), PanicAt: at,
				Result: Result{Plan: p, Violations: []Violation{{Step: -1, Invariant: InvPanic, Detail: "generate: " + panicDetail(r, at)}}}}
		}
	}()
	return Generate(seed, v, steps), nil
}

// GenerateSafe is Generate, reporting a panic of the generator as ok == false.
func GenerateSafe(seed uint64, v model.FlinkVersion, steps int) (p Plan, ok bool) {
	p, failed := generateSafe(seed, v, steps)
	return p, failed == nil
}
