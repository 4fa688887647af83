package savepoint

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/internal/mutant"
	"github.com/restoresim/restoresim/model/metadata"
)

// RestorePlan is what Flink does when it restores a checkpoint into a new job (not to be
// confused with sim.Plan, a simulation's script). Its JSON form is what `simulate plan --format
// json` prints; lists are never null.
//
// When the restore is refused, the plan goes on as if the refused operators' state were gone,
// so every operator is judged (each refused one is named) and the valid ones show what they
// would receive once the refused ones are fixed; such a plan (Restorable false) is not a
// restore that can happen as it stands.
type RestorePlan struct {
	// Path names the metadata file (Savepoint.Path).
	Path string `json:"path"`
	// Flink is the Flink version whose restore path ran, e.g. "1.18".
	Flink         string `json:"flink"`
	FormatVersion int32  `json:"format_version"`
	CheckpointID  int64  `json:"checkpoint_id"`
	// StateBytes is the checkpoint's state bytes: the sum of its operators' StateBytes, what
	// inspect reports for the file.
	StateBytes int64 `json:"state_bytes"`
	// NewParallelism is Options.Parallelism (null when not given).
	NewParallelism *int `json:"new_parallelism"`
	// Job is true when the new job was described (Options.Job).
	Job bool `json:"job"`
	// Restorable is true when Flink would restore.
	Restorable bool `json:"restorable"`
	// Error, Check and OperatorID describe the first refusal in Flink's order (null when none).
	Error      *string        `json:"error"`
	Check      *model.Check   `json:"check"`
	OperatorID *string        `json:"operator_id"`
	Operators  []OperatorPlan `json:"operators"`
	NewOps     []NewOperator  `json:"new_operators"`
	// Refusal is the first refusal (nil when none); Error, Check and OperatorID render it.
	Refusal *model.RefusalError `json:"-"`
	// KeepParallelism is Options.KeepParallelism.
	KeepParallelism bool `json:"keep_parallelism"`
	// Vertices are the tasks of the new job, with each one's parallelism and its source.
	Vertices []VertexPlan `json:"vertices"`
	// MaxRestorableParallelism is the largest parallelism P (1..32768) that, given to every
	// task following the default parallelism (source "default"), makes the whole restore
	// succeed, the other tasks as planned; null when no P does, when no task follows the
	// default, or when the file cannot be read at all.
	MaxRestorableParallelism *int `json:"max_restorable_parallelism"`
	// DroppedOperators and DroppedStateBytes count the operator states that hold state and
	// that the restore skips because no operator of the new job has their ID
	// (AllowNonRestoredState): their state bytes (keyed, operator, coordinator and channel
	// state) are lost.
	DroppedOperators  int   `json:"dropped_operators"`
	DroppedStateBytes int64 `json:"dropped_state_bytes"`
}

// OperatorPlan is what happens to one operator state of the checkpoint (metadata order).
type OperatorPlan struct {
	OperatorID     string `json:"operator_id"`
	Name           string `json:"name,omitempty"`
	UID            string `json:"uid,omitempty"`
	OldParallelism int    `json:"old_parallelism"`
	// MaxParallelism is the state's max parallelism, as in the checkpoint.
	MaxParallelism int `json:"max_parallelism"`
	// Valid is false for an operator a check refuses; Error and Check then give the refusal.
	Valid bool         `json:"valid"`
	Error *string      `json:"error"`
	Check *model.Check `json:"check"`
	// Status: "restored", "dropped" (the new job does not take the state) or "refused".
	Status string `json:"status"`
	// Vertex, Parallelism and NewMaxParallelism describe the new task that takes the state
	// (null/0 when none); NewMaxParallelism (possibly adopted) decides the key groups.
	Vertex            *string `json:"vertex"`
	ChainPosition     *int    `json:"chain_position"`
	Parallelism       int     `json:"new_parallelism"`
	NewMaxParallelism int     `json:"new_max_parallelism"`
	// StateBytes is the operator's state bytes in the checkpoint (OperatorBytes: the sizes of
	// the keyed, operator, coordinator and channel state handles it holds, what inspect
	// reports), whatever becomes of it; what its restore reads is BytesRead.
	StateBytes int64         `json:"state_bytes"`
	Notes      []string      `json:"notes"`
	Subtasks   []SubtaskPlan `json:"subtasks"`
	// Refusal is the refusal of this operator (nil when valid).
	Refusal *model.RefusalError `json:"-"`
	// ParallelismSource is the parallelism source of the task that takes (or, refused, would
	// take) the state; absent when no task has the operator.
	ParallelismSource ParallelismSource `json:"parallelism_source,omitempty"`
	// MaxRestorableParallelism, for a refused operator, is the highest parallelism of its
	// task that its checks accept (the rest of the job as planned); null when none does, and
	// for operators that are not refused.
	MaxRestorableParallelism *int `json:"max_restorable_parallelism"`
	// Fix, for a refused operator, says in words what would restore it, e.g. "keep it at 1
	// (...)" or "add --allow-non-restored-state: drops N bytes of keyed state of ..."; empty
	// for operators that are not refused.
	Fix string `json:"fix,omitempty"`
	// DroppedStateBytes is the state an operator the restore skips (status "dropped" under
	// AllowNonRestoredState) loses: keyed, operator, coordinator and channel state.
	DroppedStateBytes int64 `json:"dropped_state_bytes"`
	// BytesRead is the sum of the subtasks' BytesRead.
	BytesRead int64 `json:"bytes_read"`
	// CoordinatorStateBytes is the operator coordinator state (e.g. a source's split
	// enumerator), restored on the JobManager, not by a subtask.
	CoordinatorStateBytes int64 `json:"coordinator_state_bytes"`
	// ReadAmplification is (BytesRead + CoordinatorStateBytes) over the operator's state bytes
	// in the checkpoint (keyed, operator, coordinator and channel state); null when it has none.
	// UNION state, which every new subtask reads whole, makes it grow with the parallelism.
	ReadAmplification *float64 `json:"read_amplification"`
}

