package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/restoresim/restoresim/differential"
	"github.com/restoresim/restoresim/internal/cliflags"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/reference"
)

func init() {
	register(&command{name: "differential", summary: "generated assignment cases through the model and Flink's own classes, side by side", run: runDifferential})
}

// maxReplayInput bounds a --replay file.
const maxReplayInput = 1 << 26

func runDifferential(e *env, args []string) int {
	fs := cliflags.New("differential", "differential --flink V[,V…] [--cases N] [--seed S] [--from I] [--flink-src DIR] [--out DIR] | --replay FILE",
		`Runs generated assignment cases (../shared/ASSIGN-CASE.md: keyed, operator, union,
broadcast and channel state, finished operators, missing subtask entries, several vertices
and edges, max-parallelism adoption and every refusal) through the model and through Flink's
own StateAssignmentOperation (package reference: one JVM per version, compiled from Flink's
sources; docs/reference.md), and compares the answers field by field, order included, after
the conventions of ASSIGN-CASE.md.

Prints, per version, an agreement table by outcome (Flink's: assigned, or the refusal's stage
and kind) and by field (the fields of the disagreeing cases). Case i of a run is generated
from (--seed, i), so a run prints the same tables on every machine; --from I starts at case I
(--from 123 --cases 1 replays case 123).

Each disagreement (the first 20 a version) is shrunk to a minimal case that still disagrees
and saved under --out as a replayable file (the case, the model's answer, Flink's answer and
their differences), with the command that replays it:
  simulate differential --flink V --replay FILE
which runs the file's case (or any case file, one JSON object) through both sides again.

Exit 0 when every case agrees, 1 on a disagreement, 2 on bad input or when Java or Flink's
sources are missing (one line naming what). Progress and the wall time go to stderr.`)
	flinkFlag := fs.String("flink", "", "the Flink `versions` to run, comma-separated: "+versionsWithSources())
	cases := &cliflags.Int{V: 10000}
	fs.Var(cases, "cases", "the number `N` of generated cases per version (default 10000)")
	seed := &cliflags.Uint64{V: 1}
	fs.Var(seed, "seed", "the `S` the cases are generated from (default 1)")
	from := &cliflags.Int{}
	fs.Var(from, "from", "the index `I` of the first case (default 0)")
	flinkSrc := fs.String("flink-src", "", "a Flink checkout `DIR` to compile instead of the version's archive (one version only; default $RESTORESIM_FLINK_SRC)")
	out := fs.String("out", "differential-out", "the `DIR` the disagreements are saved in (made when there is one)")
	replay := fs.String("replay", "", "run the case of `FILE` (a saved disagreement, or a case) instead of generated ones")
	pos, done, code := e.parseFlags(fs, args)
	if done {
		return code
	}
	if len(pos) > 0 {
		return e.failf("differential", "unexpected argument %q (see 'simulate differential --help')", pos[0])
	}
	if *flinkFlag == "" {
		return e.failf("differential", "--flink: give the versions to run, e.g. --flink 1.18,master")
	}
	var versions []model.FlinkVersion
	for _, s := range strings.Split(*flinkFlag, ",") {
		v, err := model.ParseFlinkVersion(strings.TrimSpace(s))
		if err != nil {
			return e.failf("differential", "--flink: %v", err)
		}
		versions = append(versions, v)
	}
	if cases.V < 1 {
		return e.failf("differential", "--cases: %d is not a positive number of cases", cases.V)
	}
	if from.V < 0 {
		return e.failf("differential", "--from: %d is negative", from.V)
	}
	if *flinkSrc != "" && len(versions) > 1 {
		return e.failf("differential", "--flink-src: one checkout is one version, got --flink %s", *flinkFlag)
	}
	var replayCase []byte
	if *replay != "" {
		data, err := readInput(e, *replay, maxReplayInput)
		if err != nil {
			return e.failf("differential", "%v", err)
		}
		if replayCase, err = differential.ReplayCase(data); err != nil {
			return e.failf("differential", "%s: %v", *replay, err)
		}
	}
	// Every version's sources before any JVM starts: a missing one is one line, exit 2.
	for _, v := range versions {
		if _, err := reference.FindSource(v, *flinkSrc); err != nil {
			return e.failf("differential", "Flink %s: %v", v, err)
		}
	}
	result := exitOK
	for _, v := range versions {
		j, err := reference.Start(v, reference.Options{FlinkSrc: *flinkSrc})
		if err != nil {
			return e.failf("differential", "Flink %s: %v", v, err)
		}
		var c int
		if replayCase != nil {
			c = e.replayOne(v, j, replayCase)
		} else {
			c = e.differentialRun(v, j, cases.V, from.V, seed.V, *out)
		}
		j.Close()
		if c == exitUsage {
			return c
		}
		result = max(result, c)
	}
	return result
}

