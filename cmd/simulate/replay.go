package main

import (
	"fmt"
	"strings"

	"github.com/restoresim/restoresim/internal/cliflags"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/sim"
	"github.com/restoresim/restoresim/sim/sweep"
)

func init() {
	register(&command{name: "replay", summary: "run a scenario file (or a saved trace) and print its trace and violations", run: runReplay})
}

// maxScenarioBytes bounds a scenario file: a plan is parsed whole.
const maxScenarioBytes = 64 << 20

func runReplay(e *env, args []string) int {
	fs := cliflags.New("replay", "replay [--sut model|flink|both] [--flink-src DIR | --flink-mutant NAME] [--format text|json] FILE",
		`Parses FILE ("-": stdin) as a scenario (the syntax 'simulate run' prints: "seed N", "flink
V", a "job" line and one line per step; '#' comments and everything after " -> " are ignored,
so a saved 'simulate run' output, a sweep's saved failure or a hand-written plan all work),
runs it and prints the same output as 'simulate run', with the same exit codes: 0 every
invariant held (known-issue findings allowed), 1 a violation, 2 a missing or malformed file.`)
	format := fs.String("format", "text", "output format: text or json")
	sf := addSUTFlags(fs)
	pos, done, code := e.parseFlags(fs, args)
	if done {
		return code
	}
	if err := checkFormat(*format); err != nil {
		return e.failf("replay", "%v", err)
	}
	if err := sf.check(); err != nil {
		return e.failf("replay", "%v", err)
	}
	if len(pos) != 1 {
		return e.failf("replay", "want exactly one scenario FILE, got %d arguments", len(pos))
	}
	p, err := readScenarioInput(e, pos[0])
	if err != nil {
		return e.failf("replay", "%v", err)
	}
	suts, stop, err := sf.assigners([]model.FlinkVersion{p.Version}, 1)
	if err != nil {
		return e.failf("replay", "%v", err)
	}
	defer stop()
	if s := suts[p.Version]; s != nil {
		p.SUT = s
	}
	return e.report("replay", *format, p.Seed, p.Version, func() sweep.Report {
		return sweep.Report{Outcome: sim.RunSafe(p), Replay: sweep.ReplayCommand(p, pos[0])}
	})
}

// readScenario reads and parses the scenario file at path.
func readScenario(path string) (sim.Plan, error) {
	return readScenarioInput(&env{stdin: strings.NewReader("")}, path)
}

// readScenarioInput reads and parses a scenario file (sweep.ParseScenario), or stdin for "-".
func readScenarioInput(e *env, path string) (sim.Plan, error) {
	data, err := readInput(e, path, maxScenarioBytes)
	if err != nil {
		return sim.Plan{}, err
	}
	name := inputName(path)
	p, err := sweep.ParseScenario(data)
	if err != nil {
		return sim.Plan{}, fmt.Errorf("%s: %w", name, err)
	}
	if len(p.Steps) > sweep.MaxSteps {
		return sim.Plan{}, fmt.Errorf("%s: %d steps is more than --steps allows (%d)", name, len(p.Steps), sweep.MaxSteps)
	}
	return p, nil
}
