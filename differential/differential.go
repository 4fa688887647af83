package differential

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/restoresim/restoresim/assigncase"
	"github.com/restoresim/restoresim/internal/atomicfile"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/reference"
)

// Config is one differential run of one version.
type Config struct {
	Version model.FlinkVersion
	// Cases is the number of generated cases, From the index of the first; Seed derives them
	// (case i from PCG(Seed, i)): From 123 and Cases 1 replays case 123 of a run.
	Cases, From int
	Seed        uint64
	// Flink answers cases, one answer line each in order: (*reference.JVM).AssignAll.
	Flink func(cases [][]byte) ([][]byte, error)
	// FlinkSame, when set, answers in Flink's place: each case goes with the model's answer
	// line, and an answer line of Flink's that equals it byte for byte may come back as Same
	// ((*reference.JVM).AssignAllSame, which compares the lines' SHA-256 in the JVM). Only the
	// agreeing answers are left out; every other answer is Flink's line. Flink still answers
	// the shrinker's cases.
	FlinkSame func(cases, model [][]byte) ([][]byte, error)
	// MaxShrunk bounds how many disagreements are shrunk and kept (default 20); all are counted.
	MaxShrunk int
	// Batch is how many cases go to Flink at once (default 2048); Workers how many goroutines
	// generate cases and answer them with the model (default GOMAXPROCS). Neither changes the
	// report: cases are numbered, and their results are taken in that order.
	Batch, Workers int
	// Progress, when set, is called after every batch with the cases done.
	Progress func(done int)
}

// Report is the result of a run.
type Report struct {
	Version model.FlinkVersion
	Seed    uint64
	Cases   int
	Agreed  int
	// Outcomes counts, per outcome of Flink's answer (Outcome), the cases and the agreeing
	// cases.
	Outcomes map[string]*Count
	// Fields counts disagreeing cases by field (the differences' paths, indexes dropped).
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

// job is one case on its way through a run.
type job struct {
	c     []byte // the case's JSON
	model []byte // the model's answer line
	ma    assigncase.Answer
	flink []byte
	// outcome and diffs are the judgement.
	outcome string
	diffs   []string
	err     error
}

// Run runs the configured cases: each is generated and answered by the model on the workers,
// sent to Flink in batches (the next batch is prepared while Flink answers the last), and judged
// on the workers; the results are counted in case order, so that a run's report depends on its
// configuration only. Errors are Flink's (a JVM that cannot run) or a generated case that is no
// case, not disagreements.
func Run(cfg Config) (*Report, error) {
	if cfg.MaxShrunk == 0 {
		cfg.MaxShrunk = 20
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 2048
	}
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	rep := &Report{Version: cfg.Version, Seed: cfg.Seed, Outcomes: map[string]*Count{}, Fields: map[string]int{}}
	prepare := func(from int) ([]job, error) {
		n := min(cfg.Batch, cfg.Cases-from)
		jobs := make([]job, n)
		parallel(cfg.Workers, n, func(k int) {
			jobs[k] = prepareCase(cfg.Version, cfg.Seed, cfg.From+from+k)
		})
		for k := range jobs {
			if jobs[k].err != nil {
				return nil, fmt.Errorf("case %d: %w", cfg.From+from+k, jobs[k].err)
			}
		}
		return jobs, nil
	}
	type prepared struct {
		jobs []job
		err  error
	}
	if cfg.Cases <= 0 {
		return rep, nil
	}
	next := make(chan prepared, 1)
	go func() { j, err := prepare(0); next <- prepared{j, err} }()
	for from := 0; from < cfg.Cases; {
		p := <-next
		if p.err != nil {
			return rep, p.err
		}
		jobs := p.jobs
		if to := from + len(jobs); to < cfg.Cases {
			go func() { j, err := prepare(to); next <- prepared{j, err} }()
		}
		cases := make([][]byte, len(jobs))
		for k := range jobs {
			cases[k] = jobs[k].c
		}
		var answers [][]byte
		var err error
		if cfg.FlinkSame != nil {
			models := make([][]byte, len(jobs))
			for k := range jobs {
				models[k] = jobs[k].model
			}
			answers, err = cfg.FlinkSame(cases, models)
		} else {
			answers, err = cfg.Flink(cases)
		}
		if err == nil && len(answers) != len(cases) {
			err = fmt.Errorf("%d answers to %d cases", len(answers), len(cases))
		}
		if err != nil {
			return rep, fmt.Errorf("cases %d to %d: flink: %w", cfg.From+from, cfg.From+from+len(cases)-1, err)
		}
		parallel(cfg.Workers, len(jobs), func(k int) {
			j := &jobs[k]
			j.flink = answers[k]
			if cfg.FlinkSame != nil && bytes.Equal(j.flink, reference.Same) {
				j.flink = j.model
			}
			j.outcome, j.diffs, j.err = judgeAnswers(j.model, j.ma, j.flink)
		})
		for k := range jobs {
			if err := rep.count(cfg, cfg.From+from+k, &jobs[k]); err != nil {
				return rep, err
			}
		}
		from += len(jobs)
		if cfg.Progress != nil {
			cfg.Progress(from)
		}
	}
	return rep, nil
}

// parallel runs f(0) … f(n-1) on up to workers goroutines.
func parallel(workers, n int, f func(k int)) {
	var wg sync.WaitGroup
	var next atomic.Int64
	for w := 0; w < min(workers, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1) - 1)
				if k >= n {
					return
				}
				f(k)
			}
		}()
	}
	wg.Wait()
}

