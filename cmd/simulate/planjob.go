package main

import (
	"errors"
	"fmt"

	"github.com/restoresim/restoresim/model"
)

// This file reads the --job file of 'simulate plan': a small description of the new job's
// vertices (operator chains) in YAML or JSON.

const planJobHelp = `Job file (--job FILE; YAML, or JSON when the name ends in .json or the text starts with '{'):

  vertices:                     # the new job's tasks (operator chains), in any order
    - name: source              # optional; names the task in Flink's messages (default "vertex <i>")
      parallelism: 2            # optional only when --parallelism P is given (then P, as flink run -p)
      max_parallelism: 128      # optional: omitted = Flink's default for the parallelism, NOT
                                #   configured (a restore may adopt the state's max parallelism);
                                #   given = configured (a different state max parallelism is refused)
      operators:                # the chain, head first (the operator reading the task's input)
        - uid: kafka-source-operator-uid          # .uid(...): ID = murmur3_128(uid)
        - id: 0123456789abcdef0123456789abcdef     # or the raw generated operator ID (32 hex digits)
          uid_hash: cb16aa5adb311e8ac72482def19accbe  # optional .setUidHash(...) (user-defined ID)

Each operator needs exactly one of uid and id; name is an optional label. Unknown fields,
missing or non-positive parallelism, a max_parallelism outside 1..32768 or below the
parallelism, bad hex, an empty chain and an operator ID used twice are bad input (exit 2).`

type planJobFile struct {
	Vertices []planJobVertex `json:"vertices" yaml:"vertices"`
}

type planJobVertex struct {
	Name           string            `json:"name" yaml:"name"`
	Parallelism    *int              `json:"parallelism" yaml:"parallelism"`
	MaxParallelism *int              `json:"max_parallelism" yaml:"max_parallelism"`
	Operators      []planJobOperator `json:"operators" yaml:"operators"`
}

type planJobOperator struct {
	Name    string  `json:"name" yaml:"name"`
	UID     *string `json:"uid" yaml:"uid"`
	ID      *string `json:"id" yaml:"id"`
	UIDHash *string `json:"uid_hash" yaml:"uid_hash"`
}

// planVertex is a vertex of the new job plus how its operators were given, for the output.
type planVertex struct {
	model.JobVertex
	// labels per chain position (model order, tail first): the uid or name the user gave.
	labels []string
}

// parseJobFile decodes and validates a job file. defaultParallelism is --parallelism (0 when
// not given). The result's operators are in Flink's order (tail first).
func parseJobFile(name string, data []byte, defaultParallelism int) ([]planVertex, error) {
	root, err := decodeJobText(name, data)
	if err != nil {
		return nil, err
	}
	jf, err := fillJobFile(root)
	if err != nil {
		return nil, err
	}
	if len(jf.Vertices) == 0 {
		return nil, errors.New("vertices: missing or empty (the job needs at least one vertex)")
	}
	out := make([]planVertex, 0, len(jf.Vertices))
	names := map[string]int{}
	generated := map[model.OperatorID]string{}
	for i, jv := range jf.Vertices {
		at := fmt.Sprintf("vertices[%d]", i)
		v := planVertex{JobVertex: model.JobVertex{Name: jv.Name}}
		if v.Name == "" {
			v.Name = fmt.Sprintf("vertex %d", i)
		}
		if j, dup := names[v.Name]; dup {
			return nil, fmt.Errorf("%s.name: %s is also the name of vertices[%d] (names must be unique)", at, excerpt(v.Name, 40), j)
		}
		names[v.Name] = i
		switch {
		case jv.Parallelism != nil:
			v.Parallelism = *jv.Parallelism
		case defaultParallelism > 0:
			v.Parallelism = defaultParallelism
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
			v.labels = append(v.labels, label)
		}
		out = append(out, v)
	}
	return out, nil
}

// parseHexID parses a 32-hex-digit operator ID as Flink prints it.
func parseHexID(s string) (model.OperatorID, error) {
	if len(s) != 32 {
		return model.OperatorID{}, fmt.Errorf("%s is not an operator ID (want 32 hex digits, got %d characters)", excerpt(s, 40), len(s))
	}
	id, err := model.ParseOperatorID(s)
	if err != nil {
		return model.OperatorID{}, fmt.Errorf("%s is not an operator ID (want 32 hex digits)", excerpt(s, 40))
	}
	return id, nil
}
