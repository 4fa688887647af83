package model

import (
	"errors"
	"fmt"
	"testing"
)

// The channel-state rules of SPEC-VERSIONS.md §2, each on its worked example, for every modelled
// version from 1.18 on.

// chanState is an operator state of p subtasks, each with one input handle per given gate and
// one output handle per given partition.
func chanState(id OperatorID, p int, gates, partitions []int) OperatorState {
	os := OperatorState{OperatorID: id, Parallelism: p, MaxParallelism: 128, Subtasks: make([]*OperatorSubtaskState, p)}
	for i := range p {
		st := &OperatorSubtaskState{}
		for _, g := range gates {
			st.InputChannelState = append(st.InputChannelState, ChannelStateHandle{SubtaskIndex: i, GateOrPartition: g,
				Delegate: StreamHandle{Path: fmt.Sprintf("%v/%d/in%d", id, i, g), Size: 10}, Offsets: []int64{0}})
		}
		for _, q := range partitions {
			st.ResultSubpartitionState = append(st.ResultSubpartitionState, ChannelStateHandle{SubtaskIndex: i, GateOrPartition: q,
				Delegate: StreamHandle{Path: fmt.Sprintf("%v/%d/out%d", id, i, q), Size: 10}, Offsets: []int64{0}})
		}
		os.Subtasks[i] = st
	}
	return os
}

func modernVersions() []FlinkVersion {
	var out []FlinkVersion
	for _, v := range FlinkVersions() {
		if v != Flink1101 {
			out = append(out, v)
		}
	}
	return out
}

// §2.2 FLINK-35351: source p=2 → partitionCustom → map p=3, restored with the same
// parallelisms. The FULL edge from a producer whose new parallelism (2) differs from the map's
// old one (3) makes every map subtask read the input channel state of all 3 old subtasks, with
// a non-identity descriptor; a keyBy (HASH) edge keeps it 1:1. Every modelled version from 1.18
// on has the fix (release-1.18 after 1.18.1; 1.19 = 1.19.2).
func TestFLINK35351CustomPartitionerRedistributes(t *testing.T) {
	src, mp := saID(1), saID(2)
	for _, v := range modernVersions() {
		for _, part := range []Partitioner{CustomPartitioner, HashPartitioner} {
			vs := []JobVertex{saVertex("source", 2, 128, false, src), saVertex("map", 3, 128, false, mp)}
			vs[1].Inputs = []JobEdge{EdgeFor(part, 0, 0)}
			a, err := AssignStates(AssignmentInput{Version: v, Vertices: vs,
				Operators: []OperatorState{{OperatorID: src, Parallelism: 2, MaxParallelism: 128}, chanState(mp, 3, []int{0}, nil)}})
			if err != nil {
				t.Fatalf("%v %v: %v", v, part, err)
			}
			for i, task := range a.Vertices[1].Subtasks {
				st := task.Operators[0].State
				want := 1
				if part == CustomPartitioner {
					want = 3
				}
				if len(st.InputChannelState) != want || (part == CustomPartitioner) != (st.InputRescalingDescriptor != nil) {
					t.Errorf("%v %v map subtask %d: %d input handles, descriptor %v; want %d handles, a descriptor %v",
						v, part, i, len(st.InputChannelState), st.InputRescalingDescriptor, want, part == CustomPartitioner)
				}
			}
		}
	}
}

