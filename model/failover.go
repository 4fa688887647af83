package model

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/restoresim/restoresim/model/internal/mutant"
)

// Pipelined regions and the tasks a failure restarts (SPEC §J.1): Flink 1.18's
// SchedulingPipelinedRegionComputeUtil and RestartPipelinedRegionFailoverStrategy over a job
// graph of vertices (with parallelism) and the results flowing between them.

// ResultPartitionType models io.network.partition.ResultPartitionType (1.18). The zero value is
// invalid.
type ResultPartitionType uint8

const (
	// Pipelined is PIPELINED: streamed, consumer and producer run together.
	Pipelined ResultPartitionType = iota + 1
	// PipelinedBounded is PIPELINED_BOUNDED, the streaming default.
	PipelinedBounded
	// PipelinedApproximate is PIPELINED_APPROXIMATE (approximate local recovery).
	PipelinedApproximate
	// Blocking is BLOCKING: the result is complete before it is consumed (batch).
	Blocking
	// BlockingPersistent is BLOCKING_PERSISTENT.
	BlockingPersistent
	// HybridFull is HYBRID_FULL: may be consumed while produced, and consumed again.
	HybridFull
	// HybridSelective is HYBRID_SELECTIVE: may be consumed while produced, only once.
	HybridSelective
)

var resultPartitionTypeNames = [...]string{"", "PIPELINED", "PIPELINED_BOUNDED", "PIPELINED_APPROXIMATE",
	"BLOCKING", "BLOCKING_PERSISTENT", "HYBRID_FULL", "HYBRID_SELECTIVE"}

// String gives Flink's enum name, e.g. "HYBRID_FULL".
func (t ResultPartitionType) String() string {
	if t >= Pipelined && int(t) < len(resultPartitionTypeNames) {
		return resultPartitionTypeNames[t]
	}
	return fmt.Sprintf("ResultPartitionType(%d)", uint8(t))
}

// MustBePipelinedConsumed models mustBePipelinedConsumed: producer and consumer must run at the
// same time, so they belong to one pipelined region (PIPELINED, PIPELINED_BOUNDED).
func (t ResultPartitionType) MustBePipelinedConsumed() bool {
	if mutant.On(mutant.BlockingAsPipelined) && t == Blocking {
		return true
	}
	return t == Pipelined || t == PipelinedBounded
}

// IsReconsumable models isReconsumable: the partition can be consumed again after a consumer
// failed (BLOCKING, BLOCKING_PERSISTENT, HYBRID_FULL).
func (t ResultPartitionType) IsReconsumable() bool {
	return t == Blocking || t == BlockingPersistent || t == HybridFull
}

// DistributionPattern models jobgraph.DistributionPattern. The zero value is invalid.
type DistributionPattern uint8

const (
	// AllToAll is ALL_TO_ALL: every consumer subtask reads every producer subtask's partition.
	AllToAll DistributionPattern = iota + 1
	// Pointwise is POINTWISE: subtasks are connected as EdgeManagerBuildUtil.connectPointwise
	// does (1:1 at equal parallelism, else contiguous groups).
	Pointwise
)

// String gives Flink's enum name.
func (p DistributionPattern) String() string {
	switch p {
	case AllToAll:
		return "ALL_TO_ALL"
	case Pointwise:
		return "POINTWISE"
	}
	return fmt.Sprintf("DistributionPattern(%d)", uint8(p))
}

// FailoverVertex is one job vertex of a FailoverTopology.
type FailoverVertex struct {
	Name        string
	Parallelism int
}

// FailoverEdge is one intermediate result: Producer's output read by Consumer (indexes into
// FailoverTopology.Vertices). Producer subtask i writes partition i of the result.
type FailoverEdge struct {
	Producer, Consumer int
	Type               ResultPartitionType
	Pattern            DistributionPattern
}

// ExecutionVertexID models scheduler.strategy.ExecutionVertexID: subtask Subtask of job vertex
// Vertex (an index into FailoverTopology.Vertices).
type ExecutionVertexID struct {
	Vertex, Subtask int
}

// ResultPartitionID models IntermediateResultPartitionID: partition Partition (= the producer's
// subtask index) of the result of edge Edge.
type ResultPartitionID struct {
	Edge, Partition int
}

// ErrInvalidFailoverTopology is returned by NewFailoverTopology for a graph Flink could not have
// built (a vertex index out of range, a non-positive parallelism, an unknown type or pattern).
// Not a Flink exception.
var ErrInvalidFailoverTopology = errors.New("invalid failover topology")

// ErrNoFailoverRegion is Flink's IllegalStateException "Can not find the failover region for
// task": the failed subtask is not part of the topology.
var ErrNoFailoverRegion = errors.New("can not find the failover region for task")