// SubtaskPlan is what one new subtask of an operator receives.
type SubtaskPlan struct {
	Index     int    `json:"index"`
	KeyGroups [2]int `json:"key_groups"`
	// RestoreObject is false when the subtask starts without restore information.
	RestoreObject bool `json:"restore_object"`
	// Finished is true for a subtask of a fully finished operator (FLIP-147).
	Finished bool `json:"finished,omitempty"`
	// ReceivedBytes is the bytes of the key groups and operator-state entries the subtask
	// receives (KeyedPart.Bytes and OperatorStatePart.Bytes summed; not the streams' headers,
	// not channel state): a UNION entry counts in every subtask that receives it.
	ReceivedBytes int64 `json:"received_bytes"`
	// ManagedKeyedState and RawKeyedState are the keyed handles received, in order.
	ManagedKeyedState []KeyedPart `json:"managed_keyed_state"`
	RawKeyedState     []KeyedPart `json:"raw_keyed_state"`
	// ManagedOperatorState and RawOperatorState are the operator-state entries received, by
	// state name. Subtasks receiving the same handles (UNION state: every subtask all of them)
	// share the map and the parts: read only.
	ManagedOperatorState map[string]*OperatorStatePart `json:"managed_operator_state"`
	RawOperatorState     map[string]*OperatorStatePart `json:"raw_operator_state"`
	// InputChannelState and ResultSubpartitionState are the in-flight channel-state handles
	// received (unaligned checkpoints), in Flink's order; ChannelStateBytes is their bytes (not
	// in ReceivedBytes). InputRescaling and OutputRescaling are the subtask's rescaling
	// descriptors when it holds the chain's input or output operator (null: NO_RESCALE).
	InputChannelState       []ChannelPart                          `json:"input_channel_state"`
	ResultSubpartitionState []ChannelPart                          `json:"result_subpartition_state"`
	ChannelStateBytes       int64                                  `json:"channel_state_bytes"`
	InputRescaling          *model.InflightDataRescalingDescriptor `json:"input_rescaling"`
	OutputRescaling         *model.InflightDataRescalingDescriptor `json:"output_rescaling"`
	// BytesRead is what the subtask's restore downloads: of each key-groups and operator-state
	// handle it is given, the stream header (the bytes before the handle's smallest offset)
	// and its entries; incremental and changelog handles whole; a UNION subtask the header and
	// every UNION entry of every old handle holding UNION state.
	BytesRead int64 `json:"bytes_read"`
}

// KeyedBytes is the bytes of the keyed handles the subtask receives, managed and raw.
func (s SubtaskPlan) KeyedBytes() int64 {
	var n int64
	for _, l := range [][]KeyedPart{s.ManagedKeyedState, s.RawKeyedState} {
		for _, h := range l {
			n += h.Bytes
		}
	}
	return n
}

// OperatorStateEntries is the number of operator-state entries the subtask receives, managed
// and raw ([old subtask, index] pairs over every state name).
func (s SubtaskPlan) OperatorStateEntries() int {
	n := 0
	for _, m := range []map[string]*OperatorStatePart{s.ManagedOperatorState, s.RawOperatorState} {
		for _, st := range m {
			n += len(st.Pairs)
		}
	}
	return n
}

// KeyedPart is a received keyed handle: the key groups Start..End of an old subtask's handle.
type KeyedPart struct {
	OldSubtask int `json:"old_subtask"`
	Start      int `json:"start"`
	End        int `json:"end"`
	// Handle is the handle's Java class, e.g. "KeyGroupsSavepointStateHandle".
	Handle string `json:"handle"`
	// Bytes: a key group's bytes run from its offset to the next larger offset of the old
	// handle (or the end of its stream); an incremental or changelog handle counts whole.
	Bytes int64 `json:"bytes"`
}

