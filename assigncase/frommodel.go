package assigncase

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/restoresim/restoresim/model"
)

// The other direction of Case.Input and FromAssignment: a restore the model's world is about to
// run (its model.AssignmentInput) as a case, and an answer — Flink's — as the model's
// Assignment, so that a simulation can take its restores from Flink's classes.

// FromInput writes a restore's input as a case: the vertices in input order with their
// operators (id, user-defined id), parallelism, max parallelism (always given: a value with
// max_parallelism_configured false stands in for Flink's default, as Case.Input reads it) and
// edges (partition and both mappers always given); the operator states in input order, each
// handle as the model holds it (an operator-state handle's names in the model's order, which
// is the order Flink's loader fills the handle's map in). Case.Input of the result gives in
// back. It refuses what the format cannot carry: a local (TaskManager) incremental handle and a
// keyed handle of another type.
func FromInput(in model.AssignmentInput) (*Case, error) {
	c := &Case{CheckpointID: in.CheckpointID, Vertices: make([]Vertex, len(in.Vertices)), Operators: make([]OperatorState, len(in.Operators))}
	if in.AllowNonRestoredState {
		t := true
		c.AllowNonRestoredState = &t
	}
	for i, v := range in.Vertices {
		mp := v.MaxParallelism
		vx := Vertex{Name: v.Name, Parallelism: v.Parallelism, MaxParallelism: &mp, MaxParallelismConfigured: v.MaxParallelismConfigured,
			Operators: make([]VertexOperator, len(v.Operators))}
		for k, op := range v.Operators {
			vo := VertexOperator{ID: op.ID.String()}
			if op.UserDefinedID != nil {
				u := op.UserDefinedID.String()
				vo.UserDefinedID = &u
			}
			vx.Operators[k] = vo
		}
		for _, e := range v.Inputs {
			p := e.Partition
			vx.Inputs = append(vx.Inputs, Input{Upstream: e.Upstream, Partition: &p,
				UpstreamMapper: mapperName(e.UpstreamMapper), DownstreamMapper: mapperName(e.DownstreamMapper)})
		}
		c.Vertices[i] = vx
	}
	for i := range in.Operators {
		os := &in.Operators[i]
		o := OperatorState{OperatorID: os.OperatorID.String(), Parallelism: os.Parallelism, MaxParallelism: os.MaxParallelism,
			Subtasks: make([]*Subtask, len(os.Subtasks))}
		if os.FullyFinished {
			t := true
			o.FullyFinished = &t
		}
		if os.CoordinatorState != nil {
			s := streamOf(*os.CoordinatorState)
			o.CoordinatorState = &s
		}
		for j, st := range os.Subtasks {
			if st == nil {
				continue
			}
			if st.Finished {
				t := true
				o.Subtasks[j] = &Subtask{Finished: &t}
				continue
			}
			sub := &Subtask{ManagedOperatorState: operatorHandlesOf(st.ManagedOperatorState), RawOperatorState: operatorHandlesOf(st.RawOperatorState),
				InputChannelState: channelHandlesOf(st.InputChannelState), ResultSubpartitionState: channelHandlesOf(st.ResultSubpartitionState)}
			var err error
			if sub.ManagedKeyedState, err = caseKeyedHandles(st.ManagedKeyedState); err != nil {
				return nil, fmt.Errorf("operator %s subtask %d: %w", os.OperatorID, j, err)
			}
			if sub.RawKeyedState, err = caseKeyedHandles(st.RawKeyedState); err != nil {
				return nil, fmt.Errorf("operator %s subtask %d: %w", os.OperatorID, j, err)
			}
			o.Subtasks[j] = sub
		}
		c.Operators[i] = o
	}
	return c, nil
}

func mapperName(m model.SubtaskStateMapper) string {
	if m == 0 {
		m = model.RoundRobinMapper // JobEdge's default
	}
	return m.String()
}

// BackendUUID is the backend id an incremental handle carries in a case: the id itself when it
// is a UUID, as Flink's IncrementalRemoteKeyedStateHandle requires (UUID.fromString), else a
// name-based UUID of it (java.util.UUID.nameUUIDFromBytes: MD5, version 3), so that any id the
// model holds (the simulator's are names) reaches Flink as one.
func BackendUUID(id string) string {
	if uuidForm().MatchString(id) {
		return id
	}
	h := md5.Sum([]byte(id))
	h[6] = h[6]&0x0f | 0x30
	h[8] = h[8]&0x3f | 0x80
	x := hex.EncodeToString(h[:])
	return x[:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:]
}