type partRef struct{ edge, partition int }

// FailoverTopology holds a job graph expanded to subtasks and its pipelined regions
// (SchedulingPipelinedRegionComputeUtil.computePipelinedRegions). Build it once with
// NewFailoverTopology; RegionsToRestart is then cheap.
type FailoverTopology struct {
	vertices []FailoverVertex
	edges    []FailoverEdge
	base     []int // base[v] = dense index of subtask 0 of vertex v
	n        int   // number of subtasks
	regionOf []int // dense subtask → region
	regions  [][]int
	// per region: consumed non-pipelined partitions, and regions consuming what it produces
	consumed       [][]partRef
	consumerRegion [][]int
	// consumedRuns splits each region's consumed partitions (sorted by edge) into one run per
	// edge, and reconsumable says, per edge, whether its partitions stay available for
	// consumption (RegionsToRestart skips a run whose partitions are all available at once).
	consumedRuns [][]partRun
	reconsumable []bool
}

// partRun is the partitions consumed[r][lo:hi], all of edge.
type partRun struct{ edge, lo, hi int }

// NewFailoverTopology expands the job graph and computes its pipelined regions: subtasks joined
// by PIPELINED / PIPELINED_BOUNDED partitions share a region; then regions that form a cycle
// through the other partition types are merged (Tarjan's SCC, FLINK-17330).
func NewFailoverTopology(vertices []FailoverVertex, edges []FailoverEdge) (*FailoverTopology, error) {
	t := &FailoverTopology{vertices: slices.Clone(vertices), edges: slices.Clone(edges), base: make([]int, len(vertices))}
	for v, fv := range vertices {
		if fv.Parallelism < 1 {
			return nil, fmt.Errorf("%w: vertex %d (%q) has parallelism %d", ErrInvalidFailoverTopology, v, fv.Name, fv.Parallelism)
		}
		t.base[v] = t.n
		t.n += fv.Parallelism
	}
	for i, e := range edges {
		if e.Producer < 0 || e.Producer >= len(vertices) || e.Consumer < 0 || e.Consumer >= len(vertices) {
			return nil, fmt.Errorf("%w: edge %d connects vertex %d to %d of %d", ErrInvalidFailoverTopology, i, e.Producer, e.Consumer, len(vertices))
		}
		if e.Type < Pipelined || e.Type > HybridSelective {
			return nil, fmt.Errorf("%w: edge %d has %v", ErrInvalidFailoverTopology, i, e.Type)
		}
		if e.Pattern != AllToAll && e.Pattern != Pointwise {
			return nil, fmt.Errorf("%w: edge %d has %v", ErrInvalidFailoverTopology, i, e.Pattern)
		}
	}

	// Raw regions: union-find over must-be-pipelined partitions.
	parent := make([]int, t.n)
	for i := range parent {
		parent[i] = i
	}
	find := func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	union := func(a, b int) {
		ra, rb := find(a), find(b)
		if ra != rb {
			parent[max(ra, rb)] = min(ra, rb)
		}
	}
	for ei, e := range edges {
		if !e.Type.MustBePipelinedConsumed() {
			continue
		}
		for p := 0; p < vertices[e.Producer].Parallelism; p++ {
			for c, hi := t.consumerRange(ei, p); c < hi; c++ {
				union(t.base[e.Producer]+p, t.base[e.Consumer]+c)
			}
		}
	}
	raw := make([]int, t.n) // subtask → raw region (dense, by smallest member)
	rawIndex := map[int]int{}
	nRaw := 0
	for s := range t.n {
		r := find(s)
		if _, ok := rawIndex[r]; !ok {
			rawIndex[r] = nRaw
			nRaw++
		}
		raw[s] = rawIndex[r]
	}

	// Region graph over the other partitions; merge strongly connected components.
	out := make([][]int, nRaw)
	for ei, e := range edges {
		if e.Type.MustBePipelinedConsumed() {
			continue
		}
		for p := 0; p < vertices[e.Producer].Parallelism; p++ {
			from := raw[t.base[e.Producer]+p]
			for c, hi := t.consumerRange(ei, p); c < hi; c++ {
				if to := raw[t.base[e.Consumer]+c]; to != from {
					out[from] = append(out[from], to)
				}
			}
		}
	}
	comp := stronglyConnectedComponents(out)
	// Number the final regions by their smallest subtask.
	t.regionOf = make([]int, t.n)
	final := map[int]int{}
	for s := range t.n {
		c := comp[raw[s]]
		r, ok := final[c]
		if !ok {
			r = len(t.regions)
			final[c] = r
			t.regions = append(t.regions, nil)
		}
		t.regionOf[s] = r
		t.regions[r] = append(t.regions[r], s)
	}

	// Per region: consumed partitions of other types, and consumer regions.
	t.consumed = make([][]partRef, len(t.regions))
	t.consumerRegion = make([][]int, len(t.regions))
	for ei, e := range edges {
		for p := 0; p < vertices[e.Producer].Parallelism; p++ {
			from := t.regionOf[t.base[e.Producer]+p]
			for c, hi := t.consumerRange(ei, p); c < hi; c++ {
				to := t.regionOf[t.base[e.Consumer]+c]
				if to != from {
					t.consumerRegion[from] = append(t.consumerRegion[from], to)
				}
				if !e.Type.MustBePipelinedConsumed() {
					t.consumed[to] = append(t.consumed[to], partRef{ei, p})
				}
			}
		}
	}
	for r := range t.regions {
		slices.Sort(t.consumerRegion[r])
		t.consumerRegion[r] = slices.Compact(t.consumerRegion[r])
		slices.SortFunc(t.consumed[r], func(a, b partRef) int {
			return cmp.Or(cmp.Compare(a.edge, b.edge), cmp.Compare(a.partition, b.partition))
		})
		t.consumed[r] = slices.Compact(t.consumed[r])
	}
	t.consumedRuns = make([][]partRun, len(t.regions))
	for r, ps := range t.consumed {
		for lo := 0; lo < len(ps); {
			hi := lo + 1
			for hi < len(ps) && ps[hi].edge == ps[lo].edge {
				hi++
			}
			t.consumedRuns[r] = append(t.consumedRuns[r], partRun{ps[lo].edge, lo, hi})
			lo = hi
		}
	}
	t.reconsumable = make([]bool, len(edges))
	for ei, e := range edges {
		t.reconsumable[ei] = e.Type.IsReconsumable() || e.Type == PipelinedApproximate
	}
	return t, nil
}

