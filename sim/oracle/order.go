package oracle

import (
	"fmt"
	"iter"
	"slices"
	"strings"
)

// This file is the oracle's own reference of the ORDER Flink hands a new subtask its
// operator-state handles in (SPEC §E.3 step 5): RoundRobinOperatorStateRepartitioner returns
// new ArrayList<>(mergeMap.values()) of a java.util.HashMap<StreamStateHandle,
// OperatorStateHandle>, keyed by the delegate's hashCode (a file's Path, i.e. its
// java.net.URI), each handle's state names in the iteration order of its own
// HashMap<String, StateMetaInfo>. A restored ListState lists its elements in this order.

// HandleNames is one operator-state handle as a subtask is handed it: its stream and its state
// names, in order.
type HandleNames struct {
	Stream string
	Names  []string
}

// Order is the order of a new subtask's operator-state handles and of each handle's names:
// Len handles, handle k being At(k) (All lists them).
//
// The subtasks of one restore are mostly handed the same handles in orders that differ in a
// few places (UNION state: every subtask gets every old subtask's handle, its own one first in
// its HashMap bin), so an order is a list of handles shared with others (read only) and the
// positions where it differs from it.
type Order struct {
	handles []HandleNames // (shared: read only)
	patch   []orderPatch  // the handles at positions where the order differs from handles, ascending
	// Unknown: the oracle cannot tell the order (a HashMap bin that would become a tree, a
	// delegate path whose hashCode it does not model); nothing is checked.
	Unknown bool
}

// orderPatch is the handle at position at of an order, in place of the shared list's.
type orderPatch struct {
	at int
	h  HandleNames
}

// Len is the number of handles.
func (o *Order) Len() int { return len(o.handles) }

// At is handle k (0 ≤ k < Len).
func (o *Order) At(k int) HandleNames {
	if i, ok := slices.BinarySearchFunc(o.patch, k, func(p orderPatch, k int) int { return p.at - k }); ok {
		return o.patch[i].h
	}
	return o.handles[k]
}

// All yields the handles in order, with their positions.
func (o *Order) All() iter.Seq2[int, HandleNames] {
	return func(yield func(int, HandleNames) bool) {
		next := 0 // (the next patch)
		for k := range o.handles {
			h := o.handles[k]
			if next < len(o.patch) && o.patch[next].at == k {
				h = o.patch[next].h
				next++
			}
			if !yield(k, h) {
				return
			}
		}
	}
}

// Lines renders the order for a diff, one handle a line.
func (o *Order) Lines(prefix string) []string {
	if o == nil || o.Unknown {
		return nil
	}
	out := make([]string, 0, o.Len())
	for k, h := range o.All() {
		out = append(out, fmt.Sprintf("%s order %d: %s [%s]", prefix, k, h.Stream, strings.Join(h.Names, " ")))
	}
	return out
}

// OrderOf is the order of handles as they are (a subtask's handles read back, or as handed).
func OrderOf(hs []OperatorHandle) *Order {
	o := &Order{handles: make([]HandleNames, 0, len(hs))}
	for _, h := range hs {
		if len(h.States) == 0 {
			continue // (no name: nothing a restored operator sees)
		}
		names := make([]string, len(h.States))
		for k := range h.States {
			names[k] = h.States[k].Name
		}
		o.handles = append(o.handles, HandleNames{h.Stream, names})
	}
	return o
}

// ordersOf is OrderOf of each of prev, their values taken from a few arrays.
func ordersOf(prev [][]OperatorHandle) []*Order {
	nh, nn := 0, 0
	for _, hs := range prev {
		for _, h := range hs {
			if len(h.States) > 0 {
				nh, nn = nh+1, nn+len(h.States)
			}
		}
	}
	orders := make([]Order, len(prev))
	handles := make([]HandleNames, 0, nh)
	names := make([]string, 0, nn)
	out := make([]*Order, len(prev))
	for i, hs := range prev {
		first := len(handles)
		for _, h := range hs {
			if len(h.States) == 0 {
				continue // (no name: nothing a restored operator sees)
			}
			n := len(names)
			for k := range h.States {
				names = append(names, h.States[k].Name)
			}
			handles = append(handles, HandleNames{h.Stream, names[n:len(names):len(names)]})
		}
		orders[i].handles = handles[first:len(handles):len(handles)]
		out[i] = &orders[i]
	}
	return out
}

