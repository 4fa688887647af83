package oracle

import (
	"fmt"
	"slices"
	"strings"
)

// This file is the oracle's own reference of what each new subtask is handed at a restore
// (StateAssignmentOperation.assignStates): keyed handles cut as SPEC §D.3–§D.4 say, operator
// state repartitioned as RoundRobinOperatorStateRepartitioner does (SPEC §E), with its own
// java.util.HashMap name order. It works on plain values the world records: the restored
// snapshot's operator states as read back, and the new job's vertices.

// Mode is an operator-state name's distribution mode (OperatorStateHandle.Mode).
type Mode uint8

const (
	SplitDistribute Mode = iota + 1
	Union
	Broadcast
)

var modeNames = [...]string{"", "SPLIT_DISTRIBUTE", "UNION", "BROADCAST"}

func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", m)
}

// KeyedHandle is a keyed state handle: a key-groups handle (a stream with one offset per key
// group of its range) or an incremental one (a backend's shared files, taken whole).
type KeyedHandle struct {
	Incremental bool
	// Stream is a key-groups handle's stream path, an incremental handle's backend ID.
	Stream     string
	Start, End int     // the key-group range, inclusive (Start > End: empty)
	Offsets    []int64 // key-groups handle: one per key group of the range
	Checkpoint int64   // incremental handle: the checkpoint that wrote it
	Shared     []string
}

func (h KeyedHandle) String() string {
	if h.Incremental {
		return fmt.Sprintf("incremental %s [%d,%d] chk %d shared %v", h.Stream, h.Start, h.End, h.Checkpoint, h.Shared)
	}
	return fmt.Sprintf("key-groups %s [%d,%d] offsets %v", h.Stream, h.Start, h.End, h.Offsets)
}

// NamedList is one entry of an operator-state handle's map: a state name, its mode and the
// offsets of its elements in the handle's stream.
type NamedList struct {
	Name    string
	Mode    Mode
	Offsets []int64
}

// OperatorHandle is an operator-state handle: a stream and its states, in the handle's map order.
type OperatorHandle struct {
	Stream string
	States []NamedList
}

// SubtaskState is one subtask's state of one operator.
type SubtaskState struct {
	ManagedKeyed, RawKeyed       []KeyedHandle
	ManagedOperator, RawOperator []OperatorHandle
}

// Handed is what a new subtask is handed of one operator: keyed handles in order, operator-state
// entries sorted (Flink's output maps are HashMaps, their order not meaningful).
type Handed struct {
	ManagedKeyed, RawKeyed       []KeyedHandle
	ManagedOperator, RawOperator []Entry // the entries of mode SPLIT_DISTRIBUTE and BROADCAST
	// ManagedUnion and RawUnion are the UNION entries, the same set for every subtask.
	ManagedUnion, RawUnion *UnionSet
	// ManagedOrder and RawOrder are the order Flink hands the operator-state handles in, and
	// each handle's names (nil: no operator state).
	ManagedOrder, RawOrder *Order
}

// Empty reports whether nothing is handed.
func (h Handed) Empty() bool {
	return len(h.ManagedKeyed) == 0 && len(h.RawKeyed) == 0 && len(h.ManagedOperator) == 0 && len(h.RawOperator) == 0 &&
		h.ManagedUnion.Len() == 0 && h.RawUnion.Len() == 0
}

// Lines renders h for a diff, one handle or entry a line.
func (h Handed) Lines() []string {
	var out []string
	for _, k := range []struct {
		name string
		hs   []KeyedHandle
	}{{"managed keyed", h.ManagedKeyed}, {"raw keyed", h.RawKeyed}} {
		for _, x := range k.hs {
			out = append(out, k.name+": "+x.String())
		}
	}
	var ops []string
	for _, k := range []struct {
		name string
		es   []Entry
	}{{"managed operator", h.ManagedOperator}, {"raw operator", h.RawOperator},
		{"managed operator", h.ManagedUnion.Entries()}, {"raw operator", h.RawUnion.Entries()}} {
		for _, e := range k.es {
			ops = append(ops, fmt.Sprintf("%s: %s %s %s %v", k.name, e.Stream, e.State.Name, e.State.Mode, e.State.Offsets))
		}
	}
	slices.Sort(ops)
	out = append(out, ops...)
	out = append(out, h.ManagedOrder.Lines("managed operator")...)
	return append(out, h.RawOrder.Lines("raw operator")...)
}

