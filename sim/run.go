package sim

import (
	"fmt"
	"slices"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/sim/oracle"
)

// World is the simulated cluster running one plan: source and keyed subtasks holding real state,
// checkpoint storage, and the model's coordinator state (store, registry, ID counter). It is
// driven step by step on a logical clock (the step index) and never prints.
type World struct {
	plan Plan
	job  Job // the running job's configuration (changes on restart)
	fs   *memFS

	hashes    oracleHashes // the oracle's hash of each key checked (oracle.go)
	keyHashes rowKeyHashes // the world's hash of each row key restored (restore.go)

	epoch int // job instance: a restart submits a new job (a new job ID and directory)
	// gateProbed: the version gate was checked on a savepoint of this run (probeVersions).
	gateProbed bool
	src        []*sourceTask
	keyed      []*keyedTask
	maxPar     int   // the keyed vertex's max parallelism in force
	srcMaxPar  int   // the source vertex's max parallelism in force
	stageMax   []int // each stage's max parallelism in force
	// Keyed stages: per stage its subtasks (nil for a stateless stage), the offsets its keyed
	// state counts from (as base) and the oracle's fold cache.
	stageKeyed [][]*keyedTask
	stageBase  []map[int]int64
	stageFold  []foldCache
	applied    int // broadcast updates applied
	fileSeq    int
	// base is the oracle's: per split, the offset the keyed state counts records from (0 unless
	// the keyed state was dropped by an allowNonRestoredState restore).
	base map[int]int64

	facts map[int64]snapshotFacts
	co    *coordinator
	// store is the oracle's own view of co's completed-checkpoint store and ID counter.
	store *oracle.Store
	// noClaim holds, by directory, the snapshots a job was restored from in NO_CLAIM mode (and
	// none claimed since): no job may delete their files.
	noClaim map[string]snapshotFacts
	// noClaimFresh lists the snapshots added to noClaim since checkNoClaimFiles last looked (by
	// directory): only these, and those whose watched files were deleted since
	// (memFS.takeRemovedWatched), can fail it.
	noClaimFresh []string
	// retained is the configured state.checkpoints.num-retained; a JobManager reads it when it
	// starts (a new job, a JobManager failover).
	retained int

	violations []Violation
	trace      []string
	// live is the oracle's record of which snapshots are alive (InvNoLeak).
	live liveness
	// fold caches the oracle's expected keyed state between checks.
	fold foldCache
	// rulesFile is the broadcast map file the last snapshot wrote (snapshots of equal rules
	// share it).
	rulesFile mapsFile
	// topology caches the failover topology of the running job's graph.
	topology topologyCache
	// keys caches keyOf of the running job's key indexes: process renders every record's key.
	keys keyCache
	// known, when set, attributes the current step's violations to a known Flink issue.
	known string
	// handedMemo is the oracle's handed state of the restore being checked (expectHanded).
	handedMemo *handedMemo
	// assigned is the model's assignment of the restore from a pointer being checked
	// (assignModel).
	assigned assignMemo
	// tainted is the first known issue that corrupted the run's state; later violations are
	// reported as its consequences ("after …"), not as new failures.
	tainted string
	// at is the index of the step being run (a violation the system under test reports is its).
	at int

	// Local recovery: per slot, the TaskManager's local copies; useLocal during failovers.
	local    map[slot]localStore
	useLocal bool
	// localChecked: the (slot, operator) restores of step localCheckedAt checked by
	// checkLocalRead (a subtask's alternatives are asked more than once per restore);
	// localRescaledAt: local copies of checkpoints up to this ID were written before the last
	// in-place rescale (0: none).
	localChecked    map[localCheck]bool
	localCheckedAt  int
	localRescaledAt int64
	// usedLocal counts the operator states of the last restore read from a local copy.
	usedLocal int
	// lastSourceRead memoizes the source's state reads within one restore (applyAssignment), and
	// handleReads each handle's (nil outside one).
	lastSourceRead sourceRead
	handleReads    map[*model.NamedOperatorState]handleRead
	// Storage faults injected: checkpoints whose metadata or files were damaged, files deleted.
	damagedCkpt  map[int64]bool
	faultDeleted map[string]bool
	// In-place rescales (adaptive scheduler): the parallelisms the running job's scheduler started
	// with, per vertex; inPlace during a rescale; generation counts the rescales, so that rescaled
	// backends get new identities.
	schedPar   []int
	inPlace    bool
	generation int

	// In-flight data of an unaligned job (inflight.go): per keyed subtask, per input channel (the
	// source subtask) the records in flight, oldest first; the oracle's processed frontier (per
	// split, the offset the keyed vertex has processed up to; nil when nothing is in flight); the
	// records the keyed subtasks replayed from channel state at the last restore.
	inflight  [][][]inflightRecord
	outflight [][][]inflightRecord // per source subtask, per subpartition (keyed subtask): not yet sent
	processed map[int]int64
	replayed  []oracle.Replayed
}

