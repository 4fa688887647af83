package sweep

import (
	"encoding/json"
	"testing"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/sim"
)

// TestRecordCarriesShrunkPlan: a failing seed's record carries its shrunk plan as scenario
// text that parses back to the same plan, and survives the shard format; an ok seed's has none.
func TestRecordCarriesShrunkPlan(t *testing.T) {
	o := sim.RunSeed(5, model.Flink118, 12)
	if rec := NewRecord(&o); rec.ShrunkPlan != "" {
		t.Fatalf("an ok seed's record has a shrunk plan:\n%s", rec.ShrunkPlan)
	}
	o.Violations = []sim.Violation{{Step: 3, Invariant: "keyed-state", Detail: "made up"}}
	m := sim.RunSeed(5, model.Flink118, 2)
	o.Min = &m
	rec := NewRecord(&o)
	if rec.ShrunkPlan == "" {
		t.Fatal("a failing, shrunk seed's record has no shrunk plan")
	}
	p, err := sim.ParsePlan(rec.ShrunkPlan)
	if err != nil {
		t.Fatalf("the shrunk plan does not parse: %v\n%s", err, rec.ShrunkPlan)
	}
	if p.Render() != m.Plan.Render() {
		t.Errorf("the shrunk plan parses to\n%s\nwant\n%s", p.Render(), m.Plan.Render())
	}
	line, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseRecord(line)
	if err != nil {
		t.Fatalf("ParseRecord: %v\n%s", err, line)
	}
	if back.ShrunkPlan != rec.ShrunkPlan {
		t.Errorf("the shard format lost the shrunk plan: %q", back.ShrunkPlan)
	}
}
