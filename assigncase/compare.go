package assigncase

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/restoresim/restoresim/model"
)

// Difference is one field where two answers differ: its JSON path (e.g.
// "vertices[1].subtasks[2].operators[0].state.managed_operator_state[0].states[1].offsets") and
// both values as JSON ("absent" for a field one side does not have).
type Difference struct {
	Path         string
	Model, Flink string
}

// String gives "path: model X, flink Y".
func (d Difference) String() string {
	return d.Path + ": model " + d.Model + ", flink " + d.Flink
}

// Compare lists where the model's answer differs from Flink's, field by field, in a fixed
// order (the answers' own), with ASSIGN-CASE.md's conventions:
//
//   - vertices are compared in input order, lists in order (Flink's order is the truth:
//     handles per subtask, states per handle, entries, channel handles);
//   - the state_handle_id of a keyed handle is compared only where the model's answer has one
//     (the case gave it; else Flink makes a random one), likewise an incremental handle's
//     checkpointed_size;
//   - file paths are compared as Flink's Path prints them ("file:///x" is "file:/x");
//     in-memory handle names as they are;
//   - upstream_output_buffer_state (2.3+) is compared where both carry it; where one does, a
//     non-empty list is a difference;
//   - refusals are compared by stage and exception class, and by kind and operators where both
//     carry them; the message text is not compared (the model words it its own way).
func Compare(m, f Answer) []Difference {
	var c comparer
	switch {
	case m.Error != nil && f.Error != nil:
		c.refusal(m.Error, f.Error)
	case m.Error != nil || f.Error != nil:
		c.add("error", describe(m), describe(f))
	default:
		c.vertices(m.Vertices, f.Vertices)
	}
	return c.out
}

type comparer struct{ out []Difference }

func (c *comparer) add(path, m, f string) {
	c.out = append(c.out, Difference{Path: path, Model: m, Flink: f})
}

// value compares two values by their JSON.
func (c *comparer) value(path string, m, f any) {
	if reflect.DeepEqual(m, f) {
		return
	}
	if jm, jf := render(m), render(f); jm != jf {
		c.add(path, jm, jf)
	}
}

// length compares list lengths; it returns the common one.
func (c *comparer) length(path string, m, f int) int {
	if m != f {
		c.add(path, fmt.Sprintf("%d entries", m), fmt.Sprintf("%d entries", f))
	}
	return min(m, f)
}

