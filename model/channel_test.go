package model

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The channel-state methods of Flink's StateAssignmentOperationTest (release-1.18,
// flink-runtime/src/test/java/org/apache/flink/runtime/checkpoint/StateAssignmentOperationTest.java,
// "SAOT" below), with Flink's inputs and expected values (SPEC §K.5).

// saotMaxP is the test class's MAX_P (line 104).
const saotMaxP = 256

// saotChannel is one channel-state handle as StateHandleDummyUtil creates them: 10 offsets,
// input handles on gate 0 (createNewInputChannelStateHandle: InputChannelInfo(0,
// random.nextInt())), output handles on a partition Flink draws with random.nextInt() (here 0:
// Flink 1.18 reads it only for a vertex with several outputs, which no test below has).
func saotChannel(name string) ChannelStateHandle {
	offs := make([]int64, 10)
	for i := range offs {
		offs[i] = int64(i)
	}
	return ChannelStateHandle{Delegate: StreamHandle{Path: name, Size: 40, InMemory: true}, Offsets: offs}
}

// saotStates models buildOperatorStates (SAOT line 1048): every operator has n subtasks with
// managed and raw operator state (two handles each), keyed state for key group i, two input
// channel handles (not the first operator) and two result subpartition handles (not the last).
func saotStates(ids []OperatorID, n int) []OperatorState {
	var out []OperatorState
	for k, id := range ids {
		os := OperatorState{OperatorID: id, Parallelism: n, MaxParallelism: saotMaxP, Subtasks: make([]*OperatorSubtaskState, n)}
		for i := range n {
			st := &OperatorSubtaskState{
				ManagedOperatorState: append(saOpHandle(id, i, "managed-a"), saOpHandle(id, i, "managed-b")...),
				RawOperatorState:     append(saOpHandle(id, i, "raw-a"), saOpHandle(id, i, "raw-b")...),
				ManagedKeyedState:    []KeyedStateHandle{saKeyed(id, i, kr(i, i), false)},
				RawKeyedState:        []KeyedStateHandle{saKeyed(id, i, kr(i, i), true)},
			}
			if k != 0 {
				st.InputChannelState = []ChannelStateHandle{saotChannel(fmt.Sprintf("%d/%d/in-a", k, i)), saotChannel(fmt.Sprintf("%d/%d/in-b", k, i))}
			}
			if k != len(ids)-1 {
				st.ResultSubpartitionState = []ChannelStateHandle{saotChannel(fmt.Sprintf("%d/%d/out-a", k, i)), saotChannel(fmt.Sprintf("%d/%d/out-b", k, i))}
			}
			os.Subtasks[i] = st
		}
		out = append(out, os)
	}
	return out
}

// saotLine models buildVertices (SAOT lines 1137–1173): single-operator vertices in a line, each
// connected to the previous one with the given mappers (connectVertices, line 1196).
func saotLine(ids []OperatorID, parallelisms []int, downstream, upstream SubtaskStateMapper) []JobVertex {
	vs := make([]JobVertex, len(ids))
	for k, id := range ids {
		vs[k] = saVertex(fmt.Sprint("v", k), parallelisms[k], saotMaxP, false, id)
		if k > 0 {
			vs[k].Inputs = []JobEdge{{Upstream: k - 1, UpstreamMapper: upstream, DownstreamMapper: downstream}}
		}
	}
	return vs
}

func saotIDs(n int) []OperatorID {
	ids := make([]OperatorID, n)
	for i := range ids {
		ids[i] = saID(100 + i)
	}
	return ids
}

func same(n, p int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = p
	}
	return out
}

// saotState is getAssignedState (SAOT line 1243) for single-operator vertices.
func saotState(t *testing.T, a *Assignment, vertex, subtask int) OperatorSubtaskState {
	t.Helper()
	task := a.Vertices[vertex].Subtasks[subtask]
	if task == nil {
		t.Fatalf("vertex %d subtask %d has no restore object", vertex, subtask)
	}
	return task.Operators[0].State
}

