package sim

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/restoresim/restoresim/model"
)

// slot identifies a subtask's slot: vertex (0 source, 1 keyed, 2+k stage k) and subtask index. Scheduling is
// sticky: a restarted subtask returns to its slot, on TaskManager tmOf(slot).
type slot struct{ vertex, subtask int }

func (w *World) tmOf(s slot) int { return (s.subtask + s.vertex) % max(1, w.job.TaskManagers) }

// localStore is a TaskManager's TaskLocalStateStore for one slot: local copies by checkpoint ID.
type localStore map[int64]*model.TaskLocalSnapshot

// copyLocal copies every file st references into TaskManager tm's local directory and returns
// the state with handles to the copies (Flink's local state: a secondary copy, same ranges and
// offsets, local file paths).
func (w *World) copyLocal(st *model.OperatorSubtaskState, tm int, id int64) model.OperatorSubtaskState {
	dir := "" // (the local directory, once)
	cp := func(h model.StreamHandle) model.StreamHandle {
		f, ok := w.fs.files[h.Path]
		if !ok {
			return h
		}
		if dir == "" {
			dir = w.localDir(tm, id) + "/"
		}
		local := dir + strings.TrimPrefix(h.Path, "file:/")
		w.fs.load(f)
		w.fs.put(local, f.content, f.size)
		return model.StreamHandle{Path: local, Size: h.Size}
	}
	out := model.OperatorSubtaskState{}
	for _, h := range st.ManagedOperatorState {
		out.ManagedOperatorState = append(out.ManagedOperatorState, model.OperatorStateHandle{Delegate: cp(h.Delegate), States: h.States})
	}
	keyed := func(hs []model.KeyedStateHandle) []model.KeyedStateHandle {
		var o []model.KeyedStateHandle
		for _, h := range hs {
			switch h := h.(type) {
			case *model.KeyGroupsStateHandle:
				c := *h
				c.Delegate = cp(h.Delegate)
				o = append(o, &c)
			case *model.IncrementalKeyedStateHandle:
				// Like Flink's IncrementalLocalKeyedStateHandle: the files live in a local
				// directory (LocalPath), the handles stay those of the uploaded shared files.
				c := *h
				c.Local = true
				c.Shared = nil
				for _, f := range h.Shared {
					c.Shared = append(c.Shared, model.SharedFile{LocalPath: cp(f.Handle).Path, Handle: f.Handle})
				}
				c.Meta = cp(h.Meta)
				o = append(o, &c)
			}
		}
		return o
	}
	out.ManagedKeyedState = keyed(st.ManagedKeyedState)
	out.RawKeyedState = keyed(st.RawKeyedState)
	return out
}

// storeLocal keeps local copies of checkpoint id's subtask states on their TaskManagers.
func (w *World) storeLocal(md model.CheckpointMetadata) {
	if !w.job.LocalRecovery {
		return
	}
	if w.local == nil {
		w.local = map[slot]localStore{}
	}
	type vertexOps struct {
		v, p  int
		opIdx []int // the vertex's operators' positions in the metadata
	}
	// indexes lists the metadata positions of the operators of uids (a snapshot may lack an
	// operator: 1.10.1's has none without an entry).
	indexes := func(uids ...string) []int {
		var out []int
		for _, uid := range uids {
			id := model.OperatorIDFromUID(uid)
			for n := range md.Operators {
				if md.Operators[n].OperatorID == id {
					out = append(out, n)
				}
			}
		}
		return out
	}
	keyedOps := []string{w.job.Keyed.UID} // the keyed operator, then the sink chained to it
	if w.job.Sink {
		keyedOps = append(keyedOps, sinkUID)
	}
	vertices := []vertexOps{{0, len(w.src), indexes(w.job.Source.UID)}, {1, len(w.keyed), indexes(keyedOps...)}}
	for k, st := range w.job.Stages {
		if !st.Keyed {
			continue // stateless: nothing to keep
		}
		vertices = append(vertices, vertexOps{v: 2 + k, p: st.Config.Parallelism, opIdx: indexes(w.job.StageUIDs(k)...)})
	}
	for _, vo := range vertices {
		v, opIdx := vo.v, vo.opIdx
		for i := range vo.p {
			s := slot{v, i}
			snap := &model.TaskLocalSnapshot{CheckpointID: md.CheckpointID}
			for _, k := range opIdx {
				os := md.Operators[k]
				if st := os.Subtask(i); st != nil {
					snap.Operators = append(snap.Operators, model.OperatorRestore{OperatorID: os.OperatorID, State: w.copyLocal(st, w.tmOf(s), md.CheckpointID)})
				}
			}
			if w.local[s] == nil {
				w.local[s] = localStore{}
			}
			w.local[s][md.CheckpointID] = snap
		}
	}
}

// confirmLocal models TaskLocalStateStore.confirmCheckpoint: local copies of checkpoints older
// than id are pruned.
func (w *World) confirmLocal(id int64) {
	dirs := map[string]bool{} // slots on one TaskManager share a checkpoint's local directory
	for s, ls := range w.local {
		for cid := range ls {
			if cid < id {
				dirs[w.localDir(w.tmOf(s), cid)] = true
				delete(ls, cid)
			}
		}
	}
	w.fs.removeDirs(dirs)
}

