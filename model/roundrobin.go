package model

import (
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
// previous in the same order. Otherwise every result handle is rebuilt, in Flink's order (SPEC
// §E.3 step 5): a new subtask's handles in the iteration order of its
// HashMap<StreamStateHandle, OperatorStateHandle>, keyed by the delegates' hashCode
// (StreamHandle.hashCode: Path's URI for files, the name for in-memory handles), and each
// handle's states in the iteration order of its own HashMap<String, StateMetaInfo> — the
// loader's, made for the handle's own states, for a handle kept at unchanged parallelism; else
// one made (newHashMapWithExpectedSize; 1.10.1: new HashMap<>(n)) for the names of the step that
// created the handle. The names of a previous handle's States stand for its map's iteration
// order, as the metadata loader builds it. The UNION and BROADCAST names are put in the
// iteration order of the maps Flink collects them in. Partitions of the same delegate that reach
// the same new subtask are merged into one handle (delegates are equal when their StreamHandle
// values are equal), and a later assignment of the same state name to the same handle replaces
// the earlier one, as Flink's map put does. Flink's Collectors.toMap is taken as on JDK 9+
// (putIfAbsent). The 1.10.1 map sizes and the union map without Collectors.toMap's copy are a
// reconstruction: no 1.10 source is at hand. Not modelled: at unchanged parallelism Flink adds
// the UNION and BROADCAST names to a kept handle's own map, which the model rebuilds from the
// States' (iteration) order; when that map holds a tree bin (more than eight names in one
// bucket) the rebuilt tree can iterate in another order than the loader's, which put the names
// in file order. The delegates' hash codes of relative handles are not known either (see
// StreamHandle.hashCode).
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
	var out [][]OperatorStateHandle
	if newParallelism == len(previous) {
		if out, err = repartitionSameParallelism(v, in, previous, share); err != nil {
			return nil, err
		}
	} else {
		out = repartitionChangedParallelism(v, in, newParallelism, share)
	}
	if mutant.On(mutant.UnionHandlesReversed) || mutant.On(mutant.HandlesOldSubtaskOrder) || mutant.On(mutant.StateNamesSorted) {
		out = misorder(in, out)
	}
	return out, nil
}

