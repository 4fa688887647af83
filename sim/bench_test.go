package sim

import (
	"testing"

	"github.com/restoresim/restoresim/model"
)

// BenchmarkRunDefault runs the default generator's plans (seeds cycle 1..64), one plan per op.
func BenchmarkRunDefault(b *testing.B) {
	seed := uint64(0)
	for b.Loop() {
		seed = seed%64 + 1
		Run(Generate(seed, model.Flink118, DefaultSteps))
	}
}

// largePlan is the large scenario of the performance issue: 10 source subtasks over 10 splits
// read 1,000 records each per step, 100 times (1e6 records), each step followed by a checkpoint
// (100 checkpoints), into 16 keyed subtasks with 10,000 keys.
func largePlan() Plan {
	j := Job{KeyType: KeyInt, KeyDist: Uniform, NumKeys: 10_000, Splits: 10, TaskManagers: 2, Incremental: true,
		Source: VertexConfig{Parallelism: 10, UID: "source"}, Keyed: VertexConfig{Parallelism: 16, UID: "keyed"}}
	p := Plan{Seed: 1, Job: j}
	for range 100 {
		p.Steps = append(p.Steps, Step{Kind: Process, N: 1000}, Step{Kind: Checkpoint})
	}
	return p
}

// BenchmarkRunLarge runs largePlan once per op.
func BenchmarkRunLarge(b *testing.B) {
	p := largePlan()
	for b.Loop() {
		if r := Run(p); !r.OK() {
			b.Fatal(r.Violations[0])
		}
	}
}