// localDir is TaskManager tm's local directory for checkpoint id of the running job.
func (w *World) localDir(tm int, id int64) string {
	return "local/tm-" + strconv.Itoa(tm) + "/job-" + strconv.Itoa(w.epoch) + "/chk-" + strconv.FormatInt(id, 10)
}

// loseTM deletes every local copy TaskManager tm held.
func (w *World) loseTM(tm int) {
	w.fs.removeAll(fmt.Sprintf("local/tm-%d", tm))
	for s := range w.local {
		if w.tmOf(s) == tm {
			delete(w.local, s)
		}
	}
}

// clearLocal forgets all local copies (a new job: they belong to the old one). Only storeLocal
// writes under local/, and it sets w.local first: without it there is nothing to delete.
func (w *World) clearLocal() {
	if w.local != nil {
		w.fs.removeAll("local")
	}
	w.local = nil
	w.localRescaledAt = 0
}

// localCopy is the local copy the slot's TaskManager offers for a restore of checkpointID: its
// copy of that checkpoint when it holds one (TaskLocalStateStore.retrieveLocalState's lookup),
// else the newest copy it holds of another checkpoint (a declined checkpoint's, or one a lost
// local write left behind), else nil. model.PrioritizeTaskRestore takes the copy the TaskManager
// holds and itself decides whether it is of the restored checkpoint, so the world hands it the
// other checkpoint's copy for it to refuse: a restore that used it would bring back another
// checkpoint's state, which the state invariants see.
func (w *World) localCopy(s slot, checkpointID int64) *model.TaskLocalSnapshot {
	ls := w.local[s]
	if c := ls[checkpointID]; c != nil {
		return c
	}
	var newest *model.TaskLocalSnapshot
	for id, c := range ls { // the maximum: independent of map order
		if c != nil && (newest == nil || id > newest.CheckpointID) {
			newest = c
		}
	}
	return newest
}

// alternatives returns the prioritized state alternatives of operator id in a subtask's restore
// object (local copies first, when the model approves them), or the JobManager's state alone
// without local recovery; ok is false when the restore object has no state for id.
func (w *World) alternatives(v, i int, restore *model.TaskRestore, id model.OperatorID) (st model.PrioritizedOperatorSubtaskState, ok bool) {
	if restore == nil {
		return st, false
	}
	var local *model.TaskLocalSnapshot
	if w.useLocal {
		local = w.localCopy(slot{v, i}, restore.CheckpointID)
	}
	for _, p := range model.PrioritizeTaskRestore(w.plan.Version, restore, local) {
		if p.OperatorID == id { // the last one, should the ID repeat
			st, ok = p.State, true
		}
	}
	if ok && local != nil && local.CheckpointID <= w.localRescaledAt { // a copy from before a rescale
		w.checkLocalRead(v, i, restore, local, id, st)
	}
	return st, ok
}

// fault damages the latest retained checkpoint's storage; it returns what it did.
func (w *World) fault(k FaultKind) string {
	cps := w.co.Store.Checkpoints()
	if len(cps) == 0 {
		return "no retained checkpoint"
	}
	cp := cps[len(cps)-1]
	dir := cp.ExternalPointer
	meta := dir + "/" + model.MetadataFileName
	switch k {
	case TruncateMetadata, DeleteMetadata:
		f, ok := w.fs.files[meta]
		if !ok {
			return "metadata already gone"
		}
		w.fs.load(f)
		if k == DeleteMetadata {
			w.fs.remove(meta)
		} else if b, ok := f.content.([]byte); ok && len(b) > 1 {
			// Cut the file short (a torn write): every reader must refuse it. (A flipped byte
			// need not be detectable: the format has no checksum.)
			n := int(mix64(uint64(cp.CheckpointID)) % uint64(len(b)))
			f.content, f.size = append([]byte(nil), b[:n]...), int64(n)
		}
		w.damagedCkpt[cp.CheckpointID] = true
		return fmt.Sprintf("%s of checkpoint %d", k, cp.CheckpointID)
	default:
		victim := w.victimFile(cp)
		if victim == "" {
			return "no state file to delete"
		}
		w.fs.remove(victim)
		w.faultDeleted[victim] = true
		for _, c := range cps { // every retained checkpoint that uses the file is damaged
			for h := range checkpointFiles(c) {
				if h.Path == victim {
					w.damagedCkpt[c.CheckpointID] = true
				}
			}
		}
		return fmt.Sprintf("deleted %s", path.Base(victim))
	}
}

// victimFile picks a file the checkpoint references: a shared file if it has one, else the first
// keyed-state file.
func (w *World) victimFile(cp *model.CompletedCheckpoint) string {
	var first string
	for _, os := range cp.Operators {
		for _, st := range os.Subtasks {
			if st == nil {
				continue
			}
			for _, h := range st.ManagedKeyedState {
				switch h := h.(type) {
				case *model.IncrementalKeyedStateHandle:
					for _, f := range h.Shared {
						if _, ok := w.fs.files[f.Handle.Path]; ok {
							return f.Handle.Path
						}
					}
				case *model.KeyGroupsStateHandle:
					if _, ok := w.fs.files[h.Delegate.Path]; ok && first == "" {
						first = h.Delegate.Path
					}
				}
			}
		}
	}
	return first
}
