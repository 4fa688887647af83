package sut

import (
	"testing"
	"time"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/sim"
)

// TestSpeedProbe (-run Speed -v): per-seed time with Flink's classes against the model's.
func TestSpeedProbe(t *testing.T) {
	if testing.Short() || *seedsFlag == 40 {
		t.Skip("a probe: -sut.seeds N")
	}
	r := need(t, Flink, model.Flink118)
	var tm, tf time.Duration
	for seed := range uint64(*seedsFlag) {
		a := time.Now()
		sim.RunSeed(seed, model.Flink118, sim.DefaultSteps)
		b := time.Now()
		sim.RunSeedWith(seed, model.Flink118, sim.DefaultSteps, r)
		c := time.Now()
		tm += b.Sub(a)
		tf += c.Sub(b)
		t.Logf("seed %d model %v flink %v jvms %d", seed, b.Sub(a), c.Sub(b), r.JVMs())
	}
	t.Logf("model %v flink %v (%.1fx)", tm, tf, float64(tf)/float64(tm))
}
