package sim

import (
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/sim/oracle"
)

// shape is the running job's shape, as the oracle records it at a snapshot: the operators the
// snapshot md lists, and whether their states have subtask entries (sparse snapshots of tasks
// without state have none).
func (w *World) shape(md model.CheckpointMetadata) oracle.Shape {
	entries := map[model.OperatorID]bool{}
	listed := map[model.OperatorID]bool{}
	keys := map[model.OperatorID]bool{}
	for _, os := range md.Operators {
		listed[os.OperatorID] = true
		entries[os.OperatorID] = slices.ContainsFunc(os.Subtasks, func(st *model.OperatorSubtaskState) bool { return st != nil })
		keys[os.OperatorID] = slices.ContainsFunc(os.Subtasks, func(st *model.OperatorSubtaskState) bool {
			return st != nil && len(st.ManagedKeyedState)+len(st.RawKeyedState) > 0
		})
	}
	sh := oracle.Shape{SourceUID: w.job.Source.UID, SourceMax: w.srcMaxPar, KeyedMax: w.maxPar}
	if id := model.OperatorIDFromUID(w.job.Keyed.UID); w.job.HasKeyed() && listed[id] {
		sh.KeyedUID, sh.KeyedEmpty, sh.KeyedNoKeys = w.job.Keyed.UID, !entries[id], !keys[id]
	}
	if w.job.Sink && listed[model.OperatorIDFromUID(sinkUID)] {
		sh.SinkUID = sinkUID
	}
	for k, st := range w.job.Stages {
		uids := w.job.StageUIDs(k)
		if id := model.OperatorIDFromUID(uids[0]); listed[id] {
			sh.Stages = append(sh.Stages, oracle.StageShape{UIDs: uids, Max: w.stageMax[k], Keyed: st.Keyed && entries[id]})
		}
	}
	return sh
}

// stageBases records, per keyed stage's head uid, the offsets its state counts from.
func (w *World) stageBases() map[string]map[int]int64 {
	var out map[string]map[int]int64
	for k, st := range w.job.Stages {
		if st.Keyed {
			if out == nil {
				out = map[string]map[int]int64{}
			}
			out[w.job.StageUIDs(k)[0]] = maps.Clone(w.stageBase[k])
		}
	}
	return out
}

// checkpoint triggers a checkpoint (or a savepoint) and returns the trace outcome.
func (w *World) checkpoint(step int, abort, savepoint bool) string {
	id := w.triggerID(step)
	if abort {
		// The tasks snapshotted (and kept local copies) before the checkpoint was declined; the
		// pending checkpoint's files are discarded and the backends forget the upload.
		if w.job.LocalRecovery {
			tasks := w.allKeyedTasks()
			chains := make([][]model.SharedFile, len(tasks))
			dirty := make([]map[int]bool, len(tasks))
			for i, t := range tasks {
				chains[i], dirty[i] = append([]model.SharedFile(nil), t.chain...), maps.Clone(t.dirty)
			}
			md := w.snapshot(id, false)
			w.storeLocal(md)
			for i, t := range tasks {
				for _, f := range t.chain[len(chains[i]):] {
					w.fs.remove(f.Handle.Path)
				}
				t.chain, t.dirty = chains[i], dirty[i]
			}
			w.fs.removeAll(w.pointerOf(id, false))
		}
		return fmt.Sprintf("checkpoint %d declined", id)
	}
	if savepoint {
		w.drainInFlight() // savepoints are aligned: the barrier waits for the records ahead of it
	}
	md := w.snapshot(id, savepoint)
	w.probeVersions(step, id, md)
	w.facts[id] = snapshotFacts{id: id, savepoint: savepoint, pointer: w.pointerOf(id, savepoint), offsets: w.currentOffsets(), base: maps.Clone(w.base),
		stageBase: w.stageBases(), applied: w.applied, processed: w.processedAt(), shape: w.shape(md), files: snapshotFiles(w.pointerOf(id, savepoint), md)}
	w.recordSnapshot(w.facts[id])
	pointers := w.storePointers()
	u, err := w.co.complete(md, savepoint, w.pointerOf(id, savepoint))
	if err != nil {
		w.violate(step, InvSharedFiles, fmt.Sprintf("completing checkpoint %d: %v", id, err), "")
	}
	w.applyDeletes(u, pointers)
	if savepoint {
		w.checkDiscarded(step, w.store.CompleteSavepoint(id))
	} else {
		w.checkDiscarded(step, w.store.CompleteCheckpoint(id))
	}
	if !savepoint {
		w.storeLocal(md)
		w.confirmLocal(id)
	}
	if savepoint {
		// RocksDB's incremental strategy reuses only files confirmed by the last completed
		// snapshot; a completed (canonical) savepoint confirms none, so the next checkpoint
		// uploads everything again.
		for _, t := range w.allKeyedTasks() {
			t.chain = nil
		}
	}
	w.checkRetainedFiles(step)
	kind := "completed"
	if savepoint {
		kind = "savepoint"
	}
	return fmt.Sprintf("%s %d%s%s", kind, id, w.co.describeStore(), describeInFlight(md))
}