var uuidForm = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
}) // (compiled when first used, not at start-up)

func caseKeyedHandles(hs []model.KeyedStateHandle) ([]KeyedHandle, error) {
	for _, h := range hs {
		switch h := h.(type) {
		case *model.KeyGroupsStateHandle:
		case *model.IncrementalKeyedStateHandle:
			if h.Local {
				return nil, fmt.Errorf("%w: a local incremental handle (a TaskManager's copy, never in a checkpoint)", ErrNotModelled)
			}
		default:
			return nil, fmt.Errorf("%w: keyed state handle %T", ErrNotModelled, h)
		}
	}
	out := keyedHandlesOf(hs)
	for i := range out {
		if out[i].BackendID != nil {
			id := BackendUUID(*out[i].BackendID)
			out[i].BackendID = &id
		}
	}
	return out, nil
}

// Assignment turns an answer to the case of in (FromInput) into the model's result, as if
// model.AssignStates had given it: a refusal becomes the error Refusal.Err gives; the vertices'
// subtasks become restore objects whose handles are in's own where the answer hands them on
// whole (a stream of in by its path as Flink prints it; an incremental handle by its backend,
// checkpoint, range and meta file), and new ones where Flink cut them (key-groups handles). Of
// the fields Flink's answer does not carry, Adopted is the answer's max parallelism against the
// vertex's own, HasState whether some subtask has a restore object, FullyFinished whether every
// one is deployed as finished; Ranges, Hazard, ChannelNeighbour, DroppedChannelHandles and
// Unclaimed are left empty. An answer that does not fit in (other vertices, an unknown mode or
// mapping) is an error wrapping ErrInvalidCase.
func (a Answer) Assignment(in model.AssignmentInput) (*model.Assignment, error) {
	if a.Error != nil {
		return nil, a.Error.Err()
	}
	if len(a.Vertices) != len(in.Vertices) {
		return nil, fmt.Errorf("%w: answer: %d vertices for %d", ErrInvalidCase, len(a.Vertices), len(in.Vertices))
	}
	r := newRebuilder(in)
	out := &model.Assignment{Version: in.Version, Vertices: make([]model.VertexAssignment, len(a.Vertices))}
	for i, av := range a.Vertices {
		jv := in.Vertices[i]
		if av.Parallelism != jv.Parallelism || len(av.Subtasks) != jv.Parallelism {
			return nil, fmt.Errorf("%w: answer: vertex %d (%s) has parallelism %d and %d subtasks, want %d", ErrInvalidCase, i, av.Name, av.Parallelism, len(av.Subtasks), jv.Parallelism)
		}
		va := model.VertexAssignment{Name: jv.Name, Parallelism: av.Parallelism, MaxParallelism: av.MaxParallelism,
			Adopted: av.MaxParallelism != jv.MaxParallelism, Subtasks: make([]*model.TaskRestore, len(av.Subtasks))}
		finished := 0
		for j, st := range av.Subtasks {
			if st == nil {
				continue
			}
			va.HasState = true
			t := &model.TaskRestore{CheckpointID: st.CheckpointID, Finished: st.DeployedAsFinished}
			if st.DeployedAsFinished {
				finished++
			}
			for k := range st.Operators {
				op := &st.Operators[k]
				id, err := model.ParseOperatorID(op.OperatorID)
				if err != nil {
					return nil, fmt.Errorf("%w: answer: vertices[%d].subtasks[%d].operators[%d].operator_id: %v", ErrInvalidCase, i, j, k, err)
				}
				s, err := r.state(&op.State)
				if err != nil {
					return nil, fmt.Errorf("%w: answer: vertices[%d].subtasks[%d].operators[%d]: %v", ErrInvalidCase, i, j, k, err)
				}
				t.Operators = append(t.Operators, model.OperatorRestore{OperatorID: id, State: s})
			}
			va.Subtasks[j] = t
		}
		va.FullyFinished = finished > 0 && finished == len(va.Subtasks)
		out.Vertices[i] = va
	}
	return out, nil
}

// rebuilder finds in's handles again.
type rebuilder struct {
	streams     map[string]model.StreamHandle // by comparable path (in-memory: "mem:" + name)
	incremental map[string]*model.IncrementalKeyedStateHandle
	keyGroupIDs map[string]string // a key-groups handle's state handle id, by delegate
	// lists shares equal operator-state handle lists between subtasks, as AssignStates does
	// (a UNION state's list): the world reads a shared list once.
	lists map[string][]model.OperatorStateHandle
}

