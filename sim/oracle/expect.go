package oracle

import (
	"maps"
	"slices"
)

// Reason is why Flink refuses a restore, as the oracle predicts it.
type Reason uint8

const (
	// MaxParallelismBelowParallelism: a vertex's configured max parallelism is below its
	// parallelism, so Flink refuses to build it, before any restore.
	MaxParallelismBelowParallelism Reason = iota + 1
	// MaxParallelismMismatch: a matched operator's stored max parallelism differs from the one
	// configured for its vertex (Checkpoints.loadAndValidateCheckpoint).
	MaxParallelismMismatch
	// NonRestoredState: a snapshot holds state for an operator the job lacks, and
	// allowNonRestoredState is off.
	NonRestoredState
	// MaxParallelismBelowNewParallelism: a vertex's new parallelism is above the max parallelism
	// of a state it takes (StateAssignmentOperation.checkParallelismPreconditions).
	MaxParallelismBelowNewParallelism
	// MaxParallelismDisagreement: a vertex with keyed state whose operators recorded different
	// max parallelisms (Flink master's checkMaxParallelismAgreement, the fix of FLINK-40113;
	// SPEC-VERSIONS.md §2.1). Only with Job.RefuseMaxParallelismDisagreement.
	MaxParallelismDisagreement
)

var reasonNames = [...]string{"", "max parallelism below parallelism", "max parallelism mismatch", "non-restored state", "max parallelism below new parallelism", "max parallelism disagreement"}

func (r Reason) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return "unknown reason"
}

// Vertex is a job vertex as the oracle sees it.
type Vertex struct {
	// Name names the vertex in an expectation's RefusedWhen ("source", "keyed", "v2", …).
	Name        string
	Parallelism int // 0: the vertex is absent (only the keyed vertex may be)
	// MaxParallelism is the configured max parallelism, 0 when not configured (Flink's default).
	MaxParallelism int
	// UIDs are the vertex's operator uids, chain head first. The source and the keyed vertex have
	// one (the keyed vertex's chained sink is Job.SinkUID).
	UIDs []string
	// UIDHash is the head operator's user-defined ID (setUidHash) as 32 hex digits, or "".
	UIDHash string
	// SchedulerParallelism is the parallelism an unconfigured max parallelism defaults from, when
	// it is not Parallelism: the adaptive scheduler computes the default once, from the
	// parallelism it started the job with, and keeps it across in-place rescales (FLINK-22084,
	// SPEC-VERSIONS.md §8.1). 0: Parallelism.
	SchedulerParallelism int
}

// configuredMax returns the vertex's max parallelism and whether it was configured.
func (v Vertex) configuredMax() (int, bool) {
	if v.MaxParallelism > 0 {
		return v.MaxParallelism, true
	}
	if v.SchedulerParallelism > 0 {
		return DefaultMaxParallelism(v.SchedulerParallelism), false
	}
	return DefaultMaxParallelism(v.Parallelism), false
}

// head is the uid of the vertex's head operator, "" without one.
func (v Vertex) head() string {
	if len(v.UIDs) == 0 {
		return ""
	}
	return v.UIDs[0]
}

// Job is a job submitted with a restore: a source (vertex 0), a keyed vertex (vertex 1,
// Parallelism 0 when the job has none) whose head operator holds the keyed state, optionally a
// stateless sink chained after it, and further vertices (2, 3, …).
type Job struct {
	Source, Keyed Vertex
	SinkUID       string // the uid of the operator chained after the keyed one, "" when none
	Stages        []Vertex
	// RefuseMaxParallelismDisagreement: the Flink restoring the job refuses a vertex with keyed
	// state whose operators recorded different max parallelisms (master; every release adopts
	// one of them instead, the FLINK-40113 hazard).
	RefuseMaxParallelismDisagreement bool
}

func (j Job) hasKeyed() bool { return j.Keyed.Parallelism > 0 }

func (j Job) numVertices() int { return 2 + len(j.Stages) }