// StoredOperator is an operator state of the restored snapshot: its operator ID (32 hex
// digits), parallelism and max parallelism at the snapshot, and one entry per old subtask (nil,
// or an index past the end: the subtask has no entry).
type StoredOperator struct {
	ID             string
	Parallelism    int
	MaxParallelism int
	Subtasks       []*SubtaskState
}

func (o StoredOperator) subtask(j int) *SubtaskState {
	if j < len(o.Subtasks) {
		return o.Subtasks[j]
	}
	return nil
}

func (o StoredOperator) hasEntries() bool {
	return slices.ContainsFunc(o.Subtasks, func(s *SubtaskState) bool { return s != nil })
}

// NewOperator is an operator of the new job: its generated ID (from its uid) and its
// user-defined ID (setUidHash, "" when not set), both as 32 hex digits.
type NewOperator struct{ Generated, UserDefined string }

// NewVertex is a vertex of the new job: its parallelism, the max parallelism the oracle expects
// it to restore with, and its operators.
type NewVertex struct {
	Parallelism    int
	MaxParallelism int
	Operators      []NewOperator
}

// ExpectHanded is what each subtask of each new vertex is handed, per operator (by generated
// ID), from the restored snapshot's operator states: out[v][i][op] (out[v][i] nil: nothing).
// An operator whose state is empty is left out. Subtasks handed the same (an operator's UNION
// entries only) share the values and maps: read only. modern selects Flink ≥ 1.11's rules (a user-defined ID matches only when
// the snapshot holds it; the unchanged-parallelism shortcut also leaves for partly reported
// broadcast state), else 1.10.1's.
//
// Matching (StateAssignmentOperation.assignStates): an operator takes the state stored under its
// user-defined ID (on 1.10.1 whenever one is set), else under its generated ID. A vertex is
// repartitioned when a state it takes has subtask entries; each of its operators' states is then
// cut for the new parallelism: keyed handles by §D.4 over the vertex's key-group ranges,
// operator state by the round robin of §E.
func ExpectHanded(modern bool, stored []StoredOperator, vertices []NewVertex) [][]map[string]*Handed {
	byID := map[string]int{}
	for i, o := range stored {
		if _, dup := byID[o.ID]; !dup {
			byID[o.ID] = i
		}
	}
	out := make([][]map[string]*Handed, len(vertices))
	for v, nv := range vertices {
		out[v] = make([]map[string]*Handed, nv.Parallelism) // (nil: handed nothing)
		taken := make([]*StoredOperator, len(nv.Operators))
		repartition := false
		for k, op := range nv.Operators {
			id := op.Generated
			if op.UserDefined != "" {
				if _, ok := byID[op.UserDefined]; ok || !modern {
					id = op.UserDefined
				}
			}
			if i, ok := byID[id]; ok {
				taken[k] = &stored[i]
				repartition = repartition || stored[i].hasEntries()
			}
		}
		if !repartition {
			continue
		}
		ranges := make([][2]int, nv.Parallelism)
		for i := range ranges {
			ranges[i][0], ranges[i][1] = KeyGroupRange(nv.MaxParallelism, nv.Parallelism, i)
		}
		// per[i*n+k]: what subtask i's operator k is handed (nil: nothing). The subtasks handed
		// only an operator's UNION entries share one value, and subtasks handed the same values
		// one map: read only.
		n := len(nv.Operators)
		per := make([]*Handed, nv.Parallelism*n)
		for k := range nv.Operators {
			st := taken[k]
			if st == nil {
				continue
			}
			old := oldKeyedOf(st)
			prevManaged := make([][]OperatorHandle, st.Parallelism)
			prevRaw := make([][]OperatorHandle, st.Parallelism)
			for j := range st.Parallelism {
				if s := st.subtask(j); s != nil {
					prevManaged[j], prevRaw[j] = s.ManagedOperator, s.RawOperator
				}
			}
			managedOp, managedUnion, managedOrder := RoundRobin(modern, prevManaged, nv.Parallelism)
			rawOp, rawUnion, rawOrder := RoundRobin(modern, prevRaw, nv.Parallelism)
			// hs: the operator's subtasks handed something of their own, at: by subtask (sized
			// for all of them when there are keyed handles to cut, else for those with entries).
			own := nv.Parallelism
			if len(old.managed)+len(old.raw) == 0 {
				own = 0
				for i := range nv.Parallelism {
					if len(managedOp[i])+len(rawOp[i]) > 0 {
						own++
					}
				}
			}
			hs, at := make([]Handed, 0, own), make([]int, 0, own)
			var unionOnly *Handed
			for i := range nv.Parallelism {
				h := Handed{ManagedOperator: managedOp[i], RawOperator: rawOp[i], ManagedUnion: managedUnion, RawUnion: rawUnion,
					ManagedOrder: managedOrder[i], RawOrder: rawOrder[i]}
				h.ManagedKeyed, h.RawKeyed = old.cut(nv.Parallelism, i, ranges[i])
				switch {
				case h.Empty():
				case len(h.ManagedOperator)+len(h.RawOperator)+len(h.ManagedKeyed)+len(h.RawKeyed) == 0 &&
					(unionOnly == nil || unionOnly.ManagedOrder == h.ManagedOrder && unionOnly.RawOrder == h.RawOrder):
					if unionOnly == nil {
						u := h // (a copy: h itself stays on the stack)
						unionOnly = &u
					}
					per[i*n+k] = unionOnly
				default:
					hs, at = append(hs, h), append(at, i)
				}
			}
			for j, i := range at {
				per[i*n+k] = &hs[j]
			}
		}
		for i := range nv.Parallelism {
			row := per[i*n : (i+1)*n]
			if i > 0 && out[v][i-1] != nil && slices.Equal(row, per[(i-1)*n:i*n]) {
				out[v][i] = out[v][i-1]
				continue
			}
			for k, h := range row {
				if h == nil {
					continue
				}
				if out[v][i] == nil {
					out[v][i] = make(map[string]*Handed, n)
				}
				out[v][i][nv.Operators[k].Generated] = h
			}
		}
	}
	return out
}

