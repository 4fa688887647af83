package oracle

import (
	"fmt"
	"maps"
	"slices"
	"sort"
)

// This file is the oracle's own reference of a restore plan (what `simulate plan` reports for a
// snapshot and a new job: savepoint.PlanRestore): every operator state judged on its own —
// refused for a reason, dropped, or restored into a vertex at a max parallelism — and, per new
// subtask, the keyed handles and operator-state entries it reads with their bytes.

// Status is what a restore does with one stored operator state.
type Status uint8

const (
	// Restored: a vertex of the new job takes the state.
	Restored Status = iota + 1
	// Dropped: no operator of the new job takes it, and it holds nothing or
	// allowNonRestoredState is on.
	Dropped
	// Refused: a check refuses it.
	Refused
)

var statusNames = [...]string{"", "restored", "dropped", "refused"}

func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", s)
}

// OperatorVerdict is the oracle's verdict on one stored operator state at a restore.
type OperatorVerdict struct {
	UID    string
	Status Status
	Reason Reason // Refused: the first check that refuses it once the states refused before it are gone
	// Vertex (0 the source, 1 the keyed vertex, 2… the stages) and MaxParallelism: Restored only.
	// MaxParallelism is 0 on a vertex of Expectation.Hazard (not the oracle's to say).
	Vertex         int
	MaxParallelism int
}

func (v OperatorVerdict) String() string {
	switch v.Status {
	case Refused:
		return fmt.Sprintf("%s refused (%v)", v.UID, v.Reason)
	case Restored:
		if v.MaxParallelism == 0 {
			return fmt.Sprintf("%s restored into vertex %d (FLINK-40113 picks the max parallelism)", v.UID, v.Vertex)
		}
		return fmt.Sprintf("%s restored into vertex %d at max parallelism %d", v.UID, v.Vertex, v.MaxParallelism)
	}
	return fmt.Sprintf("%s %v", v.UID, v.Status)
}

// ExpectOperators judges each operator state of a snapshot of shape old on its own at a restore
// into job j, as a restore planner does (it reports the first refusal, takes the refused state
// out, and judges the rest again until the restore passes): per stored operator state (by uid,
// in the snapshot's order: source, keyed, sink, stages) its verdict, and the expectation of the
// restore without the refused states (accepted). ok is false when a refusal is about a vertex
// rather than an operator state (MaxParallelismBelowParallelism, which Flink raises before any
// restore, and MaxParallelismDisagreement), or when on master two states of one vertex are
// refused as below the new parallelism: the oracle does not say which state a planner charges
// a vertex's refusal to, nor Flink's order of a vertex's states.
func ExpectOperators(old Shape, j Job, allowNonRestored bool) (verdicts []OperatorVerdict, rest Expectation, ok bool) {
	gone := map[string]bool{}
	reasons := map[string]Reason{}
	for {
		sh := old
		sh.Gone = gone
		rest = ExpectRestore(sh, j, allowNonRestored)
		if rest.Accept {
			break
		}
		if rest.Culprit == "" || gone[rest.Culprit] {
			return nil, rest, false
		}
		gone[rest.Culprit], reasons[rest.Culprit] = true, rest.Reason
	}
	newVertex := j.uidVertices()
	if j.RefuseMaxParallelismDisagreement && len(reasons) > 0 {
		// On master the agreement check runs before the parallelism check, over the vertex's
		// states in Flink's order: once one of two refused states of a vertex is gone, the other
		// may disagree with the vertex's own max parallelism instead, by that order; and a vertex
		// whose states disagree once another is gone is refused by a planner as a whole.
		if slices.Contains(rest.Hazard, true) {
			return nil, rest, false
		}
		per := map[int]int{}
		for uid, r := range reasons {
			v, ok := newVertex[uid]
			if uid == old.KeyedUID {
				v, ok = 1, true
			}
			if ok && r == MaxParallelismBelowNewParallelism {
				if per[v]++; per[v] > 1 {
					return nil, rest, false
				}
			}
		}
	}
	maxOf := func(v int) int {
		if v < len(rest.Hazard) && rest.Hazard[v] {
			return 0
		}
		switch v {
		case 0:
			return old.SourceMax
		case 1:
			return rest.KeyedMax
		}
		return rest.StageMax[v-2]
	}
	judge := func(uid string, v int, matched bool) {
		ov := OperatorVerdict{UID: uid, Status: Dropped}
		switch r, refused := reasons[uid]; {
		case refused:
			ov.Status, ov.Reason = Refused, r
		case matched:
			ov.Status, ov.Vertex, ov.MaxParallelism = Restored, v, maxOf(v)
		}
		verdicts = append(verdicts, ov)
	}
	judge(old.SourceUID, 0, true)
	if old.KeyedUID != "" {
		judge(old.KeyedUID, 1, rest.KeyedState)
	}
	for _, op := range old.groupOps() { // (no state is gone: Gone is nil in old)
		v, matched := newVertex[op.uid]
		judge(op.uid, v, matched)
	}
	return verdicts, rest, true
}

