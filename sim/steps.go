package sim

import (
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/restoresim/restoresim/model"
)

// shape is the running job's shape, as the oracle records it at a snapshot.
func (w *World) shape() jobShape {
	return jobShape{sourceUID: w.job.Source.UID, keyedUID: w.job.Keyed.UID, sink: w.job.Sink,
		srcPar: len(w.src), keyedPar: len(w.keyed), srcMax: w.srcMaxPar, keyedMax: w.maxPar}
}

// checkpoint triggers a checkpoint (or a savepoint) and returns the trace outcome.
func (w *World) checkpoint(step int, abort, savepoint bool) string {
	id := w.co.nextID()
	if abort {
		return fmt.Sprintf("checkpoint %d declined", id)
	}
	md := w.snapshot(id, savepoint)
	w.facts[id] = snapshotFacts{id: id, savepoint: savepoint, offsets: w.currentOffsets(), base: maps.Clone(w.base),
		applied: w.applied, shape: w.shape()}
	discarded, err := w.co.complete(md, savepoint, w.pointerOf(id, savepoint))
	if err != nil {
		w.violate(step, InvSharedFiles, fmt.Sprintf("completing checkpoint %d: %v", id, err), "")
	}
	for _, h := range discarded {
		delete(w.fs.files, h.Path)
	}
	w.checkRetainedFiles(step)
	kind := "completed"
	if savepoint {
		kind = "savepoint"
	}
	return fmt.Sprintf("%s %d%s", kind, id, w.co.describeStore())
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
		if _, ok := w.fs.files[ref.Path]; !ok {
			w.violate(step, InvSharedFiles, fmt.Sprintf("%s, referenced by a retained checkpoint, was deleted", ref.Path), "")
			return
		}
	}
}

// failover restarts the failed subtask's region — with keyBy (all-to-all) edges the whole job is
// one pipelined region — from the latest checkpoint, or from scratch when there is none.
func (w *World) failover(step int) string {
	vertices := jobVertices(w.job, w.job.Sink)
	a, id, ok, err := w.co.restoreLatest(vertices)
	if err != nil {
		w.violate(step, InvRestoreRefused, fmt.Sprintf("failover restore refused: %v", err), "")
		return "restore failed: " + firstLine(err)
	}
	if !ok {
		w.epoch-- // same job: startFresh counts a new instance
		w.startFresh()
		w.base = map[int]int64{}
		w.check(step, w.currentOffsets(), 0, false)
		return "restarted from scratch (no checkpoint)"
	}
	if err := w.applyAssignment(a, true); err != nil {
		w.violate(step, InvRestoreReadError, err.Error(), "")
		return "restore failed: " + firstLine(err)
	}
	f := w.facts[id]
	exp := expectRestore(f.shape, w.job, w.job.Sink, true)
	if k := exp.knownIssue(w.plan.Version); k != "" {
		w.known = k
	}
	// The latest snapshot may be the one this job was started from, taken by another job shape:
	// the same rules apply again (with allowNonRestoredState, as the scheduler passes it).
	w.finishRestore(step, f, exp)
	return fmt.Sprintf("restored %d", id)
}