// misorder is the order mutants: out with each subtask's handles or names put in a wrong order
// (copies: out's lists may be shared).
func misorder(in *rrInput, out [][]OperatorStateHandle) [][]OperatorStateHandle {
	first := map[StreamHandle]int{} // a delegate's first appearance in the input
	for k, d := range in.delegates {
		first[d] = k
	}
	res := make([][]OperatorStateHandle, len(out))
	for i, hs := range out {
		hs = slices.Clone(hs)
		union := false
		for k := range hs {
			union = union || slices.ContainsFunc(hs[k].States, func(s NamedOperatorState) bool { return s.Mode == Union })
			if mutant.On(mutant.StateNamesSorted) {
				hs[k].States = slices.Clone(hs[k].States)
				slices.SortFunc(hs[k].States, func(a, b NamedOperatorState) int { return strings.Compare(a.Name, b.Name) })
			}
		}
		if mutant.On(mutant.UnionHandlesReversed) && union {
			slices.Reverse(hs)
		}
		if mutant.On(mutant.HandlesOldSubtaskOrder) {
			slices.SortStableFunc(hs, func(a, b OperatorStateHandle) int { return first[a.Delegate] - first[b.Delegate] })
		}
		res[i] = hs
	}
	return res
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

// rrNames groups entries by state name, keeping names in order of first appearance; seq is the
// name (index into names) of every entry added, in order: the computeIfAbsent calls of the map
// Flink collects them in.
type rrNames struct {
	index map[string]int
	names []string
	lists [][]rrEntry
	seq   []int
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
	g.seq = append(g.seq, i)
}

// rrKind says which step of Flink's repartitioner made a put, which decides the size of the
// name map of a handle the put creates.
type rrKind uint8

const (
	// rrKept: a handle of the old subtask kept at unchanged parallelism (initMergeMapList), with
	// the map Flink's metadata loader made for its states.
	rrKept rrKind = iota + 1
	// rrOwn: one of a kept handle's own states, as the loader put it into the handle's map.
	rrOwn
	rrSplit     // repartitionSplitState
	rrUnion     // repartitionUnionState
	rrBroadcast // repartitionBroadcastState
)

// rrPut is one "mergeMap.get(delegate).getStateNameToPartitionOffsets().put(name, meta)" of
// Flink, recorded for one new subtask (creating the delegate's handle when the subtask has none
// yet). A put of kind rrKept only puts the kept handle into the subtask's map; size is the number
// of states the loader made its name map for.
type rrPut struct {
	delegate int
	kind     rrKind
	size     int
	name     string
	mode     DistributionMode
	offsets  []int64 // a range of the input; copied when the result is built
}

// rrOutput collects the puts of every new subtask, each list in the order Flink makes them: a
// subtask's own puts before the UNION states', the UNION states' puts (recorded once, since
// every new subtask receives them all), and its own puts after them.
type rrOutput struct {
	v         FlinkVersion
	delegates []StreamHandle
	hashes    []int32 // the delegates' hashCode (StreamHandle.hashCode), when hashed[d]
	hashed    []bool
	subtasks  [][]rrPut // per new subtask, the puts before the UNION states'
	union     []rrPut   // the UNION states' puts, received by every new subtask
	after     [][]rrPut // per new subtask, the puts after the UNION states'
	unionDone bool      // union is recorded: later puts go to after
	slot      []int32   // buildSubtask's scratch
	// The sizes Flink makes a new handle's name map for, by the step that creates it: the
	// number of names in the map the step iterates (nameToDistributeState, unionState,
	// broadcastState).
	splitNames, unionNames, broadcastNames int

	base *rrBase // the handles of a subtask with no puts of its own; nil until built
}

func newRROutput(v FlinkVersion, in *rrInput, newParallelism int) *rrOutput {
	return &rrOutput{v: v, delegates: in.delegates, hashes: make([]int32, len(in.delegates)), hashed: make([]bool, len(in.delegates)),
		subtasks: make([][]rrPut, newParallelism), after: make([][]rrPut, newParallelism)}
}

// hash gives delegate d's hashCode, computed when first needed (a subtask with one handle
// needs none).
func (o *rrOutput) hash(d int) int32 {
	if !o.hashed[d] {
		o.hashes[d], o.hashed[d] = o.delegates[d].hashCode(), true
	}
	return o.hashes[d]
}

func (o *rrOutput) put(subtask, delegate int, kind rrKind, name string, mode DistributionMode, offsets []int64) {
	p := rrPut{delegate: delegate, kind: kind, name: name, mode: mode, offsets: offsets}
	if o.unionDone {
		o.after[subtask] = append(o.after[subtask], p)
	} else {
		o.subtasks[subtask] = append(o.subtasks[subtask], p)
	}
}

// nameMapCapacity is the initial capacity of a name map Flink makes for n names:
// CollectionUtil.newHashMapWithExpectedSize(n) from 1.18 on, new HashMap<>(n) in 1.10.1.
func (o *rrOutput) nameMapCapacity(n int) int {
	if o.v == Flink1101 {
		return n
	}
	return javamap.RequiredCapacity(n)
}

// mapOrder gives the order (indexes into g.names) in which Flink iterates the map of state
// names a step of the repartitioner collects g's entries in: computeIfAbsent for every entry,
// in the order added (a call also grows the table when it is over its threshold, so every call
// counts), on a map made with initial capacity initial (negative: new HashMap<>()), then, with
// copy, Collectors.toMap's copy into a new HashMap<>() (putIfAbsent in the first map's order).
func (g *rrNames) mapOrder(initial int, copy bool) []int {
	if len(g.names) <= 1 {
		return make([]int, len(g.names))
	}
	m := javamap.New(javamap.String)
	if initial >= 0 {
		m = javamap.WithInitialCapacity(javamap.String, initial)
	}
	for _, i := range g.seq {
		m.ComputeIfAbsent(g.names[i])
	}
	order := make([]int, 0, len(g.names))
	for _, k := range m.Order() {
		order = append(order, g.index[m.Key(k)])
	}
	if !copy {
		return order
	}
	return reorderBy(order, copyOrder(g.names, order))
}

// copyOrder gives the order in which a new HashMap<>() iterates names put into it in the given
// order (Collectors.toMap's copy of a map iterated in that order), as indexes into order.
func copyOrder(names []string, order []int) []int {
	c := javamap.New(javamap.String)
	for _, i := range order {
		c.Put(names[i])
	}
	return c.Order()
}

// reorderBy gives order[k] for each k of by.
func reorderBy(order, by []int) []int {
	out := make([]int, 0, len(by))
	for _, k := range by {
		out = append(out, order[k])
	}
	return out
}

// reorder puts g's names (and their lists) into the given order.
func (g *rrNames) reorder(order []int) {
	names, lists, moved := make([]string, len(order)), make([][]rrEntry, len(order)), make([]int, len(order))
	for k, i := range order {
		names[k], lists[k], moved[i] = g.names[i], g.lists[i], k
		g.index[names[k]] = k
	}
	for j, i := range g.seq {
		g.seq[j] = moved[i]
	}
	g.names, g.lists = names, lists
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
	// collectStates: a map made with newHashMapWithExpectedSize(P_old), filled with
	// computeIfAbsent, copied by Collectors.toMap (1.10.1: new HashMap<>(P_old), not copied). The
	// partly reported names keep the order of the BROADCAST map they are filtered from.
	if v == Flink1101 {
		union.reorder(union.mapOrder(len(previous), false))
	} else {
		union.reorder(union.mapOrder(javamap.RequiredCapacity(len(previous)), true))
		broadcast.reorder(broadcast.mapOrder(javamap.RequiredCapacity(len(previous)), false))
		var kept []int // partly's names, in the BROADCAST map's order
		for _, n := range broadcast.names {
			if k, ok := partly.index[n]; ok {
				kept = append(kept, k)
			}
		}
		partly.reorder(reorderBy(kept, copyOrder(partly.names, kept)))
	}
	out := newRROutput(v, in, len(previous))
	out.unionNames, out.broadcastNames = len(union.names), len(partly.names)
	// initMergeMapList: new subtask i starts from old subtask i's handles, keyed by delegate.
	for j, hs := range previous {
		for k, h := range hs {
			d := in.handleDelegate[j][k]
			if slices.Contains(in.handleDelegate[j][:k], d) {
				return nil, &DuplicateDelegateError{OldSubtask: j, Delegate: h.Delegate}
			}
			out.subtasks[j] = append(out.subtasks[j], rrPut{delegate: d, kind: rrKept, size: len(h.States)})
			for _, st := range h.States {
				out.put(j, d, rrOwn, st.Name, st.Mode, st.Offsets)
			}
		}
	}
	repartitionUnion(&union, out)
	repartitionBroadcast(&partly, out)
	return out.build(share), nil
}

// repartitionChangedParallelism models the P_new != P_old path (SPEC §E.3).
func repartitionChangedParallelism(v FlinkVersion, in *rrInput, newParallelism int, share bool) [][]OperatorStateHandle {
	// groupByStateMode: a java.util.HashMap per mode, filled with computeIfAbsent. The
	// SPLIT_DISTRIBUTE map's order decides the processing order of the names (the start index
	// carries over); the UNION and BROADCAST maps' the order of the puts.
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
	union.reorder(union.mapOrder(-1, false))
	broadcast.reorder(broadcast.mapOrder(-1, false))
	out := newRROutput(v, in, newParallelism)
	out.splitNames, out.unionNames, out.broadcastNames = split.Len(), len(union.names), len(broadcast.names)
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
			out.put(t, e.delegate, rrSplit, name, SplitDistribute, given)
		}
	}
	return nextStart
}