func (w *World) pointerOf(id int64, savepoint bool) string {
	if savepoint {
		return fmt.Sprintf("file:/savepoints/savepoint-%d-%d", w.epoch, id)
	}
	return fmt.Sprintf("%s/chk-%d", w.jobDir(), id)
}

// checkRetainedFiles checks that every file referenced by a retained checkpoint exists.
func (w *World) checkRetainedFiles(step int) {
	for _, ref := range w.co.retainedFiles() {
		if _, ok := w.fs.files[ref.Path]; !ok && !w.faultDeleted[ref.Path] {
			w.violate(step, InvSharedFiles, fmt.Sprintf("%s, referenced by a retained checkpoint, was deleted", ref.Path), "")
			return
		}
	}
}

// failover handles the failure of the given subtasks (one for a subtask failure, all of a
// TaskManager's for its restart or loss). The scheduler restarts the pipelined regions the
// model's RestartPipelinedRegionFailoverStrategy picks for each (SPEC §J.1), checked against the
// oracle's own derivation. The source and the keyed vertex, joined by the all-to-all pipelined
// keyBy edge, form one region: when the restart reaches it, the job's stateful part restores
// from the latest checkpoint (or restarts from scratch without one). A restart confined to
// stateless stages (behind a blocking edge) leaves the running state untouched.
func (w *World) failover(step int, failed []slot) string {
	if len(failed) == 0 {
		return "no subtask there; nothing restarts"
	}
	topo := w.topology.of(w.job)
	present := w.job.present()
	// The union of the model's answers, marked per job-graph vertex and subtask first: a
	// TaskManager's loss fails hundreds of subtasks of one region, and a map assignment for
	// every subtask of every answer cost more than the answers.
	marked := make([][]bool, len(present))
	var ids []model.ExecutionVertexID // (one buffer for every answer)
	for _, f := range failed {
		var err error
		ids, err = topo.AppendRegionsToRestart(ids[:0], model.ExecutionVertexID{Vertex: w.job.graphIndex(f.vertex), Subtask: f.subtask}, model.FailoverState{})
		if err != nil {
			w.violate(step, InvRestartSet, fmt.Sprintf("regions to restart for %s[%d]: %v", VertexName(f.vertex), f.subtask, err), "")
		}
		for _, id := range ids {
			m := marked[id.Vertex]
			if id.Subtask >= len(m) {
				m = append(m, make([]bool, id.Subtask+1-len(m))...)
				marked[id.Vertex] = m
			}
			m[id.Subtask] = true
		}
	}
	got := map[slot]bool{}
	for v, m := range marked {
		for i, ok := range m {
			if ok {
				got[slot{present[v], i}] = true
			}
		}
	}
	if want := expectedRestartSet(w.job, failed); !maps.Equal(want, got) {
		w.violate(step, InvRestartSet, fmt.Sprintf("the failure restarts %d subtasks, want %d", len(got), len(want)),
			diffMap(describeSlots(want), describeSlots(got)))
	}
	// The stateful region restarts whole: every source subtask (tied together by the keyBy edge or
	// a keyed stage's hash edge, unless the job has neither) — then the job restores in place.
	whole := true
	for i := range w.src {
		whole = whole && got[slot{0, i}]
	}
	if whole {
		res, err := w.co.RestoreLatestCheckpointedStateToSubtasks(jobVertices(w.job))
		if err != nil {
			w.violate(step, InvRestoreRefused, fmt.Sprintf("failover restore refused: %v", err), "")
			return "restore failed: " + firstLine(err)
		}
		return w.restoreInPlace(step, res, "")
	}
	return w.restartRegions(step, got)
}

