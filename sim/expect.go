package sim

import (
	"slices"

	"github.com/restoresim/restoresim/model"
)

// jobShape is what the oracle records of a job at a snapshot: enough to predict, without the
// model, whether a restore into another job must be accepted.
type jobShape struct {
	sourceUID, keyedUID string
	sink                bool
	srcPar, keyedPar    int
	srcMax, keyedMax    int // max parallelism in force
	stages              []stageShape
}

// stageShape is a stage at a snapshot: its operators' uids, its max parallelism, and whether it
// is keyed (its operator states then have subtask entries, the head's holding keyed state).
type stageShape struct {
	uids  []string
	max   int
	keyed bool
}

// expectation is the oracle's verdict on a restore, from Flink's documented rules (SPEC §F–§G
// as Flink 1.18 intends them): either accepted (with the keyed vertex's max parallelism and
// whether the keyed state is restored), or refused for a reason (an errors.Is target).
type expectation struct {
	accept     bool
	reason     error // when refused
	keyedMax   int   // when accepted
	keyedState bool  // keyed operator's state restored (else dropped)
	stageMax   []int // when accepted: each stage's max parallelism
	viaUIDHash bool  // the keyed state is matched only through setUidHash
	// staleUIDHash: the keyed state is matched by the generated ID while a setUidHash points
	// elsewhere (1.10.1 then ignores the state: FLINK-13973).
	staleUIDHash bool
	refusedWhen  string
}

// Known Flink issues the simulator attributes violations to, on Flink 1.10.1.
const (
	// KnownFLINK16638: the completeness check ignores user-defined (setUidHash) IDs.
	KnownFLINK16638 = "FLINK-16638"
	// KnownFLINK13973: a set user-defined ID is always preferred, with no fallback to the
	// generated ID, so state stored under the generated ID is silently not restored.
	KnownFLINK13973 = "FLINK-13973"
)

// knownIssue names the known 1.10.1 issue a restore with this expectation runs into, if any.
func (e expectation) knownIssue(v model.FlinkVersion) string {
	if v != model.Flink1101 {
		return ""
	}
	switch {
	case e.viaUIDHash:
		return KnownFLINK16638
	case e.staleUIDHash:
		return KnownFLINK13973
	}
	return ""
}

