package differential

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/restoresim/restoresim/assigncase"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/reference"
)

// modelAsFlink answers cases as the model does, then changes each answer with change: a Flink
// that differs from the model where change says, for testing the runner without a JVM.
func modelAsFlink(v model.FlinkVersion, change func(a *assigncase.Answer)) func([][]byte) ([][]byte, error) {
	return func(cases [][]byte) ([][]byte, error) {
		out := make([][]byte, len(cases))
		for i, c := range cases {
			kc, err := assigncase.DecodeCase(c)
			if err != nil { // as the driver answers a line it cannot read
				out[i] = []byte(`{"error":{"stage":"driver","class":"java.lang.IllegalArgumentException","message":"bad case","at":"x"}}`)
				continue
			}
			a := ModelAnswer(kc, v)
			change(&a)
			out[i] = []byte(a.String())
		}
		return out, nil
	}
}

// swapNames swaps the first two state names of the first operator-state handle that has two: an
// order bug of the kind SPEC §E.3 step 5 is about.
func swapNames(a *assigncase.Answer) {
	for _, vx := range a.Vertices {
		for _, st := range vx.Subtasks {
			if st == nil {
				continue
			}
			for _, op := range st.Operators {
				for _, h := range op.State.ManagedOperatorState {
					if len(h.States) >= 2 {
						h.States[0], h.States[1] = h.States[1], h.States[0]
						return
					}
				}
			}
		}
	}
}

