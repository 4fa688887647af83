package assigncase

import (
	"errors"
	"fmt"

	"github.com/restoresim/restoresim/model"
)

// ErrNotModelled is returned (wrapped, naming the field) by Case.Input for a case that uses
// something the model does not represent, so that its answer would not be the model's:
//
//   - "recover_output_on_downstream_task": true (2.3+, FLINK-38542: the upstream's output
//     buffers recovered on the downstream task, upstream_output_buffer_state): the model has no
//     such option (docs/versions.md §2.7);
//   - a "relative" stream handle (RelativeFileStateHandle): the model's StreamHandle keeps one
//     path, while Flink's handle has the absolute and the relative one, and its hashCode (the
//     order of a new subtask's operator-state handles) and equals read both;
//   - two file handles of one path with different sizes: Flink's FileStateHandle.equals reads
//     the path alone (one stream), the model's StreamHandle also the size (two streams).
var ErrNotModelled = errors.New("not modelled")

// InputRefusal is Flink refusing to build the case's old state (stage "input"): the exception
// its constructors throw, as the reference reports it.
type InputRefusal struct {
	// Class is the Java exception's class, e.g. java.lang.IllegalArgumentException.
	Class string
	// Message is the exception's message (the model's wording where Flink's is not known).
	Message string
	// Field is the path of the case's field that Flink refuses.
	Field string
}

func (e *InputRefusal) Error() string { return e.Field + ": " + e.Message }

const (
	illegalArgument      = "java.lang.IllegalArgumentException"
	illegalState         = "java.lang.IllegalStateException"
	unsupportedOperation = "java.lang.UnsupportedOperationException"
	indexOutOfBounds     = "java.lang.IndexOutOfBoundsException"
	nullPointer          = "java.lang.NullPointerException"
	jobException         = "org.apache.flink.runtime.JobException"
)

// Input builds the model's AssignmentInput for Flink version v, as Flink's metadata loader and
// job graph build the state and the job:
//
//   - Vertices in case order, each operator with its id and user-defined id, in the chain order
//     given (tail first); the max parallelism configured, or (not configured, none given) Flink's
//     default for the parallelism, a given value standing in for that default; the inputs as
//     JobEdges, a missing partition taking the next free index of its upstream (in vertex, then
//     gate order).
//   - The checkpoint's operator states in case order: each subtask entry null (none),
//     {"finished": true} (a FinishedOperatorSubtaskState) or its state; an operator-state
//     handle's states put into a HashMap as the loader makes it (newHashMapWithExpectedSize(n);
//     1.10.1: new HashMap<>(n)) in list order — a repeated name keeps its first place and its
//     last value — and listed in that map's iteration order; key-groups handles (the savepoint
//     type marked), incremental handles, channel handles (subtask_index default: the old
//     subtask's index; state_size default: the delegate's size, as the handles' constructors
//     without a size take it); file paths as Flink's Path prints them (model.NormalizeFlinkPath),
//     in-memory handle names as given; the coordinator state; fully finished operators.
//
// Errors:
//
//   - *InputRefusal where Flink's own constructors throw (stage "input"): a field the version
//     does not have (recover_output_on_downstream_task before 2.3; an operator state's name or
//     uid before 2.0), an operator state whose parallelism is above its max parallelism, more
//     subtask entries than the parallelism, a fully finished operator with subtask entries or
//     coordinator state, a key-group range Flink refuses or offsets that do not fit it, a path
//     Flink's Path refuses;
//   - a *model.RefusalError of check vertex-parallelism where Flink cannot build a vertex of the
//     new job (model.CheckJobVertex; stage "build"), checked after the old state;
//   - ErrNotModelled (see there);
//   - ErrInvalidCase for the version: an unknown version.
//
// Not used by the model, and so checked by DecodeCase and otherwise ignored: the vertices'
// "id", their operators' "name" and "uid", the operator states' "name" and "uid" (2.x; read
// by no step of the assignment), and the edges' "distribution_pattern", "broadcast" and
// "forward" (StateAssignmentOperation reads the mappers only).
func (c *Case) Input(v model.FlinkVersion) (model.AssignmentInput, error) {
	if !v.Known() {
		return model.AssignmentInput{}, fmt.Errorf("%w: unknown Flink version %v", ErrInvalidCase, v)
	}
	in := model.AssignmentInput{Version: v, CheckpointID: c.CheckpointID}
	if c.AllowNonRestoredState != nil {
		in.AllowNonRestoredState = *c.AllowNonRestoredState
	}
	if c.RecoverOutputOnDownstreamTask != nil {
		if v.Before(model.Flink23) {
			return in, &InputRefusal{Class: illegalArgument, Field: "recover_output_on_downstream_task",
				Message: "recover_output_on_downstream_task does not exist in this Flink version"}
		}
		if *c.RecoverOutputOnDownstreamTask {
			return in, fmt.Errorf("recover_output_on_downstream_task: %w: the model does not recover output buffers on the downstream task (FLINK-38542)", ErrNotModelled)
		}
	}
	b := builder{v: v, paths: map[string]int64{}}
	for i := range c.Operators {
		os, err := b.operatorState(&c.Operators[i], fmt.Sprintf("operators[%d]", i))
		if err != nil {
			return in, err
		}
		in.Operators = append(in.Operators, os)
	}
	vertices, err := c.vertices()
	if err != nil {
		return in, err
	}
	for _, vx := range vertices {
		if err := model.CheckJobVertex(v, vx); err != nil {
			return in, err
		}
	}
	in.Vertices = vertices
	return in, nil
}

