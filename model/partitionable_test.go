package model

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restoresim/restoresim/model/internal/javamap"
)

// javaRandom is java.util.Random (the 48-bit linear congruential generator), so that a test
// can draw the very inputs a Flink test draws.
type javaRandom struct{ seed int64 }

func newJavaRandom(seed int64) *javaRandom {
	return &javaRandom{seed: (seed ^ 0x5DEECE66D) & (1<<48 - 1)}
}

func (r *javaRandom) next(bits uint) int32 {
	r.seed = (r.seed*0x5DEECE66D + 0xB) & (1<<48 - 1)
	return int32(r.seed >> (48 - bits))
}

// nextInt is Random.nextInt(bound).
func (r *javaRandom) nextInt(bound int32) int32 {
	if bound&(-bound) == bound {
		return int32((int64(bound) * int64(r.next(31))) >> 31)
	}
	for {
		bits := r.next(31)
		val := bits % bound
		if bits-val+(bound-1) >= 0 { // Java's int overflow test
			return val
		}
	}
}

// The draws of testPartitionableStateRepartitioning, recorded by running the same loop on
// java.util.Random(42) (JDK 21): the first three runs' (oldParallelism, newParallelism,
// numNamedStates, maxPartitionsPerState), and over all 10,000 runs a fingerprint of the
// per-state draws (sum = sum·31 + 2·length + union, as Java longs), the number of UNION states,
// of broadcast handles, and of runs with oldParallelism == newParallelism.
var (
	javaRandom42FirstRuns = [][4]int{{9, 4, 1, 9}, {1, 8, 6, 3}, {2, 9, 6, 5}}
	javaRandom42Summary   = [4]int64{-5361473200726284083, 20023, 22123, 1117}
)

// partitionableRun is the input of one doTestPartitionableStateRepartitioning call.
type partitionableRun struct {
	oldP, newP, numNamedStates, maxPartitionsPerState int
	previous                                          [][]OperatorStateHandle
}

// flinkPartitionableRuns draws the 10,000 runs of testPartitionableStateRepartitioning,
// CheckpointCoordinatorTest.java:2631, and builds each run's input as
// doTestPartitionableStateRepartitioning (CheckpointCoordinatorTest.java:2646) does: old subtask
// i has one handle on "/fake-i" with "State-0" … "State-(n-2)" (offsets 0, 1, 2, … running on
// within the handle; UNION with probability 1/10, else SPLIT_DISTRIBUTE) and, for even n,
// "State-(n-1)" BROADCAST at offsets off+1 … off+4; the handle lists its names in the order of
// Flink's HashMap (javaStringHashMap).
func flinkPartitionableRuns() (runs []partitionableRun, summary [4]int64) {
	r := newJavaRandom(42)
	for range 10000 {
		run := partitionableRun{oldP: 1 + int(r.nextInt(9)), newP: 1 + int(r.nextInt(9)),
			numNamedStates: 1 + int(r.nextInt(9)), maxPartitionsPerState: 1 + int(r.nextInt(9))}
		if run.oldP == run.newP {
			summary[3]++
		}
		for i := range run.oldP {
			h := OperatorStateHandle{Delegate: StreamHandle{Path: fmt.Sprint("/fake-", i), Size: -1}}
			var off int64
			for s := range run.numNamedStates - 1 {
				offs := make([]int64, 1+r.nextInt(int32(run.maxPartitionsPerState)))
				for o := range offs {
					offs[o] = off
					off++
				}
				mode := SplitDistribute
				union := int64(0)
				if r.nextInt(10) == 0 {
					mode, union = Union, 1
					summary[1]++
				}
				summary[0] = summary[0]*31 + int64(len(offs))*2 + union
				h.States = append(h.States, NamedOperatorState{Name: fmt.Sprint("State-", s), Mode: mode, Offsets: offs})
			}
			if run.numNamedStates%2 == 0 {
				h.States = append(h.States, NamedOperatorState{Name: fmt.Sprint("State-", run.numNamedStates-1),
					Mode: Broadcast, Offsets: []int64{off + 1, off + 2, off + 3, off + 4}})
				summary[2]++
			}
			// namedStatesToOffsets is a HashMap: the handle lists its names in HashMap order.
			m := javamap.New(javamap.String)
			for _, st := range h.States {
				m.ComputeIfAbsent(st.Name)
			}
			ordered := make([]NamedOperatorState, 0, len(h.States))
			for _, k := range m.Order() {
				ordered = append(ordered, h.States[k])
			}
			h.States = ordered
			run.previous = append(run.previous, []OperatorStateHandle{h})
		}
		runs = append(runs, run)
	}
	return runs, summary
}

