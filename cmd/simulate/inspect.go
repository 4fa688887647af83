package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/restoresim/restoresim/internal/cliflags"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
	"github.com/restoresim/restoresim/model/savepoint"
)

func init() {
	register(&command{name: "inspect", summary: "decode a Flink _metadata file (format v2–v7) as a tree or JSON", run: runInspect})
}

func runInspect(e *env, args []string) int {
	fset := cliflags.New("inspect", "inspect PATH [--format text|json] [--uid NAME]... [--uids FILE]",
		`Decodes a Flink checkpoint/savepoint metadata file (format versions 2 to 7: Flink 1.3 to 2.x)
and prints it. PATH is the _metadata file or a checkpoint directory holding one (any existing file
is taken as the metadata file). The text form is a tree with state sizes per operator, subtask,
handle and key group; the JSON form lists every operator and subtask with its operator-state
names, modes and offsets and its keyed-state handles. A damaged file is reported on one line
naming the byte offset and the field; format version 1 (Flink 1.2) is refused.

Operators print with the name and uid the file stores (format version 5+). --uid NAME
(repeatable) and --uids FILE (the uid,operator_id lines of 'simulate uid', or one uid per line)
name the operators whose ID is the hash of a uid (JSON: "uid"); uids that match no operator are
ignored.`)
	format := fset.String("format", "text", "output format: text or json")
	var uf uidFlags
	uf.register(fset)
	pos, done, code := e.parseFlags(fset, args)
	if done {
		return code
	}
	if *format != "text" && *format != "json" {
		return e.failf("inspect", "unknown --format %q (want text or json)", *format)
	}
	if len(pos) != 1 {
		return e.failf("inspect", "want exactly one PATH (a _metadata file or a checkpoint directory), got %d arguments", len(pos))
	}
	if slices.Contains(uf.files, stdinName) && pos[0] == stdinName {
		return e.failf("inspect", "--uids - and PATH - both read stdin: give one of them as a file")
	}
	uids, err := uf.load(e)
	if err != nil {
		return e.failf("inspect", "%v", err)
	}
	sp, err := openSavepoint(e, pos[0])
	if err != nil {
		return e.failf("inspect", "%v", err)
	}
	path, f := sp.Path, sp.File
	uids.Label(f)
	var out bytes.Buffer
	if *format == "json" {
		b, err := json.MarshalIndent(savepoint.Summarize(f), "", "  ")
		if err != nil {
			return e.failf("inspect", "encoding JSON: %v", err)
		}
		out.Write(b)
		out.WriteByte('\n')
	} else {
		writeInspectText(&out, path, f)
	}
	return writeOut(e, "inspect", out.Bytes())
}

// Text form.

func writeInspectText(w *bytes.Buffer, path string, f *metadata.File) {
	j := savepoint.Summarize(f)
	fmt.Fprintf(w, "%s: format version %d (%s), checkpoint %d, %d operators, %d state bytes\n",
		path, f.Version, savepoint.WrittenBy(f.Version), f.CheckpointID, len(f.Operators), j.StateBytes)
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
		for _, s := range savepoint.SubtasksByIndex(op) {
			if s.Finished {
				fmt.Fprintf(w, "  subtask %d: finished\n", s.Index)
				continue
			}
			fmt.Fprintf(w, "  subtask %d: %d state bytes\n", s.Index, savepoint.SubtaskBytes(s))
			writeOperatorHandleText(w, "managed operator state", s.ManagedOperatorState)
			writeOperatorHandleText(w, "raw operator state", s.RawOperatorState)
			writeKeyedText(w, "managed keyed state", s.ManagedKeyedState, "    ")
			writeKeyedText(w, "raw keyed state", s.RawKeyedState, "    ")
			if n := len(s.InputChannels) + len(s.OutputChannels); n > 0 {
				fmt.Fprintf(w, "    channel state: %d input, %d output handles\n", len(s.InputChannels), len(s.OutputChannels))
			}
		}
	}
}

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

func writeOperatorHandleText(w *bytes.Buffer, kind string, h *metadata.OperatorHandle) {
	if h == nil || h.Tag == metadata.TagNull {
		return
	}
	fmt.Fprintf(w, "    %s: %s, %d states, in %s\n", kind, h.ClassName(), len(h.States), describeStream(h.Delegate))
	for _, s := range h.States {
		fmt.Fprintf(w, "      %q %s: %d entries, offsets %v\n", s.Name, s.ModeName(), len(s.Offsets), s.Offsets)
	}
}

func writeKeyedText(w *bytes.Buffer, kind string, h metadata.KeyedHandle, indent string) {
	if h == nil {
		return
	}
	start, num := savepoint.KeyGroups(h)
	r := model.KeyGroupRange{Start: int(start), End: int(start) + int(num) - 1}
	fmt.Fprintf(w, "%s%s: %s, key groups %d..%d, %d bytes\n", indent, kind, h.ClassName(), r.Start, r.End, savepoint.KeyedBytes(h))
	switch h := h.(type) {
	case *metadata.KeyGroupsHandle:
		fmt.Fprintf(w, "%s  in %s\n", indent, describeStream(h.Delegate))
		if sizes, ok := h.KeyGroupSizes(); ok && len(sizes) > 0 {
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
