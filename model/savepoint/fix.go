package savepoint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/internal/mutant"
	"github.com/restoresim/restoresim/model/metadata"
)

// This file says what would work when a restore is refused: the highest parallelism each
// refused operator's checks accept, the fix in words, and the largest default parallelism at
// which the whole restore succeeds. Each answer is checked by running the restore path again.

// stateBytes is an operator state's bytes by kind.
type stateBytes struct {
	keyed, operator, coordinator, channel int64
}

func (b stateBytes) total() int64 { return b.keyed + b.operator + b.coordinator + b.channel }

// words says "81881 bytes of keyed state and 126 bytes of coordinator state".
func (b stateBytes) words() string {
	var parts []string
	for _, p := range []struct {
		n    int64
		kind string
	}{{b.keyed, "keyed"}, {b.operator, "operator"}, {b.coordinator, "coordinator"}, {b.channel, "in-flight channel"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d bytes of %s state", p.n, p.kind))
		}
	}
	switch len(parts) {
	case 0:
		return "no state"
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// stateBytesOf counts an operator's state bytes by kind, as `simulate inspect` does.
func stateBytesOf(op *metadata.Operator) stateBytes {
	var b stateBytes
	if op.CoordinatorState != nil {
		b.coordinator = op.CoordinatorState.StateSize()
	}
	for i := range op.Subtasks {
		s := &op.Subtasks[i]
		b.keyed += KeyedBytes(s.ManagedKeyedState) + KeyedBytes(s.RawKeyedState)
		b.operator += operatorHandleBytes(s.ManagedOperatorState) + operatorHandleBytes(s.RawOperatorState)
		b.channel += SubtaskBytes(s) - KeyedBytes(s.ManagedKeyedState) - KeyedBytes(s.RawKeyedState) -
			operatorHandleBytes(s.ManagedOperatorState) - operatorHandleBytes(s.RawOperatorState)
	}
	return b
}

// operatorLabel names an operator state for a sentence: uid "x", "name" or operator <id>.
func operatorLabel(op *metadata.Operator) string {
	switch {
	case op.UID != "":
		return fmt.Sprintf("uid %q", op.UID)
	case op.Name != "":
		return fmt.Sprintf("%q (%v)", op.Name, op.ID)
	}
	return "operator " + op.ID.String()
}

// passes runs the restore path with vertices and gives each metadata operator's refusal (nil:
// its checks pass). An error means bad input.
func passes(opts Options, pointer string, md model.CheckpointMetadata, vertices []Vertex) ([]*model.RefusalError, error) {
	run, err := runRestore(opts, pointer, md, vertices, jobVerticesOf(vertices), func(*model.RefusalError, *model.OperatorID) {})
	if err != nil {
		return nil, err
	}
	return run.opErr, nil
}

// withParallelism is a copy of vertices with the vertices at indexes set to p.
func withParallelism(vertices []Vertex, p int, indexes ...int) []Vertex {
	out := make([]Vertex, len(vertices))
	copy(out, vertices)
	for _, i := range indexes {
		setParallelism(&out[i], p, out[i].ParallelismSource)
	}
	return out
}

// whatWouldWork fills, for every refused operator of pl, MaxRestorableParallelism and Fix, and
// pl.MaxRestorableParallelism. Candidates come from the checks that depend on the parallelism
// (a state's max parallelism bounds its task's parallelism; so does a configured max
// parallelism); each candidate is accepted only when the restore path, run again, accepts it.
func whatWouldWork(pl *RestorePlan, f *metadata.File, opts Options, pointer string, md model.CheckpointMetadata, vertices []Vertex, opErr []*model.RefusalError) error {
	versionRefused := pl.Check != nil && *pl.Check == model.CheckMetadataVersion
	for i := range pl.Operators {
		po := &pl.Operators[i]
		r := opErr[i]
		if r == nil {
			continue
		}
		os, fo := &md.Operators[i], &f.Operators[i]
		vi := vertexHolding(vertices, os.OperatorID)
		if vi >= 0 && !versionRefused {
			var tried []int
			bound := os.MaxParallelism
			if mutant.On(mutant.MaxRestorableExclusive) {
				bound--
			}
			for _, c := range []int{min(bound, model.UpperBoundMaxParallelism), os.Parallelism} {
				if vertices[vi].MaxParallelismConfigured {
					c = min(c, vertices[vi].MaxParallelism)
				}
				if c < 1 || c > model.UpperBoundMaxParallelism || (len(tried) > 0 && c >= tried[0]) {
					continue
				}
				tried = append(tried, c)
				errs, err := passes(opts, pointer, md, withParallelism(vertices, c, vi))
				if err != nil {
					return err
				}
				if errs[i] == nil {
					po.MaxRestorableParallelism = &c
					break
				}
			}
		}
		po.Fix = fixWords(r, os, fo, po.MaxRestorableParallelism, vertices, vi, opts)
	}
	if versionRefused {
		return nil
	}
	// Two candidates: the smallest max parallelism of the followers' states, and of those with a
	// subtask entry. A state without subtask entries leaves its task out of AssignStates'
	// parallelism check (StateAssignmentOperation assigns only tasks with state), so its max
	// parallelism bounds nothing; the larger candidate that passes is the answer.
	var followers []int
	c, cState := model.UpperBoundMaxParallelism, model.UpperBoundMaxParallelism
	for vi := range vertices {
		v := &vertices[vi]
		if sourceOf(v) != SourceDefault {
			continue
		}
		followers = append(followers, vi)
		if v.MaxParallelismConfigured {
			c, cState = min(c, v.MaxParallelism), min(cState, v.MaxParallelism)
		}
		for j := range md.Operators {
			if os := &md.Operators[j]; v.holds(os.OperatorID) {
				bound := os.MaxParallelism
				if mutant.On(mutant.MaxRestorableExclusive) {
					bound--
				}
				c = min(c, bound)
				if holdsState(os) {
					cState = min(cState, bound)
				}
			}
		}
	}
	if len(followers) == 0 {
		return nil
	}
	cands := []int{cState}
	if c != cState {
		cands = append(cands, c)
	}
	for _, cand := range cands {
		if cand < 1 {
			continue
		}
		if pl.Restorable && opts.Parallelism == cand {
			pl.MaxRestorableParallelism = &cand
			return nil
		}
		errs, err := passes(opts, pointer, md, withParallelism(vertices, cand, followers...))
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(errs, func(e *model.RefusalError) bool { return e != nil }) {
			pl.MaxRestorableParallelism = &cand
			return nil
		}
	}
	return nil
}

// holdsState reports whether an operator state has a subtask entry or is fully finished: what
// makes AssignStates judge its task (1.18's TaskStateAssignment.hasNonFinishedState and
// isFullyFinished; a candidate is checked by running the restore path all the same).
func holdsState(os *model.OperatorState) bool {
	return os.FullyFinished || slices.ContainsFunc(os.Subtasks, func(st *model.OperatorSubtaskState) bool { return st != nil })
}

// fixWords says what would restore a refused operator.
func fixWords(r *model.RefusalError, os *model.OperatorState, fo *metadata.Operator, maxP *int, vertices []Vertex, vi int, opts Options) string {
	id := os.OperatorID
	switch {
	case maxP != nil && opts.Job == nil && *maxP == os.Parallelism:
		return fmt.Sprintf("keep it at %d (--vertex %v=%d, or --keep-parallelism)", *maxP, id, *maxP)
	case maxP != nil && opts.Job == nil:
		return fmt.Sprintf("run it at parallelism %d or less (--vertex %v=%d)", *maxP, id, *maxP)
	case maxP != nil && *maxP == os.Parallelism:
		return fmt.Sprintf("keep it at %d (parallelism %d for task %q in the job file, or --vertex %v=%d)", *maxP, *maxP, vertices[vi].Name, id, *maxP)
	case maxP != nil:
		return fmt.Sprintf("run it at parallelism %d or less (parallelism %d for task %q in the job file, or --vertex %v=%d)", *maxP, *maxP, vertices[vi].Name, id, *maxP)
	case r.Check == model.CheckNoOperatorForState || r.Check == model.CheckNonRestoredState:
		return fmt.Sprintf("add --allow-non-restored-state: drops %s of %s", stateBytesOf(fo).words(), operatorLabel(fo))
	case r.Check == model.CheckMaxParallelismMismatch && vi >= 0:
		return fmt.Sprintf("configure the max parallelism of task %q as %d (the state's), or leave it unconfigured so that the restore adopts it", vertices[vi].Name, os.MaxParallelism)
	}
	return fmt.Sprintf("no parallelism of its task restores it (check %s)", r.Check)
}
