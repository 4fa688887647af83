package sim

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/restoresim/restoresim/sim/oracle"
)

// The oracle knows nothing of the model's partitioning. It records, at every completed snapshot,
// the source offsets and the number of broadcast updates applied (facts of the world at the
// barrier), and recomputes the expected keyed state from the input log; it routes each key a
// subtask holds from the key itself (its Java hashCode, murmur and key-group ranges all of
// package oracle, which imports no model package), never from a hash the world computed.

// Invariant names, as they appear in violations and sweep summaries.
const (
	InvKeyedState       = "keyed-state"    // each key once, on its owner, with the expected value
	InvKeyOwner         = "key-owner"      // a key held by a subtask that does not own its key group
	InvSplits           = "splits"         // every split exactly once with the expected offset
	InvUnion            = "union-complete" // union list complete on every subtask after restore
	InvBroadcast        = "broadcast"      // broadcast map identical everywhere and as expected
	InvCounter          = "checkpoint-id"  // checkpoint ID counter above every ID used
	InvSharedFiles      = "shared-files"   // every file a retained checkpoint references exists
	InvRestoreRefused   = "valid-restore-refused"
	InvRestoreAccepted  = "invalid-restore-accepted"
	InvWrongRefusal     = "wrong-refusal-reason"
	InvRestoreReadError = "restore-read-error"
	InvRestartSet       = "restart-set"     // a failure restarts exactly the regions SPEC §J.1 names
	InvStateless        = "stateless-state" // a stateless stage's subtask restored with state
	InvCheckpointIDs    = "checkpoint-ids"  // IDs increase by one, from 1, and from s+1 after restoring s
	InvRetained         = "retained"        // the store retains what num-retained and subsumption say
	InvDiscarded        = "discarded"       // a subsumed checkpoint Flink owns has its files deleted
	InvNoClaimFiles     = "no-claim-files"  // no file of a snapshot restored in NO_CLAIM mode deleted
	InvInFlight         = "in-flight"       // every record in flight at the restored barrier processed once, by its key's owner
)

// Violation is one broken invariant.
type Violation struct {
	Step      int    // index of the step in the plan
	Invariant string // one of the Inv… names
	Detail    string // one line
	Diff      string // (-want +got), may be empty
	// Known names a known Flink bug the violation reproduces (e.g. "FLINK-16638"), if any.
	Known string
}

func (v Violation) String() string {
	s := fmt.Sprintf("step %d: %s: %s", v.Step, v.Invariant, v.Detail)
	if v.Known != "" {
		s += " [" + v.Known + "]"
	}
	return s
}

// snapshotFacts is what the oracle records when a snapshot's barrier passes.
type snapshotFacts struct {
	id        int64
	savepoint bool
	pointer   string // the snapshot's directory
	// claimed: a job was restored from this savepoint in CLAIM mode, so Flink may discard it.
	claimed bool
	offsets map[int]int64 // split → next offset
	base    map[int]int64 // split → offset the keyed state counts from (0, or where it was dropped)
	// stageBase: per keyed stage (by head uid), the offsets its keyed state counts from.
	stageBase map[string]map[int]int64
	applied   int // broadcast updates applied
	// processed is, per split, the offset the keyed vertex had processed up to at an unaligned
	// checkpoint's barrier: the records from there to offsets were in flight (nil: none).
	processed map[int]int64
	shape     oracle.Shape
	// files are the paths of the snapshot's _metadata and of every state file it references.
	files []string
}

// foldCache keeps the oracle's last expected keyed state, so that a check after more records
// folds only the new ones; any other change (a restore, a new base) refolds from scratch.
type foldCache struct {
	base, offsets map[int]int64
	state         map[string][2]int64
	names         []string // key index → key, filled lazily
}

// expectedKeyed folds the input log from base up to offsets: key → (sum, count).
func (w *World) expectedKeyed(offsets map[int]int64) map[string][2]int64 {
	return w.foldLog(&w.fold, w.base, offsets, func(k int) string {
		name, _ := keyOf(w.job.KeyType, w.job.KeyValues, k)
		return name
	})
}

// expectedDerived folds the input log for keyed stage k: derived key → (sum, count).
func (w *World) expectedDerived(k int, offsets map[int]int64) map[string][2]int64 {
	return w.foldLog(&w.stageFold[k], w.stageBase[k], offsets, func(k int) string {
		name, _ := derivedKey(k)
		return name
	})
}