// The java.util.HashMap rules (JDK 8–21) the orders follow.
const (
	javaDefaultCapacity = 16
	javaTreeifyBin      = 8  // a bin of more nodes becomes a tree (in a table of 64 or more)
	javaMinTreeTable    = 64 // below it, a bin too long doubles the table instead
)

// javaTableFor is the table new HashMap<>(initial) allocates on its first insertion:
// tableSizeFor(initial), the smallest power of two ≥ initial (1 for 0); initial < 0 stands for
// new HashMap<>() (16).
func javaTableFor(initial int) int {
	if initial < 0 {
		return javaDefaultCapacity
	}
	n := 1
	for n < initial {
		n <<= 1
	}
	return n
}

// javaRequiredCapacity is CollectionUtil.computeRequiredCapacity(n, 0.75f): the initial
// capacity newHashMapWithExpectedSize(n) passes to new HashMap<>(…): n + 1 up to 2, else
// ⌈n / 0.75⌉.
func javaRequiredCapacity(n int) int {
	if n <= 2 {
		return n + 1
	}
	return (4*n + 2) / 3
}

// spread is HashMap.hash: the high half of the hash folded into the low one.
func spread(h int32) uint32 { return uint32(h) ^ uint32(h)>>16 }

// javaPutOrder is the iteration order of a java.util.HashMap made with new HashMap<>(initial)
// (initial < 0: new HashMap<>()) into which keys of the given hash codes were put, distinct
// keys in this order (put and putIfAbsent alike): indexes into hashes. A put links a new node at
// the tail of its bin and a resize keeps the order within a bin, so the keys iterate by bin of
// the final table, each bin in insertion order. The table doubles after an insertion that makes
// the size exceed ¾ of it, and when an insertion finds 8 nodes in its bin while the table has
// fewer than 64 bins (treeifyBin); ok is false when such a bin would become a tree instead (its
// order is the tree's, not modelled here).
func javaPutOrder(hashes []int32, initial int) (order []int, ok bool) {
	order, capacity, ok := javaPutTable(hashes, initial)
	if !ok || len(hashes) <= 1 {
		return order, ok
	}
	mask := uint32(capacity - 1)
	slices.SortStableFunc(order, func(a, b int) int { return int(spread(hashes[a])&mask) - int(spread(hashes[b])&mask) })
	return order, true
}

// javaPutTable is javaPutOrder's identity order and the final table size.
func javaPutTable(hashes []int32, initial int) (order []int, capacity int, ok bool) {
	order = make([]int, len(hashes))
	for i := range order {
		order[i] = i
	}
	capacity = javaTableFor(initial)
	if len(hashes) <= 1 {
		return order, capacity, true
	}
	bins := make([]int, capacity) // keys per bin of the current table
	recount := func(upTo int) {
		bins = make([]int, capacity)
		for _, h := range hashes[:upTo] {
			bins[spread(h)&uint32(capacity-1)]++
		}
	}
	for i, h := range hashes {
		if bins[spread(h)&uint32(capacity-1)] >= javaTreeifyBin {
			if capacity >= javaMinTreeTable {
				return nil, 0, false
			}
			capacity *= 2
			recount(i)
		}
		bins[spread(h)&uint32(capacity-1)]++
		if i+1 > capacity*3/4 {
			capacity *= 2
			recount(i + 1)
		}
	}
	return order, capacity, true
}

