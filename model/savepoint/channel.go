package savepoint

import (
	"fmt"

	"github.com/restoresim/restoresim/model"
)

// A savepoint records no job edges, yet Flink redistributes in-flight channel state (unaligned
// checkpoints) with the partitioners of the edges (model.AssignStates over JobVertex.Inputs).
// Where the job file gives no edges (JobFileVertex.Inputs) for a task whose state holds channel
// state, the planner assumes one edge per input gate and one per result partition seen in its
// handles (inputs when the task has no input edge, outputs when no edge leaves it), each to a
// peer task of its own that keeps the old parallelism of that state and holds no state, all
// with one partitioner (Options.ChannelPartitioner, HASH by default: a keyBy, Flink's
// KeyGroupStreamPartitioner).
// The peers take part in the assignment like Flink's neighbour tasks (FLINK-31963) but are not
// part of the plan.

// DefaultChannelPartitioner is the partitioner assumed on the edges of in-flight channel state
// when Options.ChannelPartitioner is zero: a keyed (keyBy) hash edge.
const DefaultChannelPartitioner = model.HashPartitioner

// ChannelPart is one in-flight channel-state handle a new subtask receives.
type ChannelPart struct {
	// OldSubtask is the subtask that wrote the handle (AbstractChannelStateHandle.subtaskIndex).
	OldSubtask int `json:"old_subtask"`
	// GateOrPartition and Channel are the handle's input gate and channel, or result partition
	// and subpartition.
	GateOrPartition int `json:"gate_or_partition"`
	Channel         int `json:"channel"`
	// Bytes is the handle's state size (its buffers), or its delegate's size when the file
	// does not give one.
	Bytes int64 `json:"bytes"`
}

func channelParts(hs []model.ChannelStateHandle) ([]ChannelPart, int64) {
	out := []ChannelPart{}
	var n int64
	for _, h := range hs {
		b := h.StateSize
		if b == 0 {
			b = h.Delegate.Size
		}
		out = append(out, ChannelPart{OldSubtask: h.SubtaskIndex, GateOrPartition: h.GateOrPartition, Channel: h.Channel, Bytes: b})
		n += b
	}
	return out, n
}

// withChannelPeers gives jobVertices with the assumed edges and peer vertices (appended after
// them) for the channel state of md's operators.
func withChannelPeers(md model.CheckpointMetadata, jobVertices []model.JobVertex, p model.Partitioner) []model.JobVertex {
	if p == 0 {
		p = DefaultChannelPartitioner
	}
	out := append([]model.JobVertex(nil), jobVertices...)
	produces := make([]bool, len(jobVertices))
	for _, v := range jobVertices {
		for _, e := range v.Inputs {
			if e.Upstream >= 0 && e.Upstream < len(produces) {
				produces[e.Upstream] = true
			}
		}
	}
	for vi := range jobVertices {
		gates, partitions := map[int]int{}, map[int]int{}
		maxGate, maxPart := -1, -1
		for oi := range md.Operators {
			os := &md.Operators[oi]
			if !vertexHolds(&jobVertices[vi], os.OperatorID) {
				continue
			}
			for _, st := range os.Subtasks {
				if st == nil {
					continue
				}
				for _, h := range st.InputChannelState {
					gates[h.GateOrPartition] = os.Parallelism
					maxGate = max(maxGate, h.GateOrPartition)
				}
				for _, h := range st.ResultSubpartitionState {
					partitions[h.GateOrPartition] = os.Parallelism
					maxPart = max(maxPart, h.GateOrPartition)
				}
			}
		}
		if maxGate < 0 && maxPart < 0 {
			continue
		}
		v := &out[vi]
		v.Inputs = append([]model.JobEdge(nil), v.Inputs...)
		peer := func(kind string, k, oldP int) int {
			if oldP == 0 {
				oldP = v.Parallelism
			}
			name := fmt.Sprintf("assumed %s of %s, %d", kind, v.Name, k)
			out = append(out, model.JobVertex{Name: name, Operators: []model.JobOperator{{ID: model.OperatorIDFromUID("restoresim " + name)}},
				Parallelism: oldP, MaxParallelism: model.UpperBoundMaxParallelism})
			return len(out) - 1
		}
		if len(jobVertices[vi].Inputs) > 0 {
			maxGate = -1 // the job file gives the edges
		}
		if produces[vi] {
			maxPart = -1
		}
		for g := 0; g <= maxGate; g++ {
			u := peer("upstream", g, gates[g])
			v = &out[vi]
			v.Inputs = append(v.Inputs, model.EdgeFor(p, u, 0))
		}
		for q := 0; q <= maxPart; q++ {
			d := peer("downstream", q, partitions[q])
			out[d].Inputs = []model.JobEdge{model.EdgeFor(p, vi, q)}
		}
	}
	return out
}
