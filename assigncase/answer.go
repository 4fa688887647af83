package assigncase

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/restoresim/restoresim/model"
)

// Answer is what each new subtask is handed (Vertices), or the refusal (Error): one of the two.
type Answer struct {
	Vertices []AnswerVertex
	Error    *Refusal
}

// answerJSON is Answer's JSON form.
type answerJSON struct {
	Vertices *[]AnswerVertex `json:"vertices,omitempty"`
	Error    *Refusal        `json:"error,omitempty"`
}

// MarshalJSON writes {"error": …} for a refusal, else {"vertices": […]}.
func (a Answer) MarshalJSON() ([]byte, error) {
	return marshal(a.toJSON())
}

func (a Answer) toJSON() answerJSON {
	j := answerJSON{Error: a.Error}
	if a.Error == nil {
		vs := a.Vertices
		if vs == nil {
			vs = []AnswerVertex{}
		}
		j.Vertices = &vs
	}
	return j
}

// marshal is json.Marshal without HTML escaping, so that '<' in a path stays '<'.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// DecodeAnswer reads one answer, strictly (as DecodeCase reads a case): an answer line of the
// model or of Flink's classes.
func DecodeAnswer(data []byte) (*Answer, error) {
	var j answerJSON
	if err := decodeStrict(data, &j); err != nil {
		return nil, err
	}
	if (j.Vertices == nil) == (j.Error == nil) {
		return nil, errors.New(`the object: want "vertices" or "error" (one of them)`)
	}
	a := &Answer{Error: j.Error}
	if j.Vertices != nil {
		a.Vertices = *j.Vertices
	}
	return a, nil
}

// ReadAnswer reads one answer as DecodeAnswer does, but with encoding/json alone (unknown
// fields ignored, no check of the shape beyond the types): for answers the project's own
// reference printed, many times faster on the large ones.
func ReadAnswer(data []byte) (*Answer, error) {
	var j answerJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, err
	}
	if (j.Vertices == nil) == (j.Error == nil) {
		return nil, errors.New(`the object: want "vertices" or "error" (one of them)`)
	}
	a := &Answer{Error: j.Error}
	if j.Vertices != nil {
		a.Vertices = *j.Vertices
	}
	return a, nil
}

// Refusal is a refused restore. The model's refusals carry Kind and Operators; the answers of
// Flink's classes carry At (the top stack frame) instead.
type Refusal struct {
	// Stage is "input" (the old state cannot be built), "build" (the new job is invalid) or
	// "assign" (assignStates refused).
	Stage string  `json:"stage"`
	Kind  *string `json:"kind,omitempty"`
	// Class is the Java exception's class.
	Class     string    `json:"class"`
	Message   string    `json:"message"`
	Operators *[]string `json:"operators,omitempty"`
	At        *string   `json:"at,omitempty"`
}

// The kinds of refusals that are no check of the model: Flink refusing the case's old state
// (an InputRefusal), a case the model does not represent (ErrNotModelled) and input the model
// refuses as such (model.ErrInvalidRestoreInput).
const (
	KindInput        = "input"
	KindNotModelled  = "not-modelled"
	KindInvalidInput = "invalid-input"
)

// AnswerVertex is one vertex's assignment.
type AnswerVertex struct {
	Name        string `json:"name"`
	Parallelism int    `json:"parallelism"`
	// MaxParallelism is the vertex's max parallelism after any adoption.
	MaxParallelism int `json:"max_parallelism"`
	// Subtasks has one entry per new subtask: nil (null) when it has nothing to restore.
	Subtasks []*AnswerSubtask `json:"subtasks"`
}

// AnswerSubtask is one new subtask's restore object (JobManagerTaskRestore).
type AnswerSubtask struct {
	CheckpointID       int64 `json:"checkpoint_id"`
	DeployedAsFinished bool  `json:"deployed_as_finished"`
	// Operators are the vertex's operators in its order (tail first); none for a subtask
	// deployed as finished.
	Operators []AnswerOperator `json:"operators"`
}