// OperatorStatePart is the received entries of one named operator state: pairs [old subtask,
// index into that old handle's offsets] (SPEC §L.1) and their bytes.
type OperatorStatePart struct {
	// Mode is the distribution mode (modes joined by "," if they differ).
	Mode  string   `json:"mode"`
	Pairs [][2]int `json:"pairs"`
	Bytes int64    `json:"bytes"`
}

// NewOperator is an operator of the new job that finds no state (it starts empty).
type NewOperator struct {
	OperatorID string `json:"operator_id"`
	Label      string `json:"label,omitempty"`
	Vertex     string `json:"vertex"`
}

// Options says what restore to plan.
type Options struct {
	// Flink is the Flink version whose restore path runs.
	Flink model.FlinkVersion
	// Parallelism is the new parallelism without Job, and Job's default parallelism (already
	// applied by JobFile.Validate) with it; 0 when not given (then Job, KeepParallelism or
	// VertexParallelism must give every task one).
	Parallelism int
	// KeepParallelism keeps every task at its old parallelism: without Job each operator's task
	// runs at its state's parallelism; with Job, each vertex whose parallelism is the default
	// (ParallelismSource SourceDefault) runs at the old parallelism of the states its operators
	// take (a vertex without state keeps the default). Operators whose states ran at
	// different parallelisms in one vertex are an error.
	KeepParallelism bool
	// VertexParallelism sets the parallelism of the task holding an operator, by operator ID
	// (without Job the ID of an operator state of the checkpoint; with Job a generated or
	// user-defined ID of the job), overriding KeepParallelism, the job file and Parallelism.
	// An ID no task holds is an *UnknownOperatorError; a parallelism outside 1..32768, above
	// a configured max parallelism, or two different ones for one task are errors.
	VertexParallelism map[model.OperatorID]int
	// Job is the new job; nil means DefaultVertices(file, Parallelism): every operator its own
	// task whose max parallelism is not configured.
	Job []Vertex
	// AllowNonRestoredState skips checkpointed operators the new job does not have.
	AllowNonRestoredState bool
	// ChannelPartitioner is the partitioner assumed on every edge of in-flight channel state
	// (a savepoint records no edges; see channel.go); zero means DefaultChannelPartitioner.
	ChannelPartitioner model.Partitioner
	// Assign, when set, assigns the state in place of model.AssignStates, as
	// model.Coordinator.Assign does: a caller that restored the same checkpoint into the same
	// job may hand back the assignment it has (it must be AssignStates's for the input).
	Assign func(model.AssignmentInput) (*model.Assignment, error)
}

// PlanRestore runs the model's restore path (LoadAndValidateCheckpoint, then AssignStates:
// SPEC §F–§G) on sp into the job opts describe, and gives the plan. A refusal is not an error:
// the plan is not Restorable and names the first refusal in Flink's order (Refusal, a typed
// *model.RefusalError). An error means bad input: no parallelism and no job, a parallelism out
// of bounds, or a checkpoint the model rejects as input Flink could not have written.
//
// A Savepoint without File (a format version no modelled Flink reads) gives a plan refused by
// the check metadata-version, with no operators.
func PlanRestore(sp *Savepoint, opts Options) (*RestorePlan, error) {
	if opts.Parallelism == 0 && opts.Job == nil && !opts.KeepParallelism && len(opts.VertexParallelism) == 0 {
		return nil, errors.New("no parallelism and no job: give one")
	}
	if opts.Parallelism != 0 {
		if err := model.CheckParallelismPreconditions(opts.Parallelism); err != nil {
			return nil, fmt.Errorf("parallelism %d is out of bounds (want 1..%d)", opts.Parallelism, model.UpperBoundMaxParallelism)
		}
	}
	if sp.File == nil {
		return unreadablePlan(sp, opts), nil
	}
	return buildPlan(sp, opts)
}

// unreadablePlan is the plan of a metadata file whose format version Flink refuses to read.
func unreadablePlan(sp *Savepoint, opts Options) *RestorePlan {
	err := sp.Unreadable
	if err == nil {
		err = fmt.Errorf("%w: %d", metadata.ErrUnsupportedVersion, sp.FormatVersion)
	}
	rf := &model.RefusalError{Check: model.CheckMetadataVersion, Err: err}
	msg, check := err.Error(), rf.Check
	pl := &RestorePlan{Path: sp.Path, Flink: opts.Flink.String(), FormatVersion: sp.FormatVersion, Job: opts.Job != nil,
		Error: &msg, Check: &check, Refusal: rf, Operators: []OperatorPlan{}, NewOps: []NewOperator{},
		KeepParallelism: opts.KeepParallelism, Vertices: []VertexPlan{}}
	if opts.Parallelism > 0 {
		p := opts.Parallelism
		pl.NewParallelism = &p
	}
	return pl
}