// javaComputeOrder is javaPutOrder for keys added with computeIfAbsent: the table doubles at
// the start of a call when the size exceeds ¾ of it (so also at a call for a key present), and a
// new key is linked at the HEAD of its bin, so each bin iterates newest first. keys lists the
// calls in order (repeats allowed); the result is the distinct keys in iteration order. ok is
// false when a bin reaches 8 keys (treeifyBin: a resize or a tree; not modelled).
func javaComputeOrder(keys []string, initial int) (order []string, ok bool) {
	capacity := javaTableFor(initial)
	var distinct []string
	var hashes []int32
	seen := map[string]bool{}
	for _, k := range keys {
		if len(distinct) > capacity*3/4 {
			capacity *= 2
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		h := StringHashCode(k)
		b := spread(h) & uint32(capacity-1)
		n := 0
		for _, g := range hashes {
			if spread(g)&uint32(capacity-1) == b {
				n++
			}
		}
		if n+1 >= javaTreeifyBin {
			return nil, false
		}
		distinct, hashes = append(distinct, k), append(hashes, h)
	}
	idx := make([]int, len(distinct))
	for i := range idx {
		idx[i] = len(idx) - 1 - i // newest first within a bin: a stable sort of the reversed list
	}
	mask := uint32(capacity - 1)
	slices.SortStableFunc(idx, func(a, b int) int { return int(spread(hashes[a])&mask) - int(spread(hashes[b])&mask) })
	order = make([]string, len(idx))
	for k, i := range idx {
		order[k] = distinct[i]
	}
	return order, true
}

// javaCopyOrder is the order of Collectors.toMap into a new HashMap<>() of keys iterated in
// the given order (putIfAbsent in that order).
func javaCopyOrder(keys []string) ([]string, bool) {
	hashes := make([]int32, len(keys))
	for i, k := range keys {
		hashes[i] = StringHashCode(k)
	}
	idx, ok := javaPutOrder(hashes, -1)
	if !ok {
		return nil, false
	}
	out := make([]string, len(idx))
	for k, i := range idx {
		out[k] = keys[i]
	}
	return out, true
}

// DelegateHashCode is the hashCode of the stream handle of path: FileStateHandle.hashCode is
// its Path's, Path.hashCode its java.net.URI's. For the paths the simulator writes — an
// optional scheme followed by ':' and a path, no authority ("file:/ckpt/…"), or a plain path —
// URI.hashCode is hashIgnoringCase(0, scheme)·127 + path.hashCode() (no fragment, query or
// authority). ok is false for any other path (an authority, characters URI would quote, a '%',
// "." or ".." segments, repeated or trailing slashes: Path normalizes them).
func DelegateHashCode(path string) (h int32, ok bool) {
	scheme, rest := "", path
	if i := strings.IndexByte(path, ':'); i >= 0 {
		if j := strings.IndexByte(path, '/'); j >= 0 && j < i || i == 0 {
			return 0, false
		}
		scheme, rest = path[:i], path[i+1:]
	}
	if rest == "" || strings.HasPrefix(rest, "//") || strings.Contains(rest, "//") || strings.HasSuffix(rest, "/") && rest != "/" {
		return 0, false
	}
	for seg := range strings.SplitSeq(rest, "/") { // (no slice of the segments made)
		if seg == "." || seg == ".." {
			return 0, false
		}
	}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("/-_.~", c) >= 0) {
			return 0, false
		}
	}
	var hs int32
	for i := 0; i < len(scheme); i++ {
		c := scheme[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		hs = 31*hs + int32(c)
	}
	if scheme == "" {
		return StringHashCode(rest), true
	}
	return 127*hs + StringHashCode(rest), true
}

// orderPut is one put of the repartitioner into a new subtask's map: name into the handle of
// stream, creating the handle (with a name map of table capacity) when the subtask has none.
type orderPut struct {
	stream, name string
	capacity     int
}

// orderedHandle is a handle of a new subtask being built: its stream, the initial capacity of
// its name map, and its names in the order they were first put.
type orderedHandle struct {
	stream   string
	capacity int
	names    []string
}

func (h *orderedHandle) put(name string) {
	if !slices.Contains(h.names, name) { // a put of a present name keeps its place
		h.names = append(h.names, name)
	}
}

// nameOrder is the handle's names in its map's iteration order. A kept handle's names are its
// map's iteration order already: put again in that order into a table of the same size they
// keep it, and the names put later join by bin.
func (h *orderedHandle) nameOrder() ([]string, bool) {
	if len(h.names) <= 1 {
		return h.names, true
	}
	nh := make([]int32, len(h.names))
	for j, n := range h.names {
		nh[j] = StringHashCode(n)
	}
	ni, ok := javaPutOrder(nh, h.capacity)
	if !ok {
		return nil, false
	}
	names := make([]string, len(ni))
	for j, n := range ni {
		names[j] = h.names[n]
	}
	return names, true
}

// keptHandles are the handles a new subtask starts from at unchanged parallelism (its old
// subtask's, each name map made by the metadata loader for its own names).
func keptHandles(modern bool, kept []OperatorHandle) []orderedHandle {
	hs := make([]orderedHandle, 0, len(kept))
	for _, h := range kept {
		names := make([]string, len(h.States))
		for j := range h.States {
			names[j] = h.States[j].Name
		}
		hs = append(hs, orderedHandle{h.Stream, nameMapCapacity(modern, len(names)), names})
	}
	return hs
}