func newRebuilder(in model.AssignmentInput) *rebuilder {
	r := &rebuilder{streams: map[string]model.StreamHandle{}, incremental: map[string]*model.IncrementalKeyedStateHandle{},
		keyGroupIDs: map[string]string{}, lists: map[string][]model.OperatorStateHandle{}}
	add := func(h model.StreamHandle) { r.streams[streamKey(streamOf(h))] = h }
	for i := range in.Operators {
		for _, st := range in.Operators[i].Subtasks {
			if st == nil {
				continue
			}
			for _, hs := range [2][]model.OperatorStateHandle{st.ManagedOperatorState, st.RawOperatorState} {
				for _, h := range hs {
					add(h.Delegate)
				}
			}
			for _, hs := range [2][]model.KeyedStateHandle{st.ManagedKeyedState, st.RawKeyedState} {
				for _, h := range hs {
					switch h := h.(type) {
					case *model.KeyGroupsStateHandle:
						add(h.Delegate)
						r.keyGroupIDs[streamKey(streamOf(h.Delegate))] = h.StateHandleID
					case *model.IncrementalKeyedStateHandle:
						r.incremental[incrementalKey(BackendUUID(h.BackendID), h.CheckpointID, h.Range.Start, h.Range.End, streamOf(h.Meta))] = h
					}
				}
			}
			for _, hs := range [2][]model.ChannelStateHandle{st.InputChannelState, st.ResultSubpartitionState} {
				for _, h := range hs {
					add(h.Delegate)
				}
			}
		}
	}
	return r
}

func streamKey(s Stream) string {
	if flag(s.InMemory) {
		return "mem:" + s.Path
	}
	return comparablePath(&s)
}

func incrementalKey(backend string, cp int64, start, end int, meta Stream) string {
	return fmt.Sprintf("%s/%d/%d-%d/%s", backend, cp, start, end, streamKey(meta))
}

func (r *rebuilder) stream(s Stream) model.StreamHandle {
	if h, ok := r.streams[streamKey(s)]; ok && h.Size == s.Size {
		return h
	}
	return model.StreamHandle{Path: s.Path, Size: s.Size, InMemory: flag(s.InMemory), Relative: flag(s.Relative)}
}

func (r *rebuilder) state(s *SubtaskState) (model.OperatorSubtaskState, error) {
	var out model.OperatorSubtaskState
	var err error
	if out.ManagedOperatorState, err = r.operatorHandles(s.ManagedOperatorState); err != nil {
		return out, err
	}
	if out.RawOperatorState, err = r.operatorHandles(s.RawOperatorState); err != nil {
		return out, err
	}
	if out.ManagedKeyedState, err = r.keyedHandles(s.ManagedKeyedState); err != nil {
		return out, err
	}
	if out.RawKeyedState, err = r.keyedHandles(s.RawKeyedState); err != nil {
		return out, err
	}
	out.InputChannelState = r.channelHandles(s.InputChannelState)
	out.ResultSubpartitionState = r.channelHandles(s.ResultSubpartitionState)
	if out.InputRescalingDescriptor, err = descriptorFrom(s.InputRescalingDescriptor); err != nil {
		return out, err
	}
	if out.OutputRescalingDescriptor, err = descriptorFrom(s.OutputRescalingDescriptor); err != nil {
		return out, err
	}
	return out, nil
}

func (r *rebuilder) operatorHandles(hs []OperatorStateHandle) ([]model.OperatorStateHandle, error) {
	if len(hs) == 0 {
		return nil, nil
	}
	key := render(hs)
	if l, ok := r.lists[key]; ok {
		return l, nil
	}
	out := make([]model.OperatorStateHandle, len(hs))
	for k, h := range hs {
		states := make([]model.NamedOperatorState, len(h.States))
		for n, st := range h.States {
			mode, err := model.ParseDistributionMode(st.Mode)
			if err != nil {
				return nil, fmt.Errorf("state %q: %v", st.Name, err)
			}
			states[n] = model.NamedOperatorState{Name: st.Name, Mode: mode, Offsets: st.Offsets}
		}
		out[k] = model.OperatorStateHandle{Delegate: r.stream(h.Delegate), States: states}
	}
	r.lists[key] = out
	return out, nil
}