// oldKeyed is an operator state's keyed handles, managed and raw, over its old subtasks with
// an entry in order (those up to its parallelism): what every new subtask's cut goes through.
type oldKeyed struct {
	st           *StoredOperator
	managed, raw []KeyedHandle
}

func oldKeyedOf(st *StoredOperator) oldKeyed {
	o := oldKeyed{st: st}
	for j := range st.Parallelism {
		if s := st.subtask(j); s != nil {
			o.managed = append(o.managed, s.ManagedKeyed...)
			o.raw = append(o.raw, s.RawKeyed...)
		}
	}
	return o
}

// cut is new subtask i's keyed state (SPEC §D.4) of p: at unchanged parallelism old subtask
// i's handles as they are; otherwise each old handle, in old-subtask order, intersected with
// range r (§D.3), the empty results dropped.
func (o oldKeyed) cut(p, i int, r [2]int) (managed, raw []KeyedHandle) {
	if p == o.st.Parallelism {
		if s := o.st.subtask(i); s != nil {
			return slices.Clone(s.ManagedKeyed), slices.Clone(s.RawKeyed)
		}
		return nil, nil
	}
	return appendCut(nil, o.managed, r), appendCut(nil, o.raw, r)
}

// appendCut appends each handle of hs intersected with r: a key-groups handle keeps the
// overlapping key groups and their offsets (shared with hs, read only); an incremental handle
// is taken whole if it overlaps at all (all or nothing).
func appendCut(out, hs []KeyedHandle, r [2]int) []KeyedHandle {
	for _, h := range hs {
		s, e := max(h.Start, r[0]), min(h.End, r[1])
		if s > e {
			continue
		}
		if h.Incremental {
			out = append(out, h)
			continue
		}
		c := h
		c.Start, c.End = s, e
		c.Offsets = h.Offsets[s-h.Start : e-h.Start+1 : e-h.Start+1]
		out = append(out, c)
	}
	return out
}