// saotAssertChannels is assertState (SAOT line 985): the new subtask's handles are, in any order,
// those of the given old subtasks.
func saotAssertChannels(t *testing.T, what string, got []ChannelStateHandle, old []OperatorState, k int, input bool, oldSubtasks ...int) {
	t.Helper()
	var want []string
	for _, o := range oldSubtasks {
		hs := old[k].Subtasks[o].ResultSubpartitionState
		if input {
			hs = old[k].Subtasks[o].InputChannelState
		}
		for _, h := range hs {
			want = append(want, h.Delegate.Path)
		}
	}
	var have []string
	for _, h := range got {
		have = append(have, h.Delegate.Path)
	}
	slices.Sort(want)
	slices.Sort(have)
	if diff := cmp.Diff(want, have); diff != "" {
		t.Errorf("%s (-want +got):\n%s", what, diff)
	}
}

func mappings(t *testing.T, targets ...[]int) RescaleMappings {
	t.Helper()
	n := 0
	for _, ts := range targets {
		for _, x := range ts {
			n = max(n, x+1)
		}
	}
	m, err := NewRescaleMappings(targets, n) // InflightDataRescalingDescriptorUtil.mappings
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func to(xs ...int) []int { return xs }

// rescalingDescriptor is InflightDataRescalingDescriptorUtil.rescalingDescriptor: one RESCALING
// gate per mapping, all with the same old subtasks and ambiguous set.
func rescalingDescriptor(old []int, ms []RescaleMappings, ambiguous []int) *InflightDataRescalingDescriptor {
	d := &InflightDataRescalingDescriptor{}
	for _, m := range ms {
		d.GatesOrPartitions = append(d.GatesOrPartitions, GateOrPartitionRescalingDescriptor{OldSubtaskIndexes: old,
			RescaledChannelsMappings: m, AmbiguousSubtaskIndexes: ambiguous, MappingType: RescalingMapping})
	}
	return d
}

func gate(old []int, m RescaleMappings, ambiguous []int, typ MappingType) GateOrPartitionRescalingDescriptor {
	return GateOrPartitionRescalingDescriptor{OldSubtaskIndexes: old, RescaledChannelsMappings: m, AmbiguousSubtaskIndexes: ambiguous, MappingType: typ}
}

func saotDescriptor(t *testing.T, what string, want, got *InflightDataRescalingDescriptor) {
	t.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: got %v\n(-want +got):\n%s", what, got, diff)
	}
}

// SAOT line 491, testChannelStateAssignmentStability: ten single-operator vertices in a line
// (RANGE downstream, ROUND_ROBIN upstream mappers), 100 subtasks, no rescale: every subtask gets
// exactly its old OperatorSubtaskState (rescaling descriptors NO_RESCALE, as in the old state).
func TestStateAssignmentOperationTest_testChannelStateAssignmentStability(t *testing.T) {
	const n, p = 10, 100
	ids := saotIDs(n)
	states := saotStates(ids, p)
	a := mustAssign(t, AssignmentInput{Version: Flink118, Vertices: saotLine(ids, same(n, p), RangeMapper, RoundRobinMapper), Operators: states})
	for k := range ids {
		for i := range p {
			if diff := cmp.Diff(*states[k].Subtasks[i], saotState(t, a, k, i)); diff != "" {
				t.Fatalf("vertex %d subtask %d (-want +got):\n%s", k, i, diff)
			}
		}
	}
}

