package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/restoresim/restoresim/internal/excerpt"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/sim"
)

// MaxSteps bounds the schedule length of a seed (the CLI's --steps) to what runs: a plan is
// held in memory whole, and a run's storage grows with its savepoints and NO_CLAIM snapshots,
// which Flink never deletes, and its time faster than its steps. Measured with /usr/bin/time
// (peak RSS; 'simulate run --seed S --steps K'): 2,000 steps 0.15-0.35 GB in 6-17 s; 5,000 steps
// 0.45-0.47 GB in 68-233 s (seeds 1-4); 10,000 steps 0.73-1.38 GB in 210-702 s; the former
// bound, 100,000, grew past 1.75 GB in 300 s.
const MaxSteps = 5000

// Record is one seed of a sweep: one line of the JSON-lines shard format ('simulate sweep
// --format json'), and everything a Summary needs about the seed.
type Record struct {
	Seed       uint64      `json:"seed"`
	Flink      string      `json:"flink"`
	Steps      int         `json:"steps"`
	Result     string      `json:"result"` // the sim.Verdict's String: "ok", "known" or "fail"
	Violations []Violation `json:"violations"`
	Labels     []string    `json:"labels"` // sim.Labels of the plan
	// ShrunkPlan is, for a failing seed the sweep shrank (sim.ShrinkOutcome), the minimal plan
	// that still fails with the same invariant, as scenario text (sim.Plan.Render, which
	// sim.ParsePlan and 'simulate replay' read back); "" otherwise.
	ShrunkPlan string `json:"shrunk_plan,omitempty"`
}

// Violation is a violation of a Record (a sim.Violation without its diff).
type Violation struct {
	Step      int    `json:"step"`
	Invariant string `json:"invariant"`
	Detail    string `json:"detail"`
	Known     string `json:"known,omitempty"`
}

// NewRecord is the record of an outcome.
func NewRecord(o *sim.Outcome) *Record {
	r := &Record{Seed: o.Plan.Seed, Flink: o.Plan.Version.String(), Steps: o.Steps, Result: o.Verdict().String(),
		Violations: []Violation{}, Labels: []string{}}
	for _, v := range o.Violations {
		r.Violations = append(r.Violations, Violation{Step: v.Step, Invariant: v.Invariant, Detail: v.Detail, Known: v.Known})
	}
	if o.Stack == "" || len(o.Plan.Steps) > 0 { // no labels when generation panicked
		r.Labels = append(r.Labels, sim.Labels(o.Plan)...)
	}
	if o.Min != nil && r.Failed() {
		r.ShrunkPlan = o.Min.Plan.Render()
	}
	return r
}

// verdict is the record's verdict judged (sim.Judge) from its violations.
func (r *Record) verdict() sim.Verdict {
	vs := make([]sim.Violation, len(r.Violations))
	for i, x := range r.Violations {
		vs[i] = sim.Violation{Step: x.Step, Invariant: x.Invariant, Detail: x.Detail, Known: x.Known}
	}
	return sim.Judge(vs)
}

// Failed reports whether the seed failed.
func (r *Record) Failed() bool { return r.Result == sim.VerdictFailed.String() }

// ParseRecord decodes and checks one line of the shard format: known fields only, a Flink
// version, steps in 1..MaxSteps, and a result that is the verdict of its violations.
func ParseRecord(line []byte) (*Record, error) {
	var rec Record
	d := json.NewDecoder(bytes.NewReader(line))
	d.DisallowUnknownFields()
	if err := d.Decode(&rec); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			// encoding/json shows the byte it stopped at as a character (0xab as «): quote the
			// line instead, escaped and cut.
			return nil, fmt.Errorf("not a seed record of 'simulate sweep --format json': not JSON at byte %d of the line: %s", se.Offset, excerpt.Quote(string(line), 32))
		}
		return nil, fmt.Errorf("not a seed record of 'simulate sweep --format json': %v", err)
	}
	if d.More() {
		return nil, errors.New("more than one JSON value on the line")
	}
	if err := rec.check(); err != nil {
		return nil, err
	}
	return &rec, nil
}

// check checks a decoded record: a Flink version, steps in 1..MaxSteps, and a result that is
// the verdict of its violations.
func (rec *Record) check() error {
	if _, err := model.ParseFlinkVersion(rec.Flink); err != nil {
		return fmt.Errorf("seed %d: flink: %v", rec.Seed, err)
	}
	if rec.Steps < 1 || rec.Steps > MaxSteps {
		return fmt.Errorf("seed %d: steps %d is out of range (1..%d)", rec.Seed, rec.Steps, MaxSteps)
	}
	if want := rec.verdict().String(); rec.Result != want {
		return fmt.Errorf("seed %d: result %q does not match its violations (want %q)", rec.Seed, rec.Result, want)
	}
	return nil
}

// isComparison reports whether a line of a shard is a JSON object with a "records" field: a
// cross-version record (Comparison), not a seed Record.
func isComparison(line []byte) bool {
	var probe struct {
		Records json.RawMessage `json:"records"`
	}
	return json.Unmarshal(line, &probe) == nil && probe.Records != nil
}

// ParseComparison decodes and checks one line of a cross-version sweep's shard format ('simulate
// sweep --flink A,B,… --format json'): known fields only, a record per version (at least two,
// distinct versions, each a valid Record of the line's seed, all with the same steps), and
// differences between versions adjacent in the records' order.
func ParseComparison(line []byte) (*Comparison, error) {
	const what = "not a seed record of 'simulate sweep --flink A,B --format json'"
	var c Comparison
	d := json.NewDecoder(bytes.NewReader(line))
	d.DisallowUnknownFields()
	if err := d.Decode(&c); err != nil {
		return nil, fmt.Errorf("%s: %v", what, err)
	}
	if d.More() {
		return nil, errors.New("more than one JSON value on the line")
	}
	if len(c.Records) < 2 {
		return nil, fmt.Errorf("%s: %d record, want one per version (at least 2)", what, len(c.Records))
	}
	seen := map[string]bool{}
	for _, r := range c.Records {
		if r == nil {
			return nil, fmt.Errorf("%s: a null record", what)
		}
		if r.Seed != c.Seed {
			return nil, fmt.Errorf("%s: seed %d holds a record of seed %d", what, c.Seed, r.Seed)
		}
		if err := r.check(); err != nil {
			return nil, fmt.Errorf("%s: %v", what, err)
		}
		if seen[r.Flink] {
			return nil, fmt.Errorf("%s: seed %d: flink %s has two records", what, c.Seed, r.Flink)
		}
		seen[r.Flink] = true
		if r.Steps != c.Records[0].Steps {
			return nil, fmt.Errorf("%s: seed %d: its records have steps %d and %d", what, c.Seed, c.Records[0].Steps, r.Steps)
		}
	}
	for _, df := range c.Differences {
		ok := false
		for i := 1; i < len(c.Records); i++ {
			a, b := c.Records[i-1], c.Records[i]
			ok = ok || df.From == a.Flink && df.To == b.Flink && df.FromResult == a.Result && df.ToResult == b.Result
		}
		if !ok {
			return nil, fmt.Errorf("%s: seed %d: a difference %s -> %s that is not of two adjacent records with its results", what, c.Seed, df.From, df.To)
		}
	}
	return &c, nil
}

// flinks is the comparison's versions in order, as --flink names them: "2.3,master".
func (c *Comparison) flinks() string {
	names := make([]string, len(c.Records))
	for i, r := range c.Records {
		names[i] = r.Flink
	}
	return strings.Join(names, ",")
}