// orderFrom builds the order of a subtask from the handles it starts from and its puts in the
// order Flink makes them; it also gives the final table size of its map of handles.
func orderFrom(hs []orderedHandle, puts ...[]orderPut) (*Order, int) {
	at := make(map[string]int, len(hs))
	for k := range hs {
		at[hs[k].stream] = k
	}
	for _, l := range puts {
		for _, p := range l {
			i, ok := at[p.stream]
			if !ok {
				i = len(hs)
				at[p.stream] = i
				hs = append(hs, orderedHandle{stream: p.stream, capacity: p.capacity})
			}
			hs[i].put(p.name)
		}
	}
	hashes := make([]int32, len(hs))
	for k, h := range hs {
		var ok bool
		if hashes[k], ok = DelegateHashCode(h.stream); !ok {
			return &Order{Unknown: true}, 0
		}
	}
	idx, capacity, ok := javaPutTable(hashes, -1)
	if !ok {
		return &Order{Unknown: true}, 0
	}
	mask := uint32(capacity - 1)
	slices.SortStableFunc(idx, func(a, b int) int { return int(spread(hashes[a])&mask) - int(spread(hashes[b])&mask) })
	o := &Order{handles: make([]HandleNames, 0, len(hs))}
	for _, k := range idx {
		names, ok := hs[k].nameOrder()
		if !ok {
			return &Order{Unknown: true}, 0
		}
		if len(names) > 0 { // (a kept handle without names: nothing a restored operator sees)
			o.handles = append(o.handles, HandleNames{hs[k].stream, names})
		}
	}
	return o, capacity
}

// nameMapCapacity is the initial capacity of a name map Flink makes for n names:
// newHashMapWithExpectedSize(n) (1.18), new HashMap<>(n) (1.10.1; SPEC §E.5).
func nameMapCapacity(modern bool, n int) int {
	if modern {
		return javaRequiredCapacity(n)
	}
	return n
}

// orders gives each new subtask's order from the handles it starts from (kept[i], at unchanged
// parallelism; else nil), its puts before the UNION ones (before[i]), the UNION puts (the same
// for every subtask) and its puts after them (after[i]). Subtasks with the same input share one
// value (read only).
//
// UNION state hands every subtask every old subtask's handle, so the orders are computed from
// one base, the UNION puts alone: a subtask whose own puts reach only streams of the base holds
// the same keys in a table of the same size, its handles first put coming first in their bins
// (a put links at the tail) and the rest in the base's order. (Taken as is: that another
// insertion order makes a bin of 8 grow the table where the base's did not.)
func orders(modern bool, p int, kept [][]OperatorHandle, before [][]orderPut, union []orderPut, after [][]orderPut) []*Order {
	out := make([]*Order, p)
	at := func(l [][]orderPut, i int) []orderPut {
		if l == nil {
			return nil
		}
		return l[i]
	}
	var b *orderBase
	if len(union) > 0 {
		b = newOrderBase(union)
	}
	for i := range p {
		var k []OperatorHandle
		if kept != nil {
			k = kept[i]
		}
		bi, ai := at(before, i), at(after, i)
		switch {
		case len(k) == 0 && len(bi) == 0 && len(ai) == 0 && b != nil:
			out[i] = b.order
		case i > 0 && len(k) == 0 && kept == nil && slices.Equal(bi, at(before, i-1)) && slices.Equal(ai, at(after, i-1)):
			out[i] = out[i-1]
		default:
			if b != nil {
				if o, ok := b.with(modern, k, bi, ai); ok {
					out[i] = o
					continue
				}
			}
			out[i], _ = orderFrom(keptHandles(modern, k), bi, union, ai)
		}
	}
	return out
}

// orderBase is the order of a subtask handed only the UNION puts, and what orderBase.with needs
// to derive another subtask's from it.
type orderBase struct {
	order    *Order
	capacity int
	at       map[string]int        // stream → position in order
	bin      []uint32              // by position: the bin of the final table
	union    map[string][]orderPut // the UNION puts by stream
}

