package savepoint

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/internal/mutant"
	"github.com/restoresim/restoresim/model/metadata"
)

// This file names what a new subtask receives by the old handles it comes from: old subtask
// and offset index, and the bytes.

// oldIndex locates an operator's old handles so that what a new subtask receives can be named
// by old subtask and offset index. It is built once per operator and asked once per new
// subtask, so it keeps the old keyed handles in order (seq) with an index from each handle's
// identity (matchKey) to its positions in seq: finding a received handle costs the handles
// sharing its identity, not all old subtasks (which made a plan quadratic in the parallelism).
type oldIndex struct {
	os    *model.OperatorState
	seq   [2][]oldKeyed    // managed, raw
	byKey [2]map[any][]int // matchKey → ascending positions in seq (key-groups handles: byKG)
	byKG  [2]map[keyGroupsKey][]int
	ops   [2][]*oldOpHandle // the old operator-state handles (their used marks: see operator)
	// opsAt maps a delegate stream to the ascending positions in ops of the handles writing it,
	// so a received operator-state handle costs the handles of its stream, not all old subtasks.
	opsAt [2]map[model.StreamHandle][]int
	// opBytes memoizes the operator-state bytes of a received handle list by its first element:
	// the assignment gives new subtasks whose handles come out equal one shared list (UNION), so
	// the bytes of P subtasks each receiving every old subtask's handle cost P, not P².
	opBytes [2]map[*model.OperatorStateHandle]listBytes
	// opParts memoizes operator's result for a received handle list likewise (each later asker
	// gets its own map of the same parts).
	opParts [2]map[*model.OperatorStateHandle]listParts
}

// listParts is the memoized result of operator for a handle list of length n.
type listParts struct {
	n     int
	parts map[string]*OperatorStatePart
}

// listBytes is the memoized operator-state bytes of a handle list of length n.
type listBytes struct {
	n     int
	bytes int64
}

// indexOldState gives the index of os's old handles; each part of it is built when first asked
// (keyedIndex, opIndex): a kind no new subtask receives costs nothing.
func indexOldState(os *model.OperatorState) *oldIndex { return &oldIndex{os: os} }

// keyedIndex builds seq and byKey of kind r (b2i(raw)) once.
func (x *oldIndex) keyedIndex(r int) {
	if x.byKey[r] != nil {
		return
	}
	x.seq[r] = x.keyedSeq(r == 1)
	x.byKey[r] = map[any][]int{}
	x.byKG[r] = make(map[keyGroupsKey][]int, len(x.seq[r]))
	for i, o := range x.seq[r] {
		if h, ok := o.h.(*model.KeyGroupsStateHandle); ok { // (the common kind, without boxing its key)
			k := keyGroupsKey{h.Delegate, h.StateHandleID, h.Savepoint}
			x.byKG[r][k] = append(x.byKG[r][k], i)
		} else if k, ok := matchKey(o.h); ok {
			x.byKey[r][k] = append(x.byKey[r][k], i)
		}
	}
}

// opIndex builds ops and opsAt of kind r once.
func (x *oldIndex) opIndex(r int) {
	if x.opsAt[r] != nil {
		return
	}
	x.ops[r] = x.operatorHandles(r == 1)
	x.opsAt[r] = make(map[model.StreamHandle][]int, len(x.ops[r]))
	for i, o := range x.ops[r] {
		x.opsAt[r][o.h.Delegate] = append(x.opsAt[r][o.h.Delegate], i)
	}
}

type oldKeyed struct {
	subtask int
	h       model.KeyedStateHandle
	// kgBytes memoizes model.KeyGroupBytes of a key-groups handle (nil until asked) and header
	// its stream header (headerBytes): every new subtask cutting the handle asks, and the array
	// has up to max-parallelism entries.
	kgBytes []int64
	header  int64
}

// keyGroupsOf gives the bytes of each key group of the key-groups handle at position c of seq
// (model.KeyGroupBytes, the byte rule of every command) and its stream header, computed once.
func (x *oldIndex) keyGroupsOf(raw bool, c int, h *model.KeyGroupsStateHandle) (kgBytes []int64, header int64) {
	o := &x.seq[b2i(raw)][c]
	if o.kgBytes == nil {
		o.kgBytes = model.KeyGroupBytes(h.Offsets.Offsets, h.Delegate.Size)
		o.header = headerBytes(sortedPositive(h.Offsets.Offsets), h.Delegate.Size)
	}
	return o.kgBytes, o.header
}