// checkEvery is how often (one case in checkEvery) a generated case is also read back from its
// JSON, strictly, and must give the same case: the model answers the generated struct, Flink its
// JSON; this keeps the two the same case.
const checkEvery = 64

func prepareCase(v model.FlinkVersion, seed uint64, i int) job {
	c := GenerateCase(rand.New(rand.NewPCG(seed, uint64(i))), v)
	b, err := json.Marshal(c)
	if err != nil {
		return job{err: err}
	}
	if i%checkEvery == 0 {
		back, err := assigncase.DecodeCase(b)
		if err != nil {
			return job{err: fmt.Errorf("the generator wrote no case: %w", err)}
		}
		if b2, _ := json.Marshal(back); !bytes.Equal(b, b2) {
			return job{err: fmt.Errorf("the generator's case does not read back as itself: %s", b)}
		}
	}
	a := ModelAnswer(c, v)
	return job{c: b, ma: a, model: []byte(a.String())}
}

// ModelAnswer is the model's answer to a case; a case the model has no answer to (not
// modelled) is answered with a refusal of kind "not-modelled" (a disagreement with Flink, which
// answers every case).
func ModelAnswer(c *assigncase.Case, v model.FlinkVersion) assigncase.Answer {
	a, err := c.Answer(v)
	if err != nil {
		kind := assigncase.KindNotModelled
		return assigncase.Answer{Error: &assigncase.Refusal{Stage: "input", Kind: &kind, Message: err.Error(), Operators: &[]string{}}}
	}
	return a
}

// Judge answers a case (JSON) with the model and compares its answer with Flink's answer line.
// It returns both answers, the outcome of Flink's answer and the differences.
func Judge(v model.FlinkVersion, caseJSON, flink []byte) (modelAnswer []byte, outcome string, diffs []string, err error) {
	c, err := assigncase.DecodeCase(caseJSON)
	if err != nil {
		return nil, "", nil, err
	}
	a := ModelAnswer(c, v)
	m := []byte(a.String())
	outcome, diffs, err = judgeAnswers(m, a, flink)
	return m, outcome, diffs, err
}

func judgeAnswers(m []byte, ma assigncase.Answer, flink []byte) (string, []string, error) {
	if bytes.Equal(m, flink) {
		return Outcome(&ma), nil, nil
	}
	fa, err := assigncase.DecodeAnswer(flink)
	if err != nil {
		return "", nil, fmt.Errorf("flink's answer: %v: %.300s", err, flink)
	}
	DeriveRefusal(fa.Error)
	var diffs []string
	for _, d := range assigncase.Compare(ma, *fa) {
		diffs = append(diffs, d.String())
	}
	return Outcome(fa), diffs, nil
}