// vertices builds the new job.
func (c *Case) vertices() ([]model.JobVertex, error) {
	out := make([]model.JobVertex, len(c.Vertices))
	used := make([]map[int]bool, len(c.Vertices)) // the partitions given, per upstream
	for _, vx := range c.Vertices {
		for _, e := range vx.Inputs {
			if e.Partition != nil {
				if used[e.Upstream] == nil {
					used[e.Upstream] = map[int]bool{}
				}
				used[e.Upstream][*e.Partition] = true
			}
		}
	}
	for i, vx := range c.Vertices {
		jv := model.JobVertex{Name: vx.Name, Parallelism: vx.Parallelism, MaxParallelismConfigured: vx.MaxParallelismConfigured}
		for _, op := range vx.Operators {
			id, _ := model.ParseOperatorID(op.ID) // checked by DecodeCase
			jo := model.JobOperator{ID: id}
			if op.UserDefinedID != nil {
				u, _ := model.ParseOperatorID(*op.UserDefinedID)
				jo.UserDefinedID = &u
			}
			jv.Operators = append(jv.Operators, jo)
		}
		switch {
		case vx.MaxParallelism != nil:
			jv.MaxParallelism = *vx.MaxParallelism
		default:
			m, err := model.ComputeDefaultMaxParallelism(vx.Parallelism)
			if err != nil {
				// Flink's DefaultVertexParallelismInfo refuses the parallelism first.
				m = vx.Parallelism
			}
			jv.MaxParallelism = m
		}
		for _, e := range vx.Inputs {
			edge := model.JobEdge{Upstream: e.Upstream}
			if e.Partition != nil {
				edge.Partition = *e.Partition
			} else {
				p := 0
				for used[e.Upstream][p] {
					p++
				}
				if used[e.Upstream] == nil {
					used[e.Upstream] = map[int]bool{}
				}
				used[e.Upstream][p] = true
				edge.Partition = p
			}
			edge.UpstreamMapper, _ = model.ParseSubtaskStateMapper(e.UpstreamMapper) // checked by DecodeCase
			edge.DownstreamMapper, _ = model.ParseSubtaskStateMapper(e.DownstreamMapper)
			jv.Inputs = append(jv.Inputs, edge)
		}
		out[i] = jv
	}
	return out, nil
}

// builder builds the old state; paths records each file path's size (ErrNotModelled).
type builder struct {
	v     model.FlinkVersion
	paths map[string]int64
}