// foldLog folds the records from base up to offsets by the key name(k) of their key index,
// reusing c when it holds the fold of a prefix from the same base.
func (w *World) foldLog(c *foldCache, base, offsets map[int]int64, name func(k int) string) map[string][2]int64 {
	if len(c.names) != w.job.NumKeys {
		*c = foldCache{names: make([]string, w.job.NumKeys)}
	}
	from := c.offsets
	if c.state == nil || !maps.Equal(c.base, base) || !covers(offsets, c.offsets) {
		c.state, from = map[string][2]int64{}, nil
		c.base = maps.Clone(base)
	}
	for split, off := range offsets {
		start := base[split]
		if o, ok := from[split]; ok {
			start = max(start, o)
		}
		for o := start; o < off; o++ {
			r := recordAt(w.plan.Seed, &w.job, split, o)
			n := c.names[r.key]
			if n == "" {
				n = name(r.key)
				c.names[r.key] = n
			}
			v := c.state[n]
			v[0] += r.value
			v[1]++
			c.state[n] = v
		}
	}
	c.offsets = maps.Clone(offsets)
	return c.state
}

// covers reports whether every split of prev is in next at an offset at least as far.
func covers(next, prev map[int]int64) bool {
	for s, o := range prev {
		if n, ok := next[s]; !ok || n < o {
			return false
		}
	}
	return true
}

// expectedRules folds the first n broadcast updates.
func expectedRules(seed uint64, n int) map[string]int64 {
	m := map[string]int64{appliedRule: int64(n)}
	for i := range n {
		k, v := ruleAt(seed, i)
		m[k] = v
	}
	return m
}

// check compares the world with what the input log says it must hold, given the source offsets
// the world must be at (want), and appends violations.
func (w *World) check(step int, want map[int]int64, wantApplied int, afterRestore bool) {
	// Splits: exactly once, with the expected offsets.
	got := map[int]int64{}
	var dup []int
	for _, t := range w.src {
		for s, o := range t.offsets {
			if _, seen := got[s]; seen {
				dup = append(dup, s)
			}
			got[s] = o
		}
	}
	if len(dup) > 0 {
		sort.Ints(dup)
		w.violate(step, InvSplits, fmt.Sprintf("splits %v owned by more than one source subtask", dup), "")
	}
	if !maps.Equal(want, got) {
		w.violate(step, InvSplits, "source split offsets differ from the expected ones", diffMap(want, got))
	}
	// Union: right after a restore every subtask holds the complete lists.
	if afterRestore && w.job.hasUnion() {
		want := w.job.unionPart(want)
		var passed []splitOffset // the last list found complete (subtasks receive the same, as a rule)
		for i, t := range w.src {
			if passed != nil && slices.Equal(t.unionReceived, passed) {
				continue
			}
			m := map[int]int64{}
			for _, so := range t.unionReceived {
				m[so.Split] = so.Offset
			}
			if len(t.unionReceived) != len(want) {
				w.violate(step, InvUnion, fmt.Sprintf("source subtask %d received %d union elements, want %d", i, len(t.unionReceived), len(want)), diffMap(want, m))
				break
			}
			if differ(want, m) {
				w.violate(step, InvUnion, fmt.Sprintf("source subtask %d's union list differs", i), diffMap(want, m))
				break
			}
			passed = t.unionReceived
		}
	}
	// Keyed state: every key once, on the subtask owning its key group, with the expected value.
	if w.job.HasKeyed() {
		processed := want // records in flight (unaligned) are not processed yet
		if w.processed != nil {
			processed = w.processed
		}
		w.checkKeyed(step, "", w.keyed, w.maxPar, w.expectedKeyed(processed), w.job.RawKeyed)
	}
	for k, ts := range w.stageKeyed {
		if ts != nil {
			w.checkKeyed(step, VertexName(2+k)+" ", ts, w.stageMax[k], w.expectedDerived(k, want), false)
		}
	}
	// Broadcast: identical everywhere and equal to the expected map.
	if w.job.Broadcast {
		wantRules := expectedRules(w.plan.Seed, wantApplied)
		for i, t := range w.keyed {
			if differ(wantRules, t.rules) {
				w.violate(step, InvBroadcast, fmt.Sprintf("keyed subtask %d's broadcast state differs", i), diffMap(wantRules, t.rules))
				break
			}
		}
	}
}

// differ reports whether diffMap(a, b) is not empty (it tells a nil map from an empty one),
// without its cost: diffMap only explains a difference.
func differ[K comparable, V comparable](a, b map[K]V) bool {
	return (a == nil) != (b == nil) || !maps.Equal(a, b)
}