// consumersOf lists the consumer subtasks of partition p of edge ei
// (EdgeManagerBuildUtil.connectAllToAll / connectPointwise).
func (t *FailoverTopology) consumersOf(ei, p int) []int {
	lo, hi := t.consumerRange(ei, p)
	out := make([]int, 0, hi-lo)
	for c := lo; c < hi; c++ {
		out = append(out, c)
	}
	return out
}

// consumerRange is consumersOf as the range of subtasks lo..hi-1.
func (t *FailoverTopology) consumerRange(ei, p int) (lo, hi int) {
	e := t.edges[ei]
	src, dst := t.vertices[e.Producer].Parallelism, t.vertices[e.Consumer].Parallelism
	switch {
	case e.Pattern == AllToAll:
		lo, hi = 0, dst
	case src == dst:
		lo, hi = p, p+1
	case src > dst:
		// consumer i reads partitions [i·src/dst, (i+1)·src/dst): find the i whose range holds p
		for i := range dst {
			if i*src/dst <= p && p < (i+1)*src/dst {
				lo, hi = i, i+1
				break
			}
		}
	default:
		lo = (p*dst + src - 1) / src
		hi = ((p+1)*dst + src - 1) / src
	}
	return lo, hi
}

// stronglyConnectedComponents returns, per node, a component id (Tarjan's algorithm,
// iterative).
func stronglyConnectedComponents(out [][]int) []int {
	n := len(out)
	index, low, comp := make([]int, n), make([]int, n), make([]int, n)
	for i := range index {
		index[i], comp[i] = -1, -1
	}
	onStack := make([]bool, n)
	var stack []int
	next, nComp := 0, 0
	type frame struct{ v, edge int }
	for root := range n {
		if index[root] >= 0 {
			continue
		}
		call := []frame{{root, 0}}
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		onStack[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			if f.edge < len(out[f.v]) {
				w := out[f.v][f.edge]
				f.edge++
				if index[w] < 0 {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					call = append(call, frame{w, 0})
				} else if onStack[w] {
					low[f.v] = min(low[f.v], index[w])
				}
				continue
			}
			v := f.v
			call = call[:len(call)-1]
			if len(call) > 0 {
				u := call[len(call)-1].v
				low[u] = min(low[u], low[v])
			}
			if low[v] == index[v] {
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp[w] = nComp
					if w == v {
						break
					}
				}
				nComp++
			}
		}
	}
	return comp
}

func (t *FailoverTopology) id(s int) ExecutionVertexID {
	v, _ := slices.BinarySearch(t.base, s+1)
	v--
	return ExecutionVertexID{Vertex: v, Subtask: s - t.base[v]}
}

