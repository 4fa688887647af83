package sim

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/restoresim/restoresim/sim/oracle"
)

// storeWorld is a world running a small job with num-retained 1, its first checkpoint done.
func storeWorld(t *testing.T) (*World, []Step) {
	t.Helper()
	p, err := ParsePlan(`job keys=int/uniform/20 splits=2 offsets=split broadcast=false raw-keyed=false backend=incremental sink=false tms=1 local-recovery=false source=p2/uid:source keyed=p2/uid:keyed
process n=10
checkpoint
process n=10
checkpoint`)
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(p)
	for i, s := range p.Steps[:2] {
		w.step(i, s)
	}
	return w, p.Steps
}

func invariants(w *World) string {
	var out []string
	for _, v := range w.violations {
		out = append(out, v.String())
	}
	return strings.Join(out, "\n")
}

// TestStoreInvariantsHold: the model's store and counter agree with the oracle's.
func TestStoreInvariantsHold(t *testing.T) {
	w, steps := storeWorld(t)
	for i := 2; i < len(steps); i++ {
		w.step(i, steps[i])
	}
	if len(w.violations) > 0 {
		t.Errorf("violations:\n%s", invariants(w))
	}
}

// TestCheckpointIDsInvariant: a counter that hands out a used ID again is caught at the trigger.
func TestCheckpointIDsInvariant(t *testing.T) {
	w, steps := storeWorld(t)
	w.co.Counter.SetCount(1) // a broken counter: checkpoint 1 again
	w.step(2, steps[2])
	w.step(3, steps[3])
	if !strings.Contains(invariants(w), "step 3: checkpoint-ids: checkpoint triggered with ID 1, want 2") {
		t.Errorf("no checkpoint-ids violation at step 3:\n%s", invariants(w))
	}
}

// TestRetainedInvariant: a store that keeps one checkpoint too many (capacity off by one) is
// caught after the step that should have subsumed.
func TestRetainedInvariant(t *testing.T) {
	w, steps := storeWorld(t)
	co := newCoordinator(w.plan.Version, w.retained+1)
	co.Counter = w.co.Counter
	if err := co.Store.LoadRecovered(w.co.Store.Checkpoints()); err != nil {
		t.Fatal(err)
	}
	w.co = co
	w.step(2, steps[2])
	w.step(3, steps[3])
	if !strings.Contains(invariants(w), "step 3: retained: the store retains [1 2], want [2]") {
		t.Errorf("no retained violation at step 3:\n%s", invariants(w))
	}
}

// TestDiscardedInvariant: a subsumed checkpoint of the job's whose directory keeps files is caught.
func TestDiscardedInvariant(t *testing.T) {
	w, _ := storeWorld(t)
	w.checkDiscarded(2, []oracle.Snapshot{{ID: 1}}) // not Flink's to discard: no check
	if len(w.violations) > 0 {
		t.Fatalf("violations:\n%s", invariants(w))
	}
	w.checkDiscarded(2, []oracle.Snapshot{{ID: 1, Discard: true}}) // its files are all there
	if !strings.Contains(invariants(w), "step 2: discarded: snapshot 1 was subsumed, but its directory file:/ckpt/job-1/chk-1 keeps files") {
		t.Errorf("no discarded violation:\n%s", invariants(w))
	}
}

// TestNoClaimFilesInvariant: a file of a snapshot restored in NO_CLAIM mode that disappears is
// caught after the step, once; a snapshot restored in CLAIM mode is the job's to delete.
func TestNoClaimFilesInvariant(t *testing.T) {
	p, err := ParsePlan(`job keys=int/uniform/20 splits=2 offsets=split broadcast=false raw-keyed=false backend=incremental sink=false tms=1 local-recovery=false source=p2/uid:source keyed=p2/uid:keyed
process n=10
restart source=p2/uid:source keyed=p3/uid:keyed
process n=10
process n=10
restart source=p2/uid:source keyed=p2/uid:keyed claim
process n=10`)
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(p)
	for i, s := range p.Steps[:3] {
		w.step(i, s)
	}
	if len(w.violations) > 0 || len(w.noClaim) != 1 {
		t.Fatalf("%d snapshots restored in NO_CLAIM mode (want 1); violations:\n%s", len(w.noClaim), invariants(w))
	}
	f := w.noClaim["file:/savepoints/savepoint-1-1"]
	w.fs.remove(f.files[len(f.files)-1]) // a job deletes a state file it does not own
	w.step(3, p.Steps[3])
	w.step(4, p.Steps[4])
	if got := invariants(w); !strings.Contains(got, "step 3: no-claim-files: ") || strings.Contains(got, "step 4") {
		t.Errorf("want one no-claim-files violation, at step 3:\n%s", got)
	}
	w.step(5, p.Steps[5]) // restored in CLAIM mode: the job owns the savepoint
	if len(w.noClaim) != 0 {
		t.Errorf("a claimed savepoint is watched: %v", slices.Collect(maps.Keys(w.noClaim)))
	}
}