// buildPlan runs the model's restore path and assembles the plan. An error means bad input.
func buildPlan(sp *Savepoint, opts Options) (*RestorePlan, error) {
	v := opts.Flink
	md := sp.ModelFor(v)
	md.Operators = slices.Clone(md.Operators) // (the plan may change them; their subtasks are read only)
	vertices := opts.Job
	if vertices == nil {
		vertices = DefaultVertices(sp.File, opts.Parallelism)
	}
	vertices, err := resolveParallelism(sp.File, vertices, opts)
	if err != nil {
		return nil, err
	}
	jobVertices := jobVerticesOf(vertices)
	out := &RestorePlan{Path: sp.Path, Flink: v.String(), FormatVersion: sp.File.Version, CheckpointID: md.CheckpointID,
		Job: opts.Job != nil, Restorable: true, Operators: []OperatorPlan{}, NewOps: []NewOperator{},
		KeepParallelism: opts.KeepParallelism, Vertices: vertexPlans(vertices)}
	if opts.Parallelism > 0 {
		p := opts.Parallelism
		out.NewParallelism = &p
	}
	refuse := func(r *model.RefusalError, op *model.OperatorID) {
		if out.Refusal != nil {
			return
		}
		out.Refusal = r
		out.Restorable = false
		msg, check := r.Error(), r.Check
		out.Error, out.Check = &msg, &check
		if op != nil {
			s := op.String()
			out.OperatorID = &s
		}
	}
	// Flink's metadata reader (MetadataSerializers.getSerializer) knows versions up to
	// FlinkVersion.MetadataReadVersion (SPEC-VERSIONS.md §7).
	if !v.ReadsMetadataVersion(sp.File.Version) {
		refuse(&model.RefusalError{Check: model.CheckMetadataVersion, Err: unreadableVersionError(v, sp.File.Version)}, nil)
	}

	notes := make([][]string, len(md.Operators))
	if v == model.Flink1101 {
		for i := range md.Operators {
			if md.Operators[i].FullyFinished {
				// Only a file Flink 1.10.1 cannot read (format version 3+) has these.
				md.Operators[i].FullyFinished = false
				notes[i] = append(notes[i], "fully finished (FLIP-147), which Flink 1.10.1 does not know: planned as a state without subtask entries")
			}
		}
	}
	run, err := runRestore(opts, sp.Pointer, md, vertices, jobVertices, refuse)
	if err != nil {
		return nil, err
	}
	cc, asg, opErr := run.cc, run.asg, run.opErr
	part := opts.ChannelPartitioner
	if part == 0 {
		part = DefaultChannelPartitioner
	}
	edged := make([]bool, len(vertices))
	for vi := range vertices {
		edged[vi] = edged[vi] || len(vertices[vi].Inputs) > 0
		for _, e := range vertices[vi].Inputs {
			edged[e.Upstream] = true
		}
	}
	for i := range md.Operators {
		if !hasChannelState(&md.Operators[i]) || opErr[i] != nil {
			continue
		}
		vi := vertexHolding(vertices, md.Operators[i].OperatorID)
		if vi < 0 {
			continue // dropped: its channel state is not restored
		}
		if edged[vi] {
			notes[i] = append(notes[i], fmt.Sprintf("in-flight channel state (%d handles): planned over the job file's edges", countChannelHandles(&md.Operators[i])))
			continue
		}
		notes[i] = append(notes[i], fmt.Sprintf("in-flight channel state (%d handles): a savepoint records no job edges, so each of its gates and partitions is planned as a %v edge to a task that keeps its parallelism (--channel-partitioner)",
			countChannelHandles(&md.Operators[i]), part))
	}
	for vi := range vertices {
		if n := asg.Vertices[vi].DroppedChannelHandles; n > 0 {
			for oi := range md.Operators {
				if vertexHolds(&vertices[vi].JobVertex, md.Operators[oi].OperatorID) && hasChannelState(&md.Operators[oi]) {
					notes[oi] = append(notes[oi], fmt.Sprintf("%d in-flight channel-state handles reach no new subtask (Flink drops them)", n))
				}
			}
		}
	}

	// Which chain position took which state (SPEC §F.1 step 2 / §F.2), for labelling only.
	accepted := map[model.OperatorID]bool{}
	for i := range cc.Operators {
		accepted[cc.Operators[i].OperatorID] = true
	}
	refusedIDs := map[model.OperatorID]bool{}
	for i := range md.Operators {
		if opErr[i] != nil {
			refusedIDs[md.Operators[i].OperatorID] = true
		}
	}
	type pos struct{ vertex, k int }
	claimed := map[model.OperatorID]pos{}
	remaining := map[model.OperatorID]bool{}
	for id := range accepted {
		remaining[id] = true
	}
	for vi := range vertices {
		for k, op := range vertices[vi].Operators {
			id := op.ID
			if op.UserDefinedID != nil && (remaining[*op.UserDefinedID] || v == model.Flink1101) {
				id = *op.UserDefinedID
			}
			if remaining[id] {
				delete(remaining, id)
				claimed[id] = pos{vi, k}
			} else if !refusedIDs[op.ID] && (op.UserDefinedID == nil || !refusedIDs[*op.UserDefinedID]) {
				out.NewOps = append(out.NewOps, NewOperator{OperatorID: op.ID.String(), Label: vertices[vi].Labels[k], Vertex: vertices[vi].Name})
			}
		}
	}
	byID := map[model.OperatorID]*model.OperatorState{}
	for i := range cc.Operators {
		byID[cc.Operators[i].OperatorID] = &cc.Operators[i]
	}

	for i := range md.Operators {
		os := &md.Operators[i]
		fo := &sp.File.Operators[i]
		sb := stateBytesOf(fo)
		po := OperatorPlan{OperatorID: os.OperatorID.String(), Name: fo.Name, UID: fo.UID, OldParallelism: os.Parallelism,
			MaxParallelism: os.MaxParallelism, Valid: true, Status: "restored", StateBytes: sb.total(), Notes: notes[i], Subtasks: []SubtaskPlan{}}
		out.StateBytes += po.StateBytes
		if po.Notes == nil {
			po.Notes = []string{}
		}
		if r := opErr[i]; r != nil {
			msg, check := r.Error(), r.Check
			po.Valid, po.Error, po.Check, po.Status, po.Refusal = false, &msg, &check, "refused", r
			if vi := vertexHolding(vertices, os.OperatorID); vi >= 0 {
				po.ParallelismSource = sourceOf(&vertices[vi])
			}
			out.Operators = append(out.Operators, po)
			continue
		}
		at, ok := claimed[os.OperatorID]
		if !ok {
			po.Status = "dropped"
			switch {
			case !accepted[os.OperatorID] && opts.AllowNonRestoredState:
				po.Notes = append(po.Notes, "no operator of the new job has this ID; skipped (--allow-non-restored-state)")
				if sb.total() > 0 {
					po.DroppedStateBytes = sb.total()
					out.DroppedOperators++
					out.DroppedStateBytes += sb.total()
				}
			case !accepted[os.OperatorID]:
				po.Notes = append(po.Notes, "no operator of the new job has this ID; Flink skips it because it holds no state")
			default:
				po.Notes = append(po.Notes, "not taken: the operator with this user-defined ID took its state under its generated ID")
			}
			out.Operators = append(out.Operators, po)
			continue
		}
		vx := &vertices[at.vertex]
		va := &asg.Vertices[at.vertex]
		name, k := vx.Name, at.k
		po.Vertex, po.ChainPosition = &name, &k
		po.ParallelismSource = sourceOf(vx)
		po.Parallelism, po.NewMaxParallelism = va.Parallelism, va.MaxParallelism
		if po.ParallelismSource == SourceNonParallel {
			po.Notes = append(po.Notes, NonParallelNote)
		}
		if va.Adopted {
			po.Notes = append(po.Notes, fmt.Sprintf("the task's max parallelism %d is adopted from the restored state (it was not configured; default %d)", va.MaxParallelism, vx.MaxParallelism))
		}
		if hz := va.Hazard; hz != nil {
			po.Notes = append(po.Notes, hazardNote(hz, va.MaxParallelism))
		}
		if !va.HasState && !va.FullyFinished && !va.ChannelNeighbour {
			po.Notes = append(po.Notes, "the state has no subtask entries: Flink does not reassign it and the subtasks start without restore information")
		}
		old := byID[os.OperatorID]
		if old == nil {
			old = os
		}
		ix := indexOldState(old)
		po.Subtasks = make([]SubtaskPlan, 0, va.Parallelism)
		noParts := map[string]*OperatorStatePart{} // (shared by the operator's subtasks receiving none: read only)
		for s := 0; s < va.Parallelism; s++ {
			var r model.KeyGroupRange
			if va.Ranges != nil {
				r = va.Ranges[s]
			} else {
				var err error
				if r, err = model.ComputeKeyGroupRangeForOperatorIndex(va.MaxParallelism, va.Parallelism, s); err != nil {
					return nil, err
				}
			}
			ps := SubtaskPlan{Index: s, KeyGroups: [2]int{r.Start, r.End}, ManagedKeyedState: []KeyedPart{}, RawKeyedState: []KeyedPart{},
				InputChannelState: []ChannelPart{}, ResultSubpartitionState: []ChannelPart{}}
			if t := va.Subtasks[s]; t != nil {
				ps.RestoreObject = true
				ps.Finished = t.Finished
				if !t.Finished {
					st := &t.Operators[k].State
					var err error
					if ps.ManagedKeyedState, err = ix.keyed(st.ManagedKeyedState, false); err != nil {
						return nil, fmt.Errorf("operator %v, subtask %d, managed keyed state: %w", os.OperatorID, s, err)
					}
					if ps.RawKeyedState, err = ix.keyed(st.RawKeyedState, true); err != nil {
						return nil, fmt.Errorf("operator %v, subtask %d, raw keyed state: %w", os.OperatorID, s, err)
					}
					if ps.ManagedOperatorState, err = ix.operator(st.ManagedOperatorState, false); err != nil {
						return nil, fmt.Errorf("operator %v, subtask %d, managed operator state: %w", os.OperatorID, s, err)
					}
					if ps.RawOperatorState, err = ix.operator(st.RawOperatorState, true); err != nil {
						return nil, fmt.Errorf("operator %v, subtask %d, raw operator state: %w", os.OperatorID, s, err)
					}
					var in, outB int64
					ps.InputChannelState, in = channelParts(st.InputChannelState)
					ps.ResultSubpartitionState, outB = channelParts(st.ResultSubpartitionState)
					ps.ChannelStateBytes = in + outB
					ps.InputRescaling, ps.OutputRescaling = st.InputRescalingDescriptor, st.OutputRescalingDescriptor
					ps.BytesRead = ix.bytesRead(st)
					po.BytesRead += ps.BytesRead
				}
			}
			if ps.ManagedOperatorState == nil { // (none received: empty, not null, in the JSON)
				ps.ManagedOperatorState = noParts
			}
			if ps.RawOperatorState == nil {
				ps.RawOperatorState = noParts
			}
			ps.ReceivedBytes = ps.KeyedBytes()
			for _, m := range []map[string]*OperatorStatePart{ps.ManagedOperatorState, ps.RawOperatorState} {
				for _, st := range m {
					ps.ReceivedBytes += st.Bytes
				}
			}
			po.Subtasks = append(po.Subtasks, ps)
		}
		po.CoordinatorStateBytes = sb.coordinator
		if sb.total() > 0 {
			a := float64(po.BytesRead+po.CoordinatorStateBytes) / float64(sb.total())
			po.ReadAmplification = &a
		}
		if union, total := unionBytes(old), po.StateBytes; total > 0 && union*int64(va.Parallelism) >= UnionAmplificationThreshold*total {
			po.Notes = append(po.Notes, fmt.Sprintf("UNION state read amplification %.1fx: each of the %d new subtasks reads all %d bytes of UNION state, %d bytes read for %d state bytes (noted from %dx)",
				float64(union*int64(va.Parallelism))/float64(total), va.Parallelism, union, union*int64(va.Parallelism), total, UnionAmplificationThreshold))
		}
		out.Operators = append(out.Operators, po)
	}
	if err := whatWouldWork(out, sp.File, opts, sp.Pointer, md, vertices, opErr); err != nil {
		return nil, err
	}
	return out, nil
}

