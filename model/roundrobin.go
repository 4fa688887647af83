package model

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/restoresim/restoresim/model/internal/javamap"
	"github.com/restoresim/restoresim/model/internal/mutant"
)

// ErrNonPositiveNewParallelism is Flink's IllegalArgumentException from
// Preconditions.checkArgument(newParallelism > 0) in
// RoundRobinOperatorStateRepartitioner.repartitionState.
var ErrNonPositiveNewParallelism = errors.New("new parallelism must be positive")

// ErrMalformedOperatorStateHandle matches (errors.Is) every *MalformedOperatorStateHandleError:
// an operator state handle that Flink could not have written (an unknown distribution mode, or
// a state name twice in one handle's name → StateMetaInfo map).
var ErrMalformedOperatorStateHandle = errors.New("malformed operator state handle")

// MalformedOperatorStateHandleError locates a handle that RepartitionOperatorState refuses.
type MalformedOperatorStateHandleError struct {
	OldSubtask, Handle int
	// State is the offending state's name.
	State  string
	Reason string
}

func (e *MalformedOperatorStateHandleError) Error() string {
	return "malformed operator state handle " + strconv.Itoa(e.Handle) + " of old subtask " +
		strconv.Itoa(e.OldSubtask) + ", state " + strconv.Quote(e.State) + ": " + e.Reason
}

// Is reports whether target is ErrMalformedOperatorStateHandle.
func (e *MalformedOperatorStateHandleError) Is(target error) bool {
	return target == ErrMalformedOperatorStateHandle
}

// ErrDuplicateDelegate matches (errors.Is) every *DuplicateDelegateError: the
// IllegalStateException ("Duplicate key …") that Collectors.toMap throws in
// RoundRobinOperatorStateRepartitioner.initMergeMapList when, at unchanged parallelism with
// UNION (or partly reported BROADCAST) state, one old subtask holds two handles over the same
// delegate stream.
var ErrDuplicateDelegate = errors.New("duplicate delegate stream in one subtask")

// DuplicateDelegateError names the subtask and the stream of an ErrDuplicateDelegate.
type DuplicateDelegateError struct {
	OldSubtask int
	Delegate   StreamHandle
}

func (e *DuplicateDelegateError) Error() string {
	return fmt.Sprintf("Duplicate key %+v: old subtask %d holds two operator state handles over the same delegate stream",
		e.Delegate, e.OldSubtask)
}

// Is reports whether target is ErrDuplicateDelegate.
func (e *DuplicateDelegateError) Is(target error) bool { return target == ErrDuplicateDelegate }

// bitSetSize models java.util.BitSet(n).size(): the allocated capacity in bits, 64·⌈n/64⌉.
func bitSetSize(n int) int { return 64 * ((n + 63) / 64) }

// RepartitionOperatorState models RoundRobinOperatorStateRepartitioner.repartitionState: it
// hands the operator (non-keyed) state of P_old = len(previous) old subtasks to newParallelism
// new subtasks (SPEC §E). previous[j] lists old subtask j's handles in order (an empty slice is
// a subtask without state); the entries of each handle's States are visited in order, which
// stands for the iteration order of Flink's name → StateMetaInfo map. The result has exactly
// newParallelism lists.
//
// At unchanged parallelism Flink returns its input untouched unless there is UNION state (or, in
// 1.18, BROADCAST state that is "partly reported", SPEC §E.2); the result is then a deep copy of
// previous in the same order. Otherwise every result handle is rebuilt: handles of one new
// subtask are ordered by where their delegate stream first appears in previous (old subtask,
// then handle index), and the states of a handle are sorted by name. Partitions of the same
// delegate that reach the same new subtask are merged into one handle (delegates are equal when
// their StreamHandle values are equal), and a later assignment of the same state name to the
// same handle replaces the earlier one, as Flink's map put does.
//
// The result shares no memory with previous, and no two result handles share an offsets array.
//
// Errors: ErrNonPositiveNewParallelism; ErrParallelismOutOfBounds (newParallelism above
// UpperBoundMaxParallelism, which Flink rejects before it repartitions); ErrUnknownFlinkVersion;
// ErrMalformedOperatorStateHandle (an unknown mode, a name twice in one handle); and
// ErrDuplicateDelegate (SPEC §E.2 step 4 on a subtask with two handles over one stream, where
// Flink throws).
//
// Not modelled: Java's int overflow of a state's partition count beyond 2^31-1.
func RepartitionOperatorState(v FlinkVersion, previous [][]OperatorStateHandle, newParallelism int) ([][]OperatorStateHandle, error) {
	return repartitionOperatorState(v, previous, newParallelism, false)
}