// AnswerOperator is one operator's OperatorSubtaskState, under its generated id.
type AnswerOperator struct {
	OperatorID string       `json:"operator_id"`
	State      SubtaskState `json:"state"`
}

// SubtaskState is an OperatorSubtaskState handed to a new subtask.
type SubtaskState struct {
	ManagedOperatorState    []OperatorStateHandle `json:"managed_operator_state"`
	RawOperatorState        []OperatorStateHandle `json:"raw_operator_state"`
	ManagedKeyedState       []KeyedHandle         `json:"managed_keyed_state"`
	RawKeyedState           []KeyedHandle         `json:"raw_keyed_state"`
	InputChannelState       []ChannelHandle       `json:"input_channel_state"`
	ResultSubpartitionState []ChannelHandle       `json:"result_subpartition_state"`
	// UpstreamOutputBufferState is 2.3+'s (FLINK-38542), absent before 2.3. The model does not
	// recover output buffers downstream (see ErrNotModelled): its 2.3+ answers carry an empty
	// list, as Flink's with the option off.
	UpstreamOutputBufferState *[]ChannelHandle `json:"upstream_output_buffer_state,omitempty"`
	// A nil descriptor (JSON null) is NO_RESCALE.
	InputRescalingDescriptor  *Descriptor `json:"input_rescaling_descriptor"`
	OutputRescalingDescriptor *Descriptor `json:"output_rescaling_descriptor"`
}

// Descriptor is an InflightDataRescalingDescriptor other than NO_RESCALE.
type Descriptor struct {
	GatesOrPartitions []GateDescriptor `json:"gates_or_partitions"`
}

// GateDescriptor is one gate's (or partition's) InflightDataGateOrPartitionRescalingDescriptor:
// {"no_state": true} for NO_STATE (2.x), else the other fields.
type GateDescriptor struct {
	NoState                  *bool     `json:"no_state,omitempty"`
	OldSubtaskIndexes        *[]int    `json:"old_subtask_indexes,omitempty"`
	RescaledChannelsMappings *Mappings `json:"rescaled_channels_mappings,omitempty"`
	// AmbiguousSubtaskIndexes are sorted.
	AmbiguousSubtaskIndexes *[]int  `json:"ambiguous_subtask_indexes,omitempty"`
	MappingType             *string `json:"mapping_type,omitempty"`
}

// Mappings is a RescaleMappings.
type Mappings struct {
	Identity        bool    `json:"identity"`
	NumberOfSources int     `json:"number_of_sources"`
	NumberOfTargets int     `json:"number_of_targets"`
	Mappings        [][]int `json:"mappings"`
}

// FromAssignment turns model.AssignStates' result into an Answer, or its error (or Case.Input's)
// into a refusal:
//
//   - a *model.RefusalError: stage "build" for check vertex-parallelism (model.CheckJobVertex),
//     else "assign"; kind the check's name; class the Java exception Flink throws there;
//     operators the operator ids its message names, in order;
//   - an *InputRefusal: stage "input", kind "input", its class;
//   - ErrNotModelled: stage "input", kind "not-modelled", no class (no Flink exception: the
//     model cannot answer);
//   - anything else (model.ErrInvalidRestoreInput): stage "input", kind "invalid-input", no
//     class.
func FromAssignment(a *model.Assignment, err error) Answer {
	if err != nil {
		return Answer{Error: refusalOf(err)}
	}
	out := Answer{Vertices: make([]AnswerVertex, 0, len(a.Vertices))}
	for _, va := range a.Vertices {
		v := AnswerVertex{Name: va.Name, Parallelism: va.Parallelism, MaxParallelism: va.MaxParallelism, Subtasks: make([]*AnswerSubtask, len(va.Subtasks))}
		for i, t := range va.Subtasks {
			if t == nil {
				continue
			}
			st := &AnswerSubtask{CheckpointID: t.CheckpointID, DeployedAsFinished: t.Finished, Operators: []AnswerOperator{}}
			for _, op := range t.Operators {
				state := subtaskState(&op.State)
				if a.Version.AtLeast(model.Flink23) {
					// With recover-output-on-downstream off (the model has no such option),
					// 2.3+ hands every operator an empty upstream output buffer state.
					state.UpstreamOutputBufferState = &[]ChannelHandle{}
				}
				st.Operators = append(st.Operators, AnswerOperator{OperatorID: op.OperatorID.String(), State: state})
			}
			v.Subtasks[i] = st
		}
		out.Vertices = append(out.Vertices, v)
	}
	return out
}