// UnionAmplificationThreshold is the read amplification from which a plan notes UNION state:
// an operator's UNION bytes times the new parallelism (every new subtask reads every old
// subtask's UNION state) over its state bytes. At 10 the restore downloads an order of
// magnitude more than the operator holds.
const UnionAmplificationThreshold = 10

// unionBytes gives the bytes of an operator's UNION operator-state entries (an entry runs from
// its offset to the next offset of the handle, or the stream's end).
func unionBytes(os *model.OperatorState) (union int64) {
	var all []int64 // (one buffer for every handle)
	for _, st := range os.Subtasks {
		if st == nil {
			continue
		}
		for _, l := range [2][]model.OperatorStateHandle{st.ManagedOperatorState, st.RawOperatorState} {
			for k := range l {
				h := &l[k]
				hasUnion := false
				all = all[:0]
				for _, n := range h.States {
					all = append(all, n.Offsets...)
					hasUnion = hasUnion || n.Mode == model.Union && len(n.Offsets) > 0
				}
				if !hasUnion {
					continue
				}
				slices.Sort(all)
				for _, n := range h.States {
					if n.Mode != model.Union {
						continue
					}
					for _, o := range n.Offsets {
						end := h.Delegate.Size
						if i := sort.Search(len(all), func(i int) bool { return all[i] > o }); i < len(all) {
							end = all[i]
						}
						union += max(0, end-o)
					}
				}
			}
		}
	}
	return union
}

