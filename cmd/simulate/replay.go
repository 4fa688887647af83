package main

import (
	"fmt"
	"os"
	"regexp"

	"github.com/restoresim/restoresim/sim"
)

func init() {
	register(&command{name: "replay", summary: "run a scenario file (or a saved trace) and print its trace and violations", run: runReplay})
}

// maxScenarioBytes bounds a scenario file: a plan is parsed whole.
const maxScenarioBytes = 64 << 20

// runHeader is the first line of run's text output; replay splits it into the scenario lines
// "seed N" and "flink V" so that a saved run output parses back.
var runHeader = regexp.MustCompile(`(?m)^seed ([0-9]+) flink (\S+)[ \t]*\r?$`)

func runReplay(e *env, args []string) int {
	fs := newFlags("replay", "replay [--format text|json] FILE",
		`Parses FILE as a scenario (the syntax 'simulate run' prints: "seed N", "flink V", a "job"
line and one line per step; '#' comments and everything after " -> " are ignored, so a saved
'simulate run' output, a sweep's saved failure or a hand-written plan all work), runs it and
prints the same output as 'simulate run', with the same exit codes: 0 every invariant held
(known-issue findings allowed), 1 a violation, 2 a missing or malformed file.`)
	format := fs.String("format", "text", "output format: text or json")
	pos, done, code := e.parseFlags(fs, args)
	if done {
		return code
	}
	if err := checkFormat(*format); err != nil {
		return e.failf("replay", "%v", err)
	}
	if len(pos) != 1 {
		return e.failf("replay", "want exactly one scenario FILE, got %d arguments", len(pos))
	}
	p, err := readScenario(pos[0])
	if err != nil {
		return e.failf("replay", "%v", err)
	}
	return e.report("replay", *format, p.Seed, p.Version, func() outcome { return outcome{sim.RunSafe(p), replayCommand(p, pos[0])} })
}

// readScenario reads and parses a scenario file.
func readScenario(path string) (sim.Plan, error) {
	f, err := os.Open(path)
	if err != nil {
		return sim.Plan{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return sim.Plan{}, err
	}
	if fi.IsDir() {
		return sim.Plan{}, fmt.Errorf("%s is a directory, not a scenario file", path)
	}
	if fi.Size() > maxScenarioBytes {
		return sim.Plan{}, fmt.Errorf("%s: %d bytes is more than a scenario can be (%d)", path, fi.Size(), maxScenarioBytes)
	}
	data := make([]byte, fi.Size())
	if _, err := f.ReadAt(data, 0); err != nil && fi.Size() > 0 {
		return sim.Plan{}, fmt.Errorf("%s: %w", path, err)
	}
	text := runHeader.ReplaceAllString(string(data), "seed $1\nflink $2")
	p, err := sim.ParsePlan(text)
	if err != nil {
		return sim.Plan{}, fmt.Errorf("%s: %w", path, err)
	}
	if len(p.Steps) > maxSteps {
		return sim.Plan{}, fmt.Errorf("%s: %d steps is more than --steps allows (%d)", path, len(p.Steps), maxSteps)
	}
	return p, nil
}

// replayCommand is the one command that reproduces p: 'simulate run' when p is exactly the plan
// its seed generates (so replaying a rendered plan prints what running the seed prints), else
// 'simulate replay FILE'.
func replayCommand(p sim.Plan, path string) string {
	if len(p.Steps) > 0 {
		if g, ok := sim.GenerateSafe(p.Seed, p.Version, len(p.Steps)); ok && g.Render() == p.Render() {
			return runCommand(p.Seed, p.Version, len(p.Steps))
		}
	}
	return "simulate replay " + quoteShellArg(path)
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// shellQuote quotes s for a POSIX shell when it needs quoting.
func quoteShellArg(s string) string {
	if shellSafe.MatchString(s) {
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