func (x *oldIndex) keyedSeq(raw bool) []oldKeyed {
	var seq []oldKeyed
	for j, st := range x.os.Subtasks {
		if st == nil {
			continue
		}
		l := st.ManagedKeyedState
		if raw {
			l = st.RawKeyedState
		}
		for _, h := range l {
			if h != nil {
				seq = append(seq, oldKeyed{subtask: j, h: h})
			}
		}
	}
	return seq
}

// Identities of keyed handles (matchKey): what sameKeyedHandle compares besides the ranges.
type (
	keyGroupsKey struct {
		delegate  model.StreamHandle
		id        string
		savepoint bool
	}
	changelogBackendKey struct {
		id                          string
		checkpoint, materialization int64
	}
	changelogKey struct {
		id, storage string
		size        int64
	}
)

// matchKey gives a handle's identity: equal for old and got whenever sameKeyedHandle(old, got)
// holds (the fields it compares for the types it cuts, else the handle itself, which it
// compares by ==). ok is false for a handle that cannot be a map key (not a pointer type of
// the model's; sameKeyedHandle is then tried on every old handle).
func matchKey(h model.KeyedStateHandle) (key any, ok bool) {
	switch h := h.(type) {
	case *model.KeyGroupsStateHandle:
		return keyGroupsKey{h.Delegate, h.StateHandleID, h.Savepoint}, true
	case *metadata.ChangelogStateBackendHandle:
		return changelogBackendKey{h.StateHandleID, h.CheckpointID, h.MaterializationID}, true
	case *metadata.ChangelogStateHandle:
		return changelogKey{h.StateHandleID, h.StorageID, h.Size}, true
	case *model.IncrementalKeyedStateHandle:
		return h, true
	}
	return nil, false
}

// find gives the first position c' >= c of seq whose handle got is (or is a cut of), or
// len(seq): what scanning seq from c with sameKeyedHandle gives.
func (x *oldIndex) find(raw bool, c int, got model.KeyedStateHandle) int {
	r := b2i(raw)
	x.keyedIndex(r)
	seq := x.seq[r]
	var at []int
	if h, ok := got.(*model.KeyGroupsStateHandle); ok {
		at = x.byKG[r][keyGroupsKey{h.Delegate, h.StateHandleID, h.Savepoint}]
	} else if k, ok := matchKey(got); ok {
		at = x.byKey[r][k]
	} else {
		for c < len(seq) && !sameKeyedHandle(seq[c].h, got) {
			c++
		}
		return c
	}
	for i := sort.SearchInts(at, c); i < len(at); i++ {
		if sameKeyedHandle(seq[at[i]].h, got) {
			return at[i]
		}
	}
	return len(seq)
}

// sameKeyedHandle reports whether got is old or a cut of it (same underlying stream and
// handle ID, a range inside old's).
func sameKeyedHandle(old, got model.KeyedStateHandle) bool {
	if old == got {
		return true
	}
	or, gr := old.KeyGroupRange(), got.KeyGroupRange()
	if gr.Start < or.Start || gr.End > or.End {
		return false
	}
	switch o := old.(type) {
	case *model.KeyGroupsStateHandle:
		g, ok := got.(*model.KeyGroupsStateHandle)
		return ok && g.Delegate == o.Delegate && g.StateHandleID == o.StateHandleID && g.Savepoint == o.Savepoint
	case *metadata.ChangelogStateBackendHandle:
		g, ok := got.(*metadata.ChangelogStateBackendHandle)
		return ok && g.StateHandleID == o.StateHandleID && g.CheckpointID == o.CheckpointID && g.MaterializationID == o.MaterializationID
	case *metadata.ChangelogStateHandle:
		g, ok := got.(*metadata.ChangelogStateHandle)
		return ok && g.StateHandleID == o.StateHandleID && g.StorageID == o.StorageID && g.Size == o.Size
	}
	return false
}