// repartitionUnion models repartitionUnionState: every new subtask receives every entry, the
// names in the order of the map Flink iterates (union's order). The puts are recorded once
// (rrOutput.union) for all new subtasks.
func repartitionUnion(union *rrNames, out *rrOutput) {
	n := 0
	for _, l := range union.lists {
		n += len(l)
	}
	out.union = make([]rrPut, 0, n)
	for n, name := range union.names {
		for _, e := range union.lists[n] {
			out.union = append(out.union, rrPut{delegate: e.delegate, kind: rrUnion, name: name, mode: e.state.Mode, offsets: e.state.Offsets})
		}
	}
	out.unionDone = true
}

// repartitionBroadcast models repartitionBroadcastState: new subtask i receives entry
// i mod (number of entries) of every name, the names in broadcast's order.
func repartitionBroadcast(broadcast *rrNames, out *rrOutput) {
	for i := range out.subtasks {
		if mutant.On(mutant.BroadcastSubtaskZero) && i > 0 {
			break
		}
		for n, name := range broadcast.names {
			l := broadcast.lists[n]
			k := i % len(l)
			if mutant.On(mutant.BroadcastNoModulo) {
				k = i
			}
			e := l[k]
			out.put(i, e.delegate, rrBroadcast, name, e.state.Mode, e.state.Offsets)
		}
	}
}