// Entry is one (delegate stream, name) entry of an operator-state handle: what a subtask is
// handed of one name from one stream.
type Entry struct {
	Stream string
	State  *NamedList
}

// Flatten lists the entries of hs, sorted by stream and name (duplicates kept).
func Flatten(hs []OperatorHandle) []Entry {
	n := 0
	for _, h := range hs {
		n += len(h.States)
	}
	if n == 0 {
		return nil
	}
	out := make([]Entry, 0, n)
	for _, h := range hs {
		for i := range h.States {
			out = append(out, Entry{h.Stream, &h.States[i]})
		}
	}
	slices.SortFunc(out, CompareEntries)
	return out
}

// CompareEntries orders entries by stream, then name.
func CompareEntries(x, y Entry) int {
	if c := strings.Compare(x.Stream, y.Stream); c != 0 {
		return c
	}
	return strings.Compare(x.State.Name, y.State.Name)
}

// sortEntries sorts entries by stream and name and keeps one of entries with the same stream
// and name: in the repartitioner a later put for a stream and name replaces an earlier one, and
// here the two are always the same entry (a subtask's own UNION or BROADCAST entry handed again).
func sortEntries(es []Entry) []Entry {
	slices.SortFunc(es, CompareEntries)
	return slices.CompactFunc(es, func(x, y Entry) bool { return CompareEntries(x, y) == 0 })
}

// RoundRobin is the oracle's RoundRobinOperatorStateRepartitioner.repartitionState: prev holds
// each old subtask's handles (nil: no entry), the result each new subtask's entries, sorted
// (SPEC §E.2–§E.3), the UNION entries every new subtask gets, and the order each new subtask is
// handed its handles and their names in (SPEC §E.3 step 5; see order.go). The names of one
// handle are visited in its States order.
func RoundRobin(modern bool, prev [][]OperatorHandle, p int) ([][]Entry, *UnionSet, []*Order) {
	out := make([][]Entry, p)
	put := func(i int, stream string, ns *NamedList) { out[i] = append(out[i], Entry{stream, ns}) }
	if p == len(prev) {
		// §E.2: the shortcut, unless UNION names exist or (modern) some BROADCAST name is partly
		// reported (fewer subtasks than the BitSet's capacity 64·⌈P/64⌉ report it).
		var union []Entry
		bcast := map[string][]Entry{}
		var bcastNames []string
		reporters := map[string]map[int]bool{}
		for j, hs := range prev {
			for _, h := range hs {
				for k := range h.States {
					ns := &h.States[k]
					switch ns.Mode {
					case Union:
						union = append(union, Entry{h.Stream, ns})
					case Broadcast:
						if _, ok := bcast[ns.Name]; !ok {
							bcastNames = append(bcastNames, ns.Name)
							reporters[ns.Name] = map[int]bool{}
						}
						bcast[ns.Name] = append(bcast[ns.Name], Entry{h.Stream, ns})
						reporters[ns.Name][j] = true
					}
				}
			}
		}
		var partly []string
		if modern {
			capacity := 64 * ((len(prev) + 63) / 64)
			for _, n := range bcastNames {
				if c := len(reporters[n]); c > 0 && c < capacity {
					partly = append(partly, n)
				}
			}
		}
		for i := range p {
			out[i] = Flatten(prev[i])
			if len(union) == 0 && len(partly) == 0 {
				continue
			}
			out[i] = slices.DeleteFunc(out[i], func(e Entry) bool { return e.State.Mode == Union }) // in the union set
			for _, n := range partly {
				e := bcast[n][i%len(bcast[n])]
				put(i, e.Stream, e.State)
			}
			out[i] = sortEntries(out[i])
		}
		return out, newUnionSet(union), sameParallelismOrder(modern, prev, union, partly, bcast)
	}
	// §E.3: group by mode and name (a HashMap filled by computeIfAbsent per mode), then distribute.
	split := newJavaMap()
	splitEntries := map[string][]Entry{}
	var union []Entry
	bcast := map[string][]Entry{}
	var bcastNames []string
	for _, hs := range prev {
		for _, h := range hs {
			for k := range h.States {
				ns := &h.States[k]
				e := Entry{h.Stream, ns}
				switch ns.Mode {
				case SplitDistribute:
					split.computeIfAbsent(ns.Name)
					splitEntries[ns.Name] = append(splitEntries[ns.Name], e)
				case Union:
					union = append(union, e)
				case Broadcast:
					if _, ok := bcast[ns.Name]; !ok {
						bcastNames = append(bcastNames, ns.Name)
					}
					bcast[ns.Name] = append(bcast[ns.Name], e)
				}
			}
		}
	}
	start := 0
	splitOrder := split.order()
	own := make([][]orderPut, p) // each new subtask's puts, in Flink's order but for the UNION ones
	splitCap := nameMapCapacity(modern, len(splitOrder))
	for _, n := range splitOrder {
		start = splitDistribute(splitEntries[n], start, func(i int, stream string, ns *NamedList) {
			put(i, stream, ns)
			own[i] = append(own[i], orderPut{stream, ns.Name, splitCap})
		}, p)
	}
	for i := range p {
		for _, n := range bcastNames {
			e := bcast[n][i%len(bcast[n])]
			put(i, e.Stream, e.State)
		}
		out[i] = sortEntries(out[i])
	}
	return out, newUnionSet(union), changedParallelismOrder(modern, prev, p, own, union, bcast)
}