// Result is the outcome of running a plan.
type Result struct {
	Plan       Plan
	Trace      []string // one line per step, in scenario syntax with the outcome after "->"
	Violations []Violation
}

// OK reports whether every invariant held.
func (r Result) OK() bool { return len(r.Violations) == 0 }

// Run executes a plan from a fresh world and returns the trace and the violations, these in
// SortViolations order. It is deterministic: the same plan gives the same result, byte for
// byte. Result.Verdict judges it; RunSafe also survives a panic.
func Run(p Plan) Result {
	w := newWorld(p)
	for i, s := range p.Steps {
		w.step(i, s)
	}
	if len(p.Steps) > 0 {
		w.checkNoLeak(len(p.Steps) - 1)
	}
	SortViolations(w.violations)
	return Result{Plan: p, Trace: w.trace, Violations: w.violations}
}

func newWorld(p Plan) *World {
	w := &World{plan: p, job: p.Job, fs: newMemFS(p.Version), facts: map[int64]snapshotFacts{}, base: map[int]int64{},
		damagedCkpt: map[int64]bool{}, faultDeleted: map[string]bool{}, noClaim: map[string]snapshotFacts{}, live: newLiveness()}
	w.retained = model.DefaultNumRetainedCheckpoints
	w.co = w.newCoordinator()
	w.store = w.newStore()
	w.startFresh()
	w.startScheduler()
	w.checkFreshMaxPar(0)
	if p.SUT != nil { // the trace names a system under test other than the model
		w.tracef("%s -> started %s (sut %s)", p.Job, w.running(), p.sutName())
	} else {
		w.tracef("%s -> started %s", p.Job, w.running())
	}
	return w
}

// running describes the running job for the trace: the source's and the keyed vertex's
// parallelism and the keyed vertex's max parallelism ("p=4/8 max-parallelism=128"), or the
// source's parallelism alone without a keyed vertex ("p=4").
func (w *World) running() string {
	if !w.job.HasKeyed() {
		return fmt.Sprintf("p=%d", len(w.src))
	}
	return fmt.Sprintf("p=%d/%d max-parallelism=%d", len(w.src), len(w.keyed), w.maxPar)
}

func (w *World) tracef(format string, args ...any) {
	w.trace = append(w.trace, fmt.Sprintf(format, args...))
}

func (w *World) violate(step int, inv, detail, diff string) {
	known := w.known
	switch {
	case known == "" && w.tainted != "":
		// A known Flink issue already corrupted this run's state: what follows is its consequence.
		known = "after " + w.tainted
	case known != "" && w.tainted == "":
		w.tainted = known
	}
	w.violations = append(w.violations, Violation{Step: step, Invariant: inv, Detail: detail, Diff: diff, Known: known})
}

// configuredMaxPar returns the vertex's max parallelism and whether it was configured.
func configuredMaxPar(v VertexConfig) (int, bool) {
	if v.MaxParallelism > 0 {
		return v.MaxParallelism, true
	}
	m, err := model.ComputeDefaultMaxParallelism(v.Parallelism)
	if err != nil {
		panic("sim: internal error: " + err.Error())
	}
	return m, false
}

// startFresh starts the running job with no state: splits assigned round robin, offsets 0.
func (w *World) startFresh() {
	w.epoch++
	w.srcMaxPar = w.freshMaxPar(0)
	w.maxPar = 0
	if w.job.HasKeyed() {
		w.maxPar = w.freshMaxPar(1)
	}
	w.stageMax = make([]int, len(w.job.Stages))
	w.stageKeyed = make([][]*keyedTask, len(w.job.Stages))
	w.stageBase = make([]map[int]int64, len(w.job.Stages))
	w.stageFold = make([]foldCache, len(w.job.Stages))
	for k, st := range w.job.Stages {
		w.stageMax[k] = w.freshMaxPar(2 + k)
		w.stageBase[k] = map[int]int64{}
		if st.Keyed {
			w.stageKeyed[k] = w.newStageTasks(k, w.stageMax[k])
		}
	}
	w.src = make([]*sourceTask, w.job.Source.Parallelism)
	for i := range w.src {
		w.src[i] = &sourceTask{offsets: map[int]int64{}}
	}
	for s := range w.job.Splits {
		w.src[s%len(w.src)].offsets[s] = 0
	}
	w.keyed = w.newKeyedTasks(w.job.Keyed.Parallelism, w.maxPar)
	w.applied = 0
	w.resetInFlight()
}