// keyed maps received keyed handles, in order, to the old handles they come from (the model
// keeps Flink's order: old subtasks ascending, handles in order).
func (x *oldIndex) keyed(got []model.KeyedStateHandle, raw bool) ([]KeyedPart, error) {
	out := []KeyedPart{}
	if len(got) == 0 {
		return out, nil
	}
	x.keyedIndex(b2i(raw))
	seq := x.seq[b2i(raw)]
	c := 0
	for _, g := range got {
		if g == nil {
			continue
		}
		if c = x.find(raw, c, g); c == len(seq) {
			return nil, fmt.Errorf("model: internal error: received keyed handle %T %v matches no old handle", g, g.KeyGroupRange())
		}
		r := g.KeyGroupRange()
		out = append(out, KeyedPart{OldSubtask: seq[c].subtask, Start: r.Start, End: r.End, Handle: keyedKind(g), Bytes: x.keyedReceivedBytes(raw, c, g)})
		c++
	}
	return out, nil
}

func keyedKind(h model.KeyedStateHandle) string {
	switch h := h.(type) {
	case *model.KeyGroupsStateHandle:
		if h.Savepoint {
			return "KeyGroupsSavepointStateHandle"
		}
		return "KeyGroupsStateHandle"
	case *model.IncrementalKeyedStateHandle:
		return "IncrementalRemoteKeyedStateHandle"
	case *metadata.ChangelogStateBackendHandle:
		return "ChangelogStateBackendHandle"
	case *metadata.ChangelogStateHandle:
		return "ChangelogStateHandle"
	}
	return fmt.Sprintf("%T", h)
}

// keyedReceivedBytes: for a key-groups handle the bytes of the received key groups, each by
// model.KeyGroupBytes over the old handle; for other handles the whole handle.
func (x *oldIndex) keyedReceivedBytes(raw bool, c int, got model.KeyedStateHandle) int64 {
	o, ok1 := x.seq[b2i(raw)][c].h.(*model.KeyGroupsStateHandle)
	g, ok2 := got.(*model.KeyGroupsStateHandle)
	if !ok1 || !ok2 {
		return got.StateSize()
	}
	kb, _ := x.keyGroupsOf(raw, c, o)
	var n int64
	from := g.Offsets.Range.Start - o.Offsets.Range.Start
	for _, b := range kb[from : from+len(g.Offsets.Offsets)] {
		n += b
	}
	return n
}

// sortedPositive gives the distinct positive offsets in ascending order: offs itself when they
// are positive and increasing already (read only).
func sortedPositive(offs []int64) []int64 {
	n, increasing := 0, true
	for i, o := range offs {
		if o > 0 {
			n++
		}
		if o <= 0 || i > 0 && o <= offs[i-1] {
			increasing = false
		}
	}
	if increasing {
		return offs
	}
	s := make([]int64, 0, n)
	for _, o := range offs {
		if o > 0 {
			s = append(s, o)
		}
	}
	slices.Sort(s)
	return slices.Compact(s)
}

// elementBytes is the size of the element at off: up to the next larger offset, or to the end
// of the stream; 0 for offset 0 (an empty key group) or an offset past the end.
func elementBytes(sorted []int64, off, size int64) int64 {
	if off <= 0 {
		return 0
	}
	return bytesTo(sorted, sort.Search(len(sorted), func(i int) bool { return sorted[i] > off }), off, size)
}

// bytesTo is elementBytes of a positive offset off whose next larger offset is sorted[i] (none
// when i is past the end).
func bytesTo(sorted []int64, i int, off, size int64) int64 {
	end := size
	if i < len(sorted) && sorted[i] < end && !mutant.On(mutant.PlanBytesToStreamEnd) {
		end = sorted[i]
	}
	if end < off {
		return 0
	}
	return end - off
}

type oldOpHandle struct {
	subtask int
	h       *model.OperatorStateHandle
	all     []int64 // allOffsets(h)
}

func (x *oldIndex) operatorHandles(raw bool) []*oldOpHandle {
	var out []*oldOpHandle
	for j, st := range x.os.Subtasks {
		if st == nil {
			continue
		}
		l := st.ManagedOperatorState
		if raw {
			l = st.RawOperatorState
		}
		for k := range l {
			out = append(out, &oldOpHandle{subtask: j, h: &l[k], all: allOffsets(&l[k])})
		}
	}
	return out
}

