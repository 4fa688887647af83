package sut

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/sim"
)

var seedsFlag = flag.Int("sut.seeds", 40, "seeds per version for TestBothAgree")

// need returns the system under test name at v, or skips (fails with CI set) without Java or
// Flink's sources.
func need(t *testing.T, name string, v model.FlinkVersion) *Reference {
	t.Helper()
	r, err := New(name, v, Options{Workers: 1})
	if err == nil {
		var j interface{ Close() error } = r
		t.Cleanup(func() { _ = j.Close() })
		err = r.warm()
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return r
}

// warm starts one JVM and checks that it answers.
func (r *Reference) warm() error {
	j, err := r.take()
	if err != nil {
		return err
	}
	defer r.give(j)
	return j.Ping()
}

// TestBothAgree runs seeds with Flink's classes as the system under test, checked against the
// model on every restore (--sut both), on 1.18, 2.3 and master: no violation 'reference', and
// each seed's verdict is the model's own (the oracle judges Flink's assignment as it judges the
// model's). The trace names the SUT.
func TestBothAgree(t *testing.T) {
	for _, v := range []model.FlinkVersion{model.Flink118, model.Flink23, model.FlinkMaster} {
		r := need(t, Both, v)
		defer func() {
			if r.loads.Load() == 0 {
				t.Errorf("%v: no restore was loaded by Flink's classes in %d seeds", v, *seedsFlag)
			}
		}()
		for seed := range uint64(*seedsFlag) {
			o := sim.RunSeedWith(seed, v, sim.DefaultSteps, r)
			for _, x := range o.Violations {
				if x.Invariant == sim.InvReference {
					t.Fatalf("%v seed %d: %s\n%s", v, seed, x.Detail, x.Diff)
				}
			}
			m := sim.RunSeed(seed, v, sim.DefaultSteps)
			if got, want := o.Verdict(), m.Verdict(); got != want {
				t.Errorf("%v seed %d: verdict %v with Flink's classes, %v with the model", v, seed, got, want)
			}
			if !strings.HasSuffix(o.Trace[0], "(sut both)") {
				t.Fatalf("%v seed %d: the trace does not name the SUT: %q", v, seed, o.Trace[0])
			}
		}
	}
}

// TestNew: the model is no Reference; an unknown name is refused in one line.
func TestNew(t *testing.T) {
	if r, err := New(Model, model.Flink118, Options{}); r != nil || err != nil {
		t.Errorf("New(model) = %v, %v; want nil, nil", r, err)
	}
	_, err := New("flonk", model.Flink118, Options{})
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), `"flonk"`) {
		t.Errorf("New(flonk): %v", err)
	}
}