func TestJavaRandomMatchesJDK(t *testing.T) {
	r := newJavaRandom(42)
	// new Random(42).nextInt() = -1170105035, then nextInt(10) = 3 (JDK, any version).
	if got := r.next(32); got != -1170105035 {
		t.Errorf("Random(42).nextInt() = %d, want -1170105035", got)
	}
	if got := r.nextInt(10); got != 3 {
		t.Errorf("then nextInt(10) = %d, want 3", got)
	}
	runs, summary := flinkPartitionableRuns()
	for i, want := range javaRandom42FirstRuns {
		got := [4]int{runs[i].oldP, runs[i].newP, runs[i].numNamedStates, runs[i].maxPartitionsPerState}
		if got != want {
			t.Errorf("run %d parameters %v, want Java's %v", i, got, want)
		}
	}
	if summary != javaRandom42Summary {
		t.Errorf("draw summary %v, want Java's %v", summary, javaRandom42Summary)
	}
}

// CheckpointCoordinatorTest.java:2631 testPartitionableStateRepartitioning (1.18; 1.10.1 has
// the same test): for each run, the expected map delegate → name → sorted offsets with each
// offset repeated by its replication (UNION newParallelism, BROADCAST newParallelism/
// oldParallelism + [taskIndex < newParallelism mod oldParallelism], SPLIT_DISTRIBUTE 1; names
// with replication 0 and delegates with no name left are absent) must equal the same map
// collected from the repartitioned handles; the totals must match; and when the parallelism
// changes, the per-subtask offset counts differ by at most 1. Run for both versions.
func TestCheckpointCoordinatorTest_testPartitionableStateRepartitioning(t *testing.T) {
	runs, _ := flinkPartitionableRuns()
	if testing.Short() {
		runs = runs[:1000]
	}
	for _, v := range bothVersions {
		for n, run := range runs {
			if err := doTestPartitionableStateRepartitioning(v, run); err != nil {
				t.Fatalf("%v run %d (%d → %d, %d names, ≤ %d partitions): %v\ninput: %+v",
					v, n, run.oldP, run.newP, run.numNamedStates, run.maxPartitionsPerState, err, run.previous)
			}
		}
	}
}

func doTestPartitionableStateRepartitioning(v FlinkVersion, run partitionableRun) error {
	expected := map[string]map[string][]int64{}
	expectedTotalPartitions := 0
	for taskIndex, hs := range run.previous {
		for _, h := range hs {
			offsMapWithList := map[string][]int64{}
			for _, st := range h.States {
				var replication int
				switch st.Mode {
				case Union:
					replication = run.newP
				case Broadcast:
					extra := 0
					if taskIndex < run.newP%run.oldP {
						extra = 1
					}
					replication = run.newP/run.oldP + extra
				case SplitDistribute:
					replication = 1
				}
				if replication > 0 {
					expectedTotalPartitions += replication * len(st.Offsets)
					var offsList []int64
					for _, off := range st.Offsets {
						for range replication {
							offsList = append(offsList, off)
						}
					}
					offsMapWithList[st.Name] = offsList
				}
			}
			if len(offsMapWithList) > 0 {
				expected[h.Delegate.Path] = offsMapWithList
			}
		}
	}

	pshs, err := RepartitionOperatorState(v, run.previous, run.newP)
	if err != nil {
		return err
	}
	if len(pshs) != run.newP {
		return fmt.Errorf("%d new subtasks, want %d", len(pshs), run.newP)
	}
	actual := map[string]map[string][]int64{}
	minCount, maxCount, actualTotalPartitions := int(^uint(0)>>1), 0, 0
	for _, pshc := range pshs {
		partitionCount := 0
		for _, sh := range pshc {
			for _, named := range sh.States {
				stateToOffsets := actual[sh.Delegate.Path]
				if stateToOffsets == nil {
					stateToOffsets = map[string][]int64{}
					actual[sh.Delegate.Path] = stateToOffsets
				}
				stateToOffsets[named.Name] = append(stateToOffsets[named.Name], named.Offsets...)
				partitionCount += len(named.Offsets)
			}
		}
		minCount, maxCount = min(minCount, partitionCount), max(maxCount, partitionCount)
		actualTotalPartitions += partitionCount
	}
	for _, m := range actual {
		for name := range maps.Keys(m) {
			slices.Sort(m[name])
		}
	}
	if run.oldP != run.newP && maxCount-minCount > 1 {
		return fmt.Errorf("difference in partition load is > 1 : %d", maxCount-minCount)
	}
	if actualTotalPartitions != expectedTotalPartitions {
		return fmt.Errorf("%d partitions in total, want %d", actualTotalPartitions, expectedTotalPartitions)
	}
	if diff := cmp.Diff(expected, actual); diff != "" {
		return fmt.Errorf("delegate → name → offsets (-want +got):\n%s", diff)
	}
	return nil
}