func newOrderBase(union []orderPut) *orderBase {
	o, capacity := orderFrom(nil, union)
	b := &orderBase{order: o, capacity: capacity}
	if o.Unknown {
		return b
	}
	b.at = make(map[string]int, len(o.handles))
	b.bin = make([]uint32, len(o.handles))
	for k, h := range o.handles {
		b.at[h.Stream] = k
		hc, _ := DelegateHashCode(h.Stream)
		b.bin[k] = spread(hc) & uint32(capacity-1)
	}
	b.union = map[string][]orderPut{}
	for _, p := range union {
		b.union[p.stream] = append(b.union[p.stream], p)
	}
	return b
}

// with derives the order of a subtask starting from kept and putting before, the UNION puts
// and after; ok is false when one of its own streams is not in the base.
func (b *orderBase) with(modern bool, kept []OperatorHandle, before, after []orderPut) (*Order, bool) {
	if b.order.Unknown {
		return nil, false
	}
	hs := keptHandles(modern, kept)
	idx := make(map[string]int, len(hs))
	for k := range hs {
		idx[hs[k].stream] = k
	}
	for _, p := range before {
		k, ok := idx[p.stream]
		if !ok {
			k = len(hs)
			idx[p.stream] = k
			hs = append(hs, orderedHandle{stream: p.stream, capacity: p.capacity})
		}
		hs[k].put(p.name)
	}
	first := len(hs) // the handles put before the UNION puts
	for k := range hs {
		if _, ok := b.at[hs[k].stream]; !ok {
			return nil, false
		}
		for _, q := range b.union[hs[k].stream] {
			hs[k].put(q.name)
		}
	}
	for _, p := range after {
		k, ok := idx[p.stream]
		if !ok {
			u := b.union[p.stream] // (every stream of the base has UNION puts)
			if len(u) == 0 {
				return nil, false
			}
			k = len(hs)
			idx[p.stream] = k
			h := orderedHandle{stream: p.stream, capacity: u[0].capacity}
			for _, q := range u {
				h.put(q.name)
			}
			hs = append(hs, h)
		}
		hs[k].put(p.name)
	}
	// The same keys in a table of the same size: the handles put before the UNION puts come
	// first in their bins, in their order, the rest of each bin in the base's order. (Only the
	// bins of those handles change, and the names of the subtask's own handles: the positions
	// where the order differs from the base's are patched, the base's list is shared.)
	base := b.order.handles
	at := make(map[string]int, len(hs)) // the subtask's own streams → their positions
	var patch []orderPatch
	done := map[uint32]bool{}
	for _, h := range hs[:first] {
		bin := b.bin[b.at[h.stream]]
		if done[bin] {
			continue
		}
		done[bin] = true
		lo := b.at[h.stream]
		for lo > 0 && b.bin[lo-1] == bin {
			lo--
		}
		w := lo
		place := func(h HandleNames) {
			if _, own := idx[h.Stream]; own {
				at[h.Stream] = w
			}
			if h.Stream != base[w].Stream {
				patch = append(patch, orderPatch{w, h})
			}
			w++
		}
		for _, g := range hs[:first] {
			if at := b.at[g.stream]; b.bin[at] == bin {
				place(base[at])
			}
		}
		for r := lo; r < len(base) && b.bin[r] == bin; r++ {
			if k, ok := idx[base[r].Stream]; !ok || k >= first {
				place(base[r])
			}
		}
	}
	byPosition := func(x, y orderPatch) int { return x.at - y.at }
	slices.SortFunc(patch, byPosition)
	moves := len(patch) // (patch[:moves]: sorted, searched below)
	for j := range hs {
		names, ok := hs[j].nameOrder()
		if !ok {
			return nil, false
		}
		k, moved := at[hs[j].stream]
		if !moved {
			k = b.at[hs[j].stream]
		}
		if i, ok := slices.BinarySearchFunc(patch[:moves], k, func(p orderPatch, k int) int { return p.at - k }); ok {
			patch[i].h.Names = names
			continue
		}
		if !slices.Equal(names, base[k].Names) { // (base[k] is hs[j]'s handle)
			patch = append(patch, orderPatch{k, HandleNames{hs[j].stream, names}})
		}
	}
	if len(patch) == 0 {
		return b.order, true
	}
	slices.SortFunc(patch, byPosition)
	return &Order{handles: base, patch: patch}, true
}

// modeCalls lists the names of mode in prev in the order Flink visits them (old subtask,
// handle, the handle's names): the computeIfAbsent calls of the map it collects them in.
func modeCalls(prev [][]OperatorHandle, mode Mode) []string {
	var out []string
	for _, hs := range prev {
		for _, h := range hs {
			for k := range h.States {
				if h.States[k].Mode == mode {
					out = append(out, h.States[k].Name)
				}
			}
		}
	}
	return out
}