// repartitionOperatorState is RepartitionOperatorState; with share set, new subtasks whose
// handles come out equal share one list (read-only), as Flink's UNION repartitioning shares its
// StateMetaInfo objects: a UNION state over P_old subtasks then costs O(P_old), not
// O(P_old·P_new), per restore.
func repartitionOperatorState(v FlinkVersion, previous [][]OperatorStateHandle, newParallelism int, share bool) ([][]OperatorStateHandle, error) {
	if newParallelism <= 0 {
		return nil, fmt.Errorf("%w: %d", ErrNonPositiveNewParallelism, newParallelism)
	}
	if newParallelism > UpperBoundMaxParallelism {
		// Flink cannot run an operator this wide (KeyGroupRangeAssignment.
		// checkParallelismPreconditions); refusing it also bounds the result's size.
		return nil, &ParallelismOutOfBoundsError{Parallelism: newParallelism}
	}
	if !v.Known() {
		return nil, fmt.Errorf("%w: %v", ErrUnknownFlinkVersion, v)
	}
	in, err := indexOperatorState(previous)
	if err != nil {
		return nil, err
	}
	if newParallelism == len(previous) {
		return repartitionSameParallelism(v, in, previous, share)
	}
	return repartitionChangedParallelism(in, newParallelism, share), nil
}

// rrEntry is one (delegate, StateMetaInfo) pair of the input: Flink's
// Tuple2<StreamStateHandle, StateMetaInfo>.
type rrEntry struct {
	subtask  int
	delegate int // dense delegate number, in order of first appearance
	state    *NamedOperatorState
}

// rrInput is the validated, indexed input of the repartitioner.
type rrInput struct {
	delegates []StreamHandle // by delegate number
	// handleDelegate[j][k] is the delegate number of old subtask j's handle k.
	handleDelegate [][]int
	// entries lists every state of every handle in visiting order (old subtask, handle, state).
	entries []rrEntry
}

// indexOperatorState validates previous and numbers the delegate streams.
func indexOperatorState(previous [][]OperatorStateHandle) (*rrInput, error) {
	in := &rrInput{handleDelegate: make([][]int, len(previous))}
	n, handles := 0, 0
	for _, hs := range previous {
		handles += len(hs)
		for _, h := range hs {
			n += len(h.States)
		}
	}
	ids := make(map[StreamHandle]int, handles)
	in.delegates = make([]StreamHandle, 0, handles)
	in.entries = make([]rrEntry, 0, n)
	var seen map[string]struct{}
	backing := make([]int, handles) // every subtask's handleDelegate, in one allocation
	for j, hs := range previous {
		in.handleDelegate[j], backing = backing[:len(hs):len(hs)], backing[len(hs):]
		for k := range hs {
			h := &hs[k]
			d, ok := ids[h.Delegate]
			if !ok {
				d = len(in.delegates)
				ids[h.Delegate] = d
				in.delegates = append(in.delegates, h.Delegate)
			}
			in.handleDelegate[j][k] = d
			if len(h.States) > 1 {
				if seen == nil {
					seen = make(map[string]struct{})
				}
				clear(seen)
			}
			for s := range h.States {
				st := &h.States[s]
				if st.Mode < SplitDistribute || st.Mode > Broadcast {
					return nil, &MalformedOperatorStateHandleError{OldSubtask: j, Handle: k, State: st.Name,
						Reason: fmt.Sprintf("unknown distribution mode %v (want SPLIT_DISTRIBUTE, UNION or BROADCAST)", st.Mode)}
				}
				if len(h.States) > 1 {
					if _, dup := seen[st.Name]; dup {
						return nil, &MalformedOperatorStateHandleError{OldSubtask: j, Handle: k, State: st.Name,
							Reason: "the name appears twice in the handle's state map"}
					}
					seen[st.Name] = struct{}{}
				}
				in.entries = append(in.entries, rrEntry{subtask: j, delegate: d, state: st})
			}
		}
	}
	return in, nil
}

