package model

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// singles builds n vertices v1..vn of parallelism 1 (vertex index i is "v(i+1)").
func singles(n int) []FailoverVertex {
	vs := make([]FailoverVertex, n)
	for i := range vs {
		vs[i] = FailoverVertex{Name: fmt.Sprint("v", i+1), Parallelism: 1}
	}
	return vs
}

// edge connects v<from> to v<to> (1-based, as in the Flink tests) with one partition.
func edge(from, to int, typ ResultPartitionType) FailoverEdge {
	return FailoverEdge{Producer: from - 1, Consumer: to - 1, Type: typ, Pattern: AllToAll}
}

// vs names single-subtask vertices by their 1-based numbers.
func vs(nums ...int) []ExecutionVertexID {
	var out []ExecutionVertexID
	for _, n := range nums {
		out = append(out, ExecutionVertexID{Vertex: n - 1})
	}
	return out
}

// partOf is the (only) partition of edge i.
func partOf(edgeIndex int) *ResultPartitionID { return &ResultPartitionID{Edge: edgeIndex} }

type failoverCase struct {
	name   string
	failed int // 1-based vertex
	state  FailoverState
	want   []ExecutionVertexID
}

func runFailoverCases(t *testing.T, topo *FailoverTopology, cases []failoverCase) {
	t.Helper()
	for _, c := range cases {
		got, err := topo.RegionsToRestart(ExecutionVertexID{Vertex: c.failed - 1}, c.state)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s: tasks to restart (-want +got):\n%s", c.name, diff)
		}
	}
}

