package savepoint

import (
	"errors"
	"fmt"

	"github.com/restoresim/restoresim/internal/excerpt"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
)

// JobFile describes the new job a savepoint is restored into: its vertices (operator chains).
// Its fields carry the JSON and YAML names of `simulate plan --job`; decoding is the caller's.
type JobFile struct {
	Vertices []JobFileVertex `json:"vertices" yaml:"vertices"`
}

// JobFileVertex is one task (operator chain) of a JobFile.
type JobFileVertex struct {
	// Name names the task in Flink's messages (default "vertex <i>").
	Name string `json:"name" yaml:"name"`
	// Parallelism may be nil only when a default parallelism is given.
	Parallelism *int `json:"parallelism" yaml:"parallelism"`
	// MaxParallelism nil means Flink's default for the parallelism, not configured (a restore
	// may adopt the state's max parallelism); given means configured.
	MaxParallelism *int `json:"max_parallelism" yaml:"max_parallelism"`
	// Operators is the chain, head first (the operator reading the task's input).
	Operators []JobFileOperator `json:"operators" yaml:"operators"`
	// Inputs are the task's input gates in order (optional): the job edges in-flight channel
	// state is redistributed over. A vertex's result partitions are numbered in the order
	// its outgoing edges appear in the file (vertex order, then input order).
	Inputs []JobFileInput `json:"inputs" yaml:"inputs"`
}

// JobFileInput is one input gate of a JobFileVertex: an edge from another vertex.
type JobFileInput struct {
	// From names the producing vertex.
	From string `json:"from" yaml:"from"`
	// Partitioner is the edge's partitioner: FORWARD, REBALANCE, RESCALE, SHUFFLE, HASH,
	// GLOBAL, BROADCAST or CUSTOM.
	Partitioner string `json:"partitioner" yaml:"partitioner"`
}

// JobFileOperator is one operator of a chain: exactly one of UID and ID.
type JobFileOperator struct {
	// Name is an optional label.
	Name string `json:"name" yaml:"name"`
	// UID is the .uid(...): the operator ID is murmur3_128(uid).
	UID *string `json:"uid" yaml:"uid"`
	// ID is the raw generated operator ID (32 hex digits).
	ID *string `json:"id" yaml:"id"`
	// UIDHash is an optional .setUidHash(...) (the user-defined ID, 32 hex digits).
	UIDHash *string `json:"uid_hash" yaml:"uid_hash"`
}

// Vertex is a vertex of the new job, with how its operators were given.
type Vertex struct {
	model.JobVertex
	// Labels names each chain position (model order, tail first) as the user gave it: the
	// operator's name, "uid <uid>", or "".
	Labels []string
	// ParallelismSource says where Parallelism comes from: SourceJob when the job file gives
	// it, SourceDefault when it is the default parallelism ("" counts as SourceJob).
	ParallelismSource ParallelismSource
}

