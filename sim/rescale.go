package sim

import (
	"errors"
	"fmt"
	"slices"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/sim/oracle"
)

// rescaleInPlace models the adaptive scheduler's (and reactive mode's) rescale of the running job
// (SPEC-VERSIONS.md §8.1): AdaptiveScheduler builds a new ExecutionGraph at the new parallelisms
// (DefaultExecutionGraphFactory.createAndRestoreExecutionGraph) and restores the latest completed
// checkpoint of the store it keeps (CheckpointCoordinator.restoreInitialCheckpointIfPresent:
// allowNonRestoredState off), with no savepoint and no new job: the store, the shared-state
// registry, the checkpoint ID counter and the job's directory carry on, and a backend whose key
// groups stay the same reopens its files (incremental shared state is shared across). A vertex
// without a configured max parallelism keeps the default computed from the parallelism the
// scheduler started with (FLINK-22084), not from the new one. The scheduler never runs a vertex
// above that max parallelism: such a request is refused before anything restarts (the REST
// validation "exceeds its maximum parallelism"), as is a job Flink cannot build (forward
// stages follow their input's parallelism). A restore refused while the job runs at the new
// parallelism is checked against the oracle's expectation, and the job then restores at the old
// parallelisms again.
func (w *World) rescaleInPlace(step int, ps []int) string {
	old := w.job
	next := w.job
	next.Stages = slices.Clone(w.job.Stages)
	for v, p := range ps {
		switch {
		case p == 0 || v >= next.NumVertices():
		case v == 0:
			next.Source.Parallelism = p
		case v == 1:
			if next.HasKeyed() {
				next.Keyed.Parallelism = p
			}
		default:
			next.Stages[v-2].Config.Parallelism = p
		}
	}
	for k := range next.Stages {
		if next.Stages[k].Edge == EdgeForward {
			next.Stages[k].Config.Parallelism = next.Parallelism(next.Stages[k].Input)
		}
	}
	if err := next.Validate(); err != nil {
		return "not rescaled (" + err.Error() + ")"
	}
	for _, v := range w.inPlaceVertices(next) {
		if v.Parallelism > v.MaxParallelism {
			return fmt.Sprintf("not rescaled (the newly requested parallelism %d for %s exceeds its maximum parallelism %d)", v.Parallelism, v.Name, v.MaxParallelism)
		}
	}
	w.job = next
	// The slots stay: new subtask k is offered the local copy old subtask k left in its slot
	// (localrescale.go; the hazard KnownLocalAfterRescale).
	w.keepLocalAcrossRescale()
	cp := w.co.Store.Latest()
	var exp expectation
	var f snapshotFacts
	known := cp != nil
	if known {
		f, known = w.facts[cp.CheckpointID]
	}
	if known {
		exp = w.expectInPlace(f.shape)
		if k := exp.knownIssue(w.plan.Version); k != "" {
			w.known = k
		}
	}
	w.inPlace = true
	res, err := w.co.RestoreInitialCheckpointIfPresent(w.inPlaceVertices(next))
	if err != nil {
		w.inPlace = false
		switch {
		case !known || w.damaged(f.id):
		case exp.Accept:
			w.violate(step, InvRestoreRefused, fmt.Sprintf("in-place rescale: restore of checkpoint %d refused: %v", f.id, firstLine(err)), "")
		case !errors.Is(err, exp.reason):
			w.violate(step, InvWrongRefusal, fmt.Sprintf("in-place rescale refused with %v, want %v (%s)", firstLine(err), exp.reason, exp.RefusedWhen), "")
		}
		w.job = old
		res, rerr := w.co.RestoreInitialCheckpointIfPresent(w.inPlaceVertices(old))
		if rerr != nil {
			w.violate(step, InvRestoreRefused, fmt.Sprintf("restoring the old parallelism after a refused rescale: %v", firstLine(rerr)), "")
			return fmt.Sprintf("rescale refused (%s); restoring the old parallelism failed too; %s", refusalReason(err), w.resubmitFresh(step))
		}
		w.inPlace = true
		out := w.restoreInPlace(step, res, fmt.Sprintf("rescale refused (%s); ", refusalReason(err)))
		w.inPlace = false
		return out
	}
	if known && !exp.Accept && !w.damaged(f.id) {
		w.violate(step, InvRestoreAccepted, fmt.Sprintf("in-place rescale: restore of checkpoint %d accepted, want refusal: %v (%s)", f.id, exp.reason, exp.RefusedWhen), "")
	}
	w.generation++ // the rescaled backends are new instances
	out := w.restoreInPlace(step, res, "rescaled; ")
	w.inPlace = false
	return out + " " + w.running()
}

// inPlaceVertices describes job j to the model as the adaptive scheduler's new ExecutionGraph
// has it: each vertex's max parallelism is the configured one, else the default of the
// parallelism the scheduler started with (not configured, so a stored one may be adopted).
func (w *World) inPlaceVertices(j Job) []model.JobVertex {
	vs := jobVertices(j)
	for k, v := range j.present() {
		if vs[k].MaxParallelismConfigured {
			continue
		}
		m, err := model.ComputeDefaultMaxParallelism(w.schedulerParallelism(v))
		if err != nil {
			panic("sim: internal error: " + err.Error())
		}
		vs[k].MaxParallelism = m
	}
	return vs
}

// schedulerParallelism is vertex v's parallelism when the running job's scheduler started (the
// running one for a vertex added since).
func (w *World) schedulerParallelism(v int) int {
	if v < len(w.schedPar) && w.schedPar[v] > 0 {
		return w.schedPar[v]
	}
	return w.job.Parallelism(v)
}

// startScheduler records the running job's parallelisms as a new scheduler starts with them.
func (w *World) startScheduler() {
	w.schedPar = make([]int, w.job.NumVertices())
	for v := range w.schedPar {
		w.schedPar[v] = w.job.Parallelism(v)
	}
}

// expectInPlace is the oracle's verdict on restoring a snapshot of shape old into the running job
// rescaled in place, each unconfigured max parallelism defaulting from the scheduler's starting
// parallelism. The restore runs with allowNonRestoredState off, but the store holds only the
// job's own checkpoints and the snapshot it started from as loaded into it — without the states
// of operators the job lacks (dropped at loading with allowNonRestoredState, or the start
// refused) — and an in-place rescale keeps the operators: so the oracle is asked as with
// allowNonRestoredState.
func (w *World) expectInPlace(old oracle.Shape) expectation {
	oj := oracleJob(w.job)
	oj.Source.SchedulerParallelism = w.schedulerParallelism(0)
	if w.job.HasKeyed() {
		oj.Keyed.SchedulerParallelism = w.schedulerParallelism(1)
	}
	for k := range oj.Stages {
		oj.Stages[k].SchedulerParallelism = w.schedulerParallelism(2 + k)
	}
	return expectOracle(w.plan.Version, old, oj, true)
}
