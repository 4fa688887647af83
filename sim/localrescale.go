package sim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/sim/oracle"
)

// KnownLocalAfterRescale names the hazard of a local copy kept across an in-place rescale (issue
// 30 item 5c), found by this project in Flink's source, not a filed FLINK issue: the
// TaskLocalStateStore is per (allocation, job vertex, subtask index), and
// TaskStateManagerImpl.prioritizedOperatorState offers localStateStore.retrieveLocalState(
// restoreCheckpointId), so after the adaptive scheduler rescales the job in place, new subtask k
// running in the slot that ran old subtask k is offered old subtask k's copy.
// PrioritizedOperatorSubtaskState.Builder approves it for operator state by
// getStateNameToPartitionOffsets equality alone (eqStateApprover), so a new subtask handed
// exactly one handle of another old subtask j, whose name → offsets map equals old subtask k's,
// reads old subtask k's local file instead of j's data. (Keyed state is approved by key-group
// range identity, which is safe.)
const KnownLocalAfterRescale = "local-copy-after-rescale"

// InvLocalRead: a restore after an in-place rescale reads, for some state kind, what the
// oracle's reading of PrioritizedOperatorSubtaskState.Builder says Flink reads (the copy of the
// slot's old subtask where approved, else the JobManager's handles).
const InvLocalRead = "local-read"

// keepLocalAcrossRescale replaces clearLocal at an in-place rescale with local recovery on: the
// adaptive scheduler keeps the job's slots, so the TaskManagers keep their local stores. New
// subtask k of a vertex runs in the slot old subtask k ran in (slot{v, k}: the simulator's
// slot identity is the subtask index, on TaskManager tmOf), and is offered that slot's copy;
// a subtask beyond the old parallelism gets a new slot with an empty store; the slots of old
// subtasks beyond the new parallelism are released with their stores
// (TaskExecutorLocalStateStoresManager.releaseLocalStateForAllocationId; their files stay until
// a confirmed checkpoint prunes their directory, as the directory is shared per TaskManager).
//
// Every copy kept was written at the old parallelisms: until a checkpoint after the rescale
// replaces them, each restore that is offered one (the rescale's, and a failover's before the
// next checkpoint) is checked by checkLocalRead.
func (w *World) keepLocalAcrossRescale() {
	if !w.job.LocalRecovery {
		w.clearLocal()
		return
	}
	for s, ls := range w.local {
		if s.vertex >= w.job.NumVertices() || s.subtask >= w.job.Parallelism(s.vertex) {
			delete(w.local, s)
			continue
		}
		for id := range ls { // the maximum: independent of map order
			w.localRescaledAt = max(w.localRescaledAt, id)
		}
	}
}

