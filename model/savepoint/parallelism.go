package savepoint

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/restoresim/restoresim/internal/excerpt"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
)

// ParallelismSource says where a task's new parallelism comes from (the "parallelism_source" of
// `simulate plan --format json`).
type ParallelismSource string

const (
	// SourceDefault: Options.Parallelism (`--parallelism P`), the parallelism of every task
	// nothing else sets.
	SourceDefault ParallelismSource = "default"
	// SourceJob: the job file's own parallelism for the vertex.
	SourceJob ParallelismSource = "job"
	// SourceKeep: the old parallelism of the state the task takes (Options.KeepParallelism,
	// `--keep-parallelism`).
	SourceKeep ParallelismSource = "keep"
	// SourceVertex: Options.VertexParallelism (`--vertex ID=P`).
	SourceVertex ParallelismSource = "vertex"
	// SourceNonParallel: without a job file, the task of a state whose max parallelism is 1,
	// which runs at parallelism 1 with max parallelism 1 configured (DefaultVertices).
	SourceNonParallel ParallelismSource = "non-parallel"
)

// UnknownOperatorError is an operator ID of Options.VertexParallelism that no task of the new
// job holds (without Job: no operator state of the checkpoint has it).
type UnknownOperatorError struct {
	OperatorID model.OperatorID
	// Job is true when the new job was described (Options.Job).
	Job bool
}

// Error names the operator and where it was looked for.
func (e *UnknownOperatorError) Error() string {
	if e.Job {
		return fmt.Sprintf("operator %v is not an operator of the new job", e.OperatorID)
	}
	return fmt.Sprintf("operator %v is not an operator of the checkpoint", e.OperatorID)
}

// VertexSetting is one "ID=P" of `simulate plan --vertex`: the parallelism of the task holding
// an operator, an entry of Options.VertexParallelism.
type VertexSetting struct {
	// OperatorID is the operator's ID: given as 32 hex digits, or the hash of UID.
	OperatorID model.OperatorID
	// UID is the uid the operator was named by ("uid:NAME"), empty for a hex ID.
	UID string
	// Parallelism is P, in 1..32768.
	Parallelism int
}

// VertexSettings are several ID=P settings (ParseVertexSettings): Parallelism is an
// Options.VertexParallelism.
type VertexSettings struct {
	// Parallelism is the parallelism per operator ID; nil when there are no settings.
	Parallelism map[model.OperatorID]int
	// Given is each operator's setting as given, for messages.
	Given map[model.OperatorID]string
	// UIDs are the uids named by uid:NAME, in the order given.
	UIDs []string
}

// ParseVertexSettings parses each setting with ParseVertexSetting; an operator set twice is an
// error. Errors quote the setting after name, the flag that gave it ("--vertex \"a=b\": …").
func ParseVertexSettings(name string, settings []string) (VertexSettings, error) {
	var vs VertexSettings
	if len(settings) == 0 {
		return vs, nil
	}
	vs.Parallelism, vs.Given = map[model.OperatorID]int{}, map[model.OperatorID]string{}
	for _, g := range settings {
		v, err := ParseVertexSetting(g)
		if err != nil {
			return VertexSettings{}, fmt.Errorf("%s %s: %v", name, excerpt.Quote(g, 80), err)
		}
		if prev, dup := vs.Given[v.OperatorID]; dup {
			return VertexSettings{}, fmt.Errorf("%s %s: operator %v is also set by %s %s", name, excerpt.Quote(g, 80), v.OperatorID, name, excerpt.Quote(prev, 80))
		}
		vs.Parallelism[v.OperatorID], vs.Given[v.OperatorID] = v.Parallelism, g
		if v.UID != "" {
			vs.UIDs = append(vs.UIDs, v.UID)
		}
	}
	return vs, nil
}

// ParseVertexSetting parses "ID=P": ID is an operator ID (32 hex digits) or uid:NAME (the ID
// Flink derives from the uid NAME, model.OperatorIDFromUID), P a parallelism in 1..32768. The
// last "=" splits, so a uid may contain "=". Errors say what is wrong without repeating s.
func ParseVertexSetting(s string) (VertexSetting, error) {
	i := strings.LastIndex(s, "=")
	if i < 0 {
		return VertexSetting{}, errors.New("want ID=P (ID: 32 hex digits or uid:NAME)")
	}
	idText, pText := s[:i], s[i+1:]
	var v VertexSetting
	if name, ok := strings.CutPrefix(idText, "uid:"); ok {
		if name == "" {
			return VertexSetting{}, errors.New("empty uid")
		}
		v.OperatorID, v.UID = model.OperatorIDFromUID(name), name
	} else {
		var err error
		if v.OperatorID, err = model.ParseOperatorID(idText); err != nil || len(idText) != 32 {
			return VertexSetting{}, fmt.Errorf("%s is not an operator ID (want 32 hex digits or uid:NAME)", excerpt.Quote(idText, 40))
		}
	}
	p, err := strconv.Atoi(pText)
	if err != nil {
		return VertexSetting{}, fmt.Errorf("parallelism %s is not an integer", excerpt.Quote(pText, 20))
	}
	if err := model.CheckParallelismPreconditions(p); err != nil {
		return VertexSetting{}, fmt.Errorf("parallelism %d is out of bounds (want 1..%d)", p, model.UpperBoundMaxParallelism)
	}
	v.Parallelism = p
	return v, nil
}

// sourceOf gives a vertex's parallelism source ("" counts as given by the job).
func sourceOf(v *Vertex) ParallelismSource {
	if v.ParallelismSource == "" {
		return SourceJob
	}
	return v.ParallelismSource
}

