package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
)

func init() {
	register(&command{name: "inspect", summary: "decode a Flink _metadata file (format v2–v7) as a tree or JSON", run: runInspect})
}

// metadataFileName is the metadata file inside a checkpoint directory
// (AbstractFsCheckpointStorageAccess.METADATA_FILE_NAME).
const metadataFileName = "_metadata"

// resolveMetadataPath models the file-system part of resolveCheckpointPointer (SPEC §I): a
// directory means <dir>/_metadata, which must exist; any existing file is the metadata file.
func resolveMetadataPath(p string) (string, error) {
	fi, err := os.Stat(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%s: no such file or directory", p)
		}
		return "", err
	}
	if !fi.IsDir() {
		return p, nil
	}
	m := filepath.Join(p, metadataFileName)
	fi, err = os.Stat(m)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("cannot find meta data file '%s' in directory '%s'; please try to load the checkpoint/savepoint directly from the metadata file instead of the directory", metadataFileName, p)
	case err != nil:
		return "", err
	case fi.IsDir():
		return "", fmt.Errorf("%s is a directory, not a metadata file", m)
	}
	return m, nil
}

func runInspect(e *env, args []string) int {
	fset := newFlags("inspect", "inspect PATH [--format text|json]",
		`Decodes a Flink checkpoint/savepoint metadata file (format versions 2 to 7: Flink 1.3 to 2.x)
and prints it. PATH is the _metadata file or a checkpoint directory holding one (any existing file
is taken as the metadata file). The text form is a tree with state sizes per operator, subtask,
handle and key group; the JSON form lists every operator and subtask with its operator-state
names, modes and offsets and its keyed-state handles. A damaged file is reported on one line
naming the byte offset and the field; format version 1 (Flink 1.2) is refused.`)
	format := fset.String("format", "text", "output format: text or json")
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
	path, fh, err := openMetadata(e, pos[0])
	if err != nil {
		return e.failf("inspect", "%v", err)
	}
	f, err := metadata.ReadFrom(fh, metadata.DefaultMaxFileSize)
	fh.Close()
	if err != nil {
		return e.failf("inspect", "%s: %v", path, err)
	}
	var out bytes.Buffer
	if *format == "json" {
		b, err := json.MarshalIndent(inspectJSONOf(f), "", "  ")
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

// JSON form. Lists are never null; coordinator_state_bytes is null when there is none; offsets
// appear only on key-groups handles.

type inspectFile struct {
	Version      int32             `json:"version"`
	CheckpointID int64             `json:"checkpoint_id"`
	StateBytes   int64             `json:"state_bytes"`
	MasterStates []inspectMaster   `json:"master_states"`
	Properties   *inspectProps     `json:"properties"`
	Operators    []inspectOperator `json:"operators"`
}

type inspectMaster struct {
	Name    string `json:"name"`
	Version int32  `json:"version"`
	Bytes   int    `json:"bytes"`
}

type inspectProps struct {
	Type                 string `json:"type"` // CheckpointType or SavepointType
	Name                 string `json:"name"`
	Sharing              string `json:"sharing_files_strategy,omitempty"`
	Format               string `json:"format,omitempty"`
	PostCheckpointAction string `json:"post_checkpoint_action,omitempty"`
	Forced               bool   `json:"forced"`
	Unclaimed            bool   `json:"unclaimed"`
	DiscardSubsumed      bool   `json:"discard_subsumed"`
	DiscardFinished      bool   `json:"discard_finished"`
	DiscardCancelled     bool   `json:"discard_cancelled"`
	DiscardFailed        bool   `json:"discard_failed"`
	DiscardSuspended     bool   `json:"discard_suspended"`
}

type inspectOperator struct {
	OperatorID            string           `json:"operator_id"`
	Name                  string           `json:"name,omitempty"`
	UID                   string           `json:"uid,omitempty"`
	Parallelism           int32            `json:"parallelism"`
	MaxParallelism        int32            `json:"max_parallelism"`
	CoordinatorStateBytes *int             `json:"coordinator_state_bytes"`
	FullyFinished         bool             `json:"fully_finished"`
	StateBytes            int64            `json:"state_bytes"`
	Subtasks              []inspectSubtask `json:"subtasks"`
}

type inspectSubtask struct {
	Index                   int32            `json:"index"`
	Finished                bool             `json:"finished"`
	StateBytes              int64            `json:"state_bytes"`
	ManagedOperatorState    [][]inspectState `json:"managed_operator_state"`
	RawOperatorState        [][]inspectState `json:"raw_operator_state"`
	ManagedKeyedState       []inspectKeyed   `json:"managed_keyed_state"`
	RawKeyedState           []inspectKeyed   `json:"raw_keyed_state"`
	InputChannelState       int              `json:"input_channel_handles"`
	ResultSubpartitionState int              `json:"result_subpartition_handles"`
}

type inspectState struct {
	Name    string  `json:"name"`
	Mode    string  `json:"mode"`
	Offsets []int64 `json:"offsets"`
}

type inspectKeyed struct {
	Type       string   `json:"type"`
	Tag        byte     `json:"tag"`
	Start      int64    `json:"start"`
	End        int64    `json:"end"`
	StateBytes int64    `json:"state_bytes"`
	Offsets    *[]int64 `json:"offsets,omitempty"`
}

func inspectJSONOf(f *metadata.File) inspectFile {
	out := inspectFile{Version: f.Version, CheckpointID: f.CheckpointID, MasterStates: []inspectMaster{}, Operators: []inspectOperator{}}
	for _, m := range f.MasterStates {
		out.MasterStates = append(out.MasterStates, inspectMaster{Name: m.Name, Version: m.Version, Bytes: len(m.Data)})
	}
	if p := f.Properties; p != nil {
		ip := &inspectProps{Type: "CheckpointType", Name: p.TypeName, Sharing: p.Sharing, Forced: p.Forced, Unclaimed: p.Unclaimed,
			DiscardSubsumed: p.DiscardSubsumed, DiscardFinished: p.DiscardFinished, DiscardCancelled: p.DiscardCancelled,
			DiscardFailed: p.DiscardFailed, DiscardSuspended: p.DiscardSuspended}
		if p.Savepoint {
			ip.Type, ip.Format, ip.PostCheckpointAction = "SavepointType", p.Format, p.PostCheckpointAction
		}
		out.Properties = ip
	}
	for i := range f.Operators {
		op := &f.Operators[i]
		io := inspectOperator{OperatorID: op.ID.String(), Name: op.Name, UID: op.UID, Parallelism: op.Parallelism,
			MaxParallelism: op.MaxParallelism, FullyFinished: op.FullyFinished, Subtasks: []inspectSubtask{}}
		if op.CoordinatorState != nil {
			n := int(op.CoordinatorState.StateSize())
			io.CoordinatorStateBytes = &n
			io.StateBytes += int64(n)
		}
		for _, s := range subtasksByIndex(op) {
			is := inspectSubtask{Index: s.Index, Finished: s.Finished, StateBytes: subtaskBytes(s),
				ManagedOperatorState: operatorStatesJSON(s.ManagedOperatorState), RawOperatorState: operatorStatesJSON(s.RawOperatorState),
				ManagedKeyedState: keyedJSON(s.ManagedKeyedState), RawKeyedState: keyedJSON(s.RawKeyedState),
				InputChannelState: len(s.InputChannels), ResultSubpartitionState: len(s.OutputChannels)}
			io.StateBytes += is.StateBytes
			io.Subtasks = append(io.Subtasks, is)
		}
		out.StateBytes += io.StateBytes
		out.Operators = append(out.Operators, io)
	}
	return out
}

// subtasksByIndex lists an operator's subtask entries by subtask index (file order among equal
// indexes).
func subtasksByIndex(op *metadata.Operator) []*metadata.Subtask {
	v := make([]*metadata.Subtask, len(op.Subtasks))
	for i := range op.Subtasks {
		v[i] = &op.Subtasks[i]
	}
	sort.SliceStable(v, func(i, j int) bool { return v[i].Index < v[j].Index })
	return v
}

// operatorStatesJSON gives one inner list per (non-null) handle, states in file order.
func operatorStatesJSON(h *metadata.OperatorHandle) [][]inspectState {
	out := [][]inspectState{}
	if h == nil || h.Tag == metadata.TagNull {
		return out
	}
	states := []inspectState{}
	for _, s := range h.States {
		off := s.Offsets
		if off == nil {
			off = []int64{}
		}
		states = append(states, inspectState{Name: s.Name, Mode: s.ModeName(), Offsets: off})
	}
	return append(out, states)
}

func keyedJSON(h metadata.KeyedHandle) []inspectKeyed {
	out := []inspectKeyed{}
	if h == nil {
		return out
	}
	start, num := keyedStartNum(h)
	k := inspectKeyed{Type: h.ClassName(), Tag: h.HandleTag(), Start: int64(start), End: int64(start) + int64(num) - 1, StateBytes: keyedBytes(h)}
	if kg, ok := h.(*metadata.KeyGroupsHandle); ok {
		off := kg.Offsets
		if off == nil {
			off = []int64{}
		}
		k.Offsets = &off
	}
	return append(out, k)
}

// keyedStartNum gives the start key group and key-group count as written in the file.
func keyedStartNum(h metadata.KeyedHandle) (int32, int32) {
	switch h := h.(type) {
	case *metadata.KeyGroupsHandle:
		return h.StartKeyGroup, int32(len(h.Offsets))
	case *metadata.IncrementalHandle:
		return h.StartKeyGroup, h.NumKeyGroups
	case *metadata.ChangelogBackendHandle:
		return h.StartKeyGroup, h.NumKeyGroups
	case *metadata.InMemoryChangelogHandle:
		return h.StartKeyGroup, h.NumKeyGroups
	case *metadata.ChangelogStreamHandle:
		return h.StartKeyGroup, h.NumKeyGroups
	}
	return 0, 0
}

func keyedBytes(h metadata.KeyedHandle) int64 {
	if m := metadata.KeyedModel(h); m != nil {
		return m.StateSize()
	}
	return 0
}

func operatorHandleBytes(h *metadata.OperatorHandle) int64 {
	if h == nil {
		return 0
	}
	return h.Delegate.StateSize()
}

func subtaskBytes(s *metadata.Subtask) int64 {
	n := operatorHandleBytes(s.ManagedOperatorState) + operatorHandleBytes(s.RawOperatorState) +
		keyedBytes(s.ManagedKeyedState) + keyedBytes(s.RawKeyedState)
	for _, c := range s.InputChannels {
		n += c.Delegate.StateSize()
	}
	for _, c := range s.OutputChannels {
		n += c.Delegate.StateSize()
	}
	return n
}

// Text form.

func writeInspectText(w *bytes.Buffer, path string, f *metadata.File) {
	j := inspectJSONOf(f)
	fmt.Fprintf(w, "%s: format version %d (%s), checkpoint %d, %d operators, %d state bytes\n",
		path, f.Version, writtenBy(f.Version), f.CheckpointID, len(f.Operators), j.StateBytes)
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
		for _, s := range subtasksByIndex(op) {
			if s.Finished {
				fmt.Fprintf(w, "  subtask %d: finished\n", s.Index)
				continue
			}
			fmt.Fprintf(w, "  subtask %d: %d state bytes\n", s.Index, subtaskBytes(s))
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

// writtenBy names the Flink releases that write a format version (FORMAT.md §3).
func writtenBy(v int32) string {
	switch v {
	case 2:
		return "Flink 1.3–1.10"
	case 3:
		return "Flink 1.11–1.15"
	case 4:
		return "Flink 1.16–1.19"
	case 5:
		return "Flink 2.0–2.1"
	}
	return "Flink 2.x"
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
	start, num := keyedStartNum(h)
	r := model.KeyGroupRange{Start: int(start), End: int(start) + int(num) - 1}
	fmt.Fprintf(w, "%s%s: %s, key groups %d..%d, %d bytes\n", indent, kind, h.ClassName(), r.Start, r.End, keyedBytes(h))
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