// expectRestore predicts the outcome of restoring a snapshot of shape old into job j.
func expectRestore(version model.FlinkVersion, old jobShape, j Job, allowNonRestored bool) expectation {
	// A job without a keyed vertex (the plan keeps it so) has no keyed state to match.
	keyedStored := old.keyedUID != ""
	stored := model.OperatorIDFromUID(old.keyedUID)
	gen := model.OperatorIDFromUID(j.Keyed.UID)
	byGen := keyedStored && j.HasKeyed() && gen == stored
	byHash := keyedStored && j.HasKeyed() && j.Keyed.UIDHash != "" && j.Keyed.UIDHash == stored.String()
	keyedMatched := byGen || byHash
	keyedMax, keyedConfigured := 0, false
	if j.HasKeyed() {
		keyedMax, keyedConfigured = configuredMaxPar(j.Keyed)
	}
	flags := expectation{viaUIDHash: byHash && !byGen, staleUIDHash: byGen && j.Keyed.UIDHash != "" && !byHash}
	refuse := func(reason error, when string) expectation {
		e := flags
		e.reason, e.refusedWhen = reason, when
		return e
	}
	// Flink refuses to build a vertex whose configured max parallelism is below its parallelism,
	// before any restore (vertices in job order).
	for v := range j.NumVertices() {
		if m := j.vertexConfig(v).MaxParallelism; m > 0 && m < j.Parallelism(v) {
			return refuse(model.ErrMaxParallelismBelowParallelism, VertexName(v)+": configured max parallelism below parallelism")
		}
	}

	// Loading (§G), operators in metadata order: source, keyed, sink, stages.
	// The source is always matched; its max parallelism is never configured, so it is adopted.
	if keyedMatched {
		if keyedConfigured && keyedMax != old.keyedMax {
			return refuse(model.ErrMaxParallelismMismatch, "keyed max parallelism changed")
		}
	} else if keyedStored && !allowNonRestored {
		return refuse(model.ErrNonRestoredState, "keyed state has no operator")
	}
	// The sink and the stages' operators are matched by uid to whichever vertex now has an operator
	// of that uid (the keyed vertex for the sink). A matched state must agree on max parallelism
	// unless that vertex may adopt the stored one (not configured); an unmatched one is refused if
	// it holds state (a keyed stage's head) and allowNonRestoredState is off, else skipped (a
	// stateless operator's, or empty entries). (ParsePlan keeps these uids apart from the source's
	// and the keyed operator's.)
	newVertex := map[string]int{}
	if j.Sink {
		newVertex[sinkUID] = 1
	}
	for k := range j.Stages {
		for _, uid := range j.StageUIDs(k) {
			newVertex[uid] = 2 + k
		}
	}
	taken := make([][]storedOp, j.NumVertices()) // per new vertex, the stored sink/stage states it takes
	for _, op := range old.groupOps() {
		v, ok := newVertex[op.uid]
		if !ok {
			if op.state && !allowNonRestored {
				return refuse(model.ErrNonRestoredState, "keyed stage state has no operator")
			}
			continue
		}
		if m, configured := configuredMaxPar(j.vertexConfig(v)); configured && m != op.max {
			return refuse(model.ErrMaxParallelismMismatch, VertexName(v)+": max parallelism of "+op.uid+" changed")
		}
		taken[v] = append(taken[v], op)
	}
	// Assignment (§F), vertex by vertex: a vertex is repartitioned when one of the states it takes
	// has subtask entries (1.18's hasNonFinishedState; on 1.10.1 every state the simulated jobs
	// store has entries); then every state it takes, entries or not, must have a max parallelism
	// of at least the new parallelism, and an unconfigured vertex adopts the stored one.
	if old.srcMax < j.Source.Parallelism {
		return refuse(model.ErrMaxParallelismBelowNewParallelism, "source parallelism above its max parallelism")
	}
	maxAfter := make([]int, j.NumVertices())
	for v := 1; v < j.NumVertices(); v++ {
		if j.Parallelism(v) == 0 {
			continue // no keyed vertex
		}
		maxAfter[v], _ = configuredMaxPar(j.vertexConfig(v))
		states := taken[v]
		if v == 1 && keyedMatched {
			states = append([]storedOp{{uid: old.keyedUID, max: old.keyedMax, entries: true, state: true}}, states...)
		}
		if !slices.ContainsFunc(states, func(op storedOp) bool { return op.entries }) {
			continue
		}
		if version == model.FlinkMaster && disagree(j, v, states, v == 1 && keyedMatched) {
			return refuse(model.ErrMaxParallelismDisagreement, VertexName(v)+": keyed vertex whose operators recorded different max parallelisms (FLINK-40113)")
		}
		for _, op := range states {
			if op.max < j.Parallelism(v) {
				return refuse(model.ErrMaxParallelismBelowNewParallelism, VertexName(v)+" parallelism above the max parallelism of "+op.uid)
			}
		}
		maxAfter[v] = states[slices.IndexFunc(states, func(op storedOp) bool { return op.entries })].max // adopted (or equal when configured)
	}
	e := expectation{accept: true, keyedMax: maxAfter[1], keyedState: keyedMatched, viaUIDHash: byHash && !byGen,
		staleUIDHash: byGen && j.Keyed.UIDHash != "" && !byHash}
	e.stageMax = maxAfter[2:]
	return e
}

// disagree reports whether vertex v of job j holds keyed state and its operator states — the
// stored ones it takes (states) and, for its operators without one, the synthesized state at
// the vertex's own max parallelism; keyedMatched says whether the keyed operator of vertex 1 is
// the first of states — carry different max parallelisms: Flink master's
// checkMaxParallelismAgreement refuses that (FLINK-40113, SPEC-VERSIONS.md §2.1).
func disagree(j Job, v int, states []storedOp, keyedMatched bool) bool {
	keyed := slices.ContainsFunc(states, func(op storedOp) bool { return op.state })
	if !keyed {
		return false
	}
	own, _ := configuredMaxPar(j.vertexConfig(v))
	maxes := map[int]bool{}
	var uids []string
	if v == 1 {
		if !keyedMatched {
			maxes[own] = true // the keyed operator's synthesized state
		}
		if j.Sink {
			uids = append(uids, sinkUID)
		}
	} else {
		uids = j.StageUIDs(v - 2)
	}
	for _, op := range states {
		maxes[op.max] = true
	}
	for _, uid := range uids {
		if !slices.ContainsFunc(states, func(op storedOp) bool { return op.uid == uid }) {
			maxes[own] = true
		}
	}
	return len(maxes) > 1
}

// storedOp is one stored operator state of the sink or a stage, as the oracle sees it.
type storedOp struct {
	uid     string
	max     int
	entries bool // subtask entries (possibly empty ones)
	state   bool // some subtask entry holds state
}

// groupOps lists the snapshot's sink and stage operator states, in metadata order.
func (s jobShape) groupOps() []storedOp {
	var out []storedOp
	if s.sink {
		out = append(out, storedOp{uid: sinkUID, max: s.keyedMax, entries: true})
	}
	for _, st := range s.stages {
		for u, uid := range st.uids {
			out = append(out, storedOp{uid: uid, max: st.max, entries: st.keyed, state: st.keyed && u == 0})
		}
	}
	return out
}