// UnionSet is the UNION entries every new subtask of an operator is handed (all of them, at a
// changed parallelism and at the same one alike), indexed by stream and name.
type UnionSet struct {
	entries []Entry
	index   map[unionKey]int
}

type unionKey struct{ stream, name string }

func newUnionSet(es []Entry) *UnionSet {
	if len(es) == 0 {
		return nil
	}
	return &UnionSet{entries: es} // (the index is built by the first Lookup)
}

// Len is the number of entries (0 for a nil set).
func (u *UnionSet) Len() int {
	if u == nil {
		return 0
	}
	return len(u.entries)
}

// Lookup finds the entry of stream and name: its index and state.
func (u *UnionSet) Lookup(stream, name string) (int, *NamedList, bool) {
	if u == nil {
		return 0, nil, false
	}
	if u.index == nil {
		u.index = make(map[unionKey]int, len(u.entries))
		for i, e := range u.entries {
			u.index[unionKey{e.Stream, e.State.Name}] = i
		}
	}
	i, ok := u.index[unionKey{stream, name}]
	if !ok {
		return 0, nil, false
	}
	return i, u.entries[i].State, true
}

// Match gives entry i's state when entry i is the one of stream and name.
func (u *UnionSet) Match(i int, stream, name string) (*NamedList, bool) {
	if u != nil && i >= 0 && i < len(u.entries) && u.entries[i].Stream == stream && u.entries[i].State.Name == name {
		return u.entries[i].State, true
	}
	return nil, false
}

// LookupAt is Lookup with a guess: when entry i is the one of stream and name it is found
// without the index (a subtask's UNION entries mostly come in the set's order, and paths shared
// with the stored state compare by pointer).
func (u *UnionSet) LookupAt(i int, stream, name string) (int, *NamedList, bool) {
	if x, ok := u.Match(i, stream, name); ok {
		return i, x, true
	}
	return u.Lookup(stream, name)
}