// restartRegions restarts the regions of a failure that leaves the stateful region running: stateless
// stage subtasks, and — in a job without a keyed vertex, where source subtasks behind forward or
// blocking edges form regions of their own — some of the source's subtasks. The model assigns
// the latest checkpoint's state to every subtask of the involved vertices
// (RestoreLatestCheckpointedStateToSubtasks); only the restarted ones take it. A restarted source
// subtask rewinds the splits it holds to the checkpoint's offsets (to the start without a
// checkpoint), the others keep running. An operator may only receive state the checkpoint holds
// under its ID (a stage once keyed, or restored from a snapshot of a job where it was); a stage's
// max parallelism must be the one the oracle expects.
func (w *World) restartRegions(step int, restart map[slot]bool) string {
	all := jobVertices(w.job) // in job-graph order (Job.graphIndex)
	var involved, sources []int
	for i := range w.src {
		if restart[slot{0, i}] {
			sources = append(sources, i)
		}
	}
	if len(sources) > 0 {
		involved = append(involved, 0)
	}
	for v := 2; v < w.job.NumVertices(); v++ {
		for i := range w.job.Parallelism(v) {
			if restart[slot{v, i}] {
				involved = append(involved, v)
				break
			}
		}
	}
	vs := make([]model.JobVertex, len(involved))
	for k, v := range involved {
		vs[k] = all[w.job.graphIndex(v)]
	}
	noun := "subtasks"
	if len(restart) == 1 {
		noun = "subtask"
	}
	out := fmt.Sprintf("restarted %d stateless %s of %s", len(restart), noun, vertexNames(involved))
	if len(sources) > 0 {
		out = fmt.Sprintf("restarted %d %s of %s (source subtasks %v)", len(restart), noun, vertexNames(involved), sources)
	}
	res, err := w.co.RestoreLatestCheckpointedStateToSubtasks(vs)
	if err != nil {
		w.violate(step, InvRestoreRefused, fmt.Sprintf("failover restore refused: %v", err), "")
		return out + "; restore failed: " + firstLine(err)
	}
	want := w.currentOffsets()
	if !res.Restored() {
		for _, i := range sources { // from scratch: the subtask's initial splits, from their start
			for sp := range w.src[i].offsets {
				want[sp] = 0
			}
			w.src[i] = &sourceTask{offsets: map[int]int64{}}
			for sp := range w.job.Splits {
				if sp%len(w.src) == i {
					w.src[i].offsets[sp] = 0
				}
			}
		}
		w.check(step, want, w.applied, false)
		if len(sources) > 0 {
			return out + " (no checkpoint)"
		}
		return out + " (no checkpoint); state untouched"
	}
	id := res.Checkpoint.CheckpointID
	w.noteDamage(res.Checkpoint)
	f, known := w.facts[id]
	if len(sources) > 0 {
		w.useLocal = true
		w.usedLocal = 0
		srcID := model.OperatorIDFromUID(w.job.Source.UID)
		for _, i := range sources {
			for sp := range w.src[i].offsets { // the oracle: its splits rewind to the checkpoint
				want[sp] = f.offsets[sp]
			}
			t, err := w.restoreSource(i, srcID, res.Assignment.Vertices[0].Subtasks[i])
			if err != nil {
				w.useLocal = false
				if !w.damaged(id) {
					w.violate(step, InvRestoreReadError, err.Error(), "")
				}
				return fmt.Sprintf("%s; restore of %d failed loudly (%s); %s", out, id, firstLine(err), w.resubmitFresh(step))
			}
			w.src[i] = t
		}
		w.useLocal = false
		if w.job.hasUnion() { // each restarted subtask received the complete union lists
			want := w.job.unionPart(f.offsets)
			for _, i := range sources {
				got := map[int]int64{}
				for _, so := range w.src[i].unionReceived {
					got[so.Split] = so.Offset
				}
				if len(w.src[i].unionReceived) != len(want) || !maps.Equal(got, want) {
					w.violate(step, InvUnion, fmt.Sprintf("source subtask %d received %d union elements, want %d", i, len(w.src[i].unionReceived), len(want)), diffMap(want, got))
				}
			}
		}
	}
	stored := map[model.OperatorID]bool{} // operators the checkpoint holds state for
	for _, os := range res.Checkpoint.Operators {
		for _, st := range os.Subtasks {
			if st.HasState() {
				stored[os.OperatorID] = true
			}
		}
	}
	var exp expectation
	if known {
		exp = expectRestore(w.plan.Version, f.shape, w.job, true)
		exp.settle(res.Assignment, involved)
		if exp.Accept {
			vs := make([]int, len(involved))
			copy(vs, involved)
			w.checkHanded(step, res.Checkpoint, res.Assignment, vs, exp.maxParOf(f.shape))
		}
	}
	for k, v := range involved {
		if v == 0 {
			continue
		}
		va := res.Assignment.Vertices[k]
		for i, tr := range va.Subtasks {
			if tr == nil || !restart[slot{v, i}] {
				continue
			}
			for _, op := range tr.Operators {
				if op.State.HasState() && !stored[op.OperatorID] {
					w.violate(step, InvStateless, fmt.Sprintf("%s[%d] restored with state for operator %s, which checkpoint %d holds no state for", VertexName(v), i, op.OperatorID, id), "")
				}
			}
		}
		// The latest checkpoint may come from another job shape (the one this job started from):
		// the restart settles the stage's max parallelism again.
		w.stageMax[v-2] = va.MaxParallelism
		if exp.Accept && va.MaxParallelism != exp.StageMax[v-2] {
			w.violate(step, InvKeyOwner, fmt.Sprintf("%s runs with max parallelism %d, want %d", VertexName(v), va.MaxParallelism, exp.StageMax[v-2]), "")
		}
	}
	w.check(step, want, w.applied, false)
	if len(sources) > 0 {
		out = fmt.Sprintf("%s from checkpoint %d", out, id)
		if w.usedLocal > 0 {
			out += fmt.Sprintf(" (%d states from local copies)", w.usedLocal)
		}
		return out
	}
	return fmt.Sprintf("%s from checkpoint %d; state untouched", out, id)
}