func (b *builder) operatorState(os *OperatorState, p string) (model.OperatorState, error) {
	id, _ := model.ParseOperatorID(os.OperatorID) // checked by DecodeCase
	out := model.OperatorState{OperatorID: id, Parallelism: os.Parallelism, MaxParallelism: os.MaxParallelism}
	if (os.Name != nil || os.UID != nil) && b.v.Before(model.Flink20) {
		field := "name"
		if os.Name == nil {
			field = "uid"
		}
		return out, &InputRefusal{Class: illegalArgument, Field: p + "." + field, Message: "an operator state's " + field + " does not exist in this Flink version"}
	}
	if os.Parallelism > os.MaxParallelism {
		return out, &InputRefusal{Class: illegalArgument, Field: p,
			Message: fmt.Sprintf("Parallelism %d is not smaller or equal to max parallelism %d.", os.Parallelism, os.MaxParallelism)}
	}
	finished := os.FullyFinished != nil && *os.FullyFinished
	if finished {
		if b.v == model.Flink1101 {
			return out, &InputRefusal{Class: illegalArgument, Field: p + ".fully_finished", Message: "fully finished operator states do not exist in this Flink version"}
		}
		out.FullyFinished = true
		if os.CoordinatorState != nil {
			return out, &InputRefusal{Class: unsupportedOperation, Field: p + ".coordinator_state", Message: "Could not set coordinator state to a fully finished operator state."}
		}
	}
	if os.CoordinatorState != nil {
		s, err := b.stream(os.CoordinatorState, p+".coordinator_state")
		if err != nil {
			return out, err
		}
		out.CoordinatorState = &s
	}
	for j, st := range os.Subtasks {
		if st == nil {
			continue
		}
		q := fmt.Sprintf("%s.subtasks[%d]", p, j)
		if finished {
			return out, &InputRefusal{Class: unsupportedOperation, Field: q, Message: "Could not put state to a fully finished operator state."}
		}
		if j >= os.Parallelism {
			return out, &InputRefusal{Class: indexOutOfBounds, Field: q,
				Message: fmt.Sprintf("The given sub task index %d exceeds the maximum number of sub tasks %d", j, os.Parallelism)}
		}
		sub, err := b.subtask(st, j, q)
		if err != nil {
			return out, err
		}
		for len(out.Subtasks) < j {
			out.Subtasks = append(out.Subtasks, nil)
		}
		out.Subtasks = append(out.Subtasks, sub)
	}
	return out, nil
}

func (b *builder) subtask(st *Subtask, index int, p string) (*model.OperatorSubtaskState, error) {
	if st.Finished != nil {
		return &model.OperatorSubtaskState{Finished: true}, nil
	}
	out := &model.OperatorSubtaskState{}
	var err error
	if out.ManagedOperatorState, err = b.operatorHandles(st.ManagedOperatorState, p+".managed_operator_state"); err != nil {
		return nil, err
	}
	if out.RawOperatorState, err = b.operatorHandles(st.RawOperatorState, p+".raw_operator_state"); err != nil {
		return nil, err
	}
	if out.ManagedKeyedState, err = b.keyedHandles(st.ManagedKeyedState, p+".managed_keyed_state"); err != nil {
		return nil, err
	}
	if out.RawKeyedState, err = b.keyedHandles(st.RawKeyedState, p+".raw_keyed_state"); err != nil {
		return nil, err
	}
	if out.InputChannelState, err = b.channelHandles(st.InputChannelState, index, p+".input_channel_state"); err != nil {
		return nil, err
	}
	if out.ResultSubpartitionState, err = b.channelHandles(st.ResultSubpartitionState, index, p+".result_subpartition_state"); err != nil {
		return nil, err
	}
	return out, nil
}

func (b *builder) operatorHandles(hs []OperatorStateHandle, p string) ([]model.OperatorStateHandle, error) {
	var out []model.OperatorStateHandle
	for k, h := range hs {
		q := fmt.Sprintf("%s[%d]", p, k)
		d, err := b.stream(&h.Delegate, q+".delegate")
		if err != nil {
			return nil, err
		}
		states := make([]model.NamedOperatorState, len(h.States))
		for n, st := range h.States {
			mode, _ := model.ParseDistributionMode(st.Mode) // checked by DecodeCase
			states[n] = model.NamedOperatorState{Name: st.Name, Mode: mode, Offsets: append([]int64{}, st.Offsets...)}
		}
		out = append(out, model.OperatorStateHandle{Delegate: d, States: model.LoadedOperatorStates(b.v, states)})
	}
	return out, nil
}

