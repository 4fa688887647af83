package model

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// The finished-operator validator of Flink 1.18 (FLIP-147): VertexFinishedStateChecker, which
// CheckpointCoordinator.restoreLatestCheckpointedStateInternal runs before the state assignment
// when a job starts from a snapshot (restoreSavepoint, restoreInitialCheckpointIfPresent). It
// refuses job-graph changes that put running operators before finished ones.

// VertexFinishedState models VertexFinishedStateChecker.VertexFinishedState: whether none, some
// or all of a vertex's subtasks had finished when the checkpoint was taken. The zero value is
// invalid.
type VertexFinishedState uint8

const (
	// AllRunning is ALL_RUNNING: no operator state says finished (or there is no state).
	AllRunning VertexFinishedState = iota + 1
	// PartiallyFinished is PARTIALLY_FINISHED: some subtask entry is a FinishedOperatorSubtaskState.
	PartiallyFinished
	// FullyFinished is FULLY_FINISHED: the operator state is a FullyFinishedOperatorState.
	FullyFinished
)

// String gives Flink's enum name.
func (s VertexFinishedState) String() string {
	switch s {
	case AllRunning:
		return "ALL_RUNNING"
	case PartiallyFinished:
		return "PARTIALLY_FINISHED"
	case FullyFinished:
		return "FULLY_FINISHED"
	}
	return fmt.Sprintf("VertexFinishedState(%d)", uint8(s))
}

// ErrMixedOperatorFinishedState matches a *VertexFinishedStateError for a vertex whose operators
// are not all in the same finished state.
var ErrMixedOperatorFinishedState = errors.New("vertex contains mixed operator finished state")

// ErrIllegalJobGraphModification matches a *VertexFinishedStateError for a finished or partially
// finished vertex behind a predecessor that is not finished enough.
var ErrIllegalJobGraphModification = errors.New("illegal JobGraph modification")

// VertexFinishedStateError is the FlinkRuntimeException of
// VertexFinishedStateChecker.validateOperatorsFinishedState. Error gives Flink's message without
// the "(JobVertexID)" after the vertex name (the model's vertices have no IDs).
type VertexFinishedStateError struct {
	// Vertex is the name of the vertex refused.
	Vertex string
	// Mixed lists, sorted, the different states of the vertex's operators (mixed-state error
	// only; nil otherwise).
	Mixed []VertexFinishedState
	// State is the vertex's state, Predecessor and PredecessorState the predecessor that
	// violates the rule, Pattern the edge between them (job-graph-modification error only).
	State            VertexFinishedState
	Predecessor      string
	PredecessorState VertexFinishedState
	Pattern          DistributionPattern
}

func (e *VertexFinishedStateError) Error() string {
	if e.Mixed != nil {
		names := make([]string, len(e.Mixed))
		for i, s := range e.Mixed {
			names[i] = s.String()
		}
		return "Can not restore vertex " + e.Vertex + " which contain mixed operator finished state: [" +
			strings.Join(names, ", ") + "]"
	}
	if e.State == FullyFinished {
		return "Illegal JobGraph modification. Cannot run a program with fully finished vertices predeceased " +
			"with the ones not fully finished. Task vertex " + e.Vertex + " has a predecessor not fully finished"
	}
	if e.Pattern == AllToAll {
		which := "partially finished"
		if e.PredecessorState == AllRunning {
			which = "all running"
		}
		return "Illegal JobGraph modification. Cannot run a program with partially finished vertices predeceased " +
			"with running or partially finished ones and connected via the ALL_TO_ALL edges. Task vertex " +
			e.Vertex + " has a " + which + " predecessor"
	}
	return "Illegal JobGraph modification. Cannot run a program with partially finished vertices predeceased " +
		"with all running ones. Task vertex " + e.Vertex + " has a all running predecessor"
}

// Is reports whether target is ErrMixedOperatorFinishedState (for the mixed-state error) or
// ErrIllegalJobGraphModification (for the others).
func (e *VertexFinishedStateError) Is(target error) bool {
	if e.Mixed != nil {
		return target == ErrMixedOperatorFinishedState
	}
	return target == ErrIllegalJobGraphModification
}

// VertexFinishedStateChecker models checkpoint.VertexFinishedStateChecker (1.18): it checks that
//   - all operators of a vertex have the same finished state;
//   - every predecessor of a fully finished vertex is fully finished;
//   - every predecessor of a partially finished vertex is fully finished when connected by an
//     ALL_TO_ALL edge, and at least partially finished when connected (only) by POINTWISE edges.
type VertexFinishedStateChecker struct {
	// Vertices is the job graph: every vertex the edges name.
	Vertices []JobVertex
	// Edges are the job graph's edges (JobEdge: producer, consumer, distribution pattern; the
	// partition type is not read), indexes into Vertices.
	Edges []FailoverEdge
	// Check lists the indexes of the vertices being restored (Flink's Set<ExecutionJobVertex>),
	// in the order they are checked; nil checks every vertex in order.
	Check []int
	// Operators are the checkpoint's operator states.
	Operators []OperatorState
}