// rrNames groups entries by state name, keeping names in order of first appearance.
type rrNames struct {
	index map[string]int
	names []string
	lists [][]rrEntry
}

func (g *rrNames) add(e rrEntry) {
	i, ok := g.index[e.state.Name]
	if !ok {
		if g.index == nil {
			g.index = make(map[string]int)
		}
		i = len(g.names)
		g.index[e.state.Name] = i
		g.names = append(g.names, e.state.Name)
		g.lists = append(g.lists, nil)
	}
	g.lists[i] = append(g.lists[i], e)
}

// rrPut is one "mergeMap.get(delegate).getStateNameToPartitionOffsets().put(name, meta)" of
// Flink, recorded for one new subtask. A put with marker set only makes sure the handle exists
// (an old handle kept at unchanged parallelism, possibly without any state).
type rrPut struct {
	delegate int
	marker   bool
	name     string
	mode     DistributionMode
	offsets  []int64 // a range of the input; copied when the result is built
}

// rrOutput collects the puts of every new subtask: its own puts before and after the UNION
// states', and the UNION states' puts, recorded once since every new subtask receives them all.
type rrOutput struct {
	delegates []StreamHandle
	subtasks  [][]rrPut // per new subtask, the puts before the UNION states'
	union     []rrPut   // the UNION states' puts, received by every new subtask
	after     [][]rrPut // per new subtask, the puts after the UNION states'
	unionDone bool      // union is recorded: later puts go to after
	kept      []*rrPut  // scratch of sameDelegate
	checked   []int     // scratch of sameAsPrevious
}

func newRROutput(in *rrInput, newParallelism int) *rrOutput {
	return &rrOutput{delegates: in.delegates, subtasks: make([][]rrPut, newParallelism), after: make([][]rrPut, newParallelism)}
}

func (o *rrOutput) put(subtask, delegate int, name string, mode DistributionMode, offsets []int64) {
	p := rrPut{delegate: delegate, name: name, mode: mode, offsets: offsets}
	if o.unionDone {
		o.after[subtask] = append(o.after[subtask], p)
	} else {
		o.subtasks[subtask] = append(o.subtasks[subtask], p)
	}
}

// repartitionSameParallelism models the P_new == P_old path (SPEC §E.2).
func repartitionSameParallelism(v FlinkVersion, in *rrInput, previous [][]OperatorStateHandle, share bool) ([][]OperatorStateHandle, error) {
	var union, broadcast rrNames
	for _, e := range in.entries {
		switch e.state.Mode {
		case Union:
			union.add(e)
		case Broadcast:
			if v != Flink1101 {
				broadcast.add(e)
			}
		}
	}
	// collectPartlyFinishedBroadcastStates: keep the names reported by some, but fewer than
	// BitSet(P_old).size(), old subtasks; from 2.2 on (FLINK-38131, SPEC-VERSIONS.md §3) fewer
	// than P_old.
	var partly rrNames
	capacity := bitSetSize(len(previous))
	if v.AtLeast(Flink22) {
		capacity = len(previous)
	}
	for i := range broadcast.names {
		reported, last := 0, -1
		for _, e := range broadcast.lists[i] { // entries are in subtask order
			if e.subtask != last {
				reported, last = reported+1, e.subtask
			}
		}
		if reported > 0 && reported < capacity {
			for _, e := range broadcast.lists[i] {
				partly.add(e)
			}
		}
	}
	if len(union.names) == 0 && len(partly.names) == 0 {
		return cloneOperatorState(previous), nil
	}
	out := newRROutput(in, len(previous))
	// initMergeMapList: new subtask i starts from old subtask i's handles, keyed by delegate.
	for j, hs := range previous {
		for k, h := range hs {
			d := in.handleDelegate[j][k]
			if slices.Contains(in.handleDelegate[j][:k], d) {
				return nil, &DuplicateDelegateError{OldSubtask: j, Delegate: h.Delegate}
			}
			out.subtasks[j] = append(out.subtasks[j], rrPut{delegate: d, marker: true})
			for _, st := range h.States {
				out.put(j, d, st.Name, st.Mode, st.Offsets)
			}
		}
	}
	repartitionUnion(&union, out)
	repartitionBroadcast(&partly, out)
	return out.build(share), nil
}