// Validate validates the job and gives its vertices, operators in Flink's order (tail first).
// defaultParallelism (0: none) is the parallelism of vertices that give none, like `flink run
// -p`. A missing or non-positive parallelism, a max parallelism outside 1..32768 or below the
// parallelism, bad hex, an empty chain, a vertex name or an operator ID used twice are errors
// naming the field ("vertices[1].operators[0].id: …").
func (jf *JobFile) Validate(defaultParallelism int) ([]Vertex, error) {
	if len(jf.Vertices) == 0 {
		return nil, errors.New("vertices: missing or empty (the job needs at least one vertex)")
	}
	out := make([]Vertex, 0, len(jf.Vertices))
	names := map[string]int{}
	generated := map[model.OperatorID]string{}
	for i, jv := range jf.Vertices {
		at := fmt.Sprintf("vertices[%d]", i)
		v := Vertex{JobVertex: model.JobVertex{Name: jv.Name}}
		if v.Name == "" {
			v.Name = fmt.Sprintf("vertex %d", i)
		}
		if j, dup := names[v.Name]; dup {
			return nil, fmt.Errorf("%s.name: %s is also the name of vertices[%d] (names must be unique)", at, excerpt.Quote(v.Name, 40), j)
		}
		names[v.Name] = i
		switch {
		case jv.Parallelism != nil:
			v.Parallelism, v.ParallelismSource = *jv.Parallelism, SourceJob
		case defaultParallelism > 0:
			v.Parallelism, v.ParallelismSource = defaultParallelism, SourceDefault
		default:
			return nil, fmt.Errorf("%s.parallelism: missing (give it, or --parallelism P as the job's default)", at)
		}
		if v.Parallelism < 1 || v.Parallelism > model.UpperBoundMaxParallelism {
			return nil, fmt.Errorf("%s.parallelism: %d is out of bounds (want 1..%d)", at, v.Parallelism, model.UpperBoundMaxParallelism)
		}
		if jv.MaxParallelism != nil {
			m := *jv.MaxParallelism
			if m < 1 || m > model.UpperBoundMaxParallelism {
				return nil, fmt.Errorf("%s.max_parallelism: %d is out of bounds (want 1..%d)", at, m, model.UpperBoundMaxParallelism)
			}
			if m < v.Parallelism {
				// ExecutionJobVertex refuses this before any restore is attempted.
				return nil, fmt.Errorf("%s.max_parallelism: %d is below the vertex's parallelism %d (Flink refuses to build such a job)", at, m, v.Parallelism)
			}
			v.MaxParallelism, v.MaxParallelismConfigured = m, true
		} else {
			m, err := model.ComputeDefaultMaxParallelism(v.Parallelism)
			if err != nil {
				return nil, fmt.Errorf("%s.parallelism: %v", at, err)
			}
			v.MaxParallelism = m
		}
		if len(jv.Operators) == 0 {
			return nil, fmt.Errorf("%s.operators: missing or empty (a vertex is a chain of at least one operator)", at)
		}
		// Listed head first; Flink lists a chain tail first.
		for k := len(jv.Operators) - 1; k >= 0; k-- {
			jo := jv.Operators[k]
			oat := fmt.Sprintf("%s.operators[%d]", at, k)
			var op model.JobOperator
			label := jo.Name
			switch {
			case jo.UID != nil && jo.ID != nil:
				return nil, fmt.Errorf("%s: give either uid or id, not both", oat)
			case jo.UID != nil:
				if *jo.UID == "" {
					return nil, fmt.Errorf("%s.uid: empty", oat)
				}
				op.ID = model.OperatorIDFromUID(*jo.UID)
				if label == "" {
					label = "uid " + *jo.UID
				}
			case jo.ID != nil:
				id, err := parseHexID(*jo.ID)
				if err != nil {
					return nil, fmt.Errorf("%s.id: %v", oat, err)
				}
				op.ID = id
			default:
				return nil, fmt.Errorf("%s: missing uid or id", oat)
			}
			if jo.UIDHash != nil {
				id, err := parseHexID(*jo.UIDHash)
				if err != nil {
					return nil, fmt.Errorf("%s.uid_hash: %v", oat, err)
				}
				op.UserDefinedID = &id
			}
			if prev, dup := generated[op.ID]; dup {
				return nil, fmt.Errorf("%s: operator ID %v is also the ID of %s (operator IDs must be unique in a job)", oat, op.ID, prev)
			}
			generated[op.ID] = oat
			v.Operators = append(v.Operators, op)
			v.Labels = append(v.Labels, label)
		}
		out = append(out, v)
	}
	partitions := make([]int, len(out))
	for i, jv := range jf.Vertices {
		for g, in := range jv.Inputs {
			at := fmt.Sprintf("vertices[%d].inputs[%d]", i, g)
			u, ok := names[in.From]
			if !ok || u == i {
				return nil, fmt.Errorf("%s.from: %s is not the name of another vertex", at, excerpt.Quote(in.From, 40))
			}
			p, err := model.ParsePartitioner(in.Partitioner)
			if err != nil {
				return nil, fmt.Errorf("%s.partitioner: %v", at, err)
			}
			out[i].Inputs = append(out[i].Inputs, model.EdgeFor(p, u, partitions[u]))
			partitions[u]++
		}
	}
	return out, nil
}

// parseHexID parses a 32-hex-digit operator ID as Flink prints it.
func parseHexID(s string) (model.OperatorID, error) {
	if len(s) != 32 {
		return model.OperatorID{}, fmt.Errorf("%s is not an operator ID (want 32 hex digits, got %d characters)", excerpt.Quote(s, 40), len(s))
	}
	id, err := model.ParseOperatorID(s)
	if err != nil {
		return model.OperatorID{}, fmt.Errorf("%s is not an operator ID (want 32 hex digits)", excerpt.Quote(s, 40))
	}
	return id, nil
}

// DefaultVertices is the job `simulate plan` plans without a job file: one task per operator
// state of f (a one-operator chain, ID = the state's operator ID) with parallelism p and max
// parallelism not configured (Flink's default for p), named "<name> (<id>)" or "operator <id>".
//
// A state whose max parallelism is 1 gets a task at parallelism 1 with max parallelism 1
// configured (ParallelismSource SourceNonParallel), as Flink builds it whatever the default
// parallelism: no default max parallelism is 1 (ComputeDefaultMaxParallelism gives 128 or
// more), so the job that wrote it set max parallelism 1, which SingleOutputStreamOperator's
// forceNonParallel() does together with parallelism 1 (windowAll, readFile's monitor), as does
// Flink's SQL planner for its singleton operators (global aggregates, sinks of one writer);
// the same job restored at -p 3 keeps them at 1.
func DefaultVertices(f *metadata.File, p int) []Vertex {
	m, err := model.ComputeDefaultMaxParallelism(p)
	if err != nil {
		m = model.UpperBoundMaxParallelism // p out of bounds: PlanRestore refuses it first
	}
	out := make([]Vertex, len(f.Operators))
	for i := range f.Operators {
		op := &f.Operators[i]
		name := "operator " + op.ID.String()
		if op.Name != "" {
			name = op.Name + " (" + op.ID.String() + ")"
		}
		v := Vertex{JobVertex: model.JobVertex{Name: name, Operators: []model.JobOperator{{ID: op.ID}},
			Parallelism: p, MaxParallelism: m}, Labels: []string{op.UID}, ParallelismSource: SourceDefault}
		if op.MaxParallelism == 1 {
			v.Parallelism, v.MaxParallelism, v.MaxParallelismConfigured, v.ParallelismSource = 1, 1, true, SourceNonParallel
		}
		out[i] = v
	}
	return out
}