// jobVerticesOf gives the model's job vertices of vertices.
func jobVerticesOf(vertices []Vertex) []model.JobVertex {
	out := make([]model.JobVertex, len(vertices))
	for i := range vertices {
		out[i] = vertices[i].JobVertex
	}
	return out
}

// vertexHolding gives the index of the vertex with an operator whose generated or
// user-defined ID is id, or -1.
func vertexHolding(vertices []Vertex, id model.OperatorID) int {
	for i := range vertices {
		if vertices[i].holds(id) {
			return i
		}
	}
	return -1
}

// NonParallelNote is the note on an operator planned in a SourceNonParallel task.
const NonParallelNote = "max parallelism 1: the job runs this operator non-parallel (Flink SQL's singleton operators such as global aggregates and one-writer sinks, or forceNonParallel), so its task stays at parallelism 1 whatever the default (--vertex sets another)"

// hazardNote says what a released version does on a vertex with the max-parallelism adoption
// hazard (model.MaxParallelismHazard: where master refuses), naming the two operators master's
// refusal names, in its order, and the keyed state cut with a foreign key-group count.
func hazardNote(hz *model.MaxParallelismHazard, adopted int) string {
	a, b := hz.Checked[hz.Reference], hz.Checked[hz.Conflict]
	cut := "in this order no keyed state is cut with a foreign key-group count, but another order of the operator IDs would cut one"
	if len(hz.Mismatched) > 0 {
		ids := make([]string, len(hz.Mismatched))
		for j, id := range hz.Mismatched {
			ids[j] = id.String()
		}
		cut = fmt.Sprintf("the keyed state of [%s] is cut with a foreign key-group count", strings.Join(ids, " "))
	}
	return fmt.Sprintf("hazard (known issue %s): the task holds keyed state and its operators %v and %v recorded different max parallelisms (%d and %d), which Flink master refuses (check %s); this version adopts the last one it checks (%d): %s",
		KnownIssueAdoption, a.GeneratedID, b.GeneratedID, a.MaxParallelism, b.MaxParallelism, model.CheckMaxParallelismAgreement, adopted, cut)
}