// rrHandle is one handle of a new subtask being built: its delegate, the size of its name map,
// and its names in the order they were first put, each with the last put of it.
type rrHandle struct {
	delegate int
	capacity int // the name map's initial capacity
	names    []*rrPut
}

// apply performs put p on the handle (a put of kind rrKept adds no state).
func (h *rrHandle) apply(p *rrPut) {
	if p.kind == rrKept {
		return
	}
	for k, q := range h.names {
		if q.name == p.name {
			h.names[k] = p // HashMap.put replaces the value, the key keeps its place
			return
		}
	}
	h.names = append(h.names, p)
}

// open makes the handle a put creates: a kept handle's name map is the loader's, made for its
// own states; a repartitioning step's is made for the names that step iterates.
func (o *rrOutput) open(p *rrPut) rrHandle {
	n := p.size
	switch p.kind {
	case rrSplit:
		n = o.splitNames
	case rrUnion:
		n = o.unionNames
	case rrBroadcast:
		n = o.broadcastNames
	}
	return rrHandle{delegate: p.delegate, capacity: o.nameMapCapacity(n)}
}

// nameOrder gives the handle's names in the iteration order of its map (put in the order of
// h.names).
func (h *rrHandle) nameOrder() []int {
	if len(h.names) == 1 {
		return []int{0}
	}
	hash := func(k int) int32 { return javamap.StringHashCode(h.names[k].name) }
	if order, _, load := javamap.PutOrder(len(h.names), hash, h.capacity); load <= javamap.TreeifyThreshold {
		return order
	}
	m := javamap.WithInitialCapacity(javamap.String, h.capacity)
	for _, p := range h.names {
		m.Put(p.name)
	}
	return m.Order()
}

// sameAs reports whether the two handles hold the same states in the same map order.
func (h *rrHandle) sameAs(g *rrHandle) bool {
	if len(h.names) != len(g.names) {
		return false
	}
	ho, gOrder := h.nameOrder(), g.nameOrder()
	for k := range ho {
		a, b := h.names[ho[k]], g.names[gOrder[k]]
		if a.name != b.name || a.mode != b.mode || !slices.Equal(a.offsets, b.offsets) {
			return false
		}
	}
	return true
}

// rrBase is the result of a new subtask with no puts of its own (only the UNION states'), which
// most new subtasks of a UNION state share: the handles, and what tells whether another subtask
// comes out the same.
type rrBase struct {
	result  []OperatorStateHandle
	handles map[int]*rrHandle // by delegate
	// capacity is the final capacity of the subtask's HashMap<StreamStateHandle, …>, load the
	// most delegates one of its buckets held (javamap.PutOrder); rank is each delegate's
	// position within its bucket, size each bucket's number of delegates, at the delegate of each
	// position of result and pos each delegate's position.
	capacity, load int
	rank, size     map[int]int
	at             []int
	pos            map[int]int
	// unionAt lists, per delegate, the positions of its puts in rrOutput.union.
	unionAt [][]int
}

// build turns the recorded puts into each new subtask's handles, in Flink's order: the handles
// in the iteration order of the subtask's HashMap<StreamStateHandle, OperatorStateHandle> (made
// with new HashMap<>(), or Collectors.toMap's at unchanged parallelism; keys put in the order the
// puts first reach them), each handle's states in the iteration order of its own name map. With
// share set, a new subtask that comes out equal to the previous one, or to one with no puts of
// its own, gets the same list (read-only).
func (o *rrOutput) build(share bool) [][]OperatorStateHandle {
	result := make([][]OperatorStateHandle, len(o.subtasks))
	for i := range o.subtasks {
		switch {
		case share && i > 0 && samePuts(o.subtasks[i], o.subtasks[i-1]) && samePuts(o.after[i], o.after[i-1]):
			result[i] = result[i-1]
		default:
			if share {
				if r, ok := o.fromBase(i); ok {
					result[i] = r
					continue
				}
			}
			result[i], _, _, _ = o.buildSubtask(o.subtasks[i], o.after[i])
		}
	}
	return result
}