func (j Job) vertex(v int) Vertex {
	switch v {
	case 0:
		return j.Source
	case 1:
		return j.Keyed
	}
	return j.Stages[v-2]
}

// Shape is what the oracle records of a running job when a snapshot's barrier passes: enough to
// predict, without the model, whether a restore into another job must be accepted.
type Shape struct {
	SourceUID string
	KeyedUID  string // "" when the snapshot holds no keyed vertex
	// KeyedEmpty: the keyed operator's state (and the sink's, of the same task) has no subtask
	// entry: every keyed subtask acknowledged the snapshot without state (sparse snapshots).
	KeyedEmpty bool
	// KeyedNoKeys: no subtask entry of the keyed operator has keyed state (sparse snapshots taken
	// before the first key, the broadcast state aside).
	KeyedNoKeys bool
	SinkUID     string // "" without a sink
	// SourceMax and KeyedMax are the max parallelisms in force at the snapshot.
	SourceMax, KeyedMax int
	// Stages are the snapshot's stage operator states, in metadata order.
	Stages []StageShape
	// Gone are the uids of operator states taken out of the snapshot (nil: none): the restore is
	// judged as if they were not stored (ExpectOperators judges each operator on its own so).
	Gone map[string]bool
}

// StageShape is a stage at a snapshot: its operators' uids (head first), its max parallelism,
// and whether it is keyed (its operator states then have subtask entries, the head's holding
// keyed state).
type StageShape struct {
	UIDs  []string
	Max   int
	Keyed bool
}

// Expectation is the oracle's verdict on a restore, from Flink's documented rules (SPEC §F–§G as
// Flink 1.18 intends them): either accepted (with the keyed vertex's and each stage's max
// parallelism, and whether the keyed state is restored), or refused for a Reason.
type Expectation struct {
	Accept      bool
	Reason      Reason // when refused
	RefusedWhen string // when refused: what broke the rule, one phrase
	KeyedMax    int    // when accepted
	KeyedState  bool   // when accepted: the keyed operator's state is restored (else dropped)
	StageMax    []int  // when accepted: each stage's max parallelism
	// ViaUIDHash: the keyed state is matched only through setUidHash.
	ViaUIDHash bool
	// StaleUIDHash: the keyed state is matched by the generated ID while a setUidHash points
	// elsewhere (1.10.1 then ignores the state: FLINK-13973).
	StaleUIDHash bool
	// Hazard, when accepted, marks (by vertex index) the vertices that take states of different
	// max parallelisms, counting their operators without a stored state at the vertex's own:
	// every released Flink adopts the last one it checks (FLINK-40113), so the max parallelism
	// they restore with is not the oracle's to say (master refuses those with keyed state).
	Hazard []bool
	// AnyMax, when accepted, gives (by vertex index) for each Hazard vertex whose states hold no
	// keyed state the max parallelisms its states recorded, ascending: Flink adopts whichever it
	// checks last and cuts nothing with it (master too: its FLINK-40113 check passes a vertex
	// without keyed state), so the vertex may run with any of them. Nil elsewhere.
	AnyMax [][]int
	// Culprit, when refused, is the uid of the operator state the refusal is about ("" when it is
	// about a vertex: MaxParallelismBelowParallelism, MaxParallelismDisagreement).
	Culprit string
}

// storedOp is one stored operator state of the sink or a stage.
type storedOp struct {
	uid     string
	max     int
	entries bool // subtask entries (possibly empty ones)
	state   bool // some subtask entry holds state
}

// groupOps lists the snapshot's sink and stage operator states, in metadata order.
func (s Shape) groupOps() []storedOp {
	var out []storedOp
	if s.SinkUID != "" && !s.Gone[s.SinkUID] {
		out = append(out, storedOp{uid: s.SinkUID, max: s.KeyedMax, entries: !s.KeyedEmpty})
	}
	for _, st := range s.Stages {
		for u, uid := range st.UIDs {
			if !s.Gone[uid] {
				out = append(out, storedOp{uid: uid, max: st.Max, entries: st.Keyed, state: st.Keyed && u == 0})
			}
		}
	}
	return out
}