// operator maps received operator-state handles to pairs [old subtask, offset index] by the
// identity of the delegate stream and the state name.
func (x *oldIndex) operator(got []model.OperatorStateHandle, raw bool) (map[string]*OperatorStatePart, error) {
	r := b2i(raw)
	if len(got) > 0 {
		if m, ok := x.opParts[r][&got[0]]; ok && m.n == len(got) {
			return m.parts, nil // (shared, read only: see SubtaskPlan)
		}
	}
	out, err := x.matchOperator(got, r)
	if err != nil || len(got) == 0 {
		return out, err
	}
	if x.opParts[r] == nil {
		x.opParts[r] = map[*model.OperatorStateHandle]listParts{}
	}
	x.opParts[r][&got[0]] = listParts{len(got), out} // (read while the plan is built, then gone)
	return out, nil
}

// matchOperator is operator without the memo (r: b2i(raw)).
func (x *oldIndex) matchOperator(got []model.OperatorStateHandle, r int) (map[string]*OperatorStatePart, error) {
	if len(got) == 0 {
		return nil, nil // (buildPlan gives the subtask the plan's shared empty map)
	}
	out := map[string]*OperatorStatePart{}
	x.opIndex(r)
	olds := x.ops[r]
	var used usedOffsets // per old handle and name, offset positions already attributed
	type pair struct {
		subtask, handle, idx int
		bytes                int64
	}
	type named struct {
		name  string
		pairs []pair
	}
	var perName []named // (few names: a linear search)
	for _, g := range got {
		for _, s := range g.States {
			ps := out[s.Name]
			if ps == nil {
				ps = &OperatorStatePart{Mode: s.Mode.String(), Pairs: [][2]int{}}
				out[s.Name] = ps
			} else if !strings.Contains(ps.Mode, s.Mode.String()) {
				ps.Mode += "," + s.Mode.String()
			}
			if len(s.Offsets) == 0 {
				continue
			}
			found := false
			for _, hi := range x.opsAt[r][g.Delegate] {
				o := olds[hi]
				for _, os := range o.h.States {
					if os.Name != s.Name {
						continue
					}
					u := used.get(hi, s.Name)
					at := findRun(os.Offsets, s.Offsets, u)
					if at < 0 {
						continue
					}
					if u == nil {
						u = used.add(hi, s.Name, len(os.Offsets))
					}
					k := slices.IndexFunc(perName, func(n named) bool { return n.name == s.Name })
					if k < 0 {
						k = len(perName)
						perName = append(perName, named{name: s.Name})
					}
					for q := range s.Offsets {
						u[at+q] = true
						perName[k].pairs = append(perName[k].pairs, pair{o.subtask, hi, at + q, elementBytes(o.all, os.Offsets[at+q], o.h.Delegate.Size)})
					}
					found = true
					break
				}
				if found {
					break
				}
			}
			if !found {
				return nil, fmt.Errorf("model: internal error: received offsets %v of %q match no old handle", s.Offsets, s.Name)
			}
		}
	}
	for _, n := range perName {
		ps := n.pairs
		slices.SortStableFunc(ps, func(a, b pair) int {
			if a.handle != b.handle {
				return a.handle - b.handle
			}
			return a.idx - b.idx
		})
		st := out[n.name]
		st.Pairs = slices.Grow(st.Pairs, len(ps))
		for _, p := range ps {
			st.Pairs = append(st.Pairs, [2]int{p.subtask, p.idx})
			st.Bytes += p.bytes
		}
	}
	return out, nil
}

// usedOffsets marks, per old operator-state handle (its position) and state name, the offset
// positions a new subtask's entries were attributed to: a list while short, indexed as it grows
// (a UNION subtask holds every old handle).
type usedOffsets struct {
	list  []usedEntry
	index map[usedKey]int // (from usedIndexFrom entries on)
}

type usedKey struct {
	handle int
	name   string
}

type usedEntry struct {
	key   usedKey
	marks []bool
}

const usedIndexFrom = 16

// get gives the marks of handle and name (nil: none yet).
func (u *usedOffsets) get(handle int, name string) []bool {
	k := usedKey{handle, name}
	if u.index != nil {
		if i, ok := u.index[k]; ok {
			return u.list[i].marks
		}
		return nil
	}
	for i := range u.list {
		if u.list[i].key == k {
			return u.list[i].marks
		}
	}
	return nil
}