func render(v any) string {
	b, err := marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// describe is an answer's side in a difference of kind: its refusal, or "vertices".
func describe(a Answer) string {
	if a.Error != nil {
		return render(a.Error)
	}
	return "vertices (no refusal)"
}

func (c *comparer) refusal(m, f *Refusal) {
	c.value("error.stage", m.Stage, f.Stage)
	c.value("error.class", m.Class, f.Class)
	if m.Kind != nil && f.Kind != nil {
		c.value("error.kind", *m.Kind, *f.Kind)
	}
	if m.Operators != nil && f.Operators != nil {
		c.value("error.operators", *m.Operators, *f.Operators)
	}
}

func (c *comparer) vertices(m, f []AnswerVertex) {
	n := c.length("vertices", len(m), len(f))
	for i := range n {
		p := fmt.Sprintf("vertices[%d]", i)
		mv, fv := &m[i], &f[i]
		c.value(p+".name", mv.Name, fv.Name)
		c.value(p+".parallelism", mv.Parallelism, fv.Parallelism)
		c.value(p+".max_parallelism", mv.MaxParallelism, fv.MaxParallelism)
		ns := c.length(p+".subtasks", len(mv.Subtasks), len(fv.Subtasks))
		for j := range ns {
			q := fmt.Sprintf("%s.subtasks[%d]", p, j)
			ms, fs := mv.Subtasks[j], fv.Subtasks[j]
			if ms == nil || fs == nil {
				if (ms == nil) != (fs == nil) {
					c.add(q, restoreObject(ms), restoreObject(fs))
				}
				continue
			}
			c.value(q+".checkpoint_id", ms.CheckpointID, fs.CheckpointID)
			c.value(q+".deployed_as_finished", ms.DeployedAsFinished, fs.DeployedAsFinished)
			no := c.length(q+".operators", len(ms.Operators), len(fs.Operators))
			for k := range no {
				r := fmt.Sprintf("%s.operators[%d]", q, k)
				c.value(r+".operator_id", ms.Operators[k].OperatorID, fs.Operators[k].OperatorID)
				c.state(r+".state", &ms.Operators[k].State, &fs.Operators[k].State)
			}
		}
	}
}

func restoreObject(s *AnswerSubtask) string {
	if s == nil {
		return "null"
	}
	return "a restore object"
}

func (c *comparer) state(p string, m, f *SubtaskState) {
	c.operatorHandles(p+".managed_operator_state", m.ManagedOperatorState, f.ManagedOperatorState)
	c.operatorHandles(p+".raw_operator_state", m.RawOperatorState, f.RawOperatorState)
	c.keyedHandles(p+".managed_keyed_state", m.ManagedKeyedState, f.ManagedKeyedState)
	c.keyedHandles(p+".raw_keyed_state", m.RawKeyedState, f.RawKeyedState)
	c.channelHandles(p+".input_channel_state", m.InputChannelState, f.InputChannelState)
	c.channelHandles(p+".result_subpartition_state", m.ResultSubpartitionState, f.ResultSubpartitionState)
	mu, fu := m.UpstreamOutputBufferState, f.UpstreamOutputBufferState
	switch {
	case mu != nil && fu != nil:
		c.channelHandles(p+".upstream_output_buffer_state", *mu, *fu)
	case mu != nil && len(*mu) > 0:
		c.add(p+".upstream_output_buffer_state", render(*mu), "absent")
	case fu != nil && len(*fu) > 0:
		c.add(p+".upstream_output_buffer_state", "absent", render(*fu))
	}
	c.descriptor(p+".input_rescaling_descriptor", m.InputRescalingDescriptor, f.InputRescalingDescriptor)
	c.descriptor(p+".output_rescaling_descriptor", m.OutputRescalingDescriptor, f.OutputRescalingDescriptor)
}

func (c *comparer) stream(p string, m, f *Stream) {
	if m == nil || f == nil {
		if (m == nil) != (f == nil) {
			c.add(p, renderOpt(m), renderOpt(f))
		}
		return
	}
	c.value(p+".path", comparablePath(m), comparablePath(f))
	c.value(p+".size", m.Size, f.Size)
	c.value(p+".in_memory", flag(m.InMemory), flag(f.InMemory))
	c.value(p+".relative", flag(m.Relative), flag(f.Relative))
	c.value(p+".relative_path", m.RelativePath, f.RelativePath)
}

// comparablePath is a file's path as Flink's Path prints it (as given when Path refuses it), an
// in-memory handle's name as it is.
func comparablePath(s *Stream) string {
	if flag(s.InMemory) {
		return s.Path
	}
	if p, err := model.NormalizeFlinkPath(s.Path); err == nil {
		return p
	}
	return s.Path
}

func flag(b *bool) bool { return b != nil && *b }

func renderOpt[T any](v *T) string {
	if v == nil {
		return "absent"
	}
	return render(*v)
}

func (c *comparer) operatorHandles(p string, m, f []OperatorStateHandle) {
	n := c.length(p, len(m), len(f))
	for k := range n {
		q := fmt.Sprintf("%s[%d]", p, k)
		c.stream(q+".delegate", &m[k].Delegate, &f[k].Delegate)
		ns := c.length(q+".states", len(m[k].States), len(f[k].States))
		for s := range ns {
			r := fmt.Sprintf("%s.states[%d]", q, s)
			ms, fs := m[k].States[s], f[k].States[s]
			c.value(r+".name", ms.Name, fs.Name)
			c.value(r+".mode", ms.Mode, fs.Mode)
			c.value(r+".offsets", offsetsOf(ms.Offsets), offsetsOf(fs.Offsets))
		}
	}
}

func (c *comparer) keyedHandles(p string, m, f []KeyedHandle) {
	n := c.length(p, len(m), len(f))
	for k := range n {
		q := fmt.Sprintf("%s[%d]", p, k)
		mh, fh := &m[k], &f[k]
		c.value(q+".type", mh.Type, fh.Type)
		if mh.Type != fh.Type {
			continue
		}
		if mh.KeyGroups != nil && fh.KeyGroups != nil {
			c.value(q+".key_groups.range", mh.KeyGroups.Range, fh.KeyGroups.Range)
			c.value(q+".key_groups.offsets", offsetsOf(mh.KeyGroups.Offsets), offsetsOf(fh.KeyGroups.Offsets))
		} else if (mh.KeyGroups == nil) != (fh.KeyGroups == nil) {
			c.add(q+".key_groups", renderOpt(mh.KeyGroups), renderOpt(fh.KeyGroups))
		}
		c.stream(q+".delegate", mh.Delegate, fh.Delegate)
		c.value(q+".backend_id", mh.BackendID, fh.BackendID)
		c.value(q+".key_group_range", mh.KeyGroupRange, fh.KeyGroupRange)
		c.value(q+".checkpoint_id", mh.CheckpointID, fh.CheckpointID)
		c.sharedFiles(q+".shared", mh.Shared, fh.Shared)
		c.sharedFiles(q+".private", mh.Private, fh.Private)
		c.stream(q+".meta", mh.Meta, fh.Meta)
		if mh.CheckpointedSize != nil {
			c.value(q+".checkpointed_size", mh.CheckpointedSize, fh.CheckpointedSize)
		}
		if mh.StateHandleID != nil {
			c.value(q+".state_handle_id", mh.StateHandleID, fh.StateHandleID)
		}
	}
}

func (c *comparer) sharedFiles(p string, m, f *[]SharedFile) {
	if m == nil || f == nil {
		if (m == nil) != (f == nil) {
			c.add(p, renderOpt(m), renderOpt(f))
		}
		return
	}
	n := c.length(p, len(*m), len(*f))
	for k := range n {
		q := fmt.Sprintf("%s[%d]", p, k)
		c.value(q+".local_path", (*m)[k].LocalPath, (*f)[k].LocalPath)
		c.stream(q+".handle", &(*m)[k].Handle, &(*f)[k].Handle)
	}
}

func (c *comparer) channelHandles(p string, m, f []ChannelHandle) {
	n := c.length(p, len(m), len(f))
	for k := range n {
		q := fmt.Sprintf("%s[%d]", p, k)
		mh, fh := &m[k], &f[k]
		c.value(q+".subtask_index", mh.SubtaskIndex, fh.SubtaskIndex)
		c.value(q+".gate_or_partition", mh.GateOrPartition, fh.GateOrPartition)
		c.value(q+".channel", mh.Channel, fh.Channel)
		c.value(q+".offsets", offsetsOf(mh.Offsets), offsetsOf(fh.Offsets))
		c.value(q+".state_size", mh.StateSize, fh.StateSize)
		c.stream(q+".delegate", &mh.Delegate, &fh.Delegate)
	}
}

func (c *comparer) descriptor(p string, m, f *Descriptor) {
	if m == nil || f == nil {
		if (m == nil) != (f == nil) {
			c.add(p, renderOpt(m), renderOpt(f))
		}
		return
	}
	n := c.length(p+".gates_or_partitions", len(m.GatesOrPartitions), len(f.GatesOrPartitions))
	for k := range n {
		q := fmt.Sprintf("%s.gates_or_partitions[%d]", p, k)
		mg, fg := &m.GatesOrPartitions[k], &f.GatesOrPartitions[k]
		c.value(q+".no_state", flag(mg.NoState), flag(fg.NoState))
		c.value(q+".old_subtask_indexes", mg.OldSubtaskIndexes, fg.OldSubtaskIndexes)
		if mg.RescaledChannelsMappings != nil && fg.RescaledChannelsMappings != nil {
			mm, fm := mg.RescaledChannelsMappings, fg.RescaledChannelsMappings
			r := q + ".rescaled_channels_mappings"
			c.value(r+".identity", mm.Identity, fm.Identity)
			c.value(r+".number_of_sources", mm.NumberOfSources, fm.NumberOfSources)
			c.value(r+".number_of_targets", mm.NumberOfTargets, fm.NumberOfTargets)
			c.value(r+".mappings", mm.Mappings, fm.Mappings)
		} else {
			c.value(q+".rescaled_channels_mappings", mg.RescaledChannelsMappings, fg.RescaledChannelsMappings)
		}
		c.value(q+".ambiguous_subtask_indexes", sortedInts(mg.AmbiguousSubtaskIndexes), sortedInts(fg.AmbiguousSubtaskIndexes))
		c.value(q+".mapping_type", mg.MappingType, fg.MappingType)
	}
}

// sortedInts sorts a copy (the format gives ambiguous_subtask_indexes sorted).
func sortedInts(xs *[]int) *[]int {
	if xs == nil {
		return nil
	}
	s := slices.Clone(*xs)
	slices.Sort(s)
	return &s
}