// samePuts reports whether two lists of puts are equal (offsets by value).
func samePuts(a, b []rrPut) bool {
	return slices.EqualFunc(a, b, func(p, q rrPut) bool {
		return p.delegate == q.delegate && p.kind == q.kind && p.size == q.size && p.name == q.name &&
			p.mode == q.mode && slices.Equal(p.offsets, q.offsets)
	})
}

// buildSubtask builds one new subtask's handles from its puts before and after the UNION
// states'. It also returns the handles, and the delegate map's final capacity and load (see
// rrBase).
func (o *rrOutput) buildSubtask(before, after []rrPut) ([]OperatorStateHandle, []rrHandle, int, int) {
	var handles []rrHandle
	if o.slot == nil {
		o.slot = make([]int32, len(o.delegates)) // delegate → 1 + index in handles; 0: none
	}
	// The handles, in the order the puts first reach them, with room for a name per put (one
	// array for all: a handle's names are at most its puts).
	var puts []int32
	for _, l := range [3][]rrPut{before, o.union, after} {
		for k := range l {
			p := &l[k]
			i := int(o.slot[p.delegate]) - 1
			if i < 0 {
				i = len(handles)
				o.slot[p.delegate] = int32(i + 1)
				handles = append(handles, o.open(p))
				puts = append(puts, 0)
			}
			puts[i]++
		}
	}
	names := make([]*rrPut, len(before)+len(o.union)+len(after))
	for k := range handles {
		n := int(puts[k])
		handles[k].names, names = names[:0:n], names[n:]
	}
	for _, l := range [3][]rrPut{before, o.union, after} {
		for k := range l {
			p := &l[k]
			handles[int(o.slot[p.delegate])-1].apply(p)
		}
	}
	for k := range handles {
		o.slot[handles[k].delegate] = 0
	}
	hash := func(k int) int32 { return o.hash(handles[k].delegate) }
	order, capacity, load := javamap.PutOrder(len(handles), hash, -1)
	if load > javamap.TreeifyThreshold {
		m := javamap.New(javamap.Class[int]{HashCode: hash})
		for k := range handles {
			m.Put(k)
		}
		order = m.Order()
	}
	nOffsets, nStates := 0, 0
	for k := range handles {
		for _, p := range handles[k].names {
			nStates++
			nOffsets += len(p.offsets)
		}
	}
	arena := make([]int64, nOffsets)
	states := make([]NamedOperatorState, 0, nStates)
	out := make([]OperatorStateHandle, 0, len(handles))
	for _, k := range order {
		h := &handles[k]
		first := len(states)
		for _, n := range h.nameOrder() {
			p := h.names[n]
			offsets := arena[:len(p.offsets):len(p.offsets)]
			arena = arena[len(p.offsets):]
			copy(offsets, p.offsets)
			states = append(states, NamedOperatorState{Name: p.name, Mode: p.mode, Offsets: offsets})
		}
		out = append(out, OperatorStateHandle{Delegate: o.delegates[h.delegate], States: states[first:len(states):len(states)]})
	}
	return out, handles, capacity, load
}