// failedOn lists the running job's subtasks on TaskManager tm.
func (w *World) failedOn(tm int) []slot {
	var out []slot
	for v := range w.job.NumVertices() {
		for i := range w.job.Parallelism(v) {
			if s := (slot{v, i}); w.tmOf(s) == tm {
				out = append(out, s)
			}
		}
	}
	return out
}

// failedSubtask is the subtask a Fail step names, modulo the running job's vertices and
// parallelism (a generated plan guesses the job; a restart may have been refused).
func (w *World) failedSubtask(s Step) []slot {
	v := s.Vertex % w.job.NumVertices()
	if w.job.Parallelism(v) == 0 { // no keyed vertex: the source fails instead
		v = 0
	}
	return []slot{{v, s.Subtask % w.job.Parallelism(v)}}
}

func vertexNames(vs []int) string {
	names := make([]string, len(vs))
	for k, v := range vs {
		names[k] = VertexName(v)
	}
	return strings.Join(names, ", ")
}

// describeSlots renders a set of subtasks per vertex, for diffs.
func describeSlots(set map[slot]bool) map[string][]int {
	out := map[string][]int{}
	for s := range set {
		out[VertexName(s.vertex)] = append(out[VertexName(s.vertex)], s.subtask)
	}
	for _, v := range out {
		slices.Sort(v)
	}
	return out
}

// restoreInPlace applies a failover's assignment to the running job (sticky slots: local copies
// are offered), or restarts it from scratch when there was nothing to restore. A restore that
// cannot read its files must correspond to an injected storage fault; the job is then
// resubmitted without state.
func (w *World) restoreInPlace(step int, res *model.RestoreResult, prefix string) string {
	ok := res.Restored()
	var id int64
	var a *model.Assignment
	if ok {
		id, a = res.Checkpoint.CheckpointID, res.Assignment
		w.noteDamage(res.Checkpoint)
	}
	if !ok {
		w.epoch-- // same job: startFresh counts a new instance
		w.clearLocal()
		w.startFresh()
		w.checkFreshMaxPar(step)
		w.base = map[int]int64{}
		w.check(step, w.currentOffsets(), 0, false)
		return "restarted from scratch (no checkpoint)"
	}
	w.useLocal = true
	err := w.applyAssignment(a, true)
	w.useLocal = false
	if err == nil && res.Checkpoint.Properties.Unclaimed {
		// Restored from a snapshot the job does not own (NO_CLAIM): Flink forces the next
		// checkpoint to be a full one (forceFullSnapshot), so no checkpoint of the job reuses, and
		// later deletes, the snapshot's shared files.
		for _, t := range w.allKeyedTasks() {
			t.chain = nil
		}
	}
	if err != nil {
		if !w.damaged(id) {
			w.violate(step, InvRestoreReadError, err.Error(), "")
		}
		return prefix + "restore of " + fmt.Sprint(id) + " failed loudly (" + firstLine(err) + "); " + w.resubmitFresh(step)
	}
	f := w.facts[id]
	exp := expectRestore(w.plan.Version, f.shape, w.job, true)
	if w.inPlace {
		exp = w.expectInPlace(f.shape)
	}
	exp.settle(a, w.job.present())
	if k := exp.knownIssue(w.plan.Version); k != "" {
		w.known = k
	}
	if exp.Accept {
		w.checkHanded(step, res.Checkpoint, a, w.job.present(), exp.maxParOf(f.shape))
	}
	// The latest snapshot may be the one this job was started from, taken by another job shape:
	// the same rules apply again (with allowNonRestoredState, as the scheduler passes it).
	w.finishRestore(step, f, exp)
	out := fmt.Sprintf("%srestored %d", prefix, id)
	if w.usedLocal > 0 {
		out += fmt.Sprintf(" (%d states from local copies)", w.usedLocal)
	}
	if len(w.replayed) > 0 {
		out += fmt.Sprintf(" (%d in-flight records replayed)", len(w.replayed))
	}
	return out
}

// restart stops the job with a savepoint and submits the changed job restored from it. A refused
// restore is checked against the oracle's reason and the old job is restored instead.
func (w *World) restart(step int, c Change) string {
	old := w.job
	next := w.job
	next.Source, next.Keyed, next.Stages = c.Source, c.Keyed, c.Stages
	next.Sink = (old.Sink && !c.DropSink) || c.AddSink
	if err := next.Validate(); err != nil {
		// Flink cannot build the new job graph: the user's submission fails before anything stops.
		return "job not built (" + err.Error() + "); the old job keeps running"
	}
	id := w.triggerID(step)
	w.drainInFlight() // stop-with-savepoint: an aligned savepoint
	md := w.snapshot(id, true)
	w.probeVersions(step, id, md)
	f := snapshotFacts{id: id, savepoint: true, pointer: w.pointerOf(id, true), offsets: w.currentOffsets(), base: maps.Clone(w.base),
		stageBase: w.stageBases(), applied: w.applied, shape: w.shape(md), files: snapshotFiles(w.pointerOf(id, true), md)}
	w.facts[id] = f
	w.recordSnapshot(f)

	refused, err := w.startFrom(step, f, next, c.AllowNonRestoredState, c.Mode)
	switch {
	case err == nil:
		return fmt.Sprintf("restored savepoint %d %s", id, w.running())
	case !refused:
		return fmt.Sprintf("restore of savepoint %d failed loudly (%s); %s", id, firstLine(err), w.resubmitFresh(step))
	}
	// The user rolls the change back: the old job, restored from the same savepoint.
	if _, rerr := w.startFrom(step, f, old, false, model.NoClaim); rerr != nil {
		return fmt.Sprintf("refused (%s); restoring the old job failed too (%s); %s", refusalReason(err), firstLine(rerr), w.resubmitFresh(step))
	}
	return fmt.Sprintf("refused (%s); rolled back to the old job from savepoint %d", refusalReason(err), id)
}

