package model

import (
	"fmt"
	"slices"
)

// LogicalPipelinedRegions models LogicalPipelinedRegionComputeUtil.computePipelinedRegions
// (1.18; DefaultLogicalTopology.getAllPipelinedRegions): the pipelined regions of the job graph
// itself, one level above FailoverTopology's execution-level regions. Job vertices joined by a
// result that must be consumed pipelined (PIPELINED, PIPELINED_BOUNDED; see
// ResultPartitionType.MustBePipelinedConsumed) share a region; other results separate regions.
// Flink merges no regions on cycles here (the job graph is a DAG).
//
// The vertices must be in topological order, as Flink requires: an edge whose producer comes
// after its consumer is Flink's IllegalStateException "Producer task … failover region is null"
// (a region-building bug); it and an index out of range give ErrInvalidFailoverTopology. Each
// region lists its vertex indexes ascending; regions are ordered by their first vertex.
func LogicalPipelinedRegions(vertices []FailoverVertex, edges []FailoverEdge) ([][]int, error) {
	n := len(vertices)
	region := make([]int, n) // union-find parent
	for v := range region {
		region[v] = v
	}
	find := func(v int) int {
		for region[v] != v {
			region[v] = region[region[v]]
			v = region[v]
		}
		return v
	}
	for _, e := range edges {
		if e.Producer < 0 || e.Producer >= n || e.Consumer < 0 || e.Consumer >= n {
			return nil, fmt.Errorf("%w: edge %d→%d names a vertex outside 0..%d", ErrInvalidFailoverTopology, e.Producer, e.Consumer, n-1)
		}
		if e.Producer > e.Consumer {
			return nil, fmt.Errorf("%w: producer task %d failover region is null while calculating failover region for the consumer task %d (vertices not topologically sorted)",
				ErrInvalidFailoverTopology, e.Producer, e.Consumer)
		}
		if e.Type.MustBePipelinedConsumed() {
			if a, b := find(e.Producer), find(e.Consumer); a != b {
				region[max(a, b)] = min(a, b)
			}
		}
	}
	byRoot := map[int]int{}
	var out [][]int
	for v := range n {
		r := find(v)
		k, ok := byRoot[r]
		if !ok {
			k = len(out)
			byRoot[r] = k
			out = append(out, nil)
		}
		out[k] = append(out[k], v)
	}
	for _, r := range out {
		slices.Sort(r)
	}
	return out, nil
}
