package sim

import (
	"fmt"

	"github.com/restoresim/restoresim/model/autoscaler"
	"github.com/restoresim/restoresim/sim/oracle"
)

// InvAutoscale: the parallelism the operator autoscaler picks for a vertex is the one the
// oracle's own reading of SPEC-VERSIONS.md §8.2 gives (oracle.AutoscaleParallelism).
const InvAutoscale = "autoscale"

// autoscale runs an Autoscale step: the autoscaler of the step's operator release
// (model/autoscaler, JobVertexScaler.scale) is given the vertex as the running job has it — its
// max parallelism in force (after any adoption from a checkpoint, as the REST job details
// report it), its parallelism, its input kind (source, a keyBy, other exchanges) — and the
// step's target, limits and source partitions; the oracle checks the pick, and the job is
// rescaled in place to it (rescaleInPlace, with every restore invariant), unless the pick is
// the current parallelism.
func (w *World) autoscale(step int, s Step) string {
	v := s.Vertex
	switch {
	case v >= w.job.NumVertices() || w.job.Parallelism(v) == 0:
		return fmt.Sprintf("not autoscaled (the running job has no vertex %s)", VertexName(v))
	case v >= 2 && w.job.Stages[v-2].Edge == EdgeForward:
		return fmt.Sprintf("not autoscaled (%s follows its input over a forward edge)", VertexName(v))
	}
	a, in := s.Autoscaler, w.inputKind(v)
	p := autoscaler.Params{Release: a.Release, Mode: a.Mode, MaxParallelism: w.maxParInForce(v), Current: w.job.Parallelism(v),
		Lower: a.Lower, Upper: a.Upper}
	var err error
	if p.Input, err = autoscaler.ParseInput(in); err != nil {
		panic("sim: internal error: " + err.Error())
	}
	if v == 0 {
		p.SourcePartitions = a.Partitions
	}
	d, err := autoscaler.Scale(p, a.Target)
	if err != nil {
		w.violate(step, InvAutoscale, fmt.Sprintf("operator %s autoscaler refused %s: %v", a.Release, VertexName(v), err), "")
		return "not autoscaled (" + err.Error() + ")"
	}
	want := oracle.AutoscaleParallelism(oracle.Autoscale{Release: a.Release.String(), Mode: modeName(a.Mode),
		MaxParallelism: p.MaxParallelism, Current: p.Current, Input: in, Partitions: p.SourcePartitions,
		Lower: a.Lower, Upper: a.Upper, Target: a.Target})
	if d.Parallelism != want {
		w.violate(step, InvAutoscale, fmt.Sprintf("operator %s autoscaler picks %d for %s (max parallelism %d, current %d, input %s, partitions %d, limits %d..%d, target %d), want %d",
			a.Release, d.Parallelism, VertexName(v), p.MaxParallelism, p.Current, in, p.SourcePartitions, a.Lower, a.Upper, a.Target, want), "")
	}
	if d.Parallelism == p.Current {
		if d.Blocked {
			return fmt.Sprintf("keeps %d (max parallelism %d; scaling blocked: the fallback does not move toward the target)", p.Current, p.MaxParallelism)
		}
		return fmt.Sprintf("keeps %d (max parallelism %d)", p.Current, p.MaxParallelism)
	}
	ps := make([]int, v+1)
	ps[v] = d.Parallelism
	return fmt.Sprintf("picks %d (max parallelism %d); %s", d.Parallelism, p.MaxParallelism, w.rescaleInPlace(step, ps))
}

// maxParInForce is vertex v's max parallelism in force: what the job runs it with.
func (w *World) maxParInForce(v int) int {
	switch v {
	case 0:
		return w.srcMaxPar
	case 1:
		return w.maxPar
	}
	return w.stageMax[v-2]
}

// inputKind is vertex v's input kind as the autoscaler sees it, by the names
// autoscaler.ParseInput reads: the source has no input ("source"), the keyed vertex and a stage
// behind a hash edge have a keyBy ("hash"), the other stages other exchanges ("forward",
// "rebalance").
func (w *World) inputKind(v int) string {
	switch {
	case v == 0:
		return "source"
	case v == 1:
		return "hash"
	}
	switch w.job.Stages[v-2].Edge {
	case EdgeHash:
		return "hash"
	case EdgeForward:
		return "forward"
	}
	return "rebalance"
}

// modeName is the mode as the oracle reads it: "" for the release's default.
func modeName(m autoscaler.Mode) string {
	if m == autoscaler.ModeUnset {
		return ""
	}
	return m.String()
}