// Entries lists the entries, sorted.
func (u *UnionSet) Entries() []Entry {
	if u == nil {
		return nil
	}
	out := slices.Clone(u.entries)
	slices.SortFunc(out, CompareEntries)
	return out
}

// splitDistribute hands out one SPLIT_DISTRIBUTE name's partitions (SPEC §E.3 step 2) to p
// subtasks: the subtasks from start on (cyclically) get one more while the remainder lasts, each
// a contiguous run of the partitions in old-subtask order; it returns the start for the next
// name.
func splitDistribute(entries []Entry, start int, put func(i int, stream string, ns *NamedList), p int) int {
	total := 0
	for _, e := range entries {
		total += len(e.State.Offsets)
	}
	base, rem := total/p, total%p
	next := start
	ei, oi := 0, 0
	for k := range p {
		t := (k + start) % p
		n := base
		if rem > 0 {
			n++
			rem--
		} else if rem == 0 {
			next = t
			rem = -1
		}
		for n > 0 {
			e := entries[ei]
			left := len(e.State.Offsets) - oi
			var given []int64
			if left > n {
				given = e.State.Offsets[oi : oi+n]
				oi += n
			} else {
				given = e.State.Offsets[oi:]
				ei, oi = ei+1, 0
			}
			put(t, e.Stream, &NamedList{Name: e.State.Name, Mode: SplitDistribute, Offsets: given})
			n -= left
		}
	}
	return next
}

// javaMap is the iteration order of a java.util.HashMap<String, …> filled only through
// computeIfAbsent (SPEC §E.4): a table of 16 buckets on the first call, doubled at the start of
// a call when the size exceeds three quarters of it; a new key goes to the head of its bucket
// (h ^ h>>>16 of String.hashCode, masked); doubling keeps the order within a bucket. Tree bins
// (8 keys in one bucket) are not modelled: the simulated jobs have a handful of names.
type javaMap struct {
	buckets [][]string
	size    int
}

func newJavaMap() *javaMap { return &javaMap{} }

func bucketOf(key string, n int) int {
	h := uint32(StringHashCode(key))
	return int((h ^ h>>16) & uint32(n-1))
}

func (m *javaMap) computeIfAbsent(key string) {
	if m.buckets == nil {
		m.buckets = make([][]string, 16)
	} else if m.size > len(m.buckets)*3/4 {
		nb := make([][]string, 2*len(m.buckets))
		for _, b := range m.buckets {
			for _, k := range b {
				i := bucketOf(k, len(nb))
				nb[i] = append(nb[i], k)
			}
		}
		m.buckets = nb
	}
	i := bucketOf(key, len(m.buckets))
	if slices.Contains(m.buckets[i], key) {
		return
	}
	m.buckets[i] = append([]string{key}, m.buckets[i]...)
	m.size++
}

func (m *javaMap) order() []string {
	var out []string
	for _, b := range m.buckets {
		out = append(out, b...)
	}
	return out
}

// DescribeHanded renders a subtask's handed operators (generated ID → state) for a diff.
func DescribeHanded(m map[string]*Handed) []string {
	var out []string
	for _, id := range sortedKeys(m) {
		for _, l := range m[id].Lines() {
			out = append(out, id+" "+l)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// SameKeyed reports whether two lists of keyed handles are equal, in order.
func SameKeyed(a, b []KeyedHandle) bool {
	return slices.EqualFunc(a, b, func(x, y KeyedHandle) bool {
		return x.Incremental == y.Incremental && x.Stream == y.Stream && x.Start == y.Start && x.End == y.End &&
			x.Checkpoint == y.Checkpoint && slices.Equal(x.Offsets, y.Offsets) && slices.Equal(x.Shared, y.Shared)
	})
}

// SameEntries reports whether two sorted entry lists are equal.
func SameEntries(a, b []Entry) bool {
	return slices.EqualFunc(a, b, func(x, y Entry) bool {
		return x.Stream == y.Stream && x.State.Name == y.State.Name && x.State.Mode == y.State.Mode && slices.Equal(x.State.Offsets, y.State.Offsets)
	})
}