// PlannedKeyed is a keyed handle a new subtask reads: key groups Start..End of old subtask
// OldSubtask's handle, and their bytes.
type PlannedKeyed struct {
	OldSubtask int
	Start, End int
	Bytes      int64
}

// PlannedEntries is what a new subtask reads of one operator-state name: pairs [old subtask,
// index into the old handle's offsets of the name], sorted, and their bytes.
type PlannedEntries struct {
	Pairs [][2]int
	Bytes int64
}

// Planned is what a new subtask reads of one operator's state.
type Planned struct {
	ManagedKeyed, RawKeyed       []PlannedKeyed
	ManagedOperator, RawOperator map[string]PlannedEntries // names with at least one entry
	// BytesRead is what the subtask's restore downloads (savepoint.SubtaskPlan.BytesRead): of
	// each key-groups handle and each operator-state stream it is handed, the stream's header
	// (the bytes before its smallest positive offset, the whole stream when it has none) and
	// the bytes of what it is handed; an incremental handle whole.
	BytesRead int64
}

// Lines renders p for a diff, one handle or name a line.
func (p Planned) Lines() []string {
	var out []string
	for _, k := range []struct {
		name string
		hs   []PlannedKeyed
	}{{"managed keyed", p.ManagedKeyed}, {"raw keyed", p.RawKeyed}} {
		for _, h := range k.hs {
			out = append(out, fmt.Sprintf("%s: old subtask %d [%d,%d] %d bytes", k.name, h.OldSubtask, h.Start, h.End, h.Bytes))
		}
	}
	for _, k := range []struct {
		name string
		m    map[string]PlannedEntries
	}{{"managed operator", p.ManagedOperator}, {"raw operator", p.RawOperator}} {
		for _, n := range sortedKeys(k.m) {
			out = append(out, fmt.Sprintf("%s: %s %v %d bytes", k.name, n, k.m[n].Pairs, k.m[n].Bytes))
		}
	}
	out = append(out, fmt.Sprintf("bytes read %d", p.BytesRead))
	return out
}

// Sizes gives the bytes of the snapshot's streams: a key-groups or operator-state handle's
// stream by its path, a shared file by its path, and an incremental handle's own files (its meta
// data and private files) by its backend ID.
type Sizes map[string]int64

// ExpectPlanned is what each subtask of each new vertex reads, per operator (by generated ID),
// at a restore of the stored operator states: out[v][i][op] (out[v][i] nil: nothing), from
// ExpectHanded (the handles and entries it is handed) and the byte rule of a restore plan: in
// a key-groups handle a key group's bytes run from its offset to the next larger offset of the
// old handle's key groups, the last one's to the end of the stream; an operator-state entry's
// likewise, over the offsets of every name of its old handle; an incremental handle is read
// whole (its own files and every shared file). Operators reading nothing are left out.
// Subtasks reading the same share the values and maps: read only.
func ExpectPlanned(modern bool, stored []StoredOperator, sizes Sizes, vertices []NewVertex) [][]map[string]*Planned {
	return PlannedFrom(ExpectHanded(modern, stored, vertices), stored, sizes)
}