// SAOT line 513, testChannelStateAssignmentDownscalingTwoDifferentGates: two upstreams (p=2)
// into one downstream (p=2), all with old state at p=3; edges ARBITRARY/RANGE and
// ROUND_ROBIN/ROUND_ROBIN. Flink asserts subtask 0's input descriptor twice (a copy-paste);
// subtask 1 is checked here as well (RANGE 3→2 gives it old [1, 2], ROUND_ROBIN old [1]).
func TestStateAssignmentOperationTest_testChannelStateAssignmentDownscalingTwoDifferentGates(t *testing.T) {
	ids := saotIDs(3)
	states := saotStates(ids, 3)
	vs := []JobVertex{saVertex("upstream1", 2, saotMaxP, false, ids[0]), saVertex("upstream2", 2, saotMaxP, false, ids[1]),
		saVertex("downstream", 2, saotMaxP, false, ids[2])}
	vs[2].Inputs = []JobEdge{{Upstream: 0, UpstreamMapper: ArbitraryMapper, DownstreamMapper: RangeMapper},
		{Upstream: 1, UpstreamMapper: RoundRobinMapper, DownstreamMapper: RoundRobinMapper}}
	a := mustAssign(t, AssignmentInput{Version: Flink118, Vertices: vs, Operators: states})
	want0 := &InflightDataRescalingDescriptor{GatesOrPartitions: []GateOrPartitionRescalingDescriptor{
		gate(to(0, 1), mappings(t, to(0, 2), to(1)), to(1), RescalingMapping),
		gate(to(0, 2), mappings(t, to(0, 2), to(1)), nil, RescalingMapping)}}
	saotDescriptor(t, "downstream subtask 0 input", want0, saotState(t, a, 2, 0).InputRescalingDescriptor)
	want1 := &InflightDataRescalingDescriptor{GatesOrPartitions: []GateOrPartitionRescalingDescriptor{
		gate(to(1, 2), mappings(t, to(0, 2), to(1)), to(1), RescalingMapping),
		gate(to(1), mappings(t, to(0, 2), to(1)), nil, RescalingMapping)}}
	saotDescriptor(t, "downstream subtask 1 input (beyond Flink's asserts)", want1, saotState(t, a, 2, 1).InputRescalingDescriptor)
}

// SAOT line 559, testChannelStateAssignmentTwoGatesPartiallyDownscaling (added with FLINK-35351):
// as above with the downstream at p=3 (unchanged) and the first edge ARBITRARY/FULL. The FULL
// edge from an upstream whose new parallelism (2) differs from the downstream's old one (3)
// forces redistribution: every downstream subtask reads gate 0's handles of all 3 old subtasks,
// 6 handles (the handles are all on gate 0, so gate 1 contributes none).
func TestStateAssignmentOperationTest_testChannelStateAssignmentTwoGatesPartiallyDownscaling(t *testing.T) {
	ids := saotIDs(3)
	states := saotStates(ids, 3)
	vs := []JobVertex{saVertex("upstream1", 2, saotMaxP, false, ids[0]), saVertex("upstream2", 2, saotMaxP, false, ids[1]),
		saVertex("downstream", 3, saotMaxP, false, ids[2])}
	vs[2].Inputs = []JobEdge{{Upstream: 0, UpstreamMapper: ArbitraryMapper, DownstreamMapper: FullMapper},
		{Upstream: 1, UpstreamMapper: RoundRobinMapper, DownstreamMapper: RoundRobinMapper}}
	a := mustAssign(t, AssignmentInput{Version: Flink118, Vertices: vs, Operators: states})
	for i := range 3 {
		if got := len(saotState(t, a, 2, i).InputChannelState); got != 6 {
			t.Errorf("downstream subtask %d: %d input channel handles, want 6", i, got)
		}
	}
}

