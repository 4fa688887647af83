package differential

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"

	"github.com/restoresim/restoresim/model"
)

// Answerer answers one case (a JSON object) with one answer line.
type Answerer func(caseJSON []byte) ([]byte, error)

// Comparer compares the model's answer with Flink's and returns the differences, each naming the
// JSON path of a field first (e.g. "vertices[0].subtasks[1]…: …"), in a deterministic order. An
// error means an answer could not be read.
type Comparer func(modelAnswer, flinkAnswer []byte) ([]string, error)

// Config is one differential run of one version.
type Config struct {
	Version model.FlinkVersion
	// Cases is the number of generated cases; Seed derives them (case i from PCG(Seed, i)).
	Cases        int
	Seed         uint64
	Model, Flink Answerer
	Compare      Comparer
	// Outcome names an answer's outcome for the table (e.g. "assigned", "refused: <kind>").
	Outcome func(answer []byte) string
	// MaxShrunk bounds how many disagreements are shrunk and kept (default 20); all are counted.
	MaxShrunk int
	// Progress, when set, is called after every case.
	Progress func(done int)
}

// Report is the result of a run.
type Report struct {
	Version model.FlinkVersion
	Cases   int
	Agreed  int
	// Outcomes counts, per outcome of Flink's answer, the cases and the agreeing cases.
	Outcomes map[string]*Count
	// Fields counts disagreements by field (the differences' paths, indexes dropped).
	Fields map[string]int
	// Disagreements are the first MaxShrunk disagreements, shrunk.
	Disagreements []Disagreement
}

// Count is a row of the agreement table.
type Count struct{ Cases, Agreed int }

// Disagreement is one case on which the model and Flink differ.
type Disagreement struct {
	// Index is the case's index in the run (generated from PCG(Seed, Index)).
	Index int
	// Case is the shrunk case; Original the generated one.
	Case, Original []byte
	// Model and Flink are the answers to Case; Differences their comparison.
	Model, Flink []byte
	Differences  []string
}

// Run runs the configured cases. Errors are the answerers' (a JVM that cannot run, a case the
// model cannot read), not disagreements.
func Run(cfg Config) (*Report, error) {
	if cfg.MaxShrunk == 0 {
		cfg.MaxShrunk = 20
	}
	rep := &Report{Version: cfg.Version, Outcomes: map[string]*Count{}, Fields: map[string]int{}}
	for i := 0; i < cfg.Cases; i++ {
		c := Generate(rand.New(rand.NewPCG(cfg.Seed, uint64(i))), cfg.Version)
		m, f, diffs, err := judge(cfg, c)
		if err != nil {
			return rep, fmt.Errorf("case %d: %w", i, err)
		}
		rep.Cases++
		o := cfg.Outcome(f)
		row := rep.Outcomes[o]
		if row == nil {
			row = &Count{}
			rep.Outcomes[o] = row
		}
		row.Cases++
		if len(diffs) == 0 {
			rep.Agreed++
			row.Agreed++
		} else {
			seen := map[string]bool{}
			for _, d := range diffs {
				f := fieldOf(d)
				if !seen[f] {
					seen[f] = true
					rep.Fields[f]++
				}
			}
			if len(rep.Disagreements) < cfg.MaxShrunk {
				d := Disagreement{Index: i, Original: c}
				d.Case = Shrink(c, func(x []byte) bool {
					_, _, ds, err := judge(cfg, x)
					return err == nil && len(ds) > 0
				})
				d.Model, d.Flink, d.Differences, _ = judge(cfg, d.Case)
				if len(d.Differences) == 0 { // cannot happen: Shrink keeps failing cases
					d.Case, d.Model, d.Flink, d.Differences = c, m, f, diffs
				}
				rep.Disagreements = append(rep.Disagreements, d)
			}
		}
		if cfg.Progress != nil {
			cfg.Progress(i + 1)
		}
	}
	return rep, nil
}

