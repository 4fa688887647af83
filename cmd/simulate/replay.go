package main

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

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
		`Parses FILE ("-": stdin) as a scenario (the syntax 'simulate run' prints: "seed N", "flink
V", a "job" line and one line per step; '#' comments and everything after " -> " are ignored,
so a saved 'simulate run' output, a sweep's saved failure or a hand-written plan all work),
runs it and prints the same output as 'simulate run', with the same exit codes: 0 every
invariant held (known-issue findings allowed), 1 a violation, 2 a missing or malformed file.`)
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
	p, err := readScenarioInput(e, pos[0])
	if err != nil {
		return e.failf("replay", "%v", err)
	}
	return e.report("replay", *format, p.Seed, p.Version, func() outcome { return outcome{sim.RunSafe(p), replayCommand(p, pos[0])} })
}

// readScenario reads and parses the scenario file at path.
func readScenario(path string) (sim.Plan, error) {
	return readScenarioInput(&env{stdin: strings.NewReader("")}, path)
}

// readScenarioInput reads and parses a scenario file, or stdin for "-". Binary data is refused
// before parsing, so no error line ever quotes it.
func readScenarioInput(e *env, path string) (sim.Plan, error) {
	data, err := readInput(e, path, maxScenarioBytes)
	if err != nil {
		return sim.Plan{}, err
	}
	name := inputName(path)
	if err := checkText(data); err != nil {
		return sim.Plan{}, fmt.Errorf("%s: not a scenario: %w", name, err)
	}
	text := runHeader.ReplaceAllString(string(data), "seed $1\nflink $2")
	p, err := sim.ParsePlan(text)
	if err != nil {
		return sim.Plan{}, fmt.Errorf("%s: %w", name, err)
	}
	if len(p.Steps) > maxSteps {
		return sim.Plan{}, fmt.Errorf("%s: %d steps is more than --steps allows (%d)", name, len(p.Steps), maxSteps)
	}
	return p, nil
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