// hexID finds the operator ids a message names.
var hexID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b[0-9a-f]{32}\b`) }) // (compiled when first used, not at start-up)

func refusalOf(err error) *Refusal {
	r := &Refusal{Stage: "input", Message: err.Error()}
	kind := KindInvalidInput
	var ir *InputRefusal
	var rf *model.RefusalError
	switch {
	case errors.As(err, &ir):
		kind, r.Class, r.Message = KindInput, ir.Class, ir.Message
	case errors.As(err, &rf):
		kind, r.Stage, r.Class = string(rf.Check), "assign", exceptionClass(rf)
		if rf.Check == model.CheckVertexParallelism {
			r.Stage = "build"
		}
	case errors.Is(err, ErrNotModelled):
		kind = KindNotModelled
	}
	r.Kind = &kind
	ops := []string{}
	for _, id := range hexID().FindAllString(r.Message, -1) {
		if !contains(ops, id) {
			ops = append(ops, id)
		}
	}
	r.Operators = &ops
	return r
}

// exceptionClass is the class of the exception Flink throws for a refusal.
func exceptionClass(rf *model.RefusalError) string {
	switch rf.Check {
	case model.CheckMaxParallelismOutOfBounds:
		return illegalArgument
	case model.CheckNullKeyedStateHandles:
		return nullPointer
	case model.CheckChannelStateUnsupportedRescale:
		return unsupportedOperation
	case model.CheckVertexParallelism:
		if errors.Is(rf, model.ErrVertexParallelismAboveMax) {
			return jobException
		}
		return illegalArgument
	case model.CheckRestore:
		// Flink's Preconditions.checkArgument (key-group ranges and parallelisms) throws
		// IllegalArgumentException; a stream twice in one subtask fails Collectors.toMap with
		// an IllegalStateException.
		if errors.Is(rf, model.ErrParallelismOutOfBounds) || errors.Is(rf, model.ErrMaxParallelismBelowParallelism) ||
			errors.Is(rf, model.ErrInvalidKeyGroupRange) || errors.Is(rf, model.ErrNonPositiveNewParallelism) {
			return illegalArgument
		}
	}
	return illegalState
}

func subtaskState(s *model.OperatorSubtaskState) SubtaskState {
	return SubtaskState{
		ManagedOperatorState:      operatorHandlesOf(s.ManagedOperatorState),
		RawOperatorState:          operatorHandlesOf(s.RawOperatorState),
		ManagedKeyedState:         keyedHandlesOf(s.ManagedKeyedState),
		RawKeyedState:             keyedHandlesOf(s.RawKeyedState),
		InputChannelState:         channelHandlesOf(s.InputChannelState),
		ResultSubpartitionState:   channelHandlesOf(s.ResultSubpartitionState),
		InputRescalingDescriptor:  descriptorOf(s.InputRescalingDescriptor),
		OutputRescalingDescriptor: descriptorOf(s.OutputRescalingDescriptor),
	}
}

func streamOf(h model.StreamHandle) Stream {
	s := Stream{Path: h.Path, Size: h.Size}
	if h.InMemory {
		t := true
		s.InMemory = &t
	}
	if h.Relative { // not from a case (Case.Input refuses relative handles)
		t := true
		s.Relative = &t
	}
	return s
}

func offsetsOf(o []int64) []int64 {
	if o == nil {
		return []int64{}
	}
	return o
}

func operatorHandlesOf(hs []model.OperatorStateHandle) []OperatorStateHandle {
	out := make([]OperatorStateHandle, 0, len(hs))
	for _, h := range hs {
		oh := OperatorStateHandle{Delegate: streamOf(h.Delegate), States: make([]NamedState, 0, len(h.States))}
		for _, st := range h.States {
			oh.States = append(oh.States, NamedState{Name: st.Name, Mode: st.Mode.String(), Offsets: offsetsOf(st.Offsets)})
		}
		out = append(out, oh)
	}
	return out
}

func keyedHandlesOf(hs []model.KeyedStateHandle) []KeyedHandle {
	out := make([]KeyedHandle, 0, len(hs))
	for _, h := range hs {
		switch h := h.(type) {
		case *model.KeyGroupsStateHandle:
			kh := KeyedHandle{Type: KeyGroupsStateHandle,
				KeyGroups: &KeyGroups{Range: Range{h.Offsets.Range.Start, h.Offsets.Range.End}, Offsets: offsetsOf(h.Offsets.Offsets)}}
			if h.Savepoint {
				kh.Type = KeyGroupsSavepointStateHandle
			}
			d := streamOf(h.Delegate)
			kh.Delegate = &d
			if h.StateHandleID != "" {
				kh.StateHandleID = &h.StateHandleID
			}
			out = append(out, kh)
		case *model.IncrementalKeyedStateHandle:
			backend, cp := h.BackendID, h.CheckpointID
			kh := KeyedHandle{Type: IncrementalRemoteKeyedStateHandle, BackendID: &backend,
				KeyGroupRange: &Range{h.Range.Start, h.Range.End}, CheckpointID: &cp}
			shared, private := sharedFilesOf(h.Shared), sharedFilesOf(h.Private)
			kh.Shared, kh.Private = &shared, &private
			meta := streamOf(h.Meta)
			kh.Meta = &meta
			if h.CheckpointedSize != 0 {
				size := h.CheckpointedSize
				kh.CheckpointedSize = &size
			}
			if h.StateHandleID != "" {
				id := h.StateHandleID
				kh.StateHandleID = &id
			}
			out = append(out, kh)
		default: // not from a case
			out = append(out, KeyedHandle{Type: fmt.Sprintf("%T", h)})
		}
	}
	return out
}

func sharedFilesOf(fs []model.SharedFile) []SharedFile {
	out := make([]SharedFile, 0, len(fs))
	for _, f := range fs {
		out = append(out, SharedFile{LocalPath: f.LocalPath, Handle: streamOf(f.Handle)})
	}
	return out
}

func channelHandlesOf(hs []model.ChannelStateHandle) []ChannelHandle {
	out := make([]ChannelHandle, 0, len(hs))
	for _, h := range hs {
		subtask, size := h.SubtaskIndex, h.StateSize
		out = append(out, ChannelHandle{SubtaskIndex: &subtask, GateOrPartition: h.GateOrPartition, Channel: h.Channel,
			Offsets: offsetsOf(h.Offsets), StateSize: &size, Delegate: streamOf(h.Delegate)})
	}
	return out
}

func descriptorOf(d *model.InflightDataRescalingDescriptor) *Descriptor {
	if d == nil {
		return nil
	}
	out := &Descriptor{GatesOrPartitions: make([]GateDescriptor, 0, len(d.GatesOrPartitions))}
	for _, g := range d.GatesOrPartitions {
		if g.NoState {
			t := true
			out.GatesOrPartitions = append(out.GatesOrPartitions, GateDescriptor{NoState: &t})
			continue
		}
		old, ambiguous := intsOf(g.OldSubtaskIndexes), intsOf(g.AmbiguousSubtaskIndexes)
		mt := g.MappingType.String()
		out.GatesOrPartitions = append(out.GatesOrPartitions, GateDescriptor{OldSubtaskIndexes: &old,
			RescaledChannelsMappings: mappingsOf(g.RescaledChannelsMappings), AmbiguousSubtaskIndexes: &ambiguous, MappingType: &mt})
	}
	return out
}

func intsOf(xs []int) []int {
	if xs == nil {
		return []int{}
	}
	return xs
}

// mappingsOf renders RescaleMappings as Flink holds them: an identity without mappings, else
// each source's targets up to the last source with any (RescaleMappings.of drops the trailing
// empty ones).
func mappingsOf(r model.RescaleMappings) *Mappings {
	m := &Mappings{Identity: r.IsIdentity(), NumberOfSources: r.NumberOfSources(), NumberOfTargets: r.NumberOfTargets(), Mappings: [][]int{}}
	if r.IsIdentity() {
		return m
	}
	last := -1
	for s := range r.NumberOfSources() {
		if len(r.MappedIndexes(s)) > 0 {
			last = s
		}
	}
	for s := 0; s <= last; s++ {
		m.Mappings = append(m.Mappings, intsOf(r.MappedIndexes(s)))
	}
	return m
}

// String gives the answer's JSON line (without a newline).
func (a Answer) String() string {
	// The JSON of toJSON directly: through MarshalJSON, encoding/json would encode the
	// answer twice and compact the result.
	b, err := marshal(a.toJSON())
	if err != nil {
		return "assigncase: internal error: " + err.Error()
	}
	return string(b)
}

// Answer is the model's answer to the case at Flink version v: Case.Input, then
// model.AssignStates, through FromAssignment; Flink's refusals (an InputRefusal, a vertex Flink
// cannot build, an assignment refused) are answers. The error, wrapping ErrInvalidCase or
// ErrNotModelled, is a case the model has no answer to.
func (c *Case) Answer(v model.FlinkVersion) (Answer, error) {
	in, err := c.Input(v)
	if errors.Is(err, ErrInvalidCase) || errors.Is(err, ErrNotModelled) {
		return Answer{}, err
	}
	if err != nil {
		return FromAssignment(nil, err), nil
	}
	a, err := model.AssignStates(in)
	return FromAssignment(a, c.namedByVertexID(err)), nil
}

// namedByVertexID gives a refusal whose Flink message names the vertex by its JobVertexID, not
// by its name, the JobVertexID of the case's vertex in place of the name the model prints, so
// that the refusal names what Flink's does: StateAssignmentOperation.checkParallelismPreconditions
// ("The state for task <JobVertexID> can not be restored …") and, on master,
// checkMaxParallelismAgreement ("The state for the execution job vertex <JobVertexID> …").
func (c *Case) namedByVertexID(err error) error {
	var rf *model.RefusalError
	if err == nil || !errors.As(err, &rf) {
		return err
	}
	var below *model.MaxParallelismBelowNewParallelismError
	var disagree *model.MaxParallelismDisagreementError
	var renamed error
	switch {
	case errors.As(err, &below):
		r := *below
		if r.Vertex = c.vertexIDOf(r.OperatorID); r.Vertex == "" {
			return err
		}
		renamed = &r
	case errors.As(err, &disagree):
		r := *disagree
		if r.Vertex = c.vertexIDOf(r.A); r.Vertex == "" {
			return err
		}
		renamed = &r
	default:
		return err
	}
	r := *rf
	r.Err = renamed
	return &r
}

// vertexIDOf gives the JobVertexID (lower case) of the vertex that has operator op (its id or
// user-defined id): the vertex's "id", else its chain head's operator id; "" when none has it.
func (c *Case) vertexIDOf(op model.OperatorID) string {
	for _, vx := range c.Vertices {
		for _, o := range vx.Operators {
			if strings.EqualFold(o.ID, op.String()) || (o.UserDefinedID != nil && strings.EqualFold(*o.UserDefinedID, op.String())) {
				id := vx.Operators[len(vx.Operators)-1].ID
				if vx.ID != nil {
					id = *vx.ID
				}
				return strings.ToLower(id)
			}
		}
	}
	return ""
}