// Outcome names an answer's outcome for the agreement table: "assigned", or "refused <stage>:
// <kind>".
func Outcome(a *assigncase.Answer) string {
	if a.Error == nil {
		return "assigned"
	}
	kind := "?"
	if a.Error.Kind != nil {
		kind = *a.Error.Kind
	}
	return "refused " + a.Error.Stage + ": " + kind
}

func (rep *Report) count(cfg Config, i int, j *job) error {
	if j.err != nil {
		return fmt.Errorf("case %d: %w", i, j.err)
	}
	rep.Cases++
	row := rep.Outcomes[j.outcome]
	if row == nil {
		row = &Count{}
		rep.Outcomes[j.outcome] = row
	}
	row.Cases++
	if len(j.diffs) == 0 {
		rep.Agreed++
		row.Agreed++
		return nil
	}
	seen := map[string]bool{}
	for _, d := range j.diffs {
		f := fieldOf(d)
		if !seen[f] {
			seen[f] = true
			rep.Fields[f]++
		}
	}
	if len(rep.Disagreements) < cfg.MaxShrunk {
		d := Disagreement{Index: i, Original: j.c}
		fails := func(xs [][]byte) []bool {
			out := make([]bool, len(xs))
			f, err := cfg.Flink(xs)
			if err != nil || len(f) != len(xs) {
				return out
			}
			parallel(cfg.Workers, len(xs), func(k int) {
				_, _, ds, err := Judge(cfg.Version, xs[k], f[k])
				out[k] = err == nil && len(ds) > 0
			})
			return out
		}
		d.Case = Shrink(j.c, fails)
		if f, err := cfg.Flink([][]byte{d.Case}); err == nil && len(f) == 1 {
			d.Flink = f[0]
			d.Model, _, d.Differences, _ = Judge(cfg.Version, d.Case, d.Flink)
		}
		if len(d.Differences) == 0 { // cannot happen: Shrink keeps failing cases
			d.Case, d.Model, d.Flink, d.Differences = j.c, j.model, j.flink, j.diffs
		}
		rep.Disagreements = append(rep.Disagreements, d)
	}
	return nil
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

// Shrink makes a failing case smaller while it fails: it removes elements of the case's
// arrays (vertices' inputs, operators, operator states, subtasks' handles, states, offsets,
// channel handles) and optional fields, one at a time, keeping the first removal (in a fixed
// order: the outermost first) that still fails, until none does. fails judges many candidates
// at once (one batch to Flink) and says of each whether it fails. The case stays valid JSON; a
// removal that makes a side refuse the case as input still counts only if the two sides then
// disagree.
func Shrink(c []byte, fails func(cands [][]byte) []bool) []byte {
	var doc any
	if err := json.Unmarshal(c, &doc); err != nil {
		return c
	}
	best := c
	const chunk = 64
	// Scan the reductions from pos on; after a kept one, go on from the same place in the new
	// document's list (what came before failed already), and end with a whole pass that keeps
	// nothing.
	pos, fromStart := 0, true
	for {
		edits := candidates(doc)
		kept := -1
		for from := min(pos, len(edits)); from < len(edits) && kept < 0; from += chunk {
			var docs []any
			var bs [][]byte
			var at []int
			for k, e := range edits[from:min(from+chunk, len(edits))] {
				cand := e.apply(doc)
				b, err := json.Marshal(cand)
				if err != nil || len(b) >= len(best) {
					continue
				}
				docs, bs, at = append(docs, cand), append(bs, b), append(at, from+k)
			}
			if len(bs) == 0 {
				continue
			}
			for k, f := range fails(bs) {
				if f {
					doc, best, kept = docs[k], bs[k], at[k]
					break
				}
			}
		}
		switch {
		case kept >= 0:
			pos, fromStart = kept, false
		case !fromStart:
			pos, fromStart = 0, true
		default:
			return best
		}
	}
}

// edit is one reduction of a JSON document: at path, remove array element index (key == "")
// or object field key.
type edit struct {
	path  []any // int or string steps
	index int
	key   string
}

// apply returns a copy of doc with the edit made.
func (e edit) apply(doc any) any {
	out := deepCopy(doc)
	var parent any = out
	var set func(any)
	set = func(v any) { out = v }
	for _, step := range e.path {
		switch s := step.(type) {
		case int:
			arr := parent.([]any)
			set = func(v any) { arr[s] = v }
			parent = arr[s]
		case string:
			obj := parent.(map[string]any)
			set = func(v any) { obj[s] = v }
			parent = obj[s]
		}
	}
	if e.key != "" {
		delete(parent.(map[string]any), e.key)
		return out
	}
	arr := parent.([]any)
	set(append(append([]any{}, arr[:e.index]...), arr[e.index+1:]...))
	return out
}

// candidates lists the one-step reductions of a JSON document, outermost first: each array
// element removed (but a number), each object field removed (except the case's required ones).
func candidates(doc any) []edit {
	var out []edit
	type node struct {
		v    any
		path []any
	}
	level := []node{{doc, nil}}
	for len(level) > 0 {
		var next []node
		for _, n := range level {
			path := append([]any{}, n.path...)
			switch x := n.v.(type) {
			case []any:
				for i := range x {
					// Not the numbers of a list (offsets): one fewer breaks the handle for
					// both sides alike, and there are many.
					if _, number := x[i].(float64); !number {
						out = append(out, edit{path: path, index: i})
					}
				}
				for i := range x {
					next = append(next, node{x[i], append(append([]any{}, path...), i)})
				}
			case map[string]any:
				keys := make([]string, 0, len(x))
				for k := range x {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					if !required[k] {
						out = append(out, edit{path: path, key: k})
					}
				}
				for _, k := range keys {
					next = append(next, node{x[k], append(append([]any{}, path...), k)})
				}
			}
		}
		level = next
	}
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

// Saved is a disagreement as a replayable file: the shrunk case, both answers to it and their
// differences, and where it came from (the version, the seed and the index of the generated
// case, which is Original before shrinking).
type Saved struct {
	Flink       string          `json:"flink"`
	Seed        uint64          `json:"seed"`
	Index       int             `json:"index"`
	Case        json.RawMessage `json:"case"`
	Model       json.RawMessage `json:"model_answer"`
	FlinkAnswer json.RawMessage `json:"flink_answer"`
	Differences []string        `json:"differences"`
	Original    json.RawMessage `json:"original"`
}

// Save gives a disagreement of a report as a Saved file's bytes (indented JSON, a newline at
// the end).
func (r *Report) Save(d Disagreement) ([]byte, error) {
	s := Saved{Flink: r.Version.String(), Seed: r.Seed, Index: d.Index, Case: d.Case, Model: d.Model, FlinkAnswer: d.Flink,
		Differences: d.Differences, Original: d.Original}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// WriteSaved saves a disagreement of a report in dir (created when missing) as
// flink-V-seed-S-case-I.json, atomically, and returns the file's path.
func (r *Report) WriteSaved(dir string, d Disagreement) (string, error) {
	data, err := r.Save(d)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, fmt.Sprintf("flink-%s-seed-%d-case-%d.json", r.Version, r.Seed, d.Index))
	if err := atomicfile.WriteFile(path, data); err != nil {
		return "", err
	}
	return path, nil
}

// ReplayCase reads the case of a replay file: a Saved disagreement (its "case"), or a case
// (one JSON object in the format of ASSIGN-CASE.md). It returns the case's JSON, checked.
func ReplayCase(data []byte) ([]byte, error) {
	var s struct {
		Case json.RawMessage `json:"case"`
	}
	c := bytes.TrimSpace(data)
	if err := json.Unmarshal(c, &s); err == nil && len(s.Case) > 0 {
		c = s.Case
	}
	if _, err := assigncase.DecodeCase(c); err != nil {
		return nil, err
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, c); err != nil {
		return nil, err
	}
	return compact.Bytes(), nil
}