// versionsWithSources names the versions the reference can run.
func versionsWithSources() string {
	var names []string
	for _, v := range reference.Versions() {
		names = append(names, v.String())
	}
	return strings.Join(names, ", ")
}

// differentialRun runs one version's cases, prints its tables and saves its disagreements.
func (e *env) differentialRun(v model.FlinkVersion, j *reference.JVM, cases, from int, seed uint64, out string) int {
	start := time.Now()
	cfg := differential.Config{Version: v, Cases: cases, From: from, Seed: seed, Flink: j.AssignAll, FlinkSame: j.AssignAllSame}
	if e.stderrIsTerminal {
		cfg.Progress = func(done int) {
			fmt.Fprintf(e.stderr, "\rsimulate differential: Flink %s: %d of %d cases", v, done, cases)
		}
	}
	rep, err := differential.Run(cfg)
	if e.stderrIsTerminal {
		fmt.Fprintln(e.stderr)
	}
	if err != nil {
		return e.failf("differential", "Flink %s: %v", v, err)
	}
	wall := time.Since(start)
	fmt.Fprintf(e.stderr, "simulate differential: Flink %s: %d cases in %.1f s (%.0f cases/s)\n", v, rep.Cases, wall.Seconds(), float64(rep.Cases)/wall.Seconds())

	var b strings.Builder
	fmt.Fprintf(&b, "Flink %s: %d cases (seed %d, from %d): %d agree, %d disagree\n", v, rep.Cases, seed, from, rep.Agreed, rep.Cases-rep.Agreed)
	width := len("field (disagreeing)")
	for o := range rep.Outcomes {
		width = max(width, len(o))
	}
	for f := range rep.Fields {
		width = max(width, len(f))
	}
	fmt.Fprintf(&b, "  %-*s %8s %8s\n", width, "outcome (Flink's)", "cases", "agree")
	for _, o := range rep.SortedOutcomes() {
		fmt.Fprintf(&b, "  %-*s %8d %8d\n", width, o, rep.Outcomes[o].Cases, rep.Outcomes[o].Agreed)
	}
	if len(rep.Fields) > 0 {
		fmt.Fprintf(&b, "  %-*s %8s\n", width, "field (disagreeing)", "cases")
		for _, f := range rep.SortedFields() {
			fmt.Fprintf(&b, "  %-*s %8d\n", width, f, rep.Fields[f])
		}
	}
	for _, d := range rep.Disagreements {
		path, err := rep.WriteSaved(out, d)
		if err != nil {
			return e.failf("differential", "--out: %v", err)
		}
		fmt.Fprintf(&b, "case %d disagrees (shrunk, %d differences), saved as %s\n", d.Index, len(d.Differences), path)
		for _, diff := range d.Differences[:min(3, len(d.Differences))] {
			fmt.Fprintf(&b, "  %s\n", excerptLine(diff, 300))
		}
		fmt.Fprintf(&b, "  replay: simulate differential --flink %s --replay %s\n", v, path)
	}
	if n := rep.Cases - rep.Agreed - len(rep.Disagreements); n > 0 {
		fmt.Fprintf(&b, "(%d further disagreements not shrunk)\n", n)
	}
	if code := writeOut(e, "differential", []byte(b.String())); code != exitOK {
		return code
	}
	if rep.Agreed != rep.Cases {
		return exitViolation
	}
	return exitOK
}

// replayOne runs one case through both sides and prints whether they agree.
func (e *env) replayOne(v model.FlinkVersion, j *reference.JVM, c []byte) int {
	answers, err := j.AssignAll([][]byte{c})
	if err != nil {
		return e.failf("differential", "Flink %s: %v", v, err)
	}
	m, outcome, diffs, err := differential.Judge(v, c, answers[0])
	if err != nil {
		return e.failf("differential", "Flink %s: %v", v, err)
	}
	var b strings.Builder
	if len(diffs) == 0 {
		fmt.Fprintf(&b, "Flink %s: the model agrees (%s)\n", v, outcome)
	} else {
		fmt.Fprintf(&b, "Flink %s: the model disagrees (Flink: %s), %d differences\n", v, outcome, len(diffs))
		for _, d := range diffs {
			fmt.Fprintf(&b, "  %s\n", excerptLine(d, 300))
		}
		fmt.Fprintf(&b, "model: %s\nflink: %s\n", m, answers[0])
	}
	if code := writeOut(e, "differential", []byte(b.String())); code != exitOK {
		return code
	}
	if len(diffs) > 0 {
		return exitViolation
	}
	return exitOK
}

// excerptLine cuts a line to n bytes.
func excerptLine(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