// ExpectRestore predicts the outcome of restoring a snapshot of shape old into job j.
func ExpectRestore(old Shape, j Job, allowNonRestored bool) Expectation {
	// A job without a keyed vertex (the plan keeps it so) has no keyed state to match.
	keyedStored := old.KeyedUID != "" && !old.Gone[old.KeyedUID]
	stored := OperatorIDFromUID(old.KeyedUID)
	gen := OperatorIDFromUID(j.Keyed.head())
	byGen := keyedStored && j.hasKeyed() && gen == stored
	byHash := keyedStored && j.hasKeyed() && j.Keyed.UIDHash != "" && j.Keyed.UIDHash == stored.String()
	keyedMatched := byGen || byHash
	keyedMax, keyedConfigured := 0, false
	if j.hasKeyed() {
		keyedMax, keyedConfigured = j.Keyed.configuredMax()
	}
	flags := Expectation{ViaUIDHash: byHash && !byGen, StaleUIDHash: byGen && j.Keyed.UIDHash != "" && !byHash}
	refuse := func(reason Reason, when, culprit string) Expectation {
		e := flags
		e.Reason, e.RefusedWhen, e.Culprit = reason, when, culprit
		return e
	}
	// Flink refuses to build a vertex whose configured max parallelism is below its parallelism,
	// before any restore (vertices in job order).
	for v := range j.numVertices() {
		if c := j.vertex(v); c.MaxParallelism > 0 && c.MaxParallelism < c.Parallelism {
			return refuse(MaxParallelismBelowParallelism, c.Name+": configured max parallelism below parallelism", "")
		}
	}

	// Loading (§G), operators in metadata order: source, keyed, sink, stages.
	// The source is always matched; its max parallelism is never configured, so it is adopted.
	if keyedMatched {
		if keyedConfigured && keyedMax != old.KeyedMax {
			return refuse(MaxParallelismMismatch, "keyed max parallelism changed", old.KeyedUID)
		}
	} else if keyedStored && !old.KeyedEmpty && !allowNonRestored {
		// (A state without subtask entries holds nothing: Flink skips it, "Skipping empty
		// savepoint state for operator".)
		return refuse(NonRestoredState, "keyed state has no operator", old.KeyedUID)
	}
	// The sink and the stages' operators are matched by uid to whichever vertex now has an operator
	// of that uid (the keyed vertex for the sink). A matched state must agree on max parallelism
	// unless that vertex may adopt the stored one (not configured); an unmatched one is refused if
	// it holds state (a keyed stage's head) and allowNonRestoredState is off, else skipped (a
	// stateless operator's, or empty entries). (The plans keep these uids apart from the source's
	// and the keyed operator's.)
	newVertex := j.uidVertices()
	taken := make([][]storedOp, j.numVertices()) // per new vertex, the stored sink/stage states it takes
	for _, op := range old.groupOps() {
		v, ok := newVertex[op.uid]
		if !ok {
			if op.state && !allowNonRestored {
				return refuse(NonRestoredState, "keyed stage state has no operator", op.uid)
			}
			continue
		}
		if m, configured := j.vertex(v).configuredMax(); configured && m != op.max {
			return refuse(MaxParallelismMismatch, j.vertex(v).Name+": max parallelism of "+op.uid+" changed", op.uid)
		}
		taken[v] = append(taken[v], op)
	}
	// Assignment (§F), vertex by vertex: a vertex is repartitioned when one of the states it takes
	// has subtask entries (1.18's hasNonFinishedState; on 1.10.1 every state the simulated jobs
	// store has entries); then every state it takes, entries or not, must have a max parallelism
	// of at least the new parallelism, and an unconfigured vertex adopts the stored one.
	if old.SourceMax < j.Source.Parallelism && !old.Gone[old.SourceUID] {
		return refuse(MaxParallelismBelowNewParallelism, "source parallelism above its max parallelism", old.SourceUID)
	}
	maxAfter := make([]int, j.numVertices())
	var hazard []bool
	var anyMax [][]int
	for v := 1; v < j.numVertices(); v++ {
		c := j.vertex(v)
		if c.Parallelism == 0 {
			continue // no keyed vertex
		}
		maxAfter[v], _ = c.configuredMax()
		states := taken[v]
		if v == 1 && keyedMatched {
			states = append([]storedOp{{uid: old.KeyedUID, max: old.KeyedMax, entries: !old.KeyedEmpty, state: !old.KeyedNoKeys}}, states...)
		}
		if !slices.ContainsFunc(states, func(op storedOp) bool { return op.entries }) {
			continue
		}
		if maxes := recorded(j, v, states, v == 1 && keyedMatched); len(maxes) > 1 {
			if hazard == nil {
				hazard = make([]bool, j.numVertices())
			}
			hazard[v] = true
			if !slices.ContainsFunc(states, func(op storedOp) bool { return op.state }) {
				if anyMax == nil {
					anyMax = make([][]int, j.numVertices())
				}
				anyMax[v] = maxes
			}
		}
		if j.RefuseMaxParallelismDisagreement && disagree(j, v, states, v == 1 && keyedMatched, true) {
			return refuse(MaxParallelismDisagreement, c.Name+": keyed vertex whose operators recorded different max parallelisms (FLINK-40113)", "")
		}
		for _, op := range states {
			if op.max < c.Parallelism {
				return refuse(MaxParallelismBelowNewParallelism, c.Name+" parallelism above the max parallelism of "+op.uid, op.uid)
			}
		}
		maxAfter[v] = states[slices.IndexFunc(states, func(op storedOp) bool { return op.entries })].max // adopted (or equal when configured)
	}
	e := flags
	e.Accept, e.KeyedMax, e.KeyedState, e.StageMax, e.Hazard, e.AnyMax = true, maxAfter[1], keyedMatched, maxAfter[2:], hazard, anyMax
	return e
}