// PlannedFrom is ExpectPlanned from what ExpectHanded hands each subtask of stored.
func PlannedFrom(handed [][]map[string]*Handed, stored []StoredOperator, sizes Sizes) [][]map[string]*Planned {
	// Where each stream of the snapshot is: its operator, old subtask and handle (a keyed or an
	// operator-state one), its size, and its offsets sorted (made when first asked: every new
	// subtask cutting the handle asks). One entry per stream, found once per handle read.
	type streamAt struct {
		keyedSubtask, opSubtask int
		keyed                   *KeyedHandle
		op                      *OperatorHandle
		size                    int64
		sorted, allSorted       []int64
		sortedMade, allMade     bool
	}
	n := 0 // (the handles: the map is made once)
	for _, o := range stored {
		for _, s := range o.Subtasks {
			if s != nil {
				n += len(s.ManagedKeyed) + len(s.RawKeyed) + len(s.ManagedOperator) + len(s.RawOperator)
			}
		}
	}
	streams := make(map[string]*streamAt, n)
	slab := make([]streamAt, 0, n)
	entry := func(stream string) *streamAt {
		a := streams[stream]
		if a == nil {
			slab = append(slab, streamAt{size: sizes[stream]})
			a = &slab[len(slab)-1]
			streams[stream] = a
		}
		return a
	}
	for _, o := range stored {
		for j, s := range o.Subtasks {
			if s == nil {
				continue
			}
			for _, l := range [][]KeyedHandle{s.ManagedKeyed, s.RawKeyed} {
				for k := range l {
					a := entry(l[k].Stream)
					a.keyedSubtask, a.keyed = j, &l[k]
				}
			}
			for _, l := range [][]OperatorHandle{s.ManagedOperator, s.RawOperator} {
				for k := range l {
					a := entry(l[k].Stream)
					a.opSubtask, a.op = j, &l[k]
				}
			}
		}
	}
	keyedAt := func(stream string) *streamAt {
		if a := streams[stream]; a != nil && a.keyed != nil {
			return a
		}
		panic("oracle: internal error: handed a keyed handle the snapshot does not hold: " + stream)
	}
	opAt := func(stream string) *streamAt {
		if a := streams[stream]; a != nil && a.op != nil {
			return a
		}
		panic("oracle: internal error: handed an operator-state entry the snapshot does not hold: " + stream)
	}
	// The offsets of an old handle sorted (of every name of an operator-state handle).
	sorted := func(a *streamAt) []int64 {
		if !a.sortedMade {
			offs := a.keyed.Offsets
			a.sorted = offs // (read only)
			if !slices.IsSorted(offs) {
				a.sorted = slices.Clone(offs)
				slices.Sort(a.sorted)
			}
			a.sortedMade = true
		}
		return a.sorted
	}
	allSorted := func(a *streamAt) []int64 {
		if !a.allMade {
			var all []int64
			for _, ns := range a.op.States {
				all = append(all, ns.Offsets...)
			}
			slices.Sort(all)
			a.allSorted, a.allMade = all, true
		}
		return a.allSorted
	}
	// header is a stream's header: the bytes before its smallest positive offset (sorted), the
	// whole stream when it has none.
	header := func(sorted []int64, size int64) int64 {
		i := sort.Search(len(sorted), func(i int) bool { return sorted[i] > 0 })
		if i == len(sorted) || sorted[i] > size {
			return size
		}
		return sorted[i]
	}
	// read is what a subtask reads of keyed handles hs (of which ps are the plans): headers and
	// bytes.
	read := func(hs []KeyedHandle, ps []PlannedKeyed) int64 {
		var n int64
		for k, g := range hs {
			n += ps[k].Bytes
			if !g.Incremental {
				a := keyedAt(g.Stream)
				n += header(sorted(a), a.size)
			}
		}
		return n
	}
	// streamHeaders is the headers of the distinct operator-state streams of es not in skip
	// (and, with set, those streams).
	streamHeaders := func(es []Entry, skip map[string]bool, set bool) (int64, map[string]bool) {
		var seen map[string]bool
		var few []string // (few entries: the streams seen, without a map)
		if set || len(es) > 16 {
			seen = map[string]bool{}
		}
		var n int64
		for _, e := range es {
			if skip[e.Stream] {
				continue
			}
			if seen != nil {
				if seen[e.Stream] {
					continue
				}
				seen[e.Stream] = true
			} else {
				if slices.Contains(few, e.Stream) {
					continue
				}
				few = append(few, e.Stream)
			}
			a := opAt(e.Stream)
			n += header(allSorted(a), a.size)
		}
		return n, seen
	}
	type unionHeaders struct {
		bytes   int64
		streams map[string]bool
	}
	unionRead := map[*UnionSet]unionHeaders{}
	// opRead is what a subtask reads of operator-state entries es and the UNION set u whose
	// bytes are in m: each stream's header once, and the entries.
	opRead := func(es []Entry, u *UnionSet, m map[string]PlannedEntries) int64 {
		var n int64
		for _, pe := range m {
			n += pe.Bytes
		}
		var skip map[string]bool
		if u.Len() > 0 {
			uh, ok := unionRead[u]
			if !ok {
				uh.bytes, uh.streams = streamHeaders(u.Entries(), nil, true)
				unionRead[u] = uh
			}
			n += uh.bytes
			skip = uh.streams
		}
		own, _ := streamHeaders(es, skip, false)
		return n + own
	}
	planKeyed := func(hs []KeyedHandle) []PlannedKeyed {
		var out []PlannedKeyed
		if len(hs) > 0 {
			out = make([]PlannedKeyed, 0, len(hs))
		}
		for _, g := range hs {
			a := keyedAt(g.Stream)
			p := PlannedKeyed{OldSubtask: a.keyedSubtask, Start: g.Start, End: g.End}
			if g.Incremental {
				p.Bytes = a.size
				for _, f := range g.Shared {
					p.Bytes += sizes[f]
				}
			} else {
				p.Bytes = runBytes(sorted(a), g.Offsets, a.size)
			}
			out = append(out, p)
		}
		return out
	}
	planEntries := func(es []Entry) map[string]PlannedEntries {
		var out map[string]PlannedEntries // (nil: no entry)
		for _, e := range es {
			a := opAt(e.Stream)
			var own []int64
			for _, ns := range a.op.States {
				if ns.Name == e.State.Name {
					own = ns.Offsets
				}
			}
			all := allSorted(a)
			pe := out[e.State.Name]
			for _, off := range e.State.Offsets {
				idx := slices.Index(own, off)
				if idx < 0 {
					panic(fmt.Sprintf("oracle: internal error: offset %d of %q is not in %s", off, e.State.Name, e.Stream))
				}
				pe.Pairs = append(pe.Pairs, [2]int{a.opSubtask, idx})
				pe.Bytes += elementEnd(all, off, a.size) - off
			}
			if len(pe.Pairs) > 0 {
				if out == nil {
					out = map[string]PlannedEntries{}
				}
				out[e.State.Name] = pe
			}
		}
		for n, pe := range out {
			sortPairs(pe.Pairs)
			out[n] = pe
		}
		return out
	}
	// Every new subtask of an operator reads the same UNION entries: planned once per set.
	unions := map[*UnionSet]map[string]PlannedEntries{}
	withUnion := func(es []Entry, u *UnionSet) map[string]PlannedEntries {
		m := planEntries(es)
		if u.Len() == 0 {
			return m
		}
		um, ok := unions[u]
		if !ok {
			um = planEntries(u.Entries())
			unions[u] = um
		}
		if m == nil {
			return um // (shared by the subtasks, read only)
		}
		for n, pe := range um {
			if own, dup := m[n]; dup {
				pe = PlannedEntries{Pairs: append(slices.Clone(own.Pairs), pe.Pairs...), Bytes: own.Bytes + pe.Bytes}
				sortPairs(pe.Pairs)
			}
			m[n] = pe // (shared by the subtasks, read only)
		}
		return m
	}
	out := make([][]map[string]*Planned, len(handed))
	for v := range handed {
		out[v] = make([]map[string]*Planned, len(handed[v]))
		for i, m := range handed[v] {
			if i > 0 && maps.Equal(m, handed[v][i-1]) { // (the same pointers)
				out[v][i] = out[v][i-1] // (handed the same values: the same reads, shared)
				continue
			}
			for id, h := range m {
				p := Planned{ManagedKeyed: planKeyed(h.ManagedKeyed), RawKeyed: planKeyed(h.RawKeyed),
					ManagedOperator: withUnion(h.ManagedOperator, h.ManagedUnion),
					RawOperator:     withUnion(h.RawOperator, h.RawUnion)}
				p.BytesRead = read(h.ManagedKeyed, p.ManagedKeyed) + read(h.RawKeyed, p.RawKeyed) +
					opRead(h.ManagedOperator, h.ManagedUnion, p.ManagedOperator) + opRead(h.RawOperator, h.RawUnion, p.RawOperator)
				if len(p.ManagedKeyed)+len(p.RawKeyed)+len(p.ManagedOperator)+len(p.RawOperator) > 0 {
					if out[v][i] == nil {
						out[v][i] = make(map[string]*Planned, len(m))
					}
					pp := p // (only what is kept goes to the heap)
					out[v][i][id] = &pp
				}
			}
		}
	}
	return out
}