// fromBase gives new subtask i's handles from those of a subtask with no puts of its own (the
// base, built first) when they hold the same handles: the delegates its own puts reach are all
// in the base and each such handle comes out the same (states, values, name order). This is the
// usual UNION state at unchanged parallelism, where new subtask i first puts old subtask i's own
// handle, which the UNION puts then fill like every other subtask's. The subtask's map then
// holds the base's delegates put in another order: in each bucket the delegates it puts first
// come first, the rest follow in the base's order. The result is the base's list itself when
// that changes nothing, else a reordered copy; ok is false when the subtask must be built.
func (o *rrOutput) fromBase(i int) (result []OperatorStateHandle, ok bool) {
	if len(o.union) == 0 {
		return nil, false
	}
	if o.base == nil {
		result, handles, capacity, load := o.buildSubtask(nil, nil)
		b := &rrBase{result: result, handles: map[int]*rrHandle{}, capacity: capacity, load: load, rank: map[int]int{}}
		for k := range handles {
			b.handles[handles[k].delegate] = &handles[k]
		}
		number := make(map[StreamHandle]int, len(handles))
		for k := range handles {
			number[o.delegates[handles[k].delegate]] = handles[k].delegate
		}
		b.at, b.pos, b.size = make([]int, len(result)), make(map[int]int, len(result)), map[int]int{}
		for k, h := range result {
			b.at[k] = number[h.Delegate]
			b.pos[b.at[k]] = k
		}
		for k := range handles { // in put order
			d := handles[k].delegate
			bucket := o.bucket(d, capacity)
			b.rank[d] = b.size[bucket]
			b.size[bucket]++
		}
		b.unionAt = make([][]int, len(o.delegates))
		for k := range o.union {
			d := o.union[k].delegate
			b.unionAt[d] = append(b.unionAt[d], k)
		}
		o.base = b
	}
	b := o.base
	// The subtask's handles of the delegates its own puts reach (few: a linear search).
	var own []rrHandle
	find := func(d int) *rrHandle {
		for k := range own {
			if own[k].delegate == d {
				return &own[k]
			}
		}
		return nil
	}
	nFirsts := 0 // own[:nFirsts] are the delegates put before the UNION states, in order
	for k := range o.subtasks[i] {
		p := &o.subtasks[i][k]
		h := find(p.delegate)
		if h == nil {
			if _, inBase := b.handles[p.delegate]; !inBase {
				return nil, false
			}
			own = append(own, o.open(p))
			nFirsts++
			h = &own[len(own)-1]
		}
		h.apply(p)
	}
	for k := range own { // (each handle its UNION puts, in order: puts to other handles do not touch it)
		for _, u := range b.unionAt[own[k].delegate] {
			own[k].apply(&o.union[u])
		}
	}
	for k := range o.after[i] {
		p := &o.after[i][k]
		h := find(p.delegate)
		if h == nil {
			base, inBase := b.handles[p.delegate]
			if !inBase {
				return nil, false
			}
			c := *base
			c.names = slices.Clone(base.names)
			own = append(own, c)
			h = &own[len(own)-1]
		}
		h.apply(p)
	}
	for k := range own {
		if !own[k].sameAs(b.handles[own[k].delegate]) {
			return nil, false
		}
	}
	firsts := make([]int, nFirsts)
	for k := range firsts {
		firsts[k] = own[k].delegate
	}
	// The subtask's buckets stay lists if the base's do with room for the delegates put first
	// (no prefix of its puts puts more of them in one bucket).
	if b.load+len(firsts) > javamap.TreeifyThreshold {
		return nil, false
	}
	// Per bucket, the delegates put first, in order; the result is the base's when they are the
	// bucket's first ones there already.
	byBucket := map[int][]int{}
	var buckets []int
	moved := false
	for _, d := range firsts {
		bucket := o.bucket(d, b.capacity)
		if _, seen := byBucket[bucket]; !seen {
			buckets = append(buckets, bucket)
		}
		moved = moved || b.rank[d] != len(byBucket[bucket])
		byBucket[bucket] = append(byBucket[bucket], d)
	}
	if !moved {
		return b.result, true
	}
	result = slices.Clone(b.result)
	for _, bucket := range buckets {
		first := byBucket[bucket]
		start := b.pos[first[0]] - b.rank[first[0]] // the bucket's run in the base's list
		k := start
		for _, d := range first {
			result[k] = b.result[b.pos[d]]
			k++
		}
		for _, d := range b.at[start : start+b.size[bucket]] {
			if !slices.Contains(first, d) {
				result[k] = b.result[b.pos[d]]
				k++
			}
		}
	}
	return result, true
}

// bucket is the bucket of delegate d in a HashMap of the given capacity (HashMap.hash, then the
// index mask).
func (o *rrOutput) bucket(d, capacity int) int {
	h := uint32(o.hash(d))
	return int((h ^ h>>16) & uint32(capacity-1))
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