// repartitionChangedParallelism models the P_new != P_old path (SPEC §E.3).
func repartitionChangedParallelism(in *rrInput, newParallelism int, share bool) [][]OperatorStateHandle {
	// groupByStateMode: SPLIT_DISTRIBUTE names go through a java.util.HashMap whose iteration
	// order decides the processing order; for UNION and BROADCAST the order of names does not
	// change the result (each name is its own map key in every output handle).
	split := javamap.New(javamap.String)
	var splitLists [][]rrEntry
	var union, broadcast rrNames
	for _, e := range in.entries {
		if mutant.On(mutant.UnionAsSplit) && e.state.Mode == Union {
			e.state = &NamedOperatorState{Name: e.state.Name, Mode: SplitDistribute, Offsets: e.state.Offsets}
		}
		switch e.state.Mode {
		case SplitDistribute:
			i, added := split.ComputeIfAbsent(e.state.Name)
			if added {
				splitLists = append(splitLists, nil)
			}
			splitLists[i] = append(splitLists[i], e)
		case Union:
			union.add(e)
		case Broadcast:
			broadcast.add(e)
		}
	}
	out := newRROutput(in, newParallelism)
	start := 0
	order := split.Order()
	if mutant.On(mutant.SplitInsertionOrder) {
		for k := range order {
			order[k] = k
		}
	}
	if mutant.On(mutant.SplitNamesSorted) {
		slices.SortFunc(order, func(a, b int) int { return strings.Compare(split.Key(a), split.Key(b)) })
	}
	for _, i := range order {
		next := repartitionSplit(split.Key(i), splitLists[i], start, out)
		if !mutant.On(mutant.SplitStartNotCarried) {
			start = next
		}
	}
	repartitionUnion(&union, out)
	repartitionBroadcast(&broadcast, out)
	return out.build(share)
}

// repartitionSplit models one iteration of repartitionSplitState's loop over names: it hands out
// the partitions of name round-robin, the extra ones to the subtasks from start on, and returns
// the start for the next name.
func repartitionSplit(name string, entries []rrEntry, start int, out *rrOutput) int {
	p := len(out.subtasks)
	total := 0
	for _, e := range entries {
		total += len(e.state.Offsets)
	}
	base, rem := total/p, total%p
	if mutant.On(mutant.RoundRobinDropRemainder) {
		rem = 0
	}
	nextStart := start
	entry, offset := 0, 0
	for k := range p {
		t := (k + start) % p
		n := base
		if rem > 0 {
			n++
			rem--
		} else if rem == 0 {
			// The first subtask without an extra partition starts the next name.
			nextStart = t
			rem--
		}
		for n > 0 {
			e := entries[entry]
			offs := e.state.Offsets
			left := len(offs) - offset
			var given []int64
			if left > n {
				given = offs[offset : offset+n]
				offset += n
			} else {
				// The rest of this entry, possibly nothing (an entry without offsets is handed
				// over with an empty array).
				given = offs[offset:]
				entry++
				offset = 0
			}
			n -= left
			out.put(t, e.delegate, name, SplitDistribute, given)
		}
	}
	return nextStart
}

