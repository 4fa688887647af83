// Command matrix is the kill matrix of the injected Flink bugs ('make flink-mutants'): for each
// mutant of reference/mutants, the sweep 'simulate sweep --sut flink --flink-mutant NAME'
// runs (the default seeds, 0..1499, at the default steps), and one row tells how many seeds
// fail, the invariant of the first failing seed, and the steps of its shrunk plan, with the
// command that replays it. Exit 1 when some mutant survives.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/reference/mutants"
	"github.com/restoresim/restoresim/sim"
	"github.com/restoresim/restoresim/sim/sweep"
	"github.com/restoresim/restoresim/sut"
)

func main() {
	seeds := flag.Int("seeds", 1500, "seeds 0..N-1 per mutant (the sweep's default)")
	version := flag.String("flink", "1.18", "the Flink version whose archive is patched")
	only := flag.String("mutants", "", "comma-separated mutant names (default: all)")
	workers := flag.Int("workers", runtime.GOMAXPROCS(0), "sweep workers (one JVM each)")
	flag.Parse()
	v, err := model.ParseFlinkVersion(*version)
	if err != nil {
		fmt.Fprintln(os.Stderr, "matrix:", err)
		os.Exit(2)
	}
	var ms []mutants.Mutant
	for _, m := range mutants.All() {
		if *only == "" || strings.Contains(","+*only+",", ","+m.Name+",") {
			ms = append(ms, m)
		}
	}
	fmt.Printf("| mutant | failing seeds of %d | invariant (first failing seed) | shrunk steps | replay |\n|---|---|---|---|---|\n", *seeds)
	survived := 0
	for _, m := range ms {
		row, err := measure(v, m, *seeds, *workers)
		if err != nil {
			fmt.Fprintf(os.Stderr, "matrix: %s: %v\n", m.Name, err)
			os.Exit(2)
		}
		if strings.HasPrefix(row, "| "+m.Name+" | 0 ") {
			survived++
		}
		fmt.Println(row)
	}
	if survived > 0 {
		fmt.Fprintf(os.Stderr, "matrix: %d mutants survived\n", survived)
		os.Exit(1)
	}
}

func measure(v model.FlinkVersion, m mutants.Mutant, seeds, workers int) (string, error) {
	start := time.Now()
	dir, err := mutants.Tree(v, m, "")
	if err != nil {
		return "", err
	}
	r, err := sut.New(sut.Flink, v, sut.Options{FlinkSrc: dir, Mutant: m.Name, Workers: workers})
	if err != nil {
		return "", err
	}
	defer r.Close()
	failing := 0
	var first *sim.Outcome
	cfg := sweep.Config{Seeds: seeds, Workers: workers, Version: v, Steps: sim.DefaultSteps,
		RunSeed: func(seed uint64, v model.FlinkVersion, steps int) sim.Outcome {
			return sim.RunSeedWith(seed, v, steps, r)
		}}
	sweep.Run(cfg, func(o *sim.Outcome) bool {
		if o.Verdict().Failed() {
			failing++
			if first == nil {
				c := *o
				first = &c
			}
		}
		return true
	})
	fmt.Fprintf(os.Stderr, "matrix: %s: %d of %d seeds failed (%s)\n", m.Name, failing, seeds, time.Since(start).Round(time.Second))
	if first == nil {
		return fmt.Sprintf("| %s | 0 | survived | | |", m.Name), nil
	}
	inv := firstFailure(first.Violations)
	s := sim.ShrinkOutcome(*first)
	steps, replay := len(first.Plan.Steps), sweep.NewReport(*first).Replay
	if s.Min != nil {
		steps = len(s.Min.Plan.Steps)
		inv = firstFailure(s.Min.Violations)
	}
	return fmt.Sprintf("| %s | %d | %s (seed %d) | %d | `%s` |", m.Name, failing, inv, first.Plan.Seed, steps, replay), nil
}

func firstFailure(vs []sim.Violation) string {
	for _, x := range vs {
		if x.Known == "" {
			return x.Invariant
		}
	}
	return "?"
}