// holds reports whether the vertex has an operator with ID id (generated or user-defined).
func (v *Vertex) holds(id model.OperatorID) bool {
	for _, op := range v.Operators {
		if op.ID == id || op.UserDefinedID != nil && *op.UserDefinedID == id {
			return true
		}
	}
	return false
}

// statesOf gives the indexes of the operator states of f the vertex's operators match.
func statesOf(f *metadata.File, v *Vertex) []int {
	var out []int
	for i := range f.Operators {
		if v.holds(f.Operators[i].ID) {
			out = append(out, i)
		}
	}
	return out
}

// setParallelism gives a vertex p as its parallelism: a max parallelism that is not
// configured follows (Flink's default for p).
func setParallelism(v *Vertex, p int, src ParallelismSource) {
	v.Parallelism, v.ParallelismSource = p, src
	if !v.MaxParallelismConfigured {
		if m, err := model.ComputeDefaultMaxParallelism(p); err == nil {
			v.MaxParallelism = m
		}
	}
}

// resolveParallelism applies Options.VertexParallelism and Options.KeepParallelism to a copy of
// vertices: a --vertex setting wins, then the job file's own parallelism, then the old
// parallelism (keep), then the default. An error means bad input.
func resolveParallelism(f *metadata.File, vertices []Vertex, opts Options) ([]Vertex, error) {
	out := make([]Vertex, len(vertices))
	copy(out, vertices)
	ids := make([]model.OperatorID, 0, len(opts.VertexParallelism))
	for id := range opts.VertexParallelism {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i].String() < ids[j].String() })
	setBy := map[int]model.OperatorID{}
	for _, id := range ids {
		p := opts.VertexParallelism[id]
		vi := -1
		for i := range out {
			if out[i].holds(id) {
				vi = i
				break
			}
		}
		if vi < 0 {
			return nil, &UnknownOperatorError{OperatorID: id, Job: opts.Job != nil}
		}
		v := &out[vi]
		if v.ParallelismSource == SourceNonParallel {
			// Set by hand: a job that no longer forces the operator non-parallel.
			v.MaxParallelismConfigured = false
		}
		if p < 1 || p > model.UpperBoundMaxParallelism {
			return nil, fmt.Errorf("operator %v: parallelism %d is out of bounds (want 1..%d)", id, p, model.UpperBoundMaxParallelism)
		}
		if prev, dup := setBy[vi]; dup && out[vi].Parallelism != p {
			return nil, fmt.Errorf("operator %v: task %q is set to parallelism %d by operator %v and %d by operator %v (one task, one parallelism)", id, v.Name, v.Parallelism, prev, p, id)
		}
		if v.MaxParallelismConfigured && p > v.MaxParallelism {
			return nil, fmt.Errorf("operator %v: parallelism %d is above the max parallelism %d configured for task %q (Flink refuses to build such a job)", id, p, v.MaxParallelism, v.Name)
		}
		setBy[vi] = id
		setParallelism(v, p, SourceVertex)
	}
	for i := range out {
		v := &out[i]
		if _, set := setBy[i]; set {
			continue
		}
		if opts.KeepParallelism && sourceOf(v) == SourceDefault {
			states := statesOf(f, v)
			if len(states) > 0 {
				p := f.Operators[states[0]].Parallelism
				for _, si := range states[1:] {
					if q := f.Operators[si].Parallelism; q != p {
						return nil, fmt.Errorf("task %q: its operators' states ran at parallelisms %d (operator %v) and %d (operator %v), so the old parallelism is not one number: set it with its own parallelism",
							v.Name, p, f.Operators[states[0]].ID, q, f.Operators[si].ID)
					}
				}
				if p < 1 || p > model.UpperBoundMaxParallelism {
					return nil, fmt.Errorf("task %q: the old parallelism %d of operator %v is out of bounds (want 1..%d)", v.Name, p, f.Operators[states[0]].ID, model.UpperBoundMaxParallelism)
				}
				if v.MaxParallelismConfigured && int(p) > v.MaxParallelism {
					return nil, fmt.Errorf("task %q: the old parallelism %d is above the max parallelism %d configured for it (Flink refuses to build such a job)", v.Name, p, v.MaxParallelism)
				}
				setParallelism(v, int(p), SourceKeep)
				continue
			}
		}
		if sourceOf(v) == SourceDefault && opts.Parallelism == 0 {
			return nil, fmt.Errorf("task %q has no parallelism: give a default parallelism, keep the old one, or set its own", v.Name)
		}
		if v.ParallelismSource == "" {
			v.ParallelismSource = SourceJob
		}
	}
	return out, nil
}

// VertexPlan is one task of the new job: its parallelism and where it comes from.
type VertexPlan struct {
	Name        string `json:"name"`
	Parallelism int    `json:"parallelism"`
	// ParallelismSource is "default", "job", "keep", "vertex" or "non-parallel"
	// (ParallelismSource).
	ParallelismSource ParallelismSource `json:"parallelism_source"`
	// MaxParallelism is the task's max parallelism before any restore adopts the state's
	// (configured, or Flink's default for the parallelism).
	MaxParallelism           int  `json:"max_parallelism"`
	MaxParallelismConfigured bool `json:"max_parallelism_configured"`
	// Operators are the operator IDs of the chain, in Flink's order (tail first).
	Operators []string `json:"operators"`
}

func vertexPlans(vertices []Vertex) []VertexPlan {
	out := make([]VertexPlan, len(vertices))
	for i := range vertices {
		v := &vertices[i]
		ops := make([]string, len(v.Operators))
		for k, op := range v.Operators {
			ops[k] = op.ID.String()
		}
		out[i] = VertexPlan{Name: v.Name, Parallelism: v.Parallelism, ParallelismSource: sourceOf(v), MaxParallelism: v.MaxParallelism,
			MaxParallelismConfigured: v.MaxParallelismConfigured, Operators: ops}
	}
	return out
}