// startFrom starts job j as a new job (a new directory, coordinator and local stores) restored
// from snapshot f in the given mode, as `flink run -s <f's directory>` does, and judges the
// outcome with the oracle's expectation: a refusal must be expected, for the expected reason, or
// come from injected storage damage; an accepted restore must be expected and must read, and the
// restored world is checked. It returns the model's error (nil when restored) and whether it was
// a refusal (rather than a failure to read the assigned state).
func (w *World) startFrom(step int, f snapshotFacts, j Job, allowNonRestored bool, mode model.RestoreMode) (refused bool, err error) {
	w.assigned = assignMemo{on: true}
	defer func() { // (what the restore, its plan check and checkHanded share; the step forgets the decoded files)
		w.handedMemo = nil
		w.assigned = assignMemo{}
	}()
	w.clearLocal()
	w.leaveBehind()
	w.epoch++
	w.job = j
	w.startScheduler()
	w.co = w.newCoordinator()
	w.store = w.newStore()
	exp := expectRestore(w.plan.Version, f.shape, j, allowNonRestored)
	if k := exp.knownIssue(w.plan.Version); k != "" {
		w.known = k
	}
	res, err := w.submit(f.pointer, j, allowNonRestored, mode)
	if err != nil {
		w.checkPlan(step, f, j, allowNonRestored, exp, err, nil)
		switch {
		case w.damaged(f.id): // damaged storage: any loud failure is right
		case exp.Accept:
			w.violate(step, InvRestoreRefused, fmt.Sprintf("restore of snapshot %d refused: %v", f.id, firstLine(err)), "")
		case !errors.Is(err, exp.reason):
			w.violate(step, InvWrongRefusal, fmt.Sprintf("refused with %v, want %v (%s)", firstLine(err), exp.reason, exp.RefusedWhen), "")
		}
		return true, err
	}
	w.checkDiscarded(step, w.store.Restore(f.id, mode == model.Claim))
	if !exp.Accept {
		w.violate(step, InvRestoreAccepted, fmt.Sprintf("restore of snapshot %d accepted, want refusal: %v (%s)", f.id, exp.reason, exp.RefusedWhen), "")
	}
	if mode == model.Claim {
		f.claimed = true // the new job owns the snapshot now and may discard it
		w.facts[f.id] = f
		w.claimed(f)
		delete(w.noClaim, f.pointer)
	} else if w.plan.Version != model.Flink1101 { // (1.10.1 knows no restore modes)
		w.noClaim[f.pointer] = f
		w.fs.watch(f.pointer, f.files)
		w.noClaimFresh = append(w.noClaimFresh, f.pointer)
	}
	err = w.applyAssignment(res.Assignment, false)
	w.checkPlan(step, f, j, allowNonRestored, exp, nil, res.Checkpoint) // (after the assignment, which names a known issue it runs into)
	if err != nil {
		if !w.damaged(f.id) {
			w.violate(step, InvRestoreReadError, err.Error(), "")
		}
		return false, err
	}
	exp.settle(res.Assignment, w.job.present())
	if exp.Accept {
		w.checkHanded(step, res.Checkpoint, res.Assignment, w.job.present(), exp.maxParOf(f.shape))
	}
	w.finishRestore(step, f, exp)
	return false, nil
}