// namePuts lists the puts of entries (in visit order) grouped by name, the names in the given
// order, each put creating a name map of capacity.
func namePuts(names []string, entries []Entry, capacity int) []orderPut {
	out := make([]orderPut, 0, len(entries))
	for _, n := range names {
		for _, e := range entries {
			if e.State.Name == n {
				out = append(out, orderPut{e.Stream, n, capacity})
			}
		}
	}
	return out
}

// broadcastPuts lists each new subtask's BROADCAST puts: entry i mod |E| of each name, the
// names in the given order.
func broadcastPuts(p int, names []string, bcast map[string][]Entry, capacity int) [][]orderPut {
	if len(names) == 0 {
		return nil
	}
	out := make([][]orderPut, p)
	for i := range p {
		for _, n := range names {
			e := bcast[n][i%len(bcast[n])]
			out[i] = append(out[i], orderPut{e.Stream, n, capacity})
		}
	}
	return out
}

func unknownOrders(p int) []*Order {
	out := make([]*Order, p)
	u := &Order{Unknown: true}
	for i := range out {
		out[i] = u
	}
	return out
}

// sameParallelismOrder is the order of RoundRobin's unchanged-parallelism path (SPEC §E.2):
// the input as it is, unless there are UNION names or partly reported BROADCAST ones
// (partly); then each new subtask's map starts from its old subtask's handles
// (Collectors.toMap into a new HashMap<>()), and gets every UNION entry, the names in the
// order of the map collectStates fills (newHashMapWithExpectedSize(P_old), computeIfAbsent;
// 1.18 copies it with Collectors.toMap, 1.10.1's new HashMap<>(P_old) is iterated as it is),
// then entry i mod |E| of each partly reported BROADCAST name, in the order of that map's
// filtered copy.
func sameParallelismOrder(modern bool, prev [][]OperatorHandle, union []Entry, partly []string, bcast map[string][]Entry) []*Order {
	p := len(prev)
	if len(union) == 0 && len(partly) == 0 {
		return ordersOf(prev)
	}
	unionOrder, ok := javaComputeOrder(modeCalls(prev, Union), javaRequiredCapacity(p))
	if !modern {
		unionOrder, ok = javaComputeOrder(modeCalls(prev, Union), p)
	} else if ok {
		unionOrder, ok = javaCopyOrder(unionOrder)
	}
	var partlyOrder []string
	if len(partly) > 0 {
		all, ok2 := javaComputeOrder(modeCalls(prev, Broadcast), javaRequiredCapacity(p))
		for _, n := range all {
			if slices.Contains(partly, n) {
				partlyOrder = append(partlyOrder, n)
			}
		}
		var ok3 bool
		partlyOrder, ok3 = javaCopyOrder(partlyOrder)
		ok = ok && ok2 && ok3
	}
	if !ok {
		return unknownOrders(p)
	}
	return orders(modern, p, prev, nil, namePuts(unionOrder, union, nameMapCapacity(modern, len(unionOrder))), broadcastPuts(p, partlyOrder, bcast, nameMapCapacity(modern, len(partlyOrder))))
}

// changedParallelismOrder is the order of RoundRobin's changed-parallelism path (SPEC §E.3):
// each new subtask's map (a new HashMap<>()) gets its SPLIT_DISTRIBUTE puts (split, in the
// order made), every UNION entry, then entry i mod |E| of each BROADCAST name; the UNION and
// BROADCAST names in the order of the HashMaps groupByStateMode fills with computeIfAbsent.
func changedParallelismOrder(modern bool, prev [][]OperatorHandle, p int, split [][]orderPut, union []Entry, bcast map[string][]Entry) []*Order {
	unionOrder, ok := javaComputeOrder(modeCalls(prev, Union), -1)
	bcastOrder, ok2 := javaComputeOrder(modeCalls(prev, Broadcast), -1)
	if !ok || !ok2 {
		return unknownOrders(p)
	}
	return orders(modern, p, nil, split, namePuts(unionOrder, union, nameMapCapacity(modern, len(unionOrder))), broadcastPuts(p, bcastOrder, bcast, nameMapCapacity(modern, len(bcastOrder))))
}