// add makes the marks of handle and name, for n offsets.
func (u *usedOffsets) add(handle int, name string, n int) []bool {
	k := usedKey{handle, name}
	u.list = append(u.list, usedEntry{k, make([]bool, n)})
	switch {
	case u.index != nil:
		u.index[k] = len(u.list) - 1
	case len(u.list) >= usedIndexFrom:
		u.index = make(map[usedKey]int, 2*len(u.list))
		for i := range u.list {
			u.index[u.list[i].key] = i
		}
	}
	return u.list[len(u.list)-1].marks
}

// findRun finds want as a contiguous run of offs whose positions are not yet used; -1 if none.
func findRun(offs, want []int64, used []bool) int {
	for at := 0; at+len(want) <= len(offs); at++ {
		ok := true
		for q := range want {
			if offs[at+q] != want[q] || used != nil && used[at+q] {
				ok = false
				break
			}
		}
		if ok {
			return at
		}
	}
	return -1
}

func allOffsets(h *model.OperatorStateHandle) []int64 {
	var all []int64
	for _, s := range h.States {
		all = append(all, s.Offsets...)
	}
	return sortedPositive(all)
}

// bytesRead is what a new subtask's restore downloads for the handles st gives it (SPEC-less;
// Flink 1.18's HeapRestoreOperation and OperatorStateRestoreOperation): a key-groups or
// operator-state handle is opened, its header (the bytes before the handle's smallest
// positive offset, the whole stream when it has none) read, then each received entry sought
// and read (entry bytes as in keyedReceivedBytes and operator); any other keyed handle
// (incremental, changelog) is downloaded whole. A UNION subtask thus reads, of every old
// handle holding UNION state, its header and every UNION entry (and the entries of the other
// modes it was given); a BROADCAST subtask the header and broadcast entries of the handles
// it was given.
func (x *oldIndex) bytesRead(st *model.OperatorSubtaskState) int64 {
	var n int64
	for _, raw := range []bool{false, true} {
		got := st.ManagedKeyedState
		if raw {
			got = st.RawKeyedState
		}
		if len(got) > 0 {
			x.keyedIndex(b2i(raw))
		}
		seq := x.seq[b2i(raw)]
		for _, g := range got {
			if g == nil {
				continue
			}
			kg, ok := g.(*model.KeyGroupsStateHandle)
			if !ok {
				n += g.StateSize()
				continue
			}
			if c := x.find(raw, 0, g); c < len(seq) {
				_, header := x.keyGroupsOf(raw, c, seq[c].h.(*model.KeyGroupsStateHandle))
				if mutant.On(mutant.BytesReadNoKeyedHeader) {
					header = 0
				}
				n += header + x.keyedReceivedBytes(raw, c, kg)
			}
		}
		ogot := st.ManagedOperatorState
		if raw {
			ogot = st.RawOperatorState
		}
		n += x.operatorBytes(raw, ogot)
	}
	return n
}

// operatorBytes is bytesRead's share of the operator-state handles got (memoized per shared
// list).
func (x *oldIndex) operatorBytes(raw bool, got []model.OperatorStateHandle) int64 {
	if len(got) == 0 {
		return 0
	}
	r := b2i(raw)
	if m, ok := x.opBytes[r][&got[0]]; ok && m.n == len(got) {
		return m.bytes
	}
	x.opIndex(r)
	var n int64
	olds := x.ops[r]
	for _, g := range got {
		his := x.opsAt[r][g.Delegate]
		if len(his) == 0 {
			continue
		}
		o := olds[his[0]] // the first old handle writing the stream
		all := o.all
		n += headerBytes(all, o.h.Delegate.Size)
		for _, s := range g.States {
			for _, off := range s.Offsets {
				n += elementBytes(all, off, o.h.Delegate.Size)
			}
		}
	}
	if x.opBytes[r] == nil {
		x.opBytes[r] = map[*model.OperatorStateHandle]listBytes{}
	}
	x.opBytes[r][&got[0]] = listBytes{len(got), n}
	return n
}

// headerBytes is a stream's header: the bytes before its smallest positive offset, the whole
// stream when it has none.
func headerBytes(sorted []int64, size int64) int64 {
	if len(sorted) == 0 || sorted[0] > size {
		return size
	}
	return sorted[0]
}