// TestRunCatchesOrder: a Flink whose state names come in another order disagrees, field by
// field; each disagreement is shrunk to a smaller case that still disagrees, and saved it
// replays.
func TestRunCatchesOrder(t *testing.T) {
	v := model.Flink118
	flink := modelAsFlink(v, swapNames)
	rep, err := Run(Config{Version: v, Cases: 100, Seed: 3, Flink: flink, MaxShrunk: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Agreed == rep.Cases || rep.Fields["vertices.subtasks.operators.state.managed_operator_state.states.name"] == 0 {
		t.Fatalf("%d of %d agree, fields %v: the swapped names went unseen", rep.Agreed, rep.Cases, rep.Fields)
	}
	if len(rep.Disagreements) != 1 {
		t.Fatalf("%d disagreements kept, want 1", len(rep.Disagreements))
	}
	for _, d := range rep.Disagreements {
		if len(d.Case) >= len(d.Original) {
			t.Errorf("case %d: not shrunk (%d bytes, was %d)", d.Index, len(d.Case), len(d.Original))
		}
		if len(d.Differences) == 0 || !strings.Contains(d.Differences[0], ".states[") {
			t.Errorf("case %d: differences %q", d.Index, d.Differences)
		}
		saved, err := rep.Save(d)
		if err != nil {
			t.Fatal(err)
		}
		c, err := ReplayCase(saved)
		if err != nil || !bytes.Equal(c, d.Case) {
			t.Errorf("case %d: the saved file replays %s (%v), not the shrunk case", d.Index, c, err)
		}
	}
	// The same Flink with the model's own answers agrees on every case.
	same, err := Run(Config{Version: v, Cases: 300, Seed: 3, Flink: modelAsFlink(v, func(*assigncase.Answer) {})})
	if err != nil || same.Agreed != same.Cases {
		t.Fatalf("the model against itself: %d of %d agree (%v)", same.Agreed, same.Cases, err)
	}
}

// TestRunDeterministic: the report does not depend on the batch size or the number of workers.
func TestRunDeterministic(t *testing.T) {
	v := model.Flink23
	flink := modelAsFlink(v, swapNames)
	a, err := Run(Config{Version: v, Cases: 200, Seed: 9, Flink: flink, MaxShrunk: 1, Batch: 7, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(Config{Version: v, Cases: 200, Seed: 9, Flink: flink, MaxShrunk: 1, Batch: 64, Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	if a.Agreed != b.Agreed || len(a.Outcomes) != len(b.Outcomes) || !bytes.Equal(a.Disagreements[0].Case, b.Disagreements[0].Case) {
		t.Errorf("two runs of one configuration differ: %d/%d agree", a.Agreed, b.Agreed)
	}
	for o, c := range a.Outcomes {
		if *b.Outcomes[o] != *c {
			t.Errorf("outcome %s: %v vs %v", o, *c, *b.Outcomes[o])
		}
	}
}

// TestGeneratorCoverage: the generator's cases read back as themselves (DecodeCase) and the
// model's outcomes over them include an assignment and every refusal kind the faults aim at,
// each in at least 1% of the cases.
func TestGeneratorCoverage(t *testing.T) {
	for _, v := range []model.FlinkVersion{model.Flink118, model.Flink120, model.FlinkMaster} {
		counts := map[string]int{}
		n := 2000
		for i := 0; i < n; i++ {
			c := GenerateCase(rand.New(rand.NewPCG(11, uint64(i))), v)
			j := prepareCase(v, 11, i)
			if j.err != nil {
				t.Fatal(j.err)
			}
			if _, err := assigncase.DecodeCase(j.c); err != nil {
				t.Fatalf("%s case %d: %v", v, i, err)
			}
			a := ModelAnswer(c, v)
			counts[Outcome(&a)]++
		}
		want := []string{"assigned", "refused input: input", "refused build: vertex-parallelism",
			"refused assign: no-operator-for-state", "refused assign: max-parallelism-change",
			"refused assign: max-parallelism-below-parallelism", "refused assign: max-parallelism-out-of-bounds",
			"refused assign: mixed-finished-operators", "refused assign: channel-state-unsupported-rescale",
			"refused assign: channel-state-topology-change"}
		if v == model.FlinkMaster {
			want = append(want, "refused assign: max-parallelism-agreement")
		}
		for _, o := range want {
			if counts[o] < n/100 {
				t.Errorf("%s: %d of %d cases %s, want at least 1%%", v, counts[o], n, o)
			}
		}
		if counts["assigned"] < n*35/100 {
			t.Errorf("%s: only %d of %d cases assigned", v, counts["assigned"], n)
		}
		if counts["refused input: not-modelled"] > 0 {
			t.Errorf("%s: %d cases the model does not represent", v, counts["refused input: not-modelled"])
		}
		t.Logf("%s: %v", v, counts)
	}
}

// sameAs is FlinkSame over a Flink: reference.Same where Flink's line is the model's, else
// Flink's line, as the driver answers AssignAllSame.
func sameAs(flink func([][]byte) ([][]byte, error)) func(cases, model [][]byte) ([][]byte, error) {
	return func(cases, model [][]byte) ([][]byte, error) {
		out, err := flink(cases)
		for i := range out {
			if bytes.Equal(out[i], model[i]) {
				out[i] = reference.Same
			}
		}
		return out, err
	}
}

// TestRunSame: with FlinkSame the report is the report of Flink's full answers, disagreements
// and all.
func TestRunSame(t *testing.T) {
	v := model.Flink23
	flink := modelAsFlink(v, swapNames)
	a, err := Run(Config{Version: v, Cases: 200, Seed: 5, Flink: flink, MaxShrunk: 2})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(Config{Version: v, Cases: 200, Seed: 5, Flink: flink, FlinkSame: sameAs(flink), MaxShrunk: 2})
	if err != nil {
		t.Fatal(err)
	}
	if a.Agreed == a.Cases {
		t.Fatal("no disagreement: the test shows nothing")
	}
	if a.Agreed != b.Agreed || len(a.Disagreements) != len(b.Disagreements) || len(a.Fields) != len(b.Fields) {
		t.Fatalf("FlinkSame: %d agree, %d kept, %d fields; Flink: %d, %d, %d", b.Agreed, len(b.Disagreements), len(b.Fields), a.Agreed, len(a.Disagreements), len(a.Fields))
	}
	for o, c := range a.Outcomes {
		if b.Outcomes[o] == nil || *b.Outcomes[o] != *c {
			t.Errorf("outcome %s: %v with Flink, %v with FlinkSame", o, *c, b.Outcomes[o])
		}
	}
	for i := range a.Disagreements {
		if !bytes.Equal(a.Disagreements[i].Case, b.Disagreements[i].Case) || !bytes.Equal(a.Disagreements[i].Flink, b.Disagreements[i].Flink) {
			t.Errorf("disagreement %d differs with FlinkSame", i)
		}
	}
}