// Validate models validateOperatorsFinishedState: nil, or a *VertexFinishedStateError for the
// first vertex (in Check order) that breaks a rule. A vertex's state is computed when it is first
// needed — as a checked vertex or as a predecessor — so a predecessor with mixed operators is
// reported too. An index out of range or an edge without pattern is an error matching
// ErrInvalidRestoreInput (not a Flink exception).
func (c *VertexFinishedStateChecker) Validate() error {
	for _, e := range c.Edges {
		if e.Producer < 0 || e.Producer >= len(c.Vertices) || e.Consumer < 0 || e.Consumer >= len(c.Vertices) {
			return fmt.Errorf("%w: edge %d→%d names a vertex outside 0..%d", ErrInvalidRestoreInput, e.Producer, e.Consumer, len(c.Vertices)-1)
		}
		if e.Pattern != AllToAll && e.Pattern != Pointwise {
			return fmt.Errorf("%w: edge %d→%d has no distribution pattern", ErrInvalidRestoreInput, e.Producer, e.Consumer)
		}
	}
	check := c.Check
	if check == nil {
		check = make([]int, len(c.Vertices))
		for i := range check {
			check[i] = i
		}
	}
	byID := make(map[OperatorID]*OperatorState, len(c.Operators))
	for i := range c.Operators {
		byID[c.Operators[i].OperatorID] = &c.Operators[i]
	}
	cache := make([]VertexFinishedState, len(c.Vertices))
	stateOf := func(v int) (VertexFinishedState, error) {
		if cache[v] == 0 {
			s, err := vertexFinishedState(&c.Vertices[v], byID)
			if err != nil {
				return 0, err
			}
			cache[v] = s
		}
		return cache[v], nil
	}
	for _, v := range check {
		if v < 0 || v >= len(c.Vertices) {
			return fmt.Errorf("%w: checked vertex %d outside 0..%d", ErrInvalidRestoreInput, v, len(c.Vertices)-1)
		}
		s, err := stateOf(v)
		if err != nil {
			return err
		}
		switch s {
		case FullyFinished:
			// checkPredecessorsOfFullyFinishedVertex: every input's producer fully finished.
			for _, e := range c.Edges {
				if e.Consumer != v {
					continue
				}
				ps, err := stateOf(e.Producer)
				if err != nil {
					return err
				}
				if ps != FullyFinished {
					return &VertexFinishedStateError{Vertex: c.Vertices[v].Name, State: s,
						Predecessor: c.Vertices[e.Producer].Name, PredecessorState: ps, Pattern: e.Pattern}
				}
			}
		case PartiallyFinished:
			// checkPredecessorsOfPartiallyFinishedVertex: per predecessor, ALL_TO_ALL wins over
			// POINTWISE when several edges come from it.
			pattern := map[int]DistributionPattern{}
			for _, e := range c.Edges {
				if e.Consumer == v && pattern[e.Producer] != AllToAll {
					pattern[e.Producer] = e.Pattern
				}
			}
			for _, e := range c.Edges {
				if e.Consumer != v {
					continue
				}
				ps, err := stateOf(e.Producer)
				if err != nil {
					return err
				}
				p := pattern[e.Producer]
				if (p == AllToAll && ps != FullyFinished) || (p == Pointwise && ps == AllRunning) {
					return &VertexFinishedStateError{Vertex: c.Vertices[v].Name, State: s,
						Predecessor: c.Vertices[e.Producer].Name, PredecessorState: ps, Pattern: p}
				}
			}
		}
	}
	return nil
}

// vertexFinishedState models VerticesFinishedStatusCache.calculateFinishedState: each operator's
// state looked up by its user-defined ID when the checkpoint holds one under it, else by its
// generated ID (checkOperatorFinishedStatus); the vertex's operators must all agree.
func vertexFinishedState(v *JobVertex, byID map[OperatorID]*OperatorState) (VertexFinishedState, error) {
	var seen []VertexFinishedState
	for _, op := range v.Operators {
		id := op.ID
		if op.UserDefinedID != nil {
			if _, ok := byID[*op.UserDefinedID]; ok {
				id = *op.UserDefinedID
			}
		}
		s := AllRunning
		if os, ok := byID[id]; ok {
			switch {
			case os.FullyFinished:
				s = FullyFinished
			case slices.ContainsFunc(os.Subtasks, func(st *OperatorSubtaskState) bool { return st != nil && st.Finished }):
				s = PartiallyFinished
			}
		}
		if !slices.Contains(seen, s) {
			seen = append(seen, s)
		}
	}
	if len(seen) != 1 {
		// A vertex without operators gives an empty set in Flink too, and the same exception.
		slices.Sort(seen)
		if seen == nil {
			seen = []VertexFinishedState{}
		}
		return 0, &VertexFinishedStateError{Vertex: v.Name, Mixed: seen}
	}
	return seen[0], nil
}