// restart stops the job with a savepoint and submits the changed job restored from it. A refused
// restore is checked against the oracle's reason and the old job is restored instead.
func (w *World) restart(step int, c Change) string {
	id := w.co.nextID()
	md := w.snapshot(id, true)
	f := snapshotFacts{id: id, savepoint: true, offsets: w.currentOffsets(), base: maps.Clone(w.base), applied: w.applied, shape: w.shape()}
	w.facts[id] = f
	pointer := w.pointerOf(id, true)
	_ = md

	old := w.job
	next := w.job
	next.Source, next.Keyed = c.Source, c.Keyed
	next.Sink = (old.Sink && !c.DropSink) || c.AddSink
	exp := expectRestore(f.shape, next, next.Sink, c.AllowNonRestoredState)
	w.known = exp.knownIssue(w.plan.Version)

	w.epoch++
	w.job = next
	w.co = newCoordinator(w.plan.Version)
	mode := model.NoClaim
	if c.Claim {
		mode = model.Claim
	}
	a, err := w.submit(pointer, next, c.AllowNonRestoredState, mode)
	switch {
	case err != nil && exp.accept:
		w.violate(step, InvRestoreRefused, fmt.Sprintf("restore of savepoint %d refused: %v", id, firstLine(err)), "")
	case err != nil:
		if !errors.Is(err, exp.reason) {
			w.violate(step, InvWrongRefusal, fmt.Sprintf("refused with %v, want %v (%s)", firstLine(err), exp.reason, exp.refusedWhen), "")
		}
	case !exp.accept:
		w.violate(step, InvRestoreAccepted, fmt.Sprintf("restore of savepoint %d accepted, want refusal: %v (%s)", id, exp.reason, exp.refusedWhen), "")
	}
	if refusal := err; refusal != nil {
		// The user rolls the change back: the old job, restored from the same savepoint.
		w.job = old
		w.co = newCoordinator(w.plan.Version)
		a, err = w.submit(pointer, old, false, model.NoClaim)
		if err != nil {
			w.violate(step, InvRestoreRefused, fmt.Sprintf("restoring the unchanged job from savepoint %d refused: %v", id, firstLine(err)), "")
			return "restore failed: " + firstLine(err)
		}
		exp = expectRestore(f.shape, old, old.Sink, false)
		if k := exp.knownIssue(w.plan.Version); k != "" {
			w.known = k
		}
		if rerr := w.applyAssignment(a, false); rerr != nil {
			w.violate(step, InvRestoreReadError, rerr.Error(), "")
			return "restore failed: " + firstLine(rerr)
		}
		w.finishRestore(step, f, exp)
		return fmt.Sprintf("refused (%s); rolled back to the old job from savepoint %d", reasonName(refusal), id)
	}
	if err := w.applyAssignment(a, false); err != nil {
		w.violate(step, InvRestoreReadError, err.Error(), "")
		return "restore failed: " + firstLine(err)
	}
	w.finishRestore(step, f, exp)
	return fmt.Sprintf("restored savepoint %d p=%d/%d max-parallelism=%d", id, len(w.src), len(w.keyed), w.maxPar)
}

// finishRestore sets the oracle's bookkeeping after an accepted restore and checks the world.
func (w *World) finishRestore(step int, f snapshotFacts, exp expectation) {
	applied := f.applied
	if exp.keyedState {
		w.base = maps.Clone(f.base)
	} else { // keyed state dropped (allowNonRestoredState): the sums start again from here
		w.base = maps.Clone(f.offsets)
		applied = 0
	}
	w.checkMaxPar(step, exp.keyedMax)
	w.check(step, f.offsets, applied, true)
}

func (w *World) checkMaxPar(step int, want int) {
	if w.maxPar != want {
		w.violate(step, InvKeyOwner, fmt.Sprintf("keyed vertex runs with max parallelism %d, want %d", w.maxPar, want), "")
	}
}

func reasonName(err error) string {
	for _, r := range []error{model.ErrMaxParallelismMismatch, model.ErrNonRestoredState, model.ErrMaxParallelismBelowNewParallelism, model.ErrNoOperatorForState} {
		if errors.Is(err, r) {
			return r.Error()
		}
	}
	return firstLine(err)
}

func firstLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// submit submits job j restored from pointer. A vertex whose configured max parallelism is below
// its parallelism is refused before any restore, as Flink refuses to build such a job vertex.
func (w *World) submit(pointer string, j Job, allowNonRestored bool, mode model.RestoreMode) (*model.Assignment, error) {
	for _, v := range jobVertices(j, j.Sink) {
		if v.MaxParallelismConfigured && v.MaxParallelism < v.Parallelism {
			return nil, fmt.Errorf("job vertex %s: %w", v.Name, &model.MaxParallelismBelowParallelismError{MaxParallelism: v.MaxParallelism, Parallelism: v.Parallelism})
		}
	}
	return w.co.restoreSavepoint(w.fs, pointer, jobVertices(j, j.Sink), allowNonRestored, mode)
}