// checkKeyed checks a keyed vertex's subtasks (prefix names it in messages, "" for the keyed
// vertex): every key once, on the subtask owning its key group at maxPar, with the expected
// (sum, count) — the count only when counts are kept (raw keyed state).
func (w *World) checkKeyed(step int, prefix string, tasks []*keyedTask, maxPar int, exp map[string][2]int64, counts bool) {
	if w.hashes.keyedAsExpected(tasks, maxPar, exp, counts) {
		return
	}
	owner := map[string]int{}
	gotKeyed := map[string][2]int64{}
	reported := 0
	for i, t := range tasks {
		for _, k := range slices.Sorted(maps.Keys(t.values)) { // sorted: what is reported must not depend on map order
			e := t.values[k]
			if prev, dup := owner[k]; dup {
				if reported < 3 {
					w.violate(step, InvKeyedState, fmt.Sprintf("%skey %q held by subtasks %d and %d", prefix, k, prev, i), "")
				}
				reported++
			}
			owner[k] = i
			kg, want, err := w.hashes.route(oracleKeyType(t.keyType), k, maxPar, len(tasks))
			switch {
			case err != nil:
				if reported < 3 {
					w.violate(step, InvKeyOwner, fmt.Sprintf("%ssubtask %d holds a key the oracle cannot route: %v", prefix, i, err), "")
				}
				reported++
			case want != i:
				if reported < 3 {
					w.violate(step, InvKeyOwner, fmt.Sprintf("%skey %q (key group %d of %d) is on subtask %d, routing sends it to %d", prefix, k, kg, maxPar, i, want), "")
				}
				reported++
			}
			c := e.count
			if !counts {
				c = exp[k][1] // raw keyed state is not kept: compare sums only
			}
			gotKeyed[k] = [2]int64{e.sum, c}
		}
	}
	if !maps.Equal(exp, gotKeyed) { // diffMap only to explain a difference: it is slow
		w.violate(step, InvKeyedState, fmt.Sprintf("%skeyed state differs from the input log up to the source offsets (%d keys expected, %d held)", prefix, len(exp), len(gotKeyed)), diffMap(exp, gotKeyed))
	}
}

// keyedAsExpected reports whether checkKeyed finds nothing: every key held is on the subtask
// the oracle routes it to (so on one subtask only) with its expected (sum, count), and as many
// keys are held as expected. It visits keys in map order, which only the reporting needs sorted.
func (c *oracleHashes) keyedAsExpected(tasks []*keyedTask, maxPar int, exp map[string][2]int64, counts bool) bool {
	held := 0
	for i, t := range tasks {
		kt := oracleKeyType(t.keyType)
		for k, e := range t.values {
			held++
			if _, want, err := c.route(kt, k, maxPar, len(tasks)); err != nil || want != i {
				return false
			}
			x, ok := exp[k]
			c := e.count
			if !counts {
				c = x[1]
			}
			if !ok || x != [2]int64{e.sum, c} {
				return false
			}
		}
	}
	return held == len(exp)
}

// expectedRestartSet is the oracle's set of subtasks a failure of the failed subtasks restarts,
// derived from SPEC §J.1 for the simulated jobs (every partition available, no subtask left in
// CREATED): a pipelined region is held together by pipelined partitions, and a restart spreads to
// every region consuming what a restarted one produces. So a restart reaches everything connected
// to a failed subtask through pipelined edges (either way) and blocking edges (downstream only).
// A forward edge connects subtask i to subtask i; the other edges connect every pair.
func expectedRestartSet(j Job, failed []slot) map[slot]bool {
	type edge struct {
		from, to  int
		pointwise bool
		pipelined bool
	}
	edges := []edge{{from: 0, to: 1, pipelined: true}} // (no subtasks at index 1 without a keyed vertex)
	for k, st := range j.Stages {
		edges = append(edges, edge{from: st.Input, to: 2 + k, pointwise: st.Edge == EdgeForward, pipelined: !st.Blocking})
	}
	reached := map[slot]bool{}
	whole := map[int]bool{} // vertices reached entirely
	var queue []slot
	visit := func(s slot) {
		if !reached[s] {
			reached[s] = true
			queue = append(queue, s)
		}
	}
	visitAll := func(v int) {
		if whole[v] {
			return
		}
		whole[v] = true
		for i := range j.Parallelism(v) {
			visit(slot{v, i})
		}
	}
	for _, f := range failed {
		visit(f)
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, e := range edges {
			var other int
			switch {
			case e.from == s.vertex: // downstream: always
				other = e.to
			case e.to == s.vertex && e.pipelined: // upstream: only through pipelined partitions
				other = e.from
			default:
				continue
			}
			if e.pointwise {
				visit(slot{other, s.subtask})
			} else {
				visitAll(other)
			}
		}
	}
	return reached
}

// oracleHashes remembers the oracle's hash of each row key the world has asked it about (a
// key's hash depends on its text only): checkKeyed routes every held key after every step, and
// the hash of a row key decodes its JSON (the other key types' hashes cost less than a lookup).
// The key group and the owner are the oracle's, computed anew each time, as oracle.Route does.
type oracleHashes map[string]int32

// route is oracle.Route with a row key's hash remembered (an error is not: it is asked again).
func (c *oracleHashes) route(t oracle.KeyType, key string, maxPar, p int) (kg, subtask int, err error) {
	if t != oracle.Row {
		return oracle.Route(t, key, maxPar, p)
	}
	h, ok := (*c)[key]
	if !ok {
		if h, err = oracle.HashCode(t, key); err != nil {
			return 0, 0, err
		}
		if *c == nil {
			*c = oracleHashes{}
		}
		(*c)[key] = h
	}
	kg = oracle.KeyGroup(h, maxPar)
	return kg, oracle.Owner(kg, maxPar, p), nil
}