func mustTopology(t *testing.T, v []FailoverVertex, e []FailoverEdge) *FailoverTopology {
	t.Helper()
	topo, err := NewFailoverTopology(v, e)
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

// v1,v2 →(blocking) v4,v5 (all to all); v3 →(blocking) v6. Edges 0–3 are v1→v4, v1→v5,
// v2→v4, v2→v5; edge 4 is v3→v6.
func diamond(t *testing.T) *FailoverTopology {
	return mustTopology(t, singles(6), []FailoverEdge{
		edge(1, 4, Blocking), edge(1, 5, Blocking), edge(2, 4, Blocking), edge(2, 5, Blocking), edge(3, 6, Blocking),
	})
}

// §K.11 testRegionFailoverForRegionInternalErrors.
func TestRegionFailoverForRegionInternalErrors(t *testing.T) {
	runFailoverCases(t, diamond(t), []failoverCase{
		{name: "v1", failed: 1, want: vs(1, 4, 5)},
		{name: "v2", failed: 2, want: vs(2, 4, 5)},
		{name: "v3", failed: 3, want: vs(3, 6)},
		{name: "v4", failed: 4, want: vs(4)},
		{name: "v5", failed: 5, want: vs(5)},
		{name: "v6", failed: 6, want: vs(6)},
	})
}

// §K.11 testRegionFailoverForDataConsumptionErrors.
func TestRegionFailoverForDataConsumptionErrors(t *testing.T) {
	runFailoverCases(t, diamond(t), []failoverCase{
		{name: "v4 on v1's partition", failed: 4, state: FailoverState{FailedPartition: partOf(0)}, want: vs(1, 4, 5)},
		{name: "v4 on v2's partition", failed: 4, state: FailoverState{FailedPartition: partOf(2)}, want: vs(2, 4, 5)},
		{name: "v5 on v1's partition", failed: 5, state: FailoverState{FailedPartition: partOf(1)}, want: vs(1, 4, 5)},
		{name: "v5 on v2's partition", failed: 5, state: FailoverState{FailedPartition: partOf(3)}, want: vs(2, 4, 5)},
		{name: "v6 on v3's partition", failed: 6, state: FailoverState{FailedPartition: partOf(4)}, want: vs(3, 6)},
	})
}

// §K.11 testRegionFailoverForVariousResultPartitionAvailabilityCombinations: v1 →(rp1) v3,
// v2 →(rp2) v3, both blocking.
func TestRegionFailoverForVariousResultPartitionAvailabilityCombinations(t *testing.T) {
	topo := mustTopology(t, singles(3), []FailoverEdge{edge(1, 3, Blocking), edge(2, 3, Blocking)})
	rp1, rp2 := ResultPartitionID{Edge: 0}, ResultPartitionID{Edge: 1}
	none := FailoverState{}
	only1 := FailoverState{Released: map[ResultPartitionID]bool{rp1: true}}
	only2 := FailoverState{Released: map[ResultPartitionID]bool{rp2: true}}
	both := FailoverState{Released: map[ResultPartitionID]bool{rp1: true, rp2: true}}
	runFailoverCases(t, topo, []failoverCase{
		{"both available, v1", 1, none, vs(1, 3)},
		{"both available, v2", 2, none, vs(2, 3)},
		{"both available, v3", 3, none, vs(3)},
		{"rp1 unavailable, v1", 1, only1, vs(1, 3)},
		{"rp1 unavailable, v2", 2, only1, vs(1, 2, 3)},
		{"rp1 unavailable, v3", 3, only1, vs(1, 3)},
		{"rp2 unavailable, v1", 1, only2, vs(1, 2, 3)},
		{"rp2 unavailable, v2", 2, only2, vs(2, 3)},
		{"rp2 unavailable, v3", 3, only2, vs(2, 3)},
		{"both unavailable, v1", 1, both, vs(1, 2, 3)},
		{"both unavailable, v2", 2, both, vs(1, 2, 3)},
		{"both unavailable, v3", 3, both, vs(1, 2, 3)},
	})
}

// §K.11 testRegionFailoverForMultipleVerticesRegions: v1 → v2 ⇒ v3 → v4 ⇒ v5 → v6
// (→ pipelined, ⇒ blocking), v1 and v2 finished.
func TestRegionFailoverForMultipleVerticesRegions(t *testing.T) {
	topo := mustTopology(t, singles(6), []FailoverEdge{
		edge(1, 2, Pipelined), edge(2, 3, Blocking), edge(3, 4, Pipelined), edge(4, 5, Blocking), edge(5, 6, Pipelined),
	})
	if diff := cmp.Diff([][]ExecutionVertexID{vs(1, 2), vs(3, 4), vs(5, 6)}, topo.Regions()); diff != "" {
		t.Errorf("regions (-want +got):\n%s", diff)
	}
	runFailoverCases(t, topo, []failoverCase{
		{name: "v3", failed: 3, want: vs(3, 4, 5, 6)},
		{name: "v3 on v2's partition", failed: 3, state: FailoverState{FailedPartition: partOf(1)}, want: vs(1, 2, 3, 4, 5, 6)},
	})
}

// §K.11 testRegionFailoverDoesNotRestartCreatedExecutions: v1 ⇒ v2, both CREATED.
func TestRegionFailoverDoesNotRestartCreatedExecutions(t *testing.T) {
	topo := mustTopology(t, singles(2), []FailoverEdge{edge(1, 2, Blocking)})
	created := map[ExecutionVertexID]bool{{Vertex: 0}: true, {Vertex: 1}: true}
	runFailoverCases(t, topo, []failoverCase{
		{name: "v2", failed: 2, state: FailoverState{Created: created}, want: nil},
		{name: "v2 on v1's partition", failed: 2, state: FailoverState{Created: created, FailedPartition: partOf(0)}, want: nil},
		// Control: the same failures with deployed tasks restart them.
		{name: "v2 deployed", failed: 2, want: vs(2)},
		{name: "v2 deployed, on v1's partition", failed: 2, state: FailoverState{FailedPartition: partOf(0)}, want: vs(1, 2)},
	})
}

// §K.11 testRegionFailoverForPipelinedApproximate: v1→v2, v1→v3, v2→v4, v3→v4.
func TestRegionFailoverForPipelinedApproximate(t *testing.T) {
	topo := mustTopology(t, singles(4), []FailoverEdge{
		edge(1, 2, PipelinedApproximate), edge(1, 3, PipelinedApproximate),
		edge(2, 4, PipelinedApproximate), edge(3, 4, PipelinedApproximate),
	})
	runFailoverCases(t, topo, []failoverCase{
		{name: "v1", failed: 1, want: vs(1, 2, 3, 4)},
		{name: "v2", failed: 2, want: vs(2, 4)},
		{name: "v3", failed: 3, want: vs(3, 4)},
		{name: "v4", failed: 4, want: vs(4)},
	})
}

// §K.11 testRegionFailoverForHybridEdge: v1 (hybrid full), v2 (blocking), v3 (hybrid
// selective), v4 (pipelined) → v5 →(hybrid full) v6.
func TestRegionFailoverForHybridEdge(t *testing.T) {
	topo := mustTopology(t, singles(6), []FailoverEdge{
		edge(1, 5, HybridFull), edge(2, 5, Blocking), edge(3, 5, HybridSelective), edge(4, 5, Pipelined), edge(5, 6, HybridFull),
	})
	runFailoverCases(t, topo, []failoverCase{
		{name: "v5", failed: 5, want: vs(3, 4, 5, 6)},
		{name: "v6", failed: 6, want: vs(6)},
	})
}

// A streaming job with an all-to-all pipelined edge is one region; with only pointwise edges each
// column is a region.
func TestPipelinedRegions(t *testing.T) {
	id := func(v, s int) ExecutionVertexID { return ExecutionVertexID{Vertex: v, Subtask: s} }
	v := []FailoverVertex{{"src", 2}, {"map", 2}, {"sink", 2}}

	allToAll := mustTopology(t, v, []FailoverEdge{
		{Producer: 0, Consumer: 1, Type: PipelinedBounded, Pattern: Pointwise},
		{Producer: 1, Consumer: 2, Type: PipelinedBounded, Pattern: AllToAll},
	})
	if got := len(allToAll.Regions()); got != 1 {
		t.Errorf("all-to-all streaming job: %d regions, want 1", got)
	}

	columns := mustTopology(t, v, []FailoverEdge{
		{Producer: 0, Consumer: 1, Type: PipelinedBounded, Pattern: Pointwise},
		{Producer: 1, Consumer: 2, Type: PipelinedBounded, Pattern: Pointwise},
	})
	want := [][]ExecutionVertexID{{id(0, 0), id(1, 0), id(2, 0)}, {id(0, 1), id(1, 1), id(2, 1)}}
	if diff := cmp.Diff(want, columns.Regions()); diff != "" {
		t.Errorf("pointwise columns (-want +got):\n%s", diff)
	}
	got, err := columns.RegionsToRestart(id(1, 1), FailoverState{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want[1], got); diff != "" {
		t.Errorf("failure in column 1 (-want +got):\n%s", diff)
	}

	// Columns joined both ways by blocking all-to-all edges form a cycle of regions: merged.
	cyclic := mustTopology(t, []FailoverVertex{{"a", 2}, {"b", 2}}, []FailoverEdge{
		{Producer: 0, Consumer: 1, Type: Pipelined, Pattern: Pointwise},
		{Producer: 0, Consumer: 1, Type: Blocking, Pattern: AllToAll},
	})
	if got := len(cyclic.Regions()); got != 1 {
		t.Errorf("regions on a cycle: %d regions, want 1 (merged)", got)
	}
}

// EdgeManagerBuildUtil.connectPointwise at unequal parallelism.
func TestPointwiseConsumers(t *testing.T) {
	for _, tt := range []struct {
		src, dst int
		want     [][]int // per producer subtask
	}{
		{4, 2, [][]int{{0}, {0}, {1}, {1}}},
		{3, 2, [][]int{{0}, {1}, {1}}},
		{2, 4, [][]int{{0, 1}, {2, 3}}},
		{2, 3, [][]int{{0, 1}, {2}}},
		{3, 3, [][]int{{0}, {1}, {2}}},
	} {
		topo := mustTopology(t, []FailoverVertex{{"p", tt.src}, {"c", tt.dst}},
			[]FailoverEdge{{Producer: 0, Consumer: 1, Type: Blocking, Pattern: Pointwise}})
		var got [][]int
		for p := range tt.src {
			got = append(got, topo.consumersOf(0, p))
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%d → %d (-want +got):\n%s", tt.src, tt.dst, diff)
		}
	}
}

func TestFailoverTopologyBadInput(t *testing.T) {
	for _, tt := range []struct {
		name string
		v    []FailoverVertex
		e    []FailoverEdge
	}{
		{"zero parallelism", []FailoverVertex{{"a", 0}}, nil},
		{"edge to nowhere", singles(1), []FailoverEdge{edge(1, 2, Blocking)}},
		{"no type", singles(2), []FailoverEdge{{Producer: 0, Consumer: 1, Pattern: AllToAll}}},
		{"no pattern", singles(2), []FailoverEdge{{Producer: 0, Consumer: 1, Type: Blocking}}},
	} {
		if _, err := NewFailoverTopology(tt.v, tt.e); !errors.Is(err, ErrInvalidFailoverTopology) {
			t.Errorf("%s: err = %v, want ErrInvalidFailoverTopology", tt.name, err)
		}
	}
	topo := mustTopology(t, singles(1), nil)
	if _, err := topo.RegionsToRestart(ExecutionVertexID{Vertex: 0, Subtask: 1}, FailoverState{}); !errors.Is(err, ErrNoFailoverRegion) {
		t.Errorf("unknown subtask: err = %v, want ErrNoFailoverRegion", err)
	}
}

func BenchmarkRegionsToRestart(b *testing.B) {
	// A batch-like job: 4 stages of parallelism 64, blocking all-to-all between stages.
	v := []FailoverVertex{{"a", 64}, {"b", 64}, {"c", 64}, {"d", 64}}
	var e []FailoverEdge
	for i := range 3 {
		e = append(e, FailoverEdge{Producer: i, Consumer: i + 1, Type: Blocking, Pattern: AllToAll})
	}
	topo, err := NewFailoverTopology(v, e)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := topo.RegionsToRestart(ExecutionVertexID{Vertex: 2, Subtask: 7}, FailoverState{}); err != nil {
			b.Fatal(err)
		}
	}
}

func ExampleFailoverTopology_RegionsToRestart() {
	// v1 → v2 ⇒ v3 → v4 (→ pipelined, ⇒ blocking)
	topo, _ := NewFailoverTopology(
		[]FailoverVertex{{"v1", 1}, {"v2", 1}, {"v3", 1}, {"v4", 1}},
		[]FailoverEdge{
			{Producer: 0, Consumer: 1, Type: Pipelined, Pattern: AllToAll},
			{Producer: 1, Consumer: 2, Type: Blocking, Pattern: AllToAll},
			{Producer: 2, Consumer: 3, Type: Pipelined, Pattern: AllToAll},
		})
	fmt.Println(topo.RegionsToRestart(ExecutionVertexID{Vertex: 2}, FailoverState{}))
	fmt.Println(topo.RegionsToRestart(ExecutionVertexID{Vertex: 1}, FailoverState{}))
	// Output:
	// [{2 0} {3 0}] <nil>
	// [{0 0} {1 0} {2 0} {3 0}] <nil>
}

// Tarjan's components agree with mutual reachability on random graphs.
func TestStronglyConnectedComponentsAgainstReachability(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		n := 1 + rng.IntN(9)
		out := make([][]int, n)
		for range rng.IntN(2 * n) {
			a, b := rng.IntN(n), rng.IntN(n)
			out[a] = append(out[a], b)
		}
		reach := make([][]bool, n)
		for s := range n {
			reach[s] = make([]bool, n)
			reach[s][s] = true
			stack := []int{s}
			for len(stack) > 0 {
				v := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				for _, w := range out[v] {
					if !reach[s][w] {
						reach[s][w] = true
						stack = append(stack, w)
					}
				}
			}
		}
		comp := stronglyConnectedComponents(out)
		for a := range n {
			for b := range n {
				if same, mutual := comp[a] == comp[b], reach[a][b] && reach[b][a]; same != mutual {
					t.Fatalf("graph %v: nodes %d,%d same component %v, mutually reachable %v", out, a, b, same, mutual)
				}
			}
		}
	}
}