// freshMaxPar is vertex v's max parallelism when it starts without state: the configured one,
// else Flink's default for its parallelism — during an in-place rescale for the parallelism the
// scheduler started with.
func (w *World) freshMaxPar(v int) int {
	c := w.job.vertexConfig(v)
	if w.inPlace && c.MaxParallelism == 0 {
		c.Parallelism = w.schedulerParallelism(v)
	}
	m, _ := configuredMaxPar(c)
	return m
}

// checkFreshMaxPar checks the max parallelism of every vertex of a job started without state
// against the oracle's: the configured one, else Flink's default for the parallelism (for the
// scheduler's starting one during an in-place rescale).
func (w *World) checkFreshMaxPar(step int) {
	want := func(v int) int {
		c := w.job.vertexConfig(v)
		if c.MaxParallelism > 0 {
			return c.MaxParallelism
		}
		if w.inPlace {
			return oracle.DefaultMaxParallelism(w.schedulerParallelism(v))
		}
		return oracle.DefaultMaxParallelism(c.Parallelism)
	}
	if m := want(0); w.srcMaxPar != m {
		w.violate(step, InvKeyOwner, fmt.Sprintf("source runs with max parallelism %d, want %d", w.srcMaxPar, m), "")
	}
	if w.job.HasKeyed() {
		w.checkMaxPar(step, want(1))
	}
	w.checkKeyGroupProbe(step)
	for k := range w.job.Stages {
		if m := want(2 + k); w.stageMax[k] != m {
			w.violate(step, InvKeyOwner, fmt.Sprintf("%s runs with max parallelism %d, want %d", VertexName(2+k), w.stageMax[k], m), "")
		}
	}
}

func (w *World) newKeyedTasks(p, maxPar int) []*keyedTask {
	return w.keyedTasks("keyed", p, maxPar, w.job.KeyType, w.job.Broadcast)
}

// newStageTasks creates keyed stage k's subtasks at max parallelism maxPar, empty.
func (w *World) newStageTasks(k, maxPar int) []*keyedTask {
	return w.keyedTasks(VertexName(2+k), w.job.Stages[k].Config.Parallelism, maxPar, KeyInt, false)
}

func (w *World) keyedTasks(vertex string, p, maxPar int, keyType KeyType, broadcast bool) []*keyedTask {
	ts := make([]*keyedTask, p)
	tasks := make([]keyedTask, p) // (one allocation for the vertex's subtasks)
	for i := range ts {
		r, err := model.ComputeKeyGroupRangeForOperatorIndex(maxPar, p, i)
		if err != nil {
			panic("sim: internal error: " + err.Error())
		}
		tasks[i] = newKeyedTask(i, r, keyType, broadcast, backendIDFor(vertex, w.epoch, w.generation, i))
		ts[i] = &tasks[i]
		if broadcast {
			ts[i].rules[appliedRule] = 0
		}
	}
	return ts
}

// currentOffsets are the source offsets the world is at, merged over subtasks.
func (w *World) currentOffsets() map[int]int64 {
	m := map[int]int64{}
	for _, t := range w.src {
		for s, o := range t.offsets {
			m[s] = o
		}
	}
	return m
}