// repartitionUnion models repartitionUnionState: every new subtask receives every entry. The
// puts are recorded once (rrOutput.union) for all new subtasks.
func repartitionUnion(union *rrNames, out *rrOutput) {
	n := 0
	for _, l := range union.lists {
		n += len(l)
	}
	out.union = make([]rrPut, 0, n)
	for n, name := range union.names {
		for _, e := range union.lists[n] {
			out.union = append(out.union, rrPut{delegate: e.delegate, name: name, mode: e.state.Mode, offsets: e.state.Offsets})
		}
	}
	out.unionDone = true
}

// repartitionBroadcast models repartitionBroadcastState: new subtask i receives entry
// i mod (number of entries) of every name.
func repartitionBroadcast(broadcast *rrNames, out *rrOutput) {
	for i := range out.subtasks {
		if mutant.On(mutant.BroadcastSubtaskZero) && i > 0 {
			break
		}
		for n, name := range broadcast.names {
			l := broadcast.lists[n]
			e := l[i%len(l)]
			out.put(i, e.delegate, name, e.state.Mode, e.state.Offsets)
		}
	}
}

// comparePuts orders puts for build: by delegate, a marker first, then by name.
func comparePuts(a, b *rrPut) int {
	if c := cmp.Compare(a.delegate, b.delegate); c != 0 {
		return c
	}
	if a.marker != b.marker {
		if a.marker {
			return -1
		}
		return 1
	}
	return cmp.Compare(a.name, b.name)
}

// sortPuts sorts puts stably by comparePuts: puts of one (delegate, name) keep their order, so
// the last is the latest.
func sortPuts(puts []rrPut) {
	cmpPuts := func(a, b rrPut) int { return comparePuts(&a, &b) }
	if !slices.IsSortedFunc(puts, cmpPuts) {
		slices.SortStableFunc(puts, cmpPuts)
	}
}

// rrMerge yields one new subtask's puts in the order of a stable sort of
// lists[0] ++ lists[1] ++ lists[2], each of them already stably sorted: the smallest head first,
// the earlier list's on a tie.
type rrMerge struct{ lists [3][]rrPut }

// head returns the list holding the next put, -1 when all are done.
func (m *rrMerge) head() int {
	best := -1
	for l := range m.lists {
		if len(m.lists[l]) > 0 && (best < 0 || comparePuts(&m.lists[l][0], &m.lists[best][0]) < 0) {
			best = l
		}
	}
	return best
}

// walk calls f with every put in order, telling whether it opens its delegate's handle (first),
// closes it (last), and whether it is kept as a state (the last put of its (delegate, name));
// it stops when f returns false.
func (m rrMerge) walk(f func(p *rrPut, first, last, keep bool) bool) {
	l := m.head()
	prevDelegate := -1
	for l >= 0 {
		p := &m.lists[l][0]
		m.lists[l] = m.lists[l][1:]
		next := m.head()
		last := next < 0 || m.lists[next][0].delegate != p.delegate
		keep := !p.marker && (last || m.lists[next][0].name != p.name)
		if !f(p, p.delegate != prevDelegate, last, keep) {
			return
		}
		prevDelegate = p.delegate
		l = next
	}
}

// build turns the recorded puts into handles: per new subtask, one handle per delegate in
// delegate order, one state per name (the last put wins) sorted by name, offsets copied into one
// array per subtask and capped, so that appending to one handle's offsets cannot reach another's.
// With share set, a new subtask whose handles equal the previous subtask's gets the same list.
func (o *rrOutput) build(share bool) [][]OperatorStateHandle {
	sortPuts(o.union)
	result := make([][]OperatorStateHandle, len(o.subtasks))
	for i := range o.subtasks {
		sortPuts(o.subtasks[i])
		sortPuts(o.after[i])
		m := rrMerge{lists: [3][]rrPut{o.subtasks[i], o.union, o.after[i]}}
		if share && i > 0 && o.sameAsPrevious(i) {
			result[i] = result[i-1]
			continue
		}
		result[i] = o.buildSubtask(m)
	}
	return result
}