// Property: on random job graphs, the regions and the restart sets agree with a brute-force
// fixpoint computed directly on subtasks: regions are the classes of "connected through
// pipelined partitions, or mutually reachable through the others"; a restart set is the smallest
// set of whole regions holding the failed subtask that is closed under "consumer of a produced
// partition" and "producer of an unavailable consumed partition", minus CREATED subtasks.
func TestRegionsToRestartPropertyAgainstBruteForce(t *testing.T) {
	types := []ResultPartitionType{Pipelined, PipelinedBounded, PipelinedApproximate, Blocking, BlockingPersistent, HybridFull, HybridSelective}
	rapid.Check(t, func(t *rapid.T) {
		nv := rapid.IntRange(1, 5).Draw(t, "vertices")
		var vs []FailoverVertex
		for i := range nv {
			vs = append(vs, FailoverVertex{Name: fmt.Sprint("v", i), Parallelism: rapid.IntRange(1, 4).Draw(t, "parallelism")})
		}
		var es []FailoverEdge
		for range rapid.IntRange(0, 6).Draw(t, "edges") {
			if nv < 2 {
				break
			}
			from := rapid.IntRange(0, nv-2).Draw(t, "from")
			es = append(es, FailoverEdge{Producer: from, Consumer: rapid.IntRange(from+1, nv-1).Draw(t, "to"),
				Type:    rapid.SampledFrom(types).Draw(t, "type"),
				Pattern: rapid.SampledFrom([]DistributionPattern{AllToAll, Pointwise}).Draw(t, "pattern")})
		}
		topo, err := NewFailoverTopology(vs, es)
		if err != nil {
			t.Fatal(err)
		}
		all := topo.AllSubtasks()
		n := len(all)
		// links[a][b]: a produces a partition b consumes; part[a][b] names it.
		type link struct {
			typ  ResultPartitionType
			part ResultPartitionID
		}
		links := make([][][]link, n)
		for a := range links {
			links[a] = make([][]link, n)
		}
		dense := func(id ExecutionVertexID) int { d, _ := topo.dense(id); return d }
		for ei, e := range es {
			for p := range vs[e.Producer].Parallelism {
				for _, c := range topo.consumersOf(ei, p) {
					a, b := dense(ExecutionVertexID{e.Producer, p}), dense(ExecutionVertexID{e.Consumer, c})
					links[a][b] = append(links[a][b], link{e.Type, ResultPartitionID{ei, p}})
				}
			}
		}
		// same[a][b]: transitive closure of pipelined connectivity, then of mutual reachability.
		same := make([][]bool, n)
		for a := range same {
			same[a] = make([]bool, n)
			same[a][a] = true
			for b := range n {
				for _, l := range links[a][b] {
					if l.typ.MustBePipelinedConsumed() {
						same[a][b] = true
					}
				}
			}
		}
		closeSym := func(m [][]bool) {
			for k := range n {
				for a := range n {
					for b := range n {
						if m[a][k] && m[k][b] {
							m[a][b] = true
						}
					}
				}
			}
		}
		for a := range n {
			for b := range n {
				same[b][a] = same[b][a] || same[a][b]
			}
		}
		closeSym(same)
		reach := make([][]bool, n)
		for a := range reach {
			reach[a] = make([]bool, n)
			for b := range n {
				reach[a][b] = same[a][b] || len(links[a][b]) > 0
			}
		}
		closeSym(reach)
		for a := range n { // mutual reachability merges regions
			for b := range n {
				same[a][b] = reach[a][b] && reach[b][a]
			}
		}
		regionOf := topo.Regions()
		got := make([]int, n)
		for r, members := range regionOf {
			for _, m := range members {
				got[dense(m)] = r
			}
		}
		for a := range n {
			for b := range n {
				if (got[a] == got[b]) != same[a][b] {
					t.Fatalf("subtasks %v and %v: same region %v, brute force %v (regions %v)", all[a], all[b], got[a] == got[b], same[a][b], regionOf)
				}
			}
		}

		failed := rapid.IntRange(0, n-1).Draw(t, "failed")
		released := map[ResultPartitionID]bool{}
		created := map[ExecutionVertexID]bool{}
		for a := range n {
			if rapid.IntRange(0, 4).Draw(t, "created") == 0 {
				created[all[a]] = true
			}
			for b := range n {
				for _, l := range links[a][b] {
					if rapid.IntRange(0, 3).Draw(t, "released") == 0 {
						released[l.part] = true
					}
				}
			}
		}
		in := make([]bool, n)
		addRegion := func(x int) bool {
			changed := false
			for y := range n {
				if same[x][y] && !in[y] {
					in[y], changed = true, true
				}
			}
			return changed
		}
		addRegion(failed)
		for changed := true; changed; {
			changed = false
			for a := range n {
				for b := range n {
					for _, l := range links[a][b] {
						if in[a] && addRegion(b) {
							changed = true
						}
						reconsumable := l.typ.IsReconsumable() || l.typ == PipelinedApproximate
						if in[b] && !l.typ.MustBePipelinedConsumed() && (released[l.part] || !reconsumable) && addRegion(a) {
							changed = true
						}
					}
				}
			}
		}
		var want []ExecutionVertexID
		for a := range n {
			if in[a] && !created[all[a]] {
				want = append(want, all[a])
			}
		}
		res, err := topo.RegionsToRestart(all[failed], FailoverState{Released: released, Created: created})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, res); diff != "" {
			t.Fatalf("failure of %v (-brute force +RegionsToRestart):\n%s", all[failed], diff)
		}
	})
}