// finishRestore sets the oracle's bookkeeping after an accepted restore and checks the world.
func (w *World) finishRestore(step int, f snapshotFacts, exp expectation) {
	applied := f.applied
	if exp.KeyedState {
		w.base = maps.Clone(f.base)
	} else { // keyed state dropped (allowNonRestoredState): the sums start again from here
		w.base = maps.Clone(f.offsets)
		applied = 0
	}
	w.stageBase = make([]map[int]int64, len(w.job.Stages))
	for k, st := range w.job.Stages {
		// A keyed stage's state is restored when the snapshot has a keyed stage of its head's uid
		// (unique in a job); otherwise it starts empty, counting from the restored offsets.
		if b, ok := f.stageBase[w.job.StageUIDs(k)[0]]; ok && st.Keyed {
			w.stageBase[k] = maps.Clone(b)
		} else {
			w.stageBase[k] = maps.Clone(f.offsets)
		}
	}
	before := len(w.violations)
	if exp.Accept { // (an unexpected acceptance is reported already; it has no expected max parallelism)
		w.checkMaxPar(step, exp.KeyedMax)
		for k, m := range exp.StageMax {
			if w.stageMax[k] != m {
				w.violate(step, InvKeyOwner, fmt.Sprintf("%s runs with max parallelism %d, want %d", VertexName(2+k), w.stageMax[k], m), "")
			}
		}
	}
	w.checkCounter(step, f.id)
	w.checkInFlight(step, f, exp.KeyedState)
	w.check(step, f.offsets, applied, true)
	if w.known != "" && len(w.violations) > before && w.keyedEmpty() {
		// A known Flink issue (FLINK-13973) dropped the keyed state: it has been reported; from
		// here on the state counts from the restored offsets, so later steps are judged afresh.
		w.base = maps.Clone(f.offsets)
	}
}

// keyedEmpty reports whether no keyed subtask holds any key.
func (w *World) keyedEmpty() bool {
	for _, t := range w.keyed {
		if len(t.values) > 0 {
			return false
		}
	}
	return true
}

func (w *World) checkMaxPar(step int, want int) {
	if w.maxPar != want {
		w.violate(step, InvKeyOwner, fmt.Sprintf("keyed vertex runs with max parallelism %d, want %d", w.maxPar, want), "")
	}
}

// refusalReason is the short form of a refusal in the trace: the sentinel text of the four
// refusals the oracle predicts (read from the typed refusal's check), else the first line.
func refusalReason(err error) string {
	var rf *model.RefusalError
	if errors.As(err, &rf) {
		switch rf.Check {
		case model.CheckMaxParallelismMismatch, model.CheckNonRestoredState, model.CheckMaxParallelismBelowParallelism, model.CheckNoOperatorForState:
			return rf.Check.Sentinel().Error()
		}
	}
	return firstLine(err)
}