// elementEnd is where the element at off ends: the next larger offset of sorted, else size.
func elementEnd(sorted []int64, off, size int64) int64 {
	return endAt(sorted, sort.Search(len(sorted), func(i int) bool { return sorted[i] > off }), size)
}

// endAt is sorted[i], or size when i is past the end.
func endAt(sorted []int64, i int, size int64) int64 {
	if i < len(sorted) {
		return sorted[i]
	}
	return size
}

// runBytes is the sum over offs of elementEnd(sorted, off, size) - off. A key-groups handle's
// offsets do not decrease, so the next larger offset is found by walking sorted along, not
// searched for each key group.
func runBytes(sorted, offs []int64, size int64) int64 {
	var n int64
	j := 0
	for k, off := range offs {
		if k == 0 || off < offs[k-1] {
			j = sort.Search(len(sorted), func(i int) bool { return sorted[i] > off })
		}
		for j < len(sorted) && sorted[j] <= off {
			j++
		}
		n += endAt(sorted, j, size) - off
	}
	return n
}

func sortPairs(ps [][2]int) {
	slices.SortFunc(ps, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
}

// PlannedComparer compares subtasks' reads, remembering which pairs lists it found equal:
// subtasks reading the same UNION entries share one list on each side, so comparing P of them
// costs P lists, not P² pairs. The zero value is ready.
type PlannedComparer struct{ equal map[pairsKey]bool }

type pairsKey struct {
	a, b *[2]int
	n    int
}

// Same reports whether two subtasks' reads of one operator are equal.
func (c *PlannedComparer) Same(a, b *Planned) bool {
	sameOps := func(x, y map[string]PlannedEntries) bool {
		if len(x) != len(y) {
			return false
		}
		for n, e := range x {
			f, ok := y[n]
			if !ok || e.Bytes != f.Bytes || !c.samePairs(e.Pairs, f.Pairs) {
				return false
			}
		}
		return true
	}
	return a.BytesRead == b.BytesRead && slices.Equal(a.ManagedKeyed, b.ManagedKeyed) && slices.Equal(a.RawKeyed, b.RawKeyed) &&
		sameOps(a.ManagedOperator, b.ManagedOperator) && sameOps(a.RawOperator, b.RawOperator)
}

// SamePairs reports whether two sorted pairs lists are equal (remembered for the lists'
// first elements and length).
func (c *PlannedComparer) SamePairs(x, y [][2]int) bool { return c.samePairs(x, y) }

func (c *PlannedComparer) samePairs(x, y [][2]int) bool {
	if len(x) != len(y) {
		return false
	}
	if len(x) == 0 {
		return true
	}
	k := pairsKey{&x[0], &y[0], len(x)}
	if eq, ok := c.equal[k]; ok {
		return eq
	}
	eq := slices.Equal(x, y)
	if c.equal == nil {
		c.equal = map[pairsKey]bool{}
	}
	c.equal[k] = eq
	return eq
}

// DescribePlanned renders a subtask's reads (generated ID → reads) for a diff.
func DescribePlanned(m map[string]*Planned) []string {
	var out []string
	for _, id := range sortedKeys(m) {
		for _, l := range m[id].Lines() {
			out = append(out, id+" "+l)
		}
	}
	return out
}