// buildSubtask builds one new subtask's handles from its puts.
func (o *rrOutput) buildSubtask(m rrMerge) []OperatorStateHandle {
	nOffsets, nStates, nHandles := 0, 0, 0
	m.walk(func(p *rrPut, first, _, keep bool) bool {
		if first {
			nHandles++
		}
		if keep {
			nStates++
			nOffsets += len(p.offsets)
		}
		return true
	})
	arena := make([]int64, nOffsets)
	states := make([]NamedOperatorState, 0, nStates)
	handles := make([]OperatorStateHandle, 0, nHandles)
	first := 0
	m.walk(func(p *rrPut, opens, closes, keep bool) bool {
		if opens {
			handles = append(handles, OperatorStateHandle{Delegate: o.delegates[p.delegate]})
			first = len(states)
		}
		if keep {
			n := len(p.offsets)
			offsets := arena[:n:n]
			arena = arena[n:]
			copy(offsets, p.offsets)
			states = append(states, NamedOperatorState{Name: p.name, Mode: p.mode, Offsets: offsets})
		}
		if closes {
			handles[len(handles)-1].States = states[first:len(states):len(states)]
		}
		return true
	})
	return handles
}

// sameAsPrevious reports whether new subtask i's handles equal new subtask i-1's. Only a delegate
// that the own puts of i or of i-1 touch can differ: the others' handles come from the UNION
// puts alone. Both subtasks' own puts are sorted.
func (o *rrOutput) sameAsPrevious(i int) bool {
	o.checked = o.checked[:0] // the delegates found equal so far
	for _, l := range [4][]rrPut{o.subtasks[i], o.after[i], o.subtasks[i-1], o.after[i-1]} {
		for _, p := range l {
			if slices.Contains(o.checked, p.delegate) {
				continue
			}
			if !o.sameDelegate(i, p.delegate) {
				return false
			}
			o.checked = append(o.checked, p.delegate)
		}
	}
	return true
}

// delegateRun is the run of puts on delegate d in puts (sorted by delegate).
func delegateRun(puts []rrPut, d int) []rrPut {
	lo, _ := slices.BinarySearchFunc(puts, d, func(p rrPut, d int) int { return cmp.Compare(p.delegate, d) })
	hi := lo
	for hi < len(puts) && puts[hi].delegate == d {
		hi++
	}
	return puts[lo:hi]
}

// sameDelegate reports whether new subtasks i and i-1 get equal handles (or none) of delegate d.
func (o *rrOutput) sameDelegate(i, d int) bool {
	union := delegateRun(o.union, d) // (the same for both)
	a := rrMerge{lists: [3][]rrPut{delegateRun(o.subtasks[i], d), union, delegateRun(o.after[i], d)}}
	b := rrMerge{lists: [3][]rrPut{delegateRun(o.subtasks[i-1], d), union, delegateRun(o.after[i-1], d)}}
	o.kept = o.kept[:0]
	inA, inB := false, false // whether the subtask has a handle of d
	a.walk(func(p *rrPut, _, _, keep bool) bool {
		inA = true
		if keep {
			o.kept = append(o.kept, p)
		}
		return true
	})
	k, equal := 0, true
	b.walk(func(p *rrPut, _, _, keep bool) bool {
		inB = true
		if keep {
			if k >= len(o.kept) || o.kept[k].name != p.name || o.kept[k].mode != p.mode || !slices.Equal(o.kept[k].offsets, p.offsets) {
				equal = false
			}
			k++
		}
		return equal
	})
	return equal && inA == inB && k == len(o.kept)
}

// cloneOperatorState deep-copies previous (nil offsets become empty).
func cloneOperatorState(previous [][]OperatorStateHandle) [][]OperatorStateHandle {
	result := make([][]OperatorStateHandle, len(previous))
	for j, hs := range previous {
		out := make([]OperatorStateHandle, len(hs))
		for k, h := range hs {
			states := make([]NamedOperatorState, len(h.States))
			for s, st := range h.States {
				offsets := make([]int64, len(st.Offsets))
				copy(offsets, st.Offsets)
				states[s] = NamedOperatorState{Name: st.Name, Mode: st.Mode, Offsets: offsets}
			}
			out[k] = OperatorStateHandle{Delegate: h.Delegate, States: states}
		}
		result[j] = out
	}
	return result
}