// SAOT line 597, testChannelStateAssignmentDownscaling: two operators in a line, 3 → 2 subtasks,
// RANGE downstream and ROUND_ROBIN upstream mappers.
func TestStateAssignmentOperationTest_testChannelStateAssignmentDownscaling(t *testing.T) {
	ids := saotIDs(2)
	states := saotStates(ids, 3)
	a := mustAssign(t, AssignmentInput{Version: Flink118, Vertices: saotLine(ids, same(2, 2), RangeMapper, RoundRobinMapper), Operators: states})
	for k := range ids {
		// input is range partitioned, so there is an overlap
		saotAssertChannels(t, fmt.Sprint("op ", k, " input 0"), saotState(t, a, k, 0).InputChannelState, states, k, true, 0, 1)
		saotAssertChannels(t, fmt.Sprint("op ", k, " input 1"), saotState(t, a, k, 1).InputChannelState, states, k, true, 1, 2)
		// output is round robin redistributed
		saotAssertChannels(t, fmt.Sprint("op ", k, " output 0"), saotState(t, a, k, 0).ResultSubpartitionState, states, k, false, 0, 2)
		saotAssertChannels(t, fmt.Sprint("op ", k, " output 1"), saotState(t, a, k, 1).ResultSubpartitionState, states, k, false, 1)
	}
	saotDescriptor(t, "op 0 subtask 0 output", rescalingDescriptor(to(0, 2), []RescaleMappings{mappings(t, to(0, 1), to(1, 2))}, nil),
		saotState(t, a, 0, 0).OutputRescalingDescriptor)
	saotDescriptor(t, "op 0 subtask 1 output", rescalingDescriptor(to(1), []RescaleMappings{mappings(t, to(0, 1), to(1, 2))}, nil),
		saotState(t, a, 0, 1).OutputRescalingDescriptor)
	saotDescriptor(t, "op 1 subtask 0 input", rescalingDescriptor(to(0, 1), []RescaleMappings{mappings(t, to(0, 2), to(1))}, to(1)),
		saotState(t, a, 1, 0).InputRescalingDescriptor)
	saotDescriptor(t, "op 1 subtask 1 input", rescalingDescriptor(to(1, 2), []RescaleMappings{mappings(t, to(0, 2), to(1))}, to(1)),
		saotState(t, a, 1, 1).InputRescalingDescriptor)
}

// SAOT line 663, testChannelStateAssignmentNoRescale: 2 → 2, handles kept 1:1, descriptors
// NO_RESCALE.
func TestStateAssignmentOperationTest_testChannelStateAssignmentNoRescale(t *testing.T) {
	ids := saotIDs(2)
	states := saotStates(ids, 2)
	a := mustAssign(t, AssignmentInput{Version: Flink118, Vertices: saotLine(ids, same(2, 2), RangeMapper, RoundRobinMapper), Operators: states})
	for k := range ids {
		for i := range 2 {
			saotAssertChannels(t, fmt.Sprint("op ", k, " input ", i), saotState(t, a, k, i).InputChannelState, states, k, true, i)
			saotAssertChannels(t, fmt.Sprint("op ", k, " output ", i), saotState(t, a, k, i).ResultSubpartitionState, states, k, false, i)
		}
	}
	for i := range 2 {
		saotDescriptor(t, fmt.Sprint("op 0 subtask ", i, " output"), nil, saotState(t, a, 0, i).OutputRescalingDescriptor)
		saotDescriptor(t, fmt.Sprint("op 1 subtask ", i, " input"), nil, saotState(t, a, 1, i).InputRescalingDescriptor)
	}
}