// KnownIssueAdoption is the JIRA of the max-parallelism adoption hazard (SPEC §F.1): on every
// released version Flink adopts the last differing max parallelism of a chain's states; master
// refuses such a restore of keyed state (SPEC-VERSIONS.md §2.1).
const KnownIssueAdoption = "FLINK-40113"

// unreadableVersionError is Flink v's refusal of metadata format version n, naming the oldest
// modelled release that reads it.
func unreadableVersionError(v model.FlinkVersion, n int32) error {
	msg := fmt.Sprintf("metadata format version %d cannot be read by Flink %v, which reads versions up to %d (\"Unrecognized checkpoint version number: %d\")",
		n, v, v.MetadataReadVersion(), n)
	switch o, ok := model.OldestFlinkReading(n); {
	case ok && o.Released():
		msg += fmt.Sprintf("; Flink %v is the oldest modelled release that reads it", o)
	case ok:
		msg += fmt.Sprintf("; of the modelled versions only Flink %v reads it", o)
	}
	return errors.New(msg)
}

// planRun is the outcome of runRestore.
type planRun struct {
	cc  *model.CompletedCheckpoint
	asg *model.Assignment
	// opErr is the refusal of each metadata operator (nil: its checks pass).
	opErr []*model.RefusalError
}

// runRestore runs the model's restore path (LoadAndValidateCheckpoint, then AssignStates)
// until it passes: each refusal is reported to refuse (the first one is Flink's verdict),
// attributed to the operators it is about, and their state is taken out for the next run, so
// that every operator is judged. In-flight channel state is planned over the assumed edges of
// withChannelPeers. An error means bad input.
func runRestore(opts Options, pointer string, md model.CheckpointMetadata, vertices []Vertex, jobVertices []model.JobVertex,
	refuse func(*model.RefusalError, *model.OperatorID)) (*planRun, error) {
	v := opts.Flink
	n := len(md.Operators)
	active := make([]bool, n)
	for i := range active {
		active[i] = true
	}
	opErr := make([]*model.RefusalError, n)
	jobVertices = withChannelPeers(md, jobVertices, opts.ChannelPartitioner)
	var cc *model.CompletedCheckpoint
	var asg *model.Assignment
	for iter := 0; ; iter++ {
		if iter > 2*n+2 {
			return nil, errors.New("model: internal error: the plan does not converge")
		}
		sub := md
		sub.Operators = nil
		for i := range md.Operators {
			if !active[i] {
				continue
			}
			sub.Operators = append(sub.Operators, md.Operators[i])
		}
		var err error
		cc, err = model.LoadAndValidateCheckpoint(model.LoadInput{Version: v, Metadata: sub, Vertices: jobVertices,
			AllowNonRestoredState: opts.AllowNonRestoredState, Properties: savepointProps(md), ExternalPointer: pointer})
		if err == nil {
			assign := opts.Assign
			if assign == nil {
				assign = model.AssignStates
			}
			asg, err = assign(model.AssignmentInput{Version: v, CheckpointID: cc.CheckpointID, Vertices: jobVertices,
				Operators: cc.Operators, AllowNonRestoredState: opts.AllowNonRestoredState})
		}
		if err == nil {
			break
		}
		if errors.Is(err, model.ErrInvalidRestoreInput) || errors.Is(err, model.ErrUnknownFlinkVersion) {
			return nil, err
		}
		r := refusalOf(err)
		culprits := attributeRefusal(r, md.Operators, active, vertices)
		var named *model.OperatorID
		switch {
		case r.Check == model.CheckMaxParallelismAgreement:
			named = &r.OperatorID // a refused vertex's keyed state
		case len(culprits) > 0:
			id := md.Operators[culprits[0]].OperatorID
			named = &id
		}
		refuse(r, named)
		if len(culprits) == 0 || mutant.On(mutant.PlanRefusalEndsPlan) {
			// Not attributable to an operator: every remaining operator is left unjudged.
			for i := range active {
				if active[i] {
					opErr[i] = r
					active[i] = false
				}
			}
			continue
		}
		for _, i := range culprits {
			opErr[i] = r
			active[i] = false
		}
	}
	return &planRun{cc: cc, asg: asg, opErr: opErr}, nil
}