// disagree reports whether vertex v of job j (when keyed: holds keyed state and) its operator
// states — the stored ones it takes (states) and, for its operators without one, a state at the
// vertex's own max parallelism — carry different max parallelisms; keyedMatched says whether the
// keyed operator of vertex 1 is the first of states (else its state is the vertex's own).
func disagree(j Job, v int, states []storedOp, keyedMatched, keyed bool) bool {
	if keyed && !slices.ContainsFunc(states, func(op storedOp) bool { return op.state }) {
		return false
	}
	return len(recorded(j, v, states, keyedMatched)) > 1
}

// recorded gives the distinct max parallelisms of vertex v's operator states (as disagree
// counts them), ascending.
func recorded(j Job, v int, states []storedOp, keyedMatched bool) []int {
	own, _ := j.vertex(v).configuredMax()
	maxes := map[int]bool{}
	var uids []string
	if v == 1 {
		if !keyedMatched {
			maxes[own] = true // the keyed operator's new state
		}
		if j.SinkUID != "" {
			uids = append(uids, j.SinkUID)
		}
	} else {
		uids = j.Stages[v-2].UIDs
	}
	for _, op := range states {
		maxes[op.max] = true
	}
	for _, uid := range uids {
		if !slices.ContainsFunc(states, func(op storedOp) bool { return op.uid == uid }) {
			maxes[own] = true
		}
	}
	return slices.Sorted(maps.Keys(maxes))
}

// uidVertices maps the uid of the sink and of every stage operator to the index of the vertex that
// has it in j (1 for the sink, chained to the keyed vertex; 2+k for stage k).
func (j Job) uidVertices() map[string]int {
	m := map[string]int{}
	if j.SinkUID != "" {
		m[j.SinkUID] = 1
	}
	for k, st := range j.Stages {
		for _, uid := range st.UIDs {
			m[uid] = 2 + k
		}
	}
	return m
}