// §2.4 FLINK-38267: A (p 2 → 1) has two outputs, keyBy → B (partition 0) and rescale() → C
// (partition 1); the unaligned checkpoint has in-flight data only on the keyBy exchange. 1.18
// and 1.19 evaluate the UNSUPPORTED mapper of the empty pointwise partition and refuse; 1.20
// (1.20.3) and later skip it (NO_STATE) and restore.
func TestFLINK38267OnlyExchangesWithInFlightData(t *testing.T) {
	a, b, c := saID(1), saID(2), saID(3)
	for _, v := range modernVersions() {
		vs := []JobVertex{saVertex("A", 1, 128, false, a), saVertex("B", 2, 128, false, b), saVertex("C", 2, 128, false, c)}
		vs[1].Inputs = []JobEdge{EdgeFor(HashPartitioner, 0, 0)}
		vs[2].Inputs = []JobEdge{EdgeFor(RescalePartitioner, 0, 1)}
		asg, err := AssignStates(AssignmentInput{Version: v, Vertices: vs, Operators: []OperatorState{
			chanState(a, 2, nil, []int{0}), chanState(b, 2, []int{0}, nil), {OperatorID: c, Parallelism: 2, MaxParallelism: 128}}})
		var rf *RefusalError
		if v.Before(Flink120) {
			if !errors.As(err, &rf) || rf.Check != CheckChannelStateUnsupportedRescale || rf.Vertex != "A" || !errors.Is(err, ErrUnsupportedRescale) {
				t.Errorf("%v: error %v, want the unsupported-rescale refusal of A", v, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", v, err)
		}
		// A's output descriptors: partition 0 rescaled, partition 1 NO_STATE.
		for i, task := range asg.Vertices[0].Subtasks {
			d := task.Operators[0].State.OutputRescalingDescriptor
			if d == nil || len(d.GatesOrPartitions) != 2 || d.GatesOrPartitions[0].NoState || !d.GatesOrPartitions[1].NoState {
				t.Errorf("%v: A subtask %d output descriptor %v, want partition 0 rescaled and partition 1 NO_STATE", v, i, d)
			}
		}
		// A's 2 old subtasks' output handles go to its one new subtask (ARBITRARY = round robin).
		for i, want := range []int{2} {
			if got := len(asg.Vertices[0].Subtasks[i].Operators[0].State.ResultSubpartitionState); got != want {
				t.Errorf("%v: A subtask %d has %d output handles, want %d", v, i, got, want)
			}
		}
	}
}

// §2.5 FLINK-38483: source1.union(source2.filter(x -> false)).keyBy(..).map(..) restored with the
// map rescaled (2 → 3): the map's second gate (from source2) carries no in-flight data. From 1.20
// on (FLINK-38267) those subtasks get an input descriptor with a NO_STATE gate beside the
// rescaled one, whose old subtasks are none (FLINK-38483; the 1.20.3 patch release threw there
// and is not modelled: the model's 1.20 is the release-1.20 head); 1.18 and 1.19 have no
// NO_STATE; every version restores.
func TestFLINK38483NoStateDescriptor(t *testing.T) {
	s1, s2, mp := saID(1), saID(2), saID(3)
	for _, v := range modernVersions() {
		vs := []JobVertex{saVertex("source1", 2, 128, false, s1), saVertex("source2", 2, 128, false, s2), saVertex("map", 3, 128, false, mp)}
		vs[2].Inputs = []JobEdge{EdgeFor(HashPartitioner, 0, 0), EdgeFor(HashPartitioner, 1, 0)}
		asg, err := AssignStates(AssignmentInput{Version: v, Vertices: vs, Operators: []OperatorState{chanState(mp, 2, []int{0}, nil)}})
		if err != nil {
			t.Fatalf("%v: %v", v, err)
		}
		d := asg.Vertices[2].Subtasks[0].Operators[0].State.InputRescalingDescriptor
		if d == nil || len(d.GatesOrPartitions) != 2 || d.GatesOrPartitions[1].NoState != v.AtLeast(Flink120) || len(d.OldSubtaskIndexes(1)) != 0 && v.AtLeast(Flink120) {
			t.Errorf("%v: map subtask 0 input descriptor %v", v, d)
		}
	}
}

// §2.6 FLINK-40269: upstream.rebalance().connect(upstream.keyBy(..)).map(coMap): two edges A → B
// (gate 0 REBALANCE from partition 0, gate 1 HASH from partition 1); B is rescaled 2 → 3 with
// in-flight input data on both gates. Before the fix (1.18, 1.19, 2.0, 2.1) A's output
// descriptor of partition 1 takes B's mapping of the first edge between them (ROUND_ROBIN 2→3,
// an identity), so A's subtasks get NO_RESCALE; with it (master and the heads of release-1.20,
// release-2.2 and release-2.3) it takes the keyBy gate's RANGE mapping.
func TestFLINK40269TwoEdgesBetweenOnePair(t *testing.T) {
	a, b := saID(1), saID(2)
	for _, v := range modernVersions() {
		vs := []JobVertex{saVertex("A", 2, 128, false, a), saVertex("B", 3, 128, false, b)}
		vs[1].Inputs = []JobEdge{EdgeFor(RebalancePartitioner, 0, 0), EdgeFor(HashPartitioner, 0, 1)}
		asg, err := AssignStates(AssignmentInput{Version: v, Vertices: vs, Operators: []OperatorState{chanState(b, 2, []int{0, 1}, nil)}})
		if err != nil {
			t.Fatalf("%v: %v", v, err)
		}
		range23, _ := RangeMapper.NewToOldSubtasksMapping(2, 3)
		for i, task := range asg.Vertices[0].Subtasks {
			d := task.Operators[0].State.OutputRescalingDescriptor
			if fixed := v == Flink120 || v.AtLeast(Flink22); !fixed {
				if d != nil {
					t.Errorf("%v: A subtask %d output descriptor %v, want NO_RESCALE", v, i, d)
				}
				continue
			}
			if d == nil || !d.ChannelMapping(1).Equal(range23) || !d.ChannelMapping(0).IsIdentity() {
				t.Errorf("%v: A subtask %d output descriptor %v, want partition 1 mapped by %v", v, i, d, range23)
			}
		}
	}
}
