package savepoint

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
)

// WriteText writes the inspection tree, what `simulate inspect` prints: a line with the format
// version, the Flink releases that write it (WrittenBy), the checkpoint ID, the operators and the
// state bytes; the checkpoint's properties and master states; then per operator (file order)
// its name and uid, parallelisms and bytes, and per subtask (by index) its operator-state
// handles with their states and offsets, its keyed-state handles with their key groups and
// bytes (per key group for a key-groups handle) and its channel-state handle counts. The text is
// built in memory and written with one Write, whose error it returns. A Savepoint without File
// (a format version no modelled Flink reads) gives its Unreadable error and writes nothing.
func (sp *Savepoint) WriteText(out io.Writer) error {
	if sp.File == nil {
		return sp.Unreadable
	}
	w := &bytes.Buffer{}
	path, f := sp.Path, sp.File
	j := Summarize(f)
	fmt.Fprintf(w, "%s: format version %d (%s), checkpoint %d, %d operators, %d state bytes\n",
		path, f.Version, WrittenBy(f.Version), f.CheckpointID, len(f.Operators), j.StateBytes)
	if p := f.Properties; p != nil {
		kind := fmt.Sprintf("checkpoint %q, sharing %s", p.TypeName, p.Sharing)
		if p.Savepoint {
			kind = fmt.Sprintf("savepoint %q, format %s, then %s", p.TypeName, p.Format, p.PostCheckpointAction)
		}
		var discard []string
		for _, d := range []struct {
			on   bool
			name string
		}{{p.DiscardSubsumed, "subsumed"}, {p.DiscardFinished, "finished"}, {p.DiscardCancelled, "cancelled"}, {p.DiscardFailed, "failed"}, {p.DiscardSuspended, "suspended"}} {
			if d.on {
				discard = append(discard, d.name)
			}
		}
		if len(discard) == 0 {
			discard = []string{"never"}
		}
		fmt.Fprintf(w, "properties: %s; forced %v, unclaimed %v; discarded when %s\n", kind, p.Forced, p.Unclaimed, strings.Join(discard, ", "))
	} else if f.Version >= 4 {
		fmt.Fprintf(w, "properties: null, as the State Processor API writes them (restored as a savepoint)\n")
	}
	for _, m := range f.MasterStates {
		fmt.Fprintf(w, "master state %q version %d: %d bytes\n", m.Name, m.Version, len(m.Data))
	}
	for i := range f.Operators {
		op := &f.Operators[i]
		jo := j.Operators[i]
		fmt.Fprintf(w, "operator %s", op.ID)
		if op.Name != "" {
			fmt.Fprintf(w, " %q", op.Name)
		}
		if op.UID != "" {
			fmt.Fprintf(w, " uid %q", op.UID)
		}
		fmt.Fprintf(w, ": parallelism %d, max parallelism %d, %d subtask entries, %d state bytes\n",
			op.Parallelism, op.MaxParallelism, len(op.Subtasks), jo.StateBytes)
		if op.CoordinatorState != nil {
			fmt.Fprintf(w, "  coordinator state: %d bytes\n", op.CoordinatorState.StateSize())
		}
		if op.FullyFinished {
			fmt.Fprintf(w, "  fully finished\n")
		}
		for _, s := range SubtasksByIndex(op) {
			if s.Finished {
				fmt.Fprintf(w, "  subtask %d: finished\n", s.Index)
				continue
			}
			fmt.Fprintf(w, "  subtask %d: %d state bytes\n", s.Index, SubtaskBytes(s))
			writeOperatorHandleText(w, "managed operator state", s.ManagedOperatorState)
			writeOperatorHandleText(w, "raw operator state", s.RawOperatorState)
			writeKeyedText(w, "managed keyed state", s.ManagedKeyedState, "    ")
			writeKeyedText(w, "raw keyed state", s.RawKeyedState, "    ")
			if n := len(s.InputChannels) + len(s.OutputChannels); n > 0 {
				fmt.Fprintf(w, "    channel state: %d input, %d output handles\n", len(s.InputChannels), len(s.OutputChannels))
			}
		}
	}
	_, err := out.Write(w.Bytes())
	return err
}

// describeStream names a stream handle: its class, and its path or inline bytes.
func describeStream(h *metadata.StreamHandle) string {
	if h == nil {
		return "null"
	}
	switch h.Tag {
	case metadata.TagByteStream:
		return fmt.Sprintf("%s %d bytes inline", h.ClassName(), len(h.Data))
	case metadata.TagEmptySegmentFile:
		return h.ClassName()
	case metadata.TagKeyGroups:
		return fmt.Sprintf("%s %d bytes", h.ClassName(), h.StateSize())
	}
	return fmt.Sprintf("%s %q %d bytes", h.ClassName(), h.Path, h.Size)
}

// writeOperatorHandleText writes an operator-state handle and its states (nothing for none).
func writeOperatorHandleText(w *bytes.Buffer, kind string, h *metadata.OperatorHandle) {
	if h == nil || h.Tag == metadata.TagNull {
		return
	}
	fmt.Fprintf(w, "    %s: %s, %d states, in %s\n", kind, h.ClassName(), len(h.States), describeStream(h.Delegate))
	for _, s := range h.States {
		fmt.Fprintf(w, "      %q %s: %d entries, offsets %v\n", s.Name, s.ModeName(), len(s.Offsets), s.Offsets)
	}
}

// writeKeyedText writes a keyed-state handle, a changelog handle's parts nested below it.
func writeKeyedText(w *bytes.Buffer, kind string, h metadata.KeyedHandle, indent string) {
	if h == nil {
		return
	}
	start, num := KeyGroups(h)
	r := model.KeyGroupRange{Start: int(start), End: int(start) + int(num) - 1}
	fmt.Fprintf(w, "%s%s: %s, key groups %d..%d, %d bytes\n", indent, kind, h.ClassName(), r.Start, r.End, KeyedBytes(h))
	switch h := h.(type) {
	case *metadata.KeyGroupsHandle:
		fmt.Fprintf(w, "%s  in %s\n", indent, describeStream(h.Delegate))
		if sizes := h.KeyGroupBytes(); len(sizes) > 0 {
			fmt.Fprintf(w, "%s  bytes per key group:", indent)
			for i, n := range sizes {
				if i%10 == 0 {
					fmt.Fprintf(w, "\n%s    %5d:", indent, int(start)+i)
				}
				fmt.Fprintf(w, " %d", n)
			}
			fmt.Fprintln(w)
		}
	case *metadata.IncrementalHandle:
		fmt.Fprintf(w, "%s  checkpoint %d, backend %s, meta %s, %d shared and %d private files\n",
			indent, h.CheckpointID, h.BackendID, describeStream(h.Meta), len(h.Shared), len(h.Private))
	case *metadata.ChangelogBackendHandle:
		for i, m := range h.Materialized {
			writeKeyedText(w, fmt.Sprintf("materialized[%d]", i), m, indent+"  ")
		}
		for i, m := range h.NonMaterialized {
			writeKeyedText(w, fmt.Sprintf("non-materialized[%d]", i), m, indent+"  ")
		}
	}
}