// savepointProps gives the restored checkpoint's properties (only informative here).
func savepointProps(md model.CheckpointMetadata) model.CheckpointProperties {
	if md.Properties != nil {
		return *md.Properties
	}
	return model.CheckpointProperties{Savepoint: true, Forced: true}
}

// vertexHolds reports whether one of v's operators has id as its generated or user-defined ID.
func vertexHolds(v *model.JobVertex, id model.OperatorID) bool {
	for _, op := range v.Operators {
		if op.ID == id || (op.UserDefinedID != nil && *op.UserDefinedID == id) {
			return true
		}
	}
	return false
}

func hasChannelState(os *model.OperatorState) bool { return countChannelHandles(os) > 0 }

func countChannelHandles(os *model.OperatorState) int {
	n := 0
	for _, st := range os.Subtasks {
		if st != nil {
			n += len(st.InputChannelState) + len(st.ResultSubpartitionState)
		}
	}
	return n
}

// refusalOf gives the typed refusal of a restore path error (a bare error, which the model
// does not return, counts as a refusal of the check restore that names no operator).
func refusalOf(err error) *model.RefusalError {
	var rf *model.RefusalError
	if errors.As(err, &rf) {
		return rf
	}
	return &model.RefusalError{Check: model.CheckRestore, Err: err}
}

// attributeRefusal finds the active metadata operators a refusal is about: for
// max-parallelism-out-of-bounds those whose state has the max parallelism it names, for a
// refusal of a vertex (mixed-finished-operators, max-parallelism-agreement, or one without an
// operator) the operators of that vertex, else the operator it names.
func attributeRefusal(rf *model.RefusalError, ops []model.OperatorState, active []bool, vertices []Vertex) []int {
	byID := func(id model.OperatorID) []int {
		for i := range ops {
			if active[i] && ops[i].OperatorID == id {
				return []int{i}
			}
		}
		// A generated ID whose state was stored under the operator's user-defined ID.
		for _, vx := range vertices {
			for _, op := range vx.Operators {
				if op.ID == id && op.UserDefinedID != nil {
					for i := range ops {
						if active[i] && ops[i].OperatorID == *op.UserDefinedID {
							return []int{i}
						}
					}
				}
			}
		}
		return nil
	}
	ofVertex := func(name string) []int {
		var out []int
		for vi := range vertices {
			if vertices[vi].Name != name {
				continue
			}
			for i := range ops {
				if !active[i] {
					continue
				}
				for _, op := range vertices[vi].Operators {
					if ops[i].OperatorID == op.ID || op.UserDefinedID != nil && ops[i].OperatorID == *op.UserDefinedID {
						out = append(out, i)
						break
					}
				}
			}
			break
		}
		return out
	}
	var bounds *model.MaxParallelismOutOfBoundsError
	switch {
	case rf.Check == model.CheckMaxParallelismOutOfBounds && errors.As(rf, &bounds):
		var out []int
		for i := range ops {
			if active[i] && ops[i].MaxParallelism == bounds.MaxParallelism {
				out = append(out, i)
			}
		}
		return out
	case rf.Check == model.CheckMixedFinishedOperators, rf.Check == model.CheckMaxParallelismAgreement, !rf.HasOperator && rf.Vertex != "":
		return ofVertex(rf.Vertex)
	case rf.HasOperator:
		return byID(rf.OperatorID)
	}
	return nil
}