func judge(cfg Config, c []byte) (m, f []byte, diffs []string, err error) {
	if m, err = cfg.Model(c); err != nil {
		return nil, nil, nil, fmt.Errorf("model: %w", err)
	}
	if f, err = cfg.Flink(c); err != nil {
		return nil, nil, nil, fmt.Errorf("flink: %w", err)
	}
	diffs, err = cfg.Compare(m, f)
	return m, f, diffs, err
}

// fieldOf turns a difference's path into a field name: indexes dropped, up to the first ':'.
func fieldOf(d string) string {
	var b bytes.Buffer
	depth := 0
	for _, r := range d {
		if r == ':' && depth == 0 {
			break
		}
		switch r {
		case '[':
			depth++
			continue
		case ']':
			depth--
			continue
		}
		if depth == 0 {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// SortedOutcomes returns the outcome names in order (most cases first, then by name).
func (r *Report) SortedOutcomes() []string {
	var names []string
	for n := range r.Outcomes {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := r.Outcomes[names[i]], r.Outcomes[names[j]]
		if a.Cases != b.Cases {
			return a.Cases > b.Cases
		}
		return names[i] < names[j]
	})
	return names
}

// SortedFields returns the disagreeing fields in order (most first, then by name).
func (r *Report) SortedFields() []string {
	var names []string
	for n := range r.Fields {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if r.Fields[names[i]] != r.Fields[names[j]] {
			return r.Fields[names[i]] > r.Fields[names[j]]
		}
		return names[i] < names[j]
	})
	return names
}

// Shrink makes a failing case smaller while fails holds: it removes elements of the case's
// arrays (vertices' inputs, operators, operator states, subtasks' handles, states, offsets,
// channel handles) and optional fields, one at a time, keeping each removal that still fails,
// until none does. The case stays valid JSON; a removal that makes a side refuse the case as
// input still counts only if the two sides then disagree.
func Shrink(c []byte, fails func([]byte) bool) []byte {
	var doc any
	if err := json.Unmarshal(c, &doc); err != nil {
		return c
	}
	best := c
	for changed := true; changed; {
		changed = false
		for _, cand := range candidates(doc) {
			b, err := json.Marshal(cand)
			if err != nil || len(b) >= len(best) {
				continue
			}
			if fails(b) {
				doc, best, changed = cand, b, true
				break
			}
		}
	}
	return best
}

// candidates lists one-step reductions of a JSON document: each array element removed, each
// object field removed (except the case's required ones), depth first.
func candidates(doc any) []any {
	var out []any
	var walk func(v any, set func(any))
	walk = func(v any, set func(any)) {
		switch x := v.(type) {
		case []any:
			for i := range x {
				y := append(append([]any{}, x[:i]...), x[i+1:]...)
				set(y)
				out = append(out, deepCopy(doc))
				set(x)
			}
			for i := range x {
				i := i
				walk(x[i], func(n any) { x[i] = n })
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if required[k] {
					continue
				}
				old := x[k]
				delete(x, k)
				out = append(out, deepCopy(doc))
				x[k] = old
			}
			for _, k := range keys {
				k := k
				walk(x[k], func(n any) { x[k] = n })
			}
		}
	}
	walk(doc, func(any) {})
	return out
}

// required are fields a case cannot do without (removing them only makes both sides refuse it).
var required = map[string]bool{
	"checkpoint_id": true, "vertices": true, "operators": true, "id": true, "name": true,
	"parallelism": true, "operator_id": true, "max_parallelism_configured": false,
	"subtasks": true, "delegate": true, "path": true, "size": true, "type": true,
	"key_groups": true, "range": true, "start": true, "end": true, "offsets": true,
	"mode": true, "states": true, "upstream": true, "gate_or_partition": true, "channel": true,
	"subtask_index": true, "backend_id": true, "key_group_range": true, "meta": true,
	"local_path": true, "handle": true, "shared": true, "private": true,
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case []any:
		y := make([]any, len(x))
		for i := range x {
			y[i] = deepCopy(x[i])
		}
		return y
	case map[string]any:
		y := make(map[string]any, len(x))
		for k, e := range x {
			y[k] = deepCopy(e)
		}
		return y
	}
	return v
}