func (t *FailoverTopology) dense(id ExecutionVertexID) (int, bool) {
	if id.Vertex < 0 || id.Vertex >= len(t.vertices) || id.Subtask < 0 || id.Subtask >= t.vertices[id.Vertex].Parallelism {
		return 0, false
	}
	return t.base[id.Vertex] + id.Subtask, true
}

// Regions lists the pipelined regions, each as its subtasks in (vertex, subtask) order, the
// regions ordered by their first subtask.
func (t *FailoverTopology) Regions() [][]ExecutionVertexID {
	out := make([][]ExecutionVertexID, len(t.regions))
	for r, members := range t.regions {
		for _, s := range members {
			out[r] = append(out[r], t.id(s))
		}
	}
	return out
}

// AllSubtasks lists every subtask in (vertex, subtask) order: what a global failover restarts.
func (t *FailoverTopology) AllSubtasks() []ExecutionVertexID {
	out := make([]ExecutionVertexID, t.n)
	for s := range out {
		out[s] = t.id(s)
	}
	return out
}

// FailoverState is the run-time state RegionsToRestart reads.
type FailoverState struct {
	// FailedPartition is the partition named by a data-consumption failure (PartitionException
	// in the failure's cause chain), or nil. It counts as unavailable for this computation only.
	FailedPartition *ResultPartitionID
	// Released holds the partitions the partition tracker no longer has.
	Released map[ResultPartitionID]bool
	// Created holds the subtasks still in state CREATED (never deployed); they are not restarted.
	Created map[ExecutionVertexID]bool
}

// RegionsToRestart models RestartPipelinedRegionFailoverStrategy.getTasksNeedingRestart (1.18):
// start from the failed subtask's region; repeatedly add the producer region of every
// non-pipelined partition an involved region consumes that is not available (failed, released,
// or not re-consumable: PIPELINED and HYBRID_SELECTIVE are not, PIPELINED_APPROXIMATE is), and
// every region consuming a partition an involved region produces. The result lists, in
// (vertex, subtask) order, all subtasks of the involved regions except those still CREATED.
func (t *FailoverTopology) RegionsToRestart(failed ExecutionVertexID, st FailoverState) ([]ExecutionVertexID, error) {
	out, err := t.AppendRegionsToRestart(nil, failed, st)
	if len(out) == 0 {
		return nil, err
	}
	return out, err
}

// AppendRegionsToRestart is RegionsToRestart appending its answer to dst (whose length it
// returns unchanged, with err, when failed is no subtask of the topology): a caller asking for
// many failures reuses one buffer.
func (t *FailoverTopology) AppendRegionsToRestart(dst []ExecutionVertexID, failed ExecutionVertexID, st FailoverState) ([]ExecutionVertexID, error) {
	s, ok := t.dense(failed)
	if !ok {
		return dst, fmt.Errorf("%w %d of vertex %d", ErrNoFailoverRegion, failed.Subtask, failed.Vertex)
	}
	available := func(p partRef) bool {
		if st.FailedPartition != nil && *st.FailedPartition == (ResultPartitionID{p.edge, p.partition}) {
			return false
		}
		if st.Released[ResultPartitionID{p.edge, p.partition}] {
			return false
		}
		return t.reconsumable[p.edge]
	}
	// With no partition failed or released, a re-consumable edge's partitions are all available.
	noneLost := st.FailedPartition == nil && len(st.Released) == 0
	visited := make([]bool, len(t.regions))
	start := t.regionOf[s]
	visited[start] = true
	queue := []int{start}
	for len(queue) > 0 {
		r := queue[0]
		queue = queue[1:]
		for _, run := range t.consumedRuns[r] {
			if noneLost && t.reconsumable[run.edge] {
				continue
			}
			for _, p := range t.consumed[r][run.lo:run.hi] {
				if available(p) {
					continue
				}
				producer := t.regionOf[t.base[t.edges[p.edge].Producer]+p.partition]
				if !visited[producer] {
					visited[producer] = true
					queue = append(queue, producer)
				}
			}
		}
		for _, c := range t.consumerRegion[r] {
			if !visited[c] {
				visited[c] = true
				queue = append(queue, c)
			}
		}
	}
	n := 0
	for sub := range t.n {
		if visited[t.regionOf[sub]] {
			n++
		}
	}
	out := slices.Grow(dst, n)
	for v, base := range t.base { // (the dense order is (vertex, subtask) order)
		end := t.n
		if v+1 < len(t.base) {
			end = t.base[v+1]
		}
		for sub := base; sub < end; sub++ {
			if !visited[t.regionOf[sub]] {
				continue
			}
			id := ExecutionVertexID{Vertex: v, Subtask: sub - base}
			if len(st.Created) == 0 || !st.Created[id] {
				out = append(out, id)
			}
		}
	}
	return out, nil
}