func (r *rebuilder) keyedHandles(hs []KeyedHandle) ([]model.KeyedStateHandle, error) {
	if len(hs) == 0 {
		return nil, nil
	}
	out := make([]model.KeyedStateHandle, 0, len(hs))
	for k := range hs {
		h := &hs[k]
		switch h.Type {
		case IncrementalRemoteKeyedStateHandle:
			if h.BackendID == nil || h.CheckpointID == nil || h.KeyGroupRange == nil || h.Meta == nil || h.Shared == nil || h.Private == nil {
				return nil, fmt.Errorf("keyed handle %d: an incremental handle without its fields", k)
			}
			if orig, ok := r.incremental[incrementalKey(*h.BackendID, *h.CheckpointID, h.KeyGroupRange.Start, h.KeyGroupRange.End, *h.Meta)]; ok {
				out = append(out, orig)
				continue
			}
			ih := &model.IncrementalKeyedStateHandle{BackendID: *h.BackendID, CheckpointID: *h.CheckpointID,
				Range: model.KeyGroupRange{Start: h.KeyGroupRange.Start, End: h.KeyGroupRange.End}, Meta: r.stream(*h.Meta)}
			for _, f := range *h.Shared {
				ih.Shared = append(ih.Shared, model.SharedFile{LocalPath: f.LocalPath, Handle: r.stream(f.Handle)})
			}
			for _, f := range *h.Private {
				ih.Private = append(ih.Private, model.SharedFile{LocalPath: f.LocalPath, Handle: r.stream(f.Handle)})
			}
			if h.CheckpointedSize != nil {
				ih.CheckpointedSize = *h.CheckpointedSize
			}
			out = append(out, ih)
		case KeyGroupsStateHandle, KeyGroupsSavepointStateHandle:
			if h.KeyGroups == nil || h.Delegate == nil {
				return nil, fmt.Errorf("keyed handle %d: a key-groups handle without its fields", k)
			}
			kr := model.KeyGroupRange{Start: h.KeyGroups.Range.Start, End: h.KeyGroups.Range.End}
			kh := &model.KeyGroupsStateHandle{Offsets: model.KeyGroupRangeOffsets{Range: kr, Offsets: h.KeyGroups.Offsets},
				Delegate: r.stream(*h.Delegate), Savepoint: h.Type == KeyGroupsSavepointStateHandle,
				StateHandleID: r.keyGroupIDs[streamKey(*h.Delegate)]}
			out = append(out, kh)
		default:
			return nil, fmt.Errorf("keyed handle %d: unknown type %q", k, h.Type)
		}
	}
	return out, nil
}

func (r *rebuilder) channelHandles(hs []ChannelHandle) []model.ChannelStateHandle {
	if len(hs) == 0 {
		return nil
	}
	out := make([]model.ChannelStateHandle, len(hs))
	for k, h := range hs {
		d := r.stream(h.Delegate)
		ch := model.ChannelStateHandle{Delegate: d, GateOrPartition: h.GateOrPartition, Channel: h.Channel, Offsets: h.Offsets, StateSize: d.Size}
		if len(ch.Offsets) == 0 {
			ch.Offsets = nil
		}
		if h.SubtaskIndex != nil {
			ch.SubtaskIndex = *h.SubtaskIndex
		}
		if h.StateSize != nil {
			ch.StateSize = *h.StateSize
		}
		out[k] = ch
	}
	return out
}

func descriptorFrom(d *Descriptor) (*model.InflightDataRescalingDescriptor, error) {
	if d == nil {
		return nil, nil
	}
	out := &model.InflightDataRescalingDescriptor{GatesOrPartitions: make([]model.GateOrPartitionRescalingDescriptor, len(d.GatesOrPartitions))}
	for i, g := range d.GatesOrPartitions {
		if flag(g.NoState) {
			out.GatesOrPartitions[i] = model.GateOrPartitionRescalingDescriptor{NoState: true}
			continue
		}
		if g.OldSubtaskIndexes == nil || g.RescaledChannelsMappings == nil || g.AmbiguousSubtaskIndexes == nil || g.MappingType == nil {
			return nil, fmt.Errorf("descriptor gate %d: missing fields", i)
		}
		var mt model.MappingType
		switch *g.MappingType {
		case "IDENTITY":
			mt = model.IdentityMapping
		case "RESCALING":
			mt = model.RescalingMapping
		default:
			return nil, fmt.Errorf("descriptor gate %d: mapping type %q", i, *g.MappingType)
		}
		m := g.RescaledChannelsMappings
		var rm model.RescaleMappings
		if m.Identity {
			rm = model.IdentityRescaleMappings(m.NumberOfSources, m.NumberOfTargets)
		} else {
			targets := make([][]int, max(m.NumberOfSources, len(m.Mappings)))
			copy(targets, m.Mappings)
			var err error
			if rm, err = model.NewRescaleMappings(targets, m.NumberOfTargets); err != nil {
				return nil, fmt.Errorf("descriptor gate %d: %v", i, err)
			}
		}
		out.GatesOrPartitions[i] = model.GateOrPartitionRescalingDescriptor{OldSubtaskIndexes: *g.OldSubtaskIndexes,
			RescaledChannelsMappings: rm, AmbiguousSubtaskIndexes: *g.AmbiguousSubtaskIndexes, MappingType: mt}
	}
	return out, nil
}

