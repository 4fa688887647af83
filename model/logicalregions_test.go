package model

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Flink 1.18's LogicalPipelinedRegionComputeUtilTest
// (flink-runtime/src/test/java/org/apache/flink/runtime/executiongraph/failover/flip1/LogicalPipelinedRegionComputeUtilTest.java)
// and DefaultLogicalTopologyTest.testGetLogicalPipelinedRegions. Flink's checkRegionSize asserts
// the number of regions and builds, but never asserts, a matcher on their sizes
// (containsInAnyOrder's result is dropped); the tests here check the regions' exact members.

// logicalVertices names the vertices v1…vn (index 0 is v1).
func logicalVertices(n int) []FailoverVertex {
	out := make([]FailoverVertex, n)
	for i := range out {
		out[i] = FailoverVertex{Name: "v" + string(rune('1'+i)), Parallelism: 1}
	}
	return out
}

func checkLogicalRegions(t *testing.T, n int, edges []FailoverEdge, want [][]int) {
	t.Helper()
	got, err := LogicalPipelinedRegions(logicalVertices(n), edges)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("regions (-want +got):\n%s", diff)
	}
}

// LogicalPipelinedRegionComputeUtilTest.java:49: three unconnected vertices, three regions.
func TestLogicalPipelinedRegionComputeUtilTest_testIsolatedVertices(t *testing.T) {
	checkLogicalRegions(t, 3, nil, [][]int{{0}, {1}, {2}})
}

// LogicalPipelinedRegionComputeUtilTest.java:70: v1 →(ALL_TO_ALL, type 1) v2 →(POINTWISE, type 2) v3.
func TestLogicalPipelinedRegionComputeUtilTest_testVariousResultPartitionTypesBetweenVertices(t *testing.T) {
	for _, tt := range []struct {
		t1, t2 ResultPartitionType
		want   [][]int
	}{
		{Blocking, Pipelined, [][]int{{0}, {1, 2}}},
		{Blocking, Blocking, [][]int{{0}, {1}, {2}}},
		{Pipelined, Pipelined, [][]int{{0, 1, 2}}},
	} {
		checkLogicalRegions(t, 3, []FailoverEdge{
			{Producer: 0, Consumer: 1, Type: tt.t1, Pattern: AllToAll},
			{Producer: 1, Consumer: 2, Type: tt.t2, Pattern: Pointwise},
		}, tt.want)
	}
}

// LogicalPipelinedRegionComputeUtilTest.java:111: v1 →(pipelined) v3, v2 →(blocking) v3, v3 →(pipelined) v4.
func TestLogicalPipelinedRegionComputeUtilTest_testTwoInputsMergesIntoOne(t *testing.T) {
	checkLogicalRegions(t, 4, []FailoverEdge{
		{Producer: 0, Consumer: 2, Type: Pipelined, Pattern: Pointwise},
		{Producer: 1, Consumer: 2, Type: Blocking, Pattern: Pointwise},
		{Producer: 2, Consumer: 3, Type: Pipelined, Pattern: AllToAll},
	}, [][]int{{0, 2, 3}, {1}})
}

// LogicalPipelinedRegionComputeUtilTest.java:144: v1 →(pipelined) v2, v2 →(pipelined) v3, v2 →(blocking) v4.
func TestLogicalPipelinedRegionComputeUtilTest_testOneInputSplitsIntoTwo(t *testing.T) {
	checkLogicalRegions(t, 4, []FailoverEdge{
		{Producer: 0, Consumer: 1, Type: Pipelined, Pattern: AllToAll},
		{Producer: 1, Consumer: 2, Type: Pipelined, Pattern: Pointwise},
		{Producer: 1, Consumer: 3, Type: Blocking, Pattern: Pointwise},
	}, [][]int{{0, 1, 2}, {3}})
}

// LogicalPipelinedRegionComputeUtilTest.java:180: v1 →(blocking) v2 →(pipelined) v4,
// v1 →(pipelined) v3 →(pipelined) v4: one region.
func TestLogicalPipelinedRegionComputeUtilTest_testDiamondWithMixedPipelinedAndBlockingEdges(t *testing.T) {
	checkLogicalRegions(t, 4, []FailoverEdge{
		{Producer: 0, Consumer: 1, Type: Blocking, Pattern: Pointwise},
		{Producer: 1, Consumer: 3, Type: Pipelined, Pattern: Pointwise},
		{Producer: 0, Consumer: 2, Type: Pipelined, Pattern: Pointwise},
		{Producer: 2, Consumer: 3, Type: Pipelined, Pattern: Pointwise},
	}, [][]int{{0, 1, 2, 3}})
}

// DefaultLogicalTopologyTest.java:76: v1 →(ALL_TO_ALL, pipelined) v2 →(ALL_TO_ALL, blocking) v3,
// parallelism 3: two regions.
func TestDefaultLogicalTopologyTest_testGetLogicalPipelinedRegions(t *testing.T) {
	vs := []FailoverVertex{{Name: "v1", Parallelism: 3}, {Name: "v2", Parallelism: 3}, {Name: "v3", Parallelism: 3}}
	got, err := LogicalPipelinedRegions(vs, []FailoverEdge{
		{Producer: 0, Consumer: 1, Type: Pipelined, Pattern: AllToAll},
		{Producer: 1, Consumer: 2, Type: Blocking, Pattern: AllToAll},
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]int{{0, 1}, {2}}, got); diff != "" {
		t.Errorf("regions (-want +got):\n%s", diff)
	}
}

// Not a Flink test method: PIPELINED_BOUNDED joins like PIPELINED; the other types separate; an
// edge against the topological order and an index out of range are refused.
func TestLogicalPipelinedRegionsTypesAndBadInput(t *testing.T) {
	for _, typ := range []ResultPartitionType{Pipelined, PipelinedBounded, PipelinedApproximate, Blocking, BlockingPersistent, HybridFull, HybridSelective} {
		got, err := LogicalPipelinedRegions(logicalVertices(2), []FailoverEdge{{Producer: 0, Consumer: 1, Type: typ, Pattern: AllToAll}})
		if err != nil {
			t.Fatal(err)
		}
		if joined := len(got) == 1; joined != typ.MustBePipelinedConsumed() {
			t.Errorf("%v: regions %v", typ, got)
		}
	}
	for _, e := range []FailoverEdge{{Producer: 1, Consumer: 0, Type: Pipelined}, {Producer: 0, Consumer: 2, Type: Pipelined}} {
		if _, err := LogicalPipelinedRegions(logicalVertices(2), []FailoverEdge{e}); !errors.Is(err, ErrInvalidFailoverTopology) {
			t.Errorf("edge %+v: %v, want ErrInvalidFailoverTopology", e, err)
		}
	}
}