// SAOT line 716, testChannelStateAssignmentUpscaling: 2 → 3.
func TestStateAssignmentOperationTest_testChannelStateAssignmentUpscaling(t *testing.T) {
	ids := saotIDs(2)
	states := saotStates(ids, 2)
	a := mustAssign(t, AssignmentInput{Version: Flink118, Vertices: saotLine(ids, same(2, 3), RangeMapper, RoundRobinMapper), Operators: states})
	for k := range ids {
		saotAssertChannels(t, fmt.Sprint("op ", k, " input 0"), saotState(t, a, k, 0).InputChannelState, states, k, true, 0)
		saotAssertChannels(t, fmt.Sprint("op ", k, " input 1"), saotState(t, a, k, 1).InputChannelState, states, k, true, 0, 1)
		saotAssertChannels(t, fmt.Sprint("op ", k, " input 2"), saotState(t, a, k, 2).InputChannelState, states, k, true, 1)
		saotAssertChannels(t, fmt.Sprint("op ", k, " output 0"), saotState(t, a, k, 0).ResultSubpartitionState, states, k, false, 0)
		saotAssertChannels(t, fmt.Sprint("op ", k, " output 1"), saotState(t, a, k, 1).ResultSubpartitionState, states, k, false, 1)
		saotAssertChannels(t, fmt.Sprint("op ", k, " output 2"), saotState(t, a, k, 2).ResultSubpartitionState, states, k, false)
	}
	out := []RescaleMappings{mappings(t, to(0), to(0, 1), to(1))}
	saotDescriptor(t, "op 0 subtask 0 output", rescalingDescriptor(to(0), out, nil), saotState(t, a, 0, 0).OutputRescalingDescriptor)
	saotDescriptor(t, "op 0 subtask 1 output", rescalingDescriptor(to(1), out, nil), saotState(t, a, 0, 1).OutputRescalingDescriptor)
	// unmapped subtask index, so nothing to do
	saotDescriptor(t, "op 0 subtask 2 output", nil, saotState(t, a, 0, 2).OutputRescalingDescriptor)
	in := []RescaleMappings{mappings(t, to(0), to(1), to())}
	saotDescriptor(t, "op 1 subtask 0 input", rescalingDescriptor(to(0), in, to(0, 1)), saotState(t, a, 1, 0).InputRescalingDescriptor)
	saotDescriptor(t, "op 1 subtask 1 input", rescalingDescriptor(to(0, 1), in, to(0, 1)), saotState(t, a, 1, 1).InputRescalingDescriptor)
	saotDescriptor(t, "op 1 subtask 2 input", rescalingDescriptor(to(1), in, to(0, 1)), saotState(t, a, 1, 2).InputRescalingDescriptor)
}

// SAOT line 792, testOnlyUpstreamChannelStateAssignment: only upstream subtask 0 (of 2) has
// result subpartition state; both vertices go to 3. Every subtask of both vertices gets a
// restore object (the downstream, which has no state at all, as FLINK-31963's neighbour).
func TestStateAssignmentOperationTest_testOnlyUpstreamChannelStateAssignment(t *testing.T) {
	ids := saotIDs(2)
	up := OperatorState{OperatorID: ids[0], Parallelism: 2, MaxParallelism: saotMaxP, Subtasks: []*OperatorSubtaskState{
		{ResultSubpartitionState: []ChannelStateHandle{saotChannel("out-a"), saotChannel("out-b")}}}}
	a := mustAssign(t, AssignmentInput{Version: Flink118, Vertices: saotLine(ids, same(2, 3), RangeMapper, RoundRobinMapper), Operators: []OperatorState{up}})
	for k := range ids {
		for i, task := range a.Vertices[k].Subtasks {
			if task == nil {
				t.Errorf("vertex %d subtask %d: no restore object", k, i)
			}
		}
	}
	if !a.Vertices[1].ChannelNeighbour || a.Vertices[1].HasState || a.Vertices[0].ChannelNeighbour || !a.Vertices[0].HasState {
		t.Errorf("vertex 0 HasState %v ChannelNeighbour %v, vertex 1 HasState %v ChannelNeighbour %v; want true false, false true",
			a.Vertices[0].HasState, a.Vertices[0].ChannelNeighbour, a.Vertices[1].HasState, a.Vertices[1].ChannelNeighbour)
	}
}