func (w *World) step(i int, s Step) {
	w.at = i
	for _, t := range w.src {
		t.unionReceived = nil
	}
	w.known = ""
	switch s.Kind {
	case Process:
		before := w.currentOffsets()
		w.process(s.N)
		if w.unaligned() {
			w.processed = oracle.ProcessedAfter(s.N, before, w.currentOffsets())
		}
		w.check(i, w.currentOffsets(), w.applied, false)
		w.tracef("%s -> ok", s)
	case BroadcastUpdate:
		w.broadcast(s.N)
		w.check(i, w.currentOffsets(), w.applied, false)
		w.tracef("%s -> ok", s)
	case Checkpoint:
		w.tracef("%s -> %s", s, w.checkpoint(i, s.Abort, false))
	case Savepoint:
		w.tracef("%s -> %s", s, w.checkpoint(i, false, true))
	case Retain:
		w.retained = s.N
		w.tracef("%s -> ok (from the next JobManager start)", s)
	case Fail:
		w.tracef("%s -> %s", s, w.failover(i, w.failedSubtask(s)))
	case Restart:
		w.tracef("%s -> %s", s, w.restart(i, s.Change))
	case TMRestart:
		w.tracef("%s -> %s", s, w.failover(i, w.failedOn(s.TM)))
	case TMLoss:
		w.loseTM(s.TM)
		w.tracef("%s -> %s", s, w.failover(i, w.failedOn(s.TM)))
	case JMFailover:
		w.tracef("%s -> %s", s, w.jmFailover(i))
	case Fault:
		w.tracef("%s -> %s", s, w.fault(s.Fault))
	case Resume:
		w.tracef("%s -> %s", s, w.resume(i, s.Mode))
	case Rollback:
		w.tracef("%s -> %s", s, w.rollback(i, s.N))
	case Rescale:
		w.tracef("%s -> %s", s, w.rescaleInPlace(i, s.Parallelism))
	case Autoscale:
		w.tracef("%s -> %s", s, w.autoscale(i, s))
	default:
		panic(fmt.Sprintf("sim: internal error: unknown step kind %d", s.Kind))
	}
	w.checkRetained(i)
	w.checkNoClaimFiles(i)
	// The _metadata files restores of this step decoded (a refused restart and the restore of the
	// old job read the same savepoint), no longer needed.
	w.fs.forgetDecoded()
}

// process lets every source subtask read n records, round robin over its splits in split order,
// and routes each record to the keyed subtask Flink's KeyGroupStreamPartitioner picks.
//
// In an unaligned job the records in flight are processed first, and the last
// oracle.InFlightPerSplit(n) records read from each split stay in flight (inflight.go).
func (w *World) process(n int) {
	hold := 0
	if w.inflight != nil {
		w.drainInFlight()
		hold = oracle.InFlightPerSplit(n)
	}
	var end map[int]int64 // per split, its offset after the step (unaligned only)
	for i, t := range w.src {
		splits := sortedInts(t.offsets)
		if len(splits) == 0 {
			continue
		}
		if hold > 0 {
			end = make(map[int]int64, len(splits))
			for k, s := range splits {
				reads := n / len(splits)
				if k < n%len(splits) {
					reads++
				}
				end[s] = t.offsets[s] + int64(reads)
			}
		}
		for k := range n {
			s := splits[k%len(splits)]
			off := t.offsets[s]
			r := recordAt(w.plan.Seed, &w.job, s, off)
			t.offsets[s]++
			if len(w.keyed) > 0 {
				key, hash := w.keys.of(w.job.KeyType, w.job.KeyValues, r.key)
				j := model.AssignKeyToParallelOperator(hash, w.maxPar, len(w.keyed))
				switch rec := (inflightRecord{Split: s, Offset: off, Key: key, Value: r.value}); {
				case hold > 1 && off == end[s]-1: // the newest is still in the sender's buffer
					out := inFlightTo(w.outflight, i, len(w.keyed))
					out[j] = append(out[j], rec)
				case hold > 0 && off >= end[s]-int64(hold):
					in := inFlightTo(w.inflight, j, len(w.src))
					in[i] = append(in[i], rec)
				default:
					w.deliver(w.keyed[j], key, hash, r.value)
				}
			}
			for k, ts := range w.stageKeyed { // keyed stages: by the derived key
				if ts != nil {
					d, dh := derivedKey(r.key)
					w.stageAdd(ts, w.stageMax[k], d, dh, r.value)
				}
			}
		}
	}
}

// stageAdd adds value to key's state on the keyed stage subtask routing picks.
func (w *World) stageAdd(ts []*keyedTask, maxPar int, key string, hash int32, value int64) {
	ts[model.AssignKeyToParallelOperator(hash, maxPar, len(ts))].add(maxPar, key, hash, value)
}

// allKeyedTasks lists the subtasks holding keyed state: the keyed vertex's, then the keyed
// stages'.
func (w *World) allKeyedTasks() []*keyedTask {
	out := slices.Clone(w.keyed)
	for _, ts := range w.stageKeyed {
		out = append(out, ts...)
	}
	return out
}

// broadcast applies n rule updates to every keyed subtask.
func (w *World) broadcast(n int) {
	for range n {
		k, v := ruleAt(w.plan.Seed, w.applied)
		w.applied++
		for _, t := range w.keyed {
			t.rules[k] = v
			t.rules[appliedRule] = int64(w.applied)
		}
	}
}
