// Package sweep runs many seeds of the simulator and summarizes them: the ordered parallel
// runner (Run), the seed record of the JSON-lines shard format (Record), the mergeable
// Summary and the Merger that reads shards back and checks that they belong to one sweep. A
// Report is one judged run with its replay command, in the text (which parses back with
// ParseScenario) and JSON lines that 'simulate run' and 'simulate replay' print. RunVersions,
// Diff, Compare and VersionsSummary run the same seeds under several Flink versions and report
// where their outcomes differ ('simulate sweep --flink A,B,…').
//
// It is the only place of the simulator with goroutines: package sim runs one plan on one
// goroutine; Run runs seeds on several and hands their outcomes over in seed order, so
// everything built from them is independent of the number of workers and of scheduling.
package sweep

import (
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/sim"
)

// Config is one shard of a sweep: the seeds Start..Start+Seeds-1 whose index (seed - Start)
// is Shard mod Of, run on Workers goroutines, each as sim.RunSeed(seed, Version, Steps).
type Config struct {
	Start     uint64
	Seeds     int
	Shard, Of int // Of < 1 is one shard (0/1)
	Workers   int // < 1 is 1
	Version   model.FlinkVersion
	Steps     int
	// RunSeed runs one seed; nil means sim.RunSeed. A test can make a seed fail with it: the
	// model has no failing seed.
	RunSeed func(seed uint64, v model.FlinkVersion, steps int) sim.Outcome
}

// of is the number of shards.
func (c Config) of() int { return max(c.Of, 1) }

// Count is the number of seeds the shard runs.
func (c Config) Count() int {
	if c.Shard >= c.Seeds {
		return 0
	}
	return (c.Seeds-1-c.Shard)/c.of() + 1
}

// SeedAt is the seed of the shard's k-th run (0 <= k < Count).
func (c Config) SeedAt(k int) uint64 { return c.Start + uint64(c.Shard) + uint64(k)*uint64(c.of()) }

// Window is how many outcomes per worker may wait for the seed-ordered merge. Seeds differ in
// cost by orders of magnitude (parallelism up to 1024), so a small window lets one slow seed
// at the head idle the other workers; 64 per worker keeps them busy while memory stays bounded
// by the window, not the number of seeds.
const Window = 64

// Run runs the shard's seeds on c.Workers goroutines and calls f with each outcome in seed
// order, from the calling goroutine; f returns false to stop early. At most Window×Workers
// outcomes are in flight. Every seed is run panic-safe (sim.RunSeed), so one bad seed is a
// failed outcome, not a crashed sweep.
func Run(c Config, f func(*sim.Outcome) bool) {
	runSeed := c.runSeed()
	runOrdered(c, func(seed uint64) sim.Outcome { return runSeed(seed, c.Version, c.Steps) },
		func(o sim.Outcome) bool { return f(&o) })
}

// runSeed is c.RunSeed, or sim.RunSeed when it is nil.
func (c Config) runSeed() func(seed uint64, v model.FlinkVersion, steps int) sim.Outcome {
	if c.RunSeed == nil {
		return sim.RunSeed
	}
	return c.RunSeed
}

// runOrdered runs do on each seed of the shard, on c.Workers goroutines, and calls f with the
// results in seed order from the calling goroutine, until f returns false.
func runOrdered[T any](c Config, do func(seed uint64) T, f func(T) bool) {
	workers := max(c.Workers, 1)
	n := c.Count()
	type job struct {
		k   int
		out chan T
	}
	jobs := make(chan job)
	order := make(chan chan T, Window*workers) // the in-flight window, in seed order
	stop := make(chan struct{})
	go func() { // dispatcher
		defer close(jobs)
		defer close(order)
		for k := range n {
			ch := make(chan T, 1)
			select {
			case order <- ch:
			case <-stop:
				return
			}
			select {
			case jobs <- job{k, ch}:
			case <-stop:
				return
			}
		}
	}()
	for range workers {
		go func() {
			for j := range jobs {
				j.out <- do(c.SeedAt(j.k))
			}
		}()
	}
	for ch := range order {
		if !f(<-ch) {
			// The dispatcher stops; the workers finish their current seed into its buffered
			// channel and end when the dispatcher closes jobs.
			close(stop)
			return
		}
	}
}