// checkLocalRead compares, for subtask i of vertex v offered a local copy written before an
// in-place rescale (at the rescale, or at a failover before the next checkpoint), the
// alternative the model puts first for each state kind (what the task reads) with what the
// oracle says Flink reads, given the JobManager's state and, as the local copy, what old subtask
// i wrote for the restored checkpoint (when the slot's store offered a copy of that checkpoint).
// A mismatch is a local-read violation; an approved copy of other data than the handle it
// replaces marks the step's violations as the known hazard KnownLocalAfterRescale.
func (w *World) checkLocalRead(v, i int, restore *model.TaskRestore, offered *model.TaskLocalSnapshot, id model.OperatorID, p model.PrioritizedOperatorSubtaskState) {
	c := localCheck{slot{v, i}, id}
	if w.localChecked[c] && w.localCheckedAt == w.at {
		return
	}
	if w.localChecked == nil || w.localCheckedAt != w.at {
		w.localChecked, w.localCheckedAt = map[localCheck]bool{}, w.at
	}
	w.localChecked[c] = true
	jm := operatorState(restore, id)
	var written *model.OperatorSubtaskState // what old subtask i wrote: the copy Flink offers
	if offered != nil && offered.CheckpointID == restore.CheckpointID {
		written = w.checkpointSubtask(restore.CheckpointID, id, i)
	}
	if jm == nil {
		jm = &model.OperatorSubtaskState{}
	}
	if written == nil {
		written = &model.OperatorSubtaskState{}
	}
	mixed := w.plan.Version.AtLeast(model.Flink119)
	kinds := []struct {
		name      string
		jm, local []oracle.LocalHandle
		picked    [][]oracle.LocalHandle
	}{
		{"managed operator", describeOp(jm.ManagedOperatorState), describeOp(written.ManagedOperatorState), mapAlts(p.ManagedOperator, describeOp)},
		{"managed keyed", describeKeyed(jm.ManagedKeyedState), describeKeyed(written.ManagedKeyedState), mapAlts(p.ManagedKeyed, describeKeyed)},
		{"raw keyed", describeKeyed(jm.RawKeyedState), describeKeyed(written.RawKeyedState), mapAlts(p.RawKeyed, describeKeyed)},
	}
	for _, k := range kinds {
		want := oracle.ExpectLocalRead(k.jm, k.local, mixed)
		var got []string
		if len(k.picked) > 0 {
			for _, h := range k.picked[0] {
				got = append(got, h.Stream)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want.Streams) {
			w.violate(w.at, InvLocalRead, fmt.Sprintf("%s[%d] %s state after an in-place rescale: reads %v, want %v", VertexName(v), i, k.name, got, want.Streams), "")
		}
		if want.Swapped && w.known == "" {
			w.known = KnownLocalAfterRescale
		}
	}
}

// localCheck is one subtask's operator checked by checkLocalRead.
type localCheck struct {
	s  slot
	id model.OperatorID
}

// checkpointSubtask is subtask i's state of operator id in retained checkpoint cid, or nil.
func (w *World) checkpointSubtask(cid int64, id model.OperatorID, i int) *model.OperatorSubtaskState {
	for _, cp := range w.co.Store.Checkpoints() {
		if cp.CheckpointID != cid {
			continue
		}
		for n := range cp.Operators {
			if cp.Operators[n].OperatorID == id {
				return cp.Operators[n].Subtask(i)
			}
		}
	}
	return nil
}

func mapAlts[T any](alts [][]T, f func([]T) []oracle.LocalHandle) [][]oracle.LocalHandle {
	out := make([][]oracle.LocalHandle, len(alts))
	for k, a := range alts {
		out[k] = f(a)
	}
	return out
}

// originStream names the data a handle's file holds: a local copy's path
// (local/tm-T/job-E/chk-N/<remote path without "file:/">, see copyLocal) names the remote file it
// copies.
func originStream(p string) string {
	if strings.HasPrefix(p, "local/") {
		if parts := strings.SplitN(p, "/", 5); len(parts) == 5 {
			return parts[4]
		}
	}
	return strings.TrimPrefix(p, "file:/")
}

// describeOp describes operator-state handles for the oracle: the stream and the
// getStateNameToPartitionOffsets map (names sorted; mode and offsets each).
func describeOp(hs []model.OperatorStateHandle) []oracle.LocalHandle {
	var out []oracle.LocalHandle
	for _, h := range hs {
		names := make([]string, 0, len(h.States))
		for _, s := range h.States {
			var b strings.Builder
			b.WriteString(s.Name + "=" + s.Mode.String())
			for _, o := range s.Offsets {
				b.WriteString("," + strconv.FormatInt(o, 10))
			}
			names = append(names, b.String())
		}
		slices.Sort(names)
		out = append(out, oracle.LocalHandle{Stream: originStream(h.Delegate.Path), NameToOffsets: strings.Join(names, ";")})
	}
	return out
}

// describeKeyed describes keyed handles for the oracle: the stream (a full snapshot's file, an
// incremental snapshot's metadata file) and the key-group range.
func describeKeyed(hs []model.KeyedStateHandle) []oracle.LocalHandle {
	var out []oracle.LocalHandle
	for _, h := range hs {
		var stream string
		switch h := h.(type) {
		case *model.KeyGroupsStateHandle:
			stream = h.Delegate.Path
		case *model.IncrementalKeyedStateHandle:
			stream = h.Meta.Path
		default:
			continue
		}
		r := h.KeyGroupRange()
		out = append(out, oracle.LocalHandle{Stream: originStream(stream), Keyed: true, First: r.Start, Last: r.End})
	}
	return out
}
