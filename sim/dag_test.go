package sim

import (
	"maps"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/restoresim/restoresim/model"
)

// TestRestartSetAgreesWithModel compares, for the jobs of 400 generated plans that have stages
// and for every subtask of them, the oracle's restart set with the one the model's
// RestartPipelinedRegionFailoverStrategy computes (the simulator checks the same at every
// failure, but only for the subtasks a plan fails).
func TestRestartSetAgreesWithModel(t *testing.T) {
	jobs, checked, partial := 0, 0, 0
	for seed := uint64(0); seed < 400; seed++ {
		j := Generate(seed, model.Flink118, 1).Job
		if len(j.Stages) == 0 {
			continue
		}
		jobs++
		topo := failoverTopology(j)
		for v := range j.NumVertices() {
			for i := range min(j.Parallelism(v), 8) {
				ids, err := topo.RegionsToRestart(model.ExecutionVertexID{Vertex: j.graphIndex(v), Subtask: i}, model.FailoverState{})
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				got := map[slot]bool{}
				for _, id := range ids {
					got[slot{j.present()[id.Vertex], id.Subtask}] = true
				}
				want := expectedRestartSet(j, []slot{{v, i}})
				if !maps.Equal(want, got) {
					t.Fatalf("seed %d, %s: failure of %s[%d] (-oracle +model):\n%s", seed, j, VertexName(v), i, cmp.Diff(describeSlots(want), describeSlots(got)))
				}
				if !got[slot{0, 0}] {
					partial++
				}
				checked++
			}
		}
	}
	t.Logf("%d jobs, %d failures compared, %d restart only stateless stages", jobs, checked, partial)
	if jobs < 150 || partial < 100 {
		t.Errorf("too few DAG jobs (%d) or stage-only restarts (%d): the generator no longer exercises region failover", jobs, partial)
	}
}

// TestStageRestartLeavesStateUntouched: a failure behind a blocking edge restarts only its region.
func TestStageRestartLeavesStateUntouched(t *testing.T) {
	p, err := ParsePlan(`job keys=int/uniform/50 splits=4 source=p2/uid:source keyed=p3/uid:keyed v2=keyed/forward/blocking/c2/p3/uid:enrich v3=v2/forward/pipelined/c1/p3/uid:out v4=keyed/rebalance/blocking/c3/p2/uid:audit
process n=20
checkpoint
process n=5
fail vertex=2 subtask=1
fail vertex=4 subtask=0
fail vertex=1 subtask=0
process n=5
`)
	if err != nil {
		t.Fatal(err)
	}
	r := Run(p)
	if !r.OK() {
		t.Fatalf("violations: %v", r.Violations)
	}
	for i, want := range map[int]string{
		3: "fail vertex=2 subtask=1 -> restarted 2 stateless subtasks of v2, v3 from checkpoint 1; state untouched",
		4: "fail vertex=4 subtask=0 -> restarted 1 stateless subtask of v4 from checkpoint 1; state untouched",
		5: "fail vertex=1 subtask=0 -> restored 1",
	} {
		if r.Trace[i+1] != want {
			t.Errorf("step %d: got %q, want %q", i, r.Trace[i+1], want)
		}
	}
}

func TestStageParseErrors(t *testing.T) {
	job := "job keys=int/uniform/10 splits=1 source=p2/uid:s keyed=p3/uid:k "
	for _, c := range []struct{ text, want string }{
		{job + "v2=keyed/forward/pipelined/c1/p4/uid:x", "forward partitioning does not allow change of parallelism"},
		{job + "v3=keyed/rebalance/pipelined/c1/p4/uid:x", "v2 is missing"},
		{job + "v2=v2/rebalance/pipelined/c1/p4/uid:x", "not an earlier vertex"},
		{job + "v2=keyed/shuffle/pipelined/c1/p4/uid:x", "want forward, rebalance, hash or broadcast"},
		{job + "v2=keyed/hash/batch/c1/p4/uid:x", "want pipelined or blocking"},
		{job + "v2=keyed/hash/blocking/c4/p4/uid:x", "want c1, c2 or c3"},
		{job + "v2=keyed/hash/blocking/c1", "want INPUT/EDGE/PARTITION/cCHAIN[/keyed]/VERTEX"},
		{job + "v2=keyed/hash/blocking/c1/keyed", "want INPUT/EDGE/PARTITION/cCHAIN[/keyed]/VERTEX"},
		{job + "v2=keyed/hash/blocking/c1/keyed/p4/uid:x", "a keyed stage reads the source, the keyed vertex or a keyed stage over a pipelined hash edge"},
		{job + "v2=keyed/rebalance/pipelined/c1/keyed/p4/uid:x", "over a pipelined hash edge"},
		{job + "v2=keyed/rebalance/blocking/c1/p4/uid:x v3=v2/hash/pipelined/c1/keyed/p4/uid:y", "over a pipelined hash edge"},
		{job + "v2=keyed/hash/blocking/c2/p4/uid:k", "uid \"k\" is used twice"},
		{job + "v2=keyed/hash/blocking/c2/p4/uid:x v3=v2/hash/blocking/c1/p1/uid:x-2", "uid \"x-2\" is used twice"},
		{job + "v2=keyed/hash/blocking/c1/p4/uid:a v3=keyed/hash/blocking/c1/p4/uid:b v4=keyed/hash/blocking/c1/p4/uid:c v5=keyed/hash/blocking/c1/p4/uid:d v6=keyed/hash/blocking/c1/p4/uid:e", "at most 4"},
		{job + "\nfail vertex=6 subtask=0", "want vertex=V subtask=N"},
		{job + "v2=keyed/hash/pipelined/c1/keyed/p8/m4/uid:agg", "v2: max parallelism 4 is below parallelism 8"},
		{"job keys=int/uniform/10 splits=1 source=p2/uid:s keyed=p8/m4/uid:k", "keyed: max parallelism 4 is below parallelism 8"},
		{job + "\nrestart source=p2/uid:s keyed=p2/uid:k2 v2=keyed/hash/pipelined/c1/keyed/p2/uid:k", "have the same operator ID"},
		{job + "v2=keyed/rebalance/blocking/c1/p2/uid:x\nrestart source=p2/uid:s keyed=p2/uid:x allow-non-restored", "keep their uids apart"},
		{"job keys=int/uniform/10 splits=1 source=p2/uid:s keyed=p3/uid:sink", "keep their uids apart"},
		{"job keys=int/uniform/10 splits=1 source=p2/auto keyed=p3/uid:k", "unknown part \"auto\""},
		{job + "v2=keyed/hash/blocking/c1/p2/auto/uid:x", "want pN and one of uid:NAME or auto"},
		{job + "v2=keyed/hash/blocking/c1/p2/uid:~auto:1", "want a name not starting with ~"},
		{job + "\nrestart source=p2/uid:s keyed=p3/uid:k v2=source/forward/pipelined/c1/p3/uid:x", "forward partitioning"},
	} {
		_, err := ParsePlan(c.text)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParsePlan(%q) = %v, want an error mentioning %q", c.text, err, c.want)
		}
	}
}