// saotOnlyUpstreamOrDownstream models testOnlyUpstreamOrDownstreamRescalingInternal (SAOT line
// 865): both operators start at 5; the side with state keeps 5, the other goes to 3; it returns
// the summed lengths of getOldSubtaskIndexes(0) over the upstream's output and the downstream's
// input descriptors, failing where one is empty (checkMappings, line 937).
func saotOnlyUpstreamOrDownstream(t *testing.T, upstreamState, downstreamState *OperatorSubtaskState) (int, int) {
	t.Helper()
	ids := saotIDs(2)
	upP, downP := 5, 5
	up := OperatorState{OperatorID: ids[0], Parallelism: 5, MaxParallelism: saotMaxP}
	down := OperatorState{OperatorID: ids[1], Parallelism: 5, MaxParallelism: saotMaxP}
	if upstreamState != nil {
		up.Subtasks = []*OperatorSubtaskState{upstreamState}
		downP = 3
	}
	if downstreamState != nil {
		down.Subtasks = []*OperatorSubtaskState{downstreamState}
		upP = 3
	}
	a := mustAssign(t, AssignmentInput{Version: Flink118, Vertices: saotLine(ids, []int{upP, downP}, RangeMapper, RoundRobinMapper), Operators: []OperatorState{up, down}})
	sum := func(vertex int, input bool) int {
		n := 0
		for i := range a.Vertices[vertex].Subtasks {
			st := saotState(t, a, vertex, i)
			d := st.OutputRescalingDescriptor
			if input {
				d = st.InputRescalingDescriptor
			}
			l := len(d.OldSubtaskIndexes(0))
			if l == 0 {
				t.Errorf("vertex %d subtask %d: descriptor %v has no old subtask on gate 0", vertex, i, d)
			}
			n += l
		}
		return n
	}
	return sum(0, false), sum(1, true)
}

// SAOT line 833, testOnlyUpstreamChannelRescaleStateAssignment (FLINK-31963): the upstream keeps
// 5 subtasks with output state on subtask 0, the stateless downstream goes 5 → 3; old-subtask
// counts summed: upstream 5, downstream 7 (RANGE 5→3: 2 + 3 + 2).
func TestStateAssignmentOperationTest_testOnlyUpstreamChannelRescaleStateAssignment(t *testing.T) {
	st := &OperatorSubtaskState{ResultSubpartitionState: []ChannelStateHandle{saotChannel("out-a"), saotChannel("out-b")}}
	if up, down := saotOnlyUpstreamOrDownstream(t, st, nil); up != 5 || down != 7 {
		t.Errorf("summed old subtasks: upstream %d, downstream %d; want 5, 7", up, down)
	}
}

// SAOT line 850, testOnlyDownstreamChannelRescaleStateAssignment (FLINK-31963): the downstream
// keeps 5 subtasks with input state on subtask 0, the stateless upstream goes 5 → 3; summed
// old-subtask counts: upstream 5 (ROUND_ROBIN 5→3: 2 + 2 + 1), downstream 5.
func TestStateAssignmentOperationTest_testOnlyDownstreamChannelRescaleStateAssignment(t *testing.T) {
	st := &OperatorSubtaskState{InputChannelState: []ChannelStateHandle{saotChannel("in-a"), saotChannel("in-b")}}
	if up, down := saotOnlyUpstreamOrDownstream(t, nil, st); up != 5 || down != 5 {
		t.Errorf("summed old subtasks: upstream %d, downstream %d; want 5, 5", up, down)
	}
}

// The descriptors print as Flink's toString.
func TestInflightDataRescalingDescriptorString(t *testing.T) {
	d := rescalingDescriptor(to(0, 2), []RescaleMappings{mappings(t, to(0, 1), to(1, 2))}, to(1))
	want := "InflightDataRescalingDescriptor{gateOrPartitionDescriptors=[InflightDataGateOrPartitionRescalingDescriptor{oldSubtaskIndexes=[0, 2], " +
		"rescaledChannelsMappings=RescaleMappings{mappings=[[0, 1], [1, 2]]}, ambiguousSubtaskIndexes=[1], mappingType=RESCALING}]}"
	if got := d.String(); got != want {
		t.Errorf("String() = %s\nwant %s", got, want)
	}
	var none *InflightDataRescalingDescriptor
	if none.String() != "NO_RESCALE" || !none.ChannelMapping(3).IsIdentity() || none.IsAmbiguous(0, 0) || none.OldSubtaskIndexes(0) != nil {
		t.Errorf("NO_RESCALE: %v", none)
	}
	if !strings.Contains(noStateDescriptor(channelRulesOf(Flink22)).String(), "NO_STATE") {
		t.Error("NO_STATE prints as NO_STATE")
	}
}