// firstLine is the first line of an error, or of any value (a recovered panic), as fmt.Sprint
// prints it.
func firstLine(v any) string {
	s := fmt.Sprint(v)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// submit submits job j restored from pointer. A vertex whose configured max parallelism is below
// its parallelism is refused before any restore, as Flink refuses to build such a job vertex.
func (w *World) submit(pointer string, j Job, allowNonRestored bool, mode model.RestoreMode) (*model.RestoreResult, error) {
	for _, v := range jobVertices(j) {
		if v.MaxParallelismConfigured && v.MaxParallelism < v.Parallelism {
			return nil, fmt.Errorf("job vertex %s: %w", v.Name, &model.MaxParallelismBelowParallelismError{MaxParallelism: v.MaxParallelism, Parallelism: v.Parallelism})
		}
	}
	res, err := w.co.RestoreSavepoint(w.fs, model.SavepointRestoreSettings{Pointer: pointer, AllowNonRestoredState: allowNonRestored, Mode: mode},
		jobVertices(j))
	if err != nil {
		return nil, err
	}
	w.co.mode = mode
	w.applyDeletes(res.StoreUpdate, nil)
	return res, nil
}

// damaged reports whether an injected storage fault hit checkpoint id: its metadata, or a file
// it references.
func (w *World) damaged(id int64) bool { return w.damagedCkpt[id] }

// noteDamage marks cp damaged when it references a file a fault deleted: RocksDB keeps
// referencing an uploaded file in later checkpoints without knowing it is gone.
func (w *World) noteDamage(cp *model.CompletedCheckpoint) {
	if len(w.faultDeleted) == 0 {
		return
	}
	for h := range checkpointFiles(cp) {
		if w.faultDeleted[h.Path] {
			w.damagedCkpt[cp.CheckpointID] = true
			return
		}
	}
}

// checkpointFiles yields the state files a checkpoint references.
func checkpointFiles(cp *model.CompletedCheckpoint) iter.Seq[model.StreamHandle] {
	return func(yield func(model.StreamHandle) bool) {
		for _, os := range cp.Operators {
			for _, st := range os.Subtasks {
				if st != nil && !subtaskFiles(st, yield) {
					return
				}
			}
		}
	}
}

// subtaskFiles yields the state files st references; false when yield asked to stop.
func subtaskFiles(st *model.OperatorSubtaskState, yield func(model.StreamHandle) bool) bool {
	for _, hs := range [2][]model.KeyedStateHandle{st.ManagedKeyedState, st.RawKeyedState} {
		for _, h := range hs {
			switch h := h.(type) {
			case *model.KeyGroupsStateHandle:
				if !yield(h.Delegate) {
					return false
				}
			case *model.IncrementalKeyedStateHandle:
				for _, f := range h.Shared {
					if !yield(f.Handle) {
						return false
					}
				}
				if h.Meta.Path != "" && !yield(h.Meta) {
					return false
				}
			}
		}
	}
	for _, hs := range [2][]model.OperatorStateHandle{st.ManagedOperatorState, st.RawOperatorState} {
		for _, h := range hs {
			if !yield(h.Delegate) {
				return false
			}
		}
	}
	for _, hs := range [2][]model.ChannelStateHandle{st.InputChannelState, st.ResultSubpartitionState} {
		for _, h := range hs {
			if !yield(h.Delegate) {
				return false
			}
		}
	}
	return true
}

// resubmitFresh models the user resubmitting the job without state after a restore failed
// loudly: a new job (new directory, coordinator and local stores), empty state, sources from the
// start.
func (w *World) resubmitFresh(step int) string {
	w.inPlace = false // a new job, with a scheduler of its own
	w.clearLocal()
	w.leaveBehind()
	w.co = w.newCoordinator()
	w.store = w.newStore()
	w.startFresh()
	w.startScheduler()
	w.checkFreshMaxPar(step)
	w.base = map[int]int64{}
	w.check(step, w.currentOffsets(), 0, false)
	return "resubmitted without state"
}

// jmFailover models a JobManager failover: the new JobManager takes the retained checkpoints
// from HA storage (the CompletedCheckpoints the old one stored, not the _metadata files), rebuilds
// the store and registry (model.CompletedCheckpointStore.RecoverAfterJobManagerFailover), keeps
// the checkpoint ID counter (also in HA storage) and restores the job from the latest checkpoint
// with allowNonRestoredState off (restoreInitialCheckpointIfPresent).
func (w *World) jmFailover(step int) string {
	old := w.co
	co := w.newCoordinator()
	co.Counter = old.Counter
	co.mode = old.mode
	w.store.Recover(w.retained)
	w.recovered(co.mode)
	if err := co.Store.LoadRecovered(old.Store.Checkpoints()); err != nil {
		w.violate(step, InvRestoreReadError, fmt.Sprintf("JobManager recovery: %v", err), "")
	}
	if cp := co.Store.Latest(); cp != nil {
		if f, ok := w.facts[cp.CheckpointID]; ok {
			w.known = expectRestore(w.plan.Version, f.shape, w.job, false).knownIssue(w.plan.Version)
		}
	}
	if err := co.RecoverAfterJobManagerFailover(co.mode); err != nil {
		w.violate(step, InvSharedFiles, fmt.Sprintf("JobManager recovery: re-registering shared state: %v", err), "")
	}
	w.co = co
	res, err := co.RestoreInitialCheckpointIfPresent(jobVertices(w.job))
	if err != nil {
		w.violate(step, InvRestoreRefused, fmt.Sprintf("restore after JobManager failover refused: %v", err), "")
		return "restore failed: " + firstLine(err) + "; " + w.resubmitFresh(step)
	}
	return w.restoreInPlace(step, res, "recovered; ")
}

// resume cancels the job and submits it again, unchanged, from the latest retained checkpoint's
// directory: the restore reads that checkpoint's _metadata, so damaged metadata must make it fail
// loudly.
func (w *World) resume(step int, mode model.RestoreMode) string {
	cp := w.co.Store.Latest()
	if cp == nil {
		return "no retained checkpoint"
	}
	id := cp.CheckpointID
	w.noteDamage(cp)
	f, ok := w.facts[id]
	if !ok {
		return "no retained checkpoint"
	}
	if _, err := w.startFrom(step, f, w.job, false, mode); err != nil {
		return fmt.Sprintf("resume from %d failed loudly (%s); %s", id, firstLine(err), w.resubmitFresh(step))
	}
	if len(w.replayed) > 0 {
		return fmt.Sprintf("resumed from checkpoint %d (%d in-flight records replayed)", id, len(w.replayed))
	}
	return fmt.Sprintf("resumed from checkpoint %d", id)
}

// storePointers maps the store's checkpoint IDs to their directories (before an update removes
// them).
func (w *World) storePointers() map[int64]string {
	m := map[int64]string{}
	for _, cp := range w.co.Store.Checkpoints() {
		m[cp.CheckpointID] = cp.ExternalPointer
	}
	return m
}

// applyDeletes deletes what a store update says Flink deletes: unused shared files and the
// directories of discarded checkpoints.
func (w *World) applyDeletes(u model.StoreUpdate, pointers map[int64]string) {
	for _, h := range u.DiscardedShared {
		w.fs.remove(h.Path)
	}
	for k, id := range u.Discarded {
		dir := pointers[id]
		if k < len(u.DiscardedPointers) && u.DiscardedPointers[k] != "" {
			dir = u.DiscardedPointers[k] // also a checkpoint subsumed earlier, held until unused
		}
		if dir != "" {
			w.fs.removeAll(dir)
		}
	}
}

// checkCounter checks that the checkpoint ID counter is above the restored checkpoint's ID and
// above every checkpoint the store retains: the next checkpoint must not reuse an ID.
func (w *World) checkCounter(step int, restored int64) {
	next := w.co.Counter.Get()
	highest := restored
	for _, cp := range w.co.Store.Checkpoints() {
		highest = max(highest, cp.CheckpointID)
	}
	if next <= highest {
		w.violate(step, InvCounter, fmt.Sprintf("the next checkpoint would get ID %d, but ID %d is in use", next, highest), "")
	}
}

// rollback cancels the job and submits it, unchanged, from the n-th oldest savepoint (modulo their
// number) that no job claimed. Canonical savepoints are self-contained: it must restore whatever
// checkpoints were discarded since, unless a fault damaged it.
func (w *World) rollback(step int, n int) string {
	var ids []int64
	for id, f := range w.facts {
		if f.savepoint && !f.claimed {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return "no savepoint"
	}
	slices.Sort(ids)
	id := ids[n%len(ids)]
	if _, err := w.startFrom(step, w.facts[id], w.job, true, model.NoClaim); err != nil {
		return fmt.Sprintf("rollback to savepoint %d refused (%s); %s", id, firstLine(err), w.resubmitFresh(step))
	}
	return fmt.Sprintf("rolled back to savepoint %d %s", id, w.running())
}

// newStore is the oracle's store and counter for a new coordinator.
func (w *World) newStore() *oracle.Store {
	return oracle.NewStore(w.plan.Version != model.Flink1101, w.retained)
}

// triggerID triggers a checkpoint or savepoint on the coordinator and checks the ID it gets
// against the oracle's counter: IDs increase by one, from 1 for a new job, from s + 1 after a
// restore of snapshot s.
func (w *World) triggerID(step int) int64 {
	id := w.co.nextID()
	if want := w.store.Trigger(); id != want {
		w.violate(step, InvCheckpointIDs, fmt.Sprintf("checkpoint triggered with ID %d, want %d", id, want), "")
	}
	return id
}

// checkRetained checks, after every step, that the coordinator's store retains exactly the
// snapshots the oracle's does (num-retained and subsumption).
func (w *World) checkRetained(step int) {
	cps := w.co.Store.Checkpoints()
	got := make([]int64, len(cps))
	for i, cp := range cps {
		got[i] = cp.CheckpointID
	}
	if want := w.store.Retained(); !slices.Equal(got, want) {
		w.violate(step, InvRetained, fmt.Sprintf("the store retains %v, want %v", got, want), "")
	}
}

// checkDiscarded checks that the snapshots the oracle's store dropped, where Flink owns them,
// have no file left in their directories (a fault may have deleted some already).
func (w *World) checkDiscarded(step int, removed []oracle.Snapshot) {
	for _, s := range removed {
		f, ok := w.facts[s.ID]
		if !s.Discard || !ok {
			continue
		}
		if w.fs.isDir(f.pointer) {
			w.violate(step, InvDiscarded, fmt.Sprintf("snapshot %d was subsumed, but its directory %s keeps files", s.ID, f.pointer), "")
		}
	}
}

// snapshotFiles lists the paths of a snapshot's _metadata (in directory dir) and of every state
// file its metadata references.
func snapshotFiles(dir string, md model.CheckpointMetadata) []string {
	out := []string{dir + "/" + model.MetadataFileName}
	for h := range checkpointFiles(&model.CompletedCheckpoint{Operators: md.Operators}) {
		out = append(out, h.Path)
	}
	return out
}

// checkNoClaimFiles checks, after every step, that every file of a snapshot restored in NO_CLAIM
// mode still exists (Flink never deletes what it does not own: SPEC §H.1, §H.3), unless a fault
// deleted it or damaged the snapshot. A snapshot is reported once.
//
// Only a deletion or a new snapshot can fail it: it looks at the snapshots added since it last
// looked and at those with a file deleted since (the others held then, and still do), in the
// order of their directories.
func (w *World) checkNoClaimFiles(step int) {
	removed := w.fs.takeRemovedWatched()
	if len(w.noClaimFresh) == 0 && len(removed) == 0 {
		return
	}
	look := map[string]bool{}
	for _, dir := range w.noClaimFresh {
		look[dir] = true
	}
	w.noClaimFresh = w.noClaimFresh[:0]
	if len(removed) > 0 { // (rare: the snapshots holding a deleted file)
		gone := map[string]bool{}
		for _, p := range removed {
			gone[p] = true
		}
		for dir, f := range w.noClaim {
			if slices.ContainsFunc(f.files, func(p string) bool { return gone[p] }) {
				look[dir] = true
			}
		}
	}
	for _, dir := range slices.Sorted(maps.Keys(look)) {
		f, ok := w.noClaim[dir]
		if !ok || w.damagedCkpt[f.id] {
			continue
		}
		for _, p := range f.files {
			if _, ok := w.fs.files[p]; !ok && !w.faultDeleted[p] {
				w.violate(step, InvNoClaimFiles, fmt.Sprintf("%s of snapshot %d, restored in NO_CLAIM mode, was deleted", p, f.id), "")
				delete(w.noClaim, dir)
				break
			}
		}
	}
}