func (b *builder) keyedHandles(hs []KeyedHandle, p string) ([]model.KeyedStateHandle, error) {
	var out []model.KeyedStateHandle
	for k := range hs {
		h := &hs[k]
		q := fmt.Sprintf("%s[%d]", p, k)
		id := ""
		if h.StateHandleID != nil {
			id = *h.StateHandleID
		}
		switch h.Type {
		case IncrementalRemoteKeyedStateHandle:
			r, err := keyGroupRange(*h.KeyGroupRange, q+".key_group_range")
			if err != nil {
				return nil, err
			}
			ih := &model.IncrementalKeyedStateHandle{BackendID: *h.BackendID, Range: r, CheckpointID: *h.CheckpointID, StateHandleID: id}
			if h.CheckpointedSize != nil {
				ih.CheckpointedSize = *h.CheckpointedSize
			}
			if ih.Meta, err = b.stream(h.Meta, q+".meta"); err != nil {
				return nil, err
			}
			if ih.Shared, err = b.sharedFiles(*h.Shared, q+".shared"); err != nil {
				return nil, err
			}
			if ih.Private, err = b.sharedFiles(*h.Private, q+".private"); err != nil {
				return nil, err
			}
			out = append(out, ih)
		default:
			r, err := keyGroupRange(h.KeyGroups.Range, q+".key_groups.range")
			if err != nil {
				return nil, err
			}
			offsets, err := model.NewKeyGroupRangeOffsets(r, append([]int64{}, h.KeyGroups.Offsets...))
			if err != nil {
				return nil, &InputRefusal{Class: illegalArgument, Field: q + ".key_groups.offsets",
					Message: fmt.Sprintf("%d offsets for the %d key groups of the range", len(h.KeyGroups.Offsets), r.NumberOfKeyGroups())}
			}
			kh := &model.KeyGroupsStateHandle{Offsets: offsets, StateHandleID: id, Savepoint: h.Type == KeyGroupsSavepointStateHandle}
			if kh.Delegate, err = b.stream(h.Delegate, q+".delegate"); err != nil {
				return nil, err
			}
			out = append(out, kh)
		}
	}
	return out, nil
}

// keyGroupRange models the KeyGroupRange constructor's checks.
func keyGroupRange(r Range, p string) (model.KeyGroupRange, error) {
	kr, err := model.NewKeyGroupRange(r.Start, r.End)
	if err != nil {
		return kr, &InputRefusal{Class: illegalArgument, Field: p, Message: fmt.Sprintf("key-group range %d..%d (need 0 <= start <= end)", r.Start, r.End)}
	}
	return kr, nil
}

func (b *builder) sharedFiles(fs []SharedFile, p string) ([]model.SharedFile, error) {
	out := []model.SharedFile{}
	for k, f := range fs {
		s, err := b.stream(&f.Handle, fmt.Sprintf("%s[%d].handle", p, k))
		if err != nil {
			return nil, err
		}
		out = append(out, model.SharedFile{LocalPath: f.LocalPath, Handle: s})
	}
	return out, nil
}

func (b *builder) channelHandles(hs []ChannelHandle, subtask int, p string) ([]model.ChannelStateHandle, error) {
	var out []model.ChannelStateHandle
	for k, h := range hs {
		q := fmt.Sprintf("%s[%d]", p, k)
		d, err := b.stream(&h.Delegate, q+".delegate")
		if err != nil {
			return nil, err
		}
		ch := model.ChannelStateHandle{SubtaskIndex: subtask, Delegate: d, GateOrPartition: h.GateOrPartition, Channel: h.Channel,
			Offsets: append([]int64{}, h.Offsets...), StateSize: d.Size}
		if h.SubtaskIndex != nil {
			ch.SubtaskIndex = *h.SubtaskIndex
		}
		if h.StateSize != nil {
			ch.StateSize = *h.StateSize
		}
		out = append(out, ch)
	}
	return out, nil
}

// stream builds a StreamHandle: a file's path as Flink's Path prints it.
func (b *builder) stream(s *Stream, p string) (model.StreamHandle, error) {
	if s.Relative != nil && *s.Relative {
		return model.StreamHandle{}, fmt.Errorf("%s: %w: a RelativeFileStateHandle (the model keeps one path of it; Flink's hashCode and equals read two)", p, ErrNotModelled)
	}
	if s.InMemory != nil && *s.InMemory {
		return model.StreamHandle{Path: s.Path, Size: s.Size, InMemory: true}, nil
	}
	path, err := model.NormalizeFlinkPath(s.Path)
	if err != nil {
		return model.StreamHandle{}, &InputRefusal{Class: illegalArgument, Field: p + ".path", Message: fmt.Sprintf("Path(%q): %v", s.Path, err)}
	}
	if size, seen := b.paths[path]; seen && size != s.Size {
		return model.StreamHandle{}, fmt.Errorf("%s: %w: the file %s with sizes %d and %d (one stream for Flink, whose FileStateHandle.equals reads the path alone; two for the model)",
			p, ErrNotModelled, path, size, s.Size)
	}
	b.paths[path] = s.Size
	return model.StreamHandle{Path: path, Size: s.Size}, nil
}