// FlinkRefusalError is a refusal of Flink's classes as an error of the model's kind: Refusal.Err
// wraps it in a *model.RefusalError of the check KindOf names, and errors.Is reaches the check's
// sentinel through it.
type FlinkRefusalError struct {
	Stage, Class, Message string
	sentinel              error
}

// Error gives Flink's message.
func (e *FlinkRefusalError) Error() string { return e.Message }

// Is reports whether target is the sentinel of the refusal's check.
func (e *FlinkRefusalError) Is(target error) bool {
	return e.sentinel != nil && target == e.sentinel
}

// Err is the refusal as an error of the model's kind: an *InputRefusal for stage "input", else
// a *model.RefusalError of the check KindOf names (CheckRestore when it names none), naming
// the first operator the message names, around a *FlinkRefusalError with Flink's message.
func (r *Refusal) Err() error {
	if r.Stage == "input" {
		return &InputRefusal{Class: r.Class, Message: r.Message, Field: "case"}
	}
	check := model.Check(KindOf(r))
	fe := &FlinkRefusalError{Stage: r.Stage, Class: r.Class, Message: r.Message, sentinel: check.Sentinel()}
	if check == model.CheckVertexParallelism {
		fe.sentinel = model.ErrVertexParallelism
	}
	re := &model.RefusalError{Check: check, Err: fe}
	if ids := hexID().FindAllString(r.Message, 1); len(ids) == 1 {
		re.OperatorID, _ = model.ParseOperatorID(ids[0])
		re.HasOperator = true
	}
	return re
}

// flinkKinds recognise the project's check of a refusal of Flink's classes by its message (and
// class), in order: the text each check's exception carries in Flink's StateAssignmentOperation,
// Checkpoints and TaskStateAssignment.
var flinkKinds = []struct {
	check model.Check
	class string // "" any
	text  string
}{
	{model.CheckNoOperatorForState, "", "There is no operator for the state"},
	{model.CheckNonRestoredState, "", "Cannot map checkpoint/savepoint state for operator"},
	{model.CheckMaxParallelismMismatch, "", "Max parallelism mismatch between checkpoint/savepoint state and new program"},
	{model.CheckMaxParallelismBelowParallelism, "", "of the restored state is lower than the configured parallelism"},
	{model.CheckMaxParallelismChange, "", "has been taken and the current maximum parallelism"},
	{model.CheckMaxParallelismAgreement, "", "recorded different maximum parallelism"},
	{model.CheckMaxParallelismOutOfBounds, "", "max parallelism is not in valid bounds"},
	{model.CheckMixedFinishedOperators, "", "could not have mixed finished and unfinished operators"},
	{model.CheckRawKeyedWithoutManaged, "", "should also not have a raw keyed state"},
	{model.CheckChannelStateTopologyChange, "", "Cannot recover from unaligned checkpoint when topology changes"},
	{model.CheckChannelStateUnsupportedRescale, unsupportedOperation, ""},
	{model.CheckNullKeyedStateHandles, nullPointer, ""},
}

// KindOf is a refusal's check name: its kind where it carries one (the model's), else the
// check whose exception Flink's message (and class) is, "vertex-parallelism" for stage
// "build", "input" for stage "input", and "restore" for any other.
func KindOf(r *Refusal) string {
	if r.Kind != nil {
		return *r.Kind
	}
	switch r.Stage {
	case "build":
		return string(model.CheckVertexParallelism)
	case "input":
		return KindInput
	}
	for _, k := range flinkKinds {
		// The model words some messages in lower case ("cannot recover from …"), Flink in
		// sentence case: the texts match either way.
		if (k.class == "" || k.class == r.Class) && strings.Contains(strings.ToLower(r.Message), strings.ToLower(k.text)) {
			return string(k.check)
		}
	}
	return string(model.CheckRestore)
}
