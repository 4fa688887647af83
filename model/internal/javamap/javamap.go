// Package javamap emulates the iteration order of java.util.HashMap, tree bins included: which
// keys a HashMap holds, and in which order keySet() returns them, after a sequence of put or
// computeIfAbsent calls on a map made by one of its constructors.
//
// Flink's results depend on that order in three places the model follows: the SPLIT_DISTRIBUTE
// names of RoundRobinOperatorStateRepartitioner.groupByStateMode (String keys, new HashMap<>(),
// computeIfAbsent; SPEC §E.4), the operator states checkParallelismPreconditions walks in 1.18
// (OperatorID keys, CollectionUtil.newHashMapWithExpectedSize, put), and the named states of an
// operator-state handle the metadata reader rebuilds (String keys, new HashMap<>(n) or
// newHashMapWithExpectedSize, put; FORMAT.md §8.4).
//
// What is modelled, from OpenJDK's HashMap (the code involved is the same in JDK 8 to 25):
// table sizes and thresholds (tableSizeFor, resize, load factor 0.75); put linking a new key at
// the tail of its bucket and resizing after the insertion, computeIfAbsent linking it at the
// head and resizing before the lookup; a bucket reaching TREEIFY_THRESHOLD growing a table of
// fewer than MIN_TREEIFY_CAPACITY buckets (treeifyBin) and otherwise becoming a red-black tree
// bin (TreeNode.treeify, putTreeVal, balanceInsertion, moveRootToFront), whose iteration order
// differs from list order: the root moves to the front and a new key follows its tree parent;
// resize splitting tree bins (TreeNode.split, UNTREEIFY_THRESHOLD). Removal is not modelled
// (no caller removes).
//
// Inside a tree bin keys are ordered by HashMap.hash (as a signed int), then by compareTo when
// HashMap.comparableClassFor accepts the key's class — String, or a class C declaring
// "implements Comparable<C>" itself — and otherwise, or when compareTo returns 0, by
// TreeNode.tieBreakOrder: the class names, then System.identityHashCode. Identity hash codes
// depend on the JVM run (HotSpot draws them at random when first asked) and cannot be modelled:
// for keys of one class that reach that step, Map assumes identity hash codes that increase in
// the order the keys were added, and counts each such comparison (IdentityTieBreaks). String keys never reach it (distinct
// strings never compare equal). Flink's OperatorID extends AbstractID, which implements
// Comparable<AbstractID>; OperatorID itself declares no interface, so comparableClassFor returns
// null for it, and two OperatorIDs with the same hashCode (AbstractID.hashCode) in one tree bin
// are ordered by identity hash codes: the one order this package can only guess.
package javamap

import (
	"math"
	"slices"
)

const (
	initialCapacity    = 16      // HashMap.DEFAULT_INITIAL_CAPACITY
	maximumCapacity    = 1 << 30 // HashMap.MAXIMUM_CAPACITY
	treeifyThreshold   = 8       // HashMap.TREEIFY_THRESHOLD
	untreeifyThreshold = 6       // HashMap.UNTREEIFY_THRESHOLD
	minTreeifyCapacity = 64      // HashMap.MIN_TREEIFY_CAPACITY
	loadFactor         = 0.75    // HashMap.DEFAULT_LOAD_FACTOR, CollectionUtil.HASH_MAP_DEFAULT_LOAD_FACTOR
)

// Class describes the Java class of a map's keys: what HashMap asks of a key.
type Class[K comparable] struct {
	// HashCode models the class's hashCode. Go's == on K models its equals.
	HashCode func(K) int32
	// CompareTo models compareTo when HashMap.comparableClassFor accepts the class (String, or a
	// class C that itself declares "implements Comparable<C>"); nil for any other class, whose
	// keys with equal hash codes a tree bin orders by TreeNode.tieBreakOrder alone.
	CompareTo func(a, b K) int
}

// String is java.lang.String: String.hashCode and String.compareTo over UTF-16 code units.
var String = Class[string]{HashCode: StringHashCode, CompareTo: StringCompareTo}

// Map records the keys of a java.util.HashMap and their bucket layout. Keys are numbered densely
// in the order they were added; the values live with the caller, indexed by that number.
type Map[K comparable] struct {
	class     Class[K]
	keys      []K
	hashes    []int32 // HashMap.hash(key): h ^ (h >>> 16) with h = key.hashCode()
	index     map[K]int
	bins      []bin // nil until the table is allocated
	threshold int   // HashMap.threshold: the initial capacity until the table is allocated
	// Red-black tree links of keys in tree bins (TreeNode.left/right/parent/red); -1 is null.
	left, right, parent []int
	red                 []bool
	ties                int
}

// bin is one bucket: its keys in iteration (Node.next) order, and whether it is a tree bin.
type bin struct {
	list []int
	tree bool
}

// New models new HashMap<>(): 16 buckets on first use.
func New[K comparable](c Class[K]) *Map[K] { return &Map[K]{class: c} }

// WithInitialCapacity models new HashMap<>(n): tableSizeFor(n) buckets on first use. It panics
// if n is negative (Java's IllegalArgumentException).
func WithInitialCapacity[K comparable](c Class[K], n int) *Map[K] {
	if n < 0 {
		panic("javamap: negative initial capacity")
	}
	return &Map[K]{class: c, threshold: TableSizeFor(min(n, maximumCapacity))}
}

// WithExpectedSize models Flink's CollectionUtil.newHashMapWithExpectedSize(n): new
// HashMap<>(RequiredCapacity(n), 0.75f).
func WithExpectedSize[K comparable](c Class[K], n int) *Map[K] {
	return WithInitialCapacity(c, RequiredCapacity(n))
}

// TableSizeFor models HashMap.tableSizeFor: the smallest power of two ≥ c, at least 1 and at
// most 2^30.
func TableSizeFor(c int) int {
	n := 1
	for n < c && n < maximumCapacity {
		n <<= 1
	}
	return n
}

// RequiredCapacity models Flink's CollectionUtil.computeRequiredCapacity(n, 0.75f): n+1 up to
// n = 2, then ⌈n / 0.75f⌉ (a float division), Integer.MAX_VALUE from 2^30 on.
func RequiredCapacity(n int) int {
	if n <= 2 {
		return n + 1
	}
	if n >= math.MaxInt32/2+1 {
		return math.MaxInt32
	}
	return int(math.Ceil(float64(float32(n) / float32(loadFactor))))
}

// Len returns the number of keys (HashMap.size).
func (m *Map[K]) Len() int { return len(m.keys) }

// Key returns the key numbered i.
func (m *Map[K]) Key(i int) K { return m.keys[i] }

// Capacity returns the number of buckets (0 before the table is allocated).
func (m *Map[K]) Capacity() int { return len(m.bins) }

// IdentityTieBreaks counts the comparisons that reached System.identityHashCode in
// TreeNode.tieBreakOrder: while it is 0 the order is exact; otherwise it rests on the assumption
// described in the package comment.
func (m *Map[K]) IdentityTieBreaks() int { return m.ties }

// Order returns the key numbers in the map's iteration order (keySet, entrySet, values):
// buckets in increasing index, each front to back.
func (m *Map[K]) Order() []int {
	out := make([]int, 0, len(m.keys))
	for _, b := range m.bins {
		out = append(out, b.list...)
	}
	return out
}

// Keys returns the keys in the map's iteration order.
func (m *Map[K]) Keys() []K {
	out := make([]K, 0, len(m.keys))
	for _, i := range m.Order() {
		out = append(out, m.keys[i])
	}
	return out
}

// spread models HashMap.hash for a non-null key.
func spread(h int32) int32 { return h ^ int32(uint32(h)>>16) }

// add numbers a new key; it is not linked into a bucket yet.
func (m *Map[K]) add(key K) int {
	if m.index == nil {
		m.index = make(map[K]int)
	}
	x := len(m.keys)
	m.keys = append(m.keys, key)
	m.hashes = append(m.hashes, spread(m.class.HashCode(key)))
	m.left = append(m.left, -1)
	m.right = append(m.right, -1)
	m.parent = append(m.parent, -1)
	m.red = append(m.red, false)
	m.index[key] = x
	return x
}

// Put models HashMap.put(key, v) (putVal): it returns the number of key and whether the call
// added it. A new key is linked at the tail of its bucket; a list bucket that then holds
// TREEIFY_THRESHOLD+1 keys is treeified (treeifyBin); the table grows after the insertion when
// the size exceeds the threshold.
func (m *Map[K]) Put(key K) (int, bool) {
	if m.bins == nil {
		m.resize()
	}
	if i, ok := m.index[key]; ok {
		return i, false
	}
	x := m.add(key)
	b := m.binOf(x)
	if m.bins[b].tree {
		m.putTreeVal(b, x)
	} else {
		binCount := len(m.bins[b].list)
		m.bins[b].list = append(m.bins[b].list, x)
		if binCount >= treeifyThreshold {
			m.treeifyBin(b)
		}
	}
	if len(m.keys) > m.threshold {
		m.resize()
	}
	return x, true
}

// ComputeIfAbsent models HashMap.computeIfAbsent(key, k -> new value): it returns the number of
// key and whether the call added it. The table grows at the start of the call when it is missing
// or the size exceeds the threshold, also when key is already present; a new key is linked at
// the head of its bucket (newNode(hash, key, v, first)), and a list bucket that then holds
// TREEIFY_THRESHOLD keys is treeified.
func (m *Map[K]) ComputeIfAbsent(key K) (int, bool) {
	if m.bins == nil || len(m.keys) > m.threshold {
		m.resize()
	}
	if i, ok := m.index[key]; ok {
		return i, false
	}
	x := m.add(key)
	b := m.binOf(x)
	if m.bins[b].tree {
		m.putTreeVal(b, x)
		return x, true
	}
	binCount := len(m.bins[b].list)
	m.bins[b].list = slices.Insert(m.bins[b].list, 0, x)
	if binCount >= treeifyThreshold-1 {
		m.treeifyBin(b)
	}
	return x, true
}

func (m *Map[K]) binOf(x int) int { return int(uint32(m.hashes[x]) & uint32(len(m.bins)-1)) }

// resize models HashMap.resize: the first call allocates the initial capacity (16 for the
// default constructor), later calls double the table, splitting each bucket into a "low" and a
// "high" bucket that keep the relative order of their keys (TreeNode.split for tree bins).
func (m *Map[K]) resize() {
	oldCap := len(m.bins)
	newCap, newThr := grow(oldCap, m.threshold)
	m.threshold = newThr
	if newCap == oldCap {
		return
	}
	oldBins := m.bins
	m.bins = make([]bin, newCap)
	for j, b := range oldBins {
		var lo, hi []int
		for _, k := range b.list {
			if uint32(m.hashes[k])&uint32(oldCap) == 0 {
				lo = append(lo, k)
			} else {
				hi = append(hi, k)
			}
		}
		m.bins[j].list, m.bins[j+oldCap].list = lo, hi
		if !b.tree {
			continue
		}
		// TreeNode.split: a half of at most UNTREEIFY_THRESHOLD keys becomes a list again; a
		// bigger half stays a tree, rebuilt only when the other half is not empty.
		if len(lo) > untreeifyThreshold {
			m.bins[j].tree = true
			if len(hi) > 0 {
				m.treeify(j)
			}
		}
		if len(hi) > untreeifyThreshold {
			m.bins[j+oldCap].tree = true
			if len(lo) > 0 {
				m.treeify(j + oldCap)
			}
		}
	}
}

// grow models the sizes HashMap.resize computes: the capacity and threshold after a resize of a
// table of oldCap buckets (0: not allocated yet, oldThr then holding the initial capacity, 0 for
// the default constructor) and threshold oldThr. A table at the maximum capacity does not grow.
func grow(oldCap, oldThr int) (newCap, newThr int) {
	switch {
	case oldCap > 0:
		if oldCap >= maximumCapacity {
			return oldCap, math.MaxInt32
		}
		newCap = oldCap << 1
		if newCap < maximumCapacity && oldCap >= initialCapacity {
			newThr = oldThr << 1
		}
	case oldThr > 0: // the initial capacity was placed in threshold
		newCap = oldThr
	default:
		newCap, newThr = initialCapacity, int(loadFactor*initialCapacity)
	}
	if newThr == 0 {
		ft := float32(newCap) * loadFactor
		if newCap < maximumCapacity && ft < float32(maximumCapacity) {
			newThr = int(ft)
		} else {
			newThr = math.MaxInt32
		}
	}
	return newCap, newThr
}

// TreeifyThreshold is HashMap.TREEIFY_THRESHOLD: a put that finds this many keys in a list
// bucket turns it into a tree bin (or grows a small table instead).
const TreeifyThreshold = treeifyThreshold

// PutOrder is the iteration order of a map after put of n distinct keys whose hashCodes are
// hashCode(0), …, hashCode(n−1), in that order, into a map made with initial capacity
// initial (as WithInitialCapacity; a negative initial stands for the default constructor, as
// New), as indexes 0..n−1 — the order Map.Order gives for the same calls —, computed without
// building a Map. It also returns the map's final capacity and its load: the most keys one
// bucket held at any time. The order holds only while its buckets stay lists, i.e. when load is
// at most TreeifyThreshold; otherwise (a tree bin, or a small table growing early) order is nil
// and the caller builds a Map. Its cost is O(n) plus the capacities the map passes through.
func PutOrder(n int, hashCode func(int) int32, initial int) (order []int, capacity, load int) {
	if n == 0 {
		return nil, 0, 0
	}
	if n == 1 {
		c, _ := grow(0, 0)
		if initial >= 0 {
			c, _ = grow(0, TableSizeFor(min(initial, maximumCapacity)))
		}
		if c == 1 { // a table of one bucket grows after its first key
			c = 2
		}
		return []int{0}, c, 1
	}
	hashes := make([]uint32, n)
	for i := range n {
		hashes[i] = uint32(spread(hashCode(i)))
	}
	capacity, threshold := grow(0, 0)
	if initial >= 0 {
		capacity, threshold = grow(0, TableSizeFor(min(initial, maximumCapacity)))
	}
	// The table has capacity buckets while keys [from, size) go in; the loads of the stages
	// before the last are counted when the table grows.
	stageLoad := func(c, end int) int {
		count := make([]int, c)
		most := 0
		for _, h := range hashes[:end] {
			b := h & uint32(c-1)
			count[b]++
			most = max(most, count[b])
		}
		return most
	}
	for size := 1; size <= n; size++ {
		if size > threshold {
			if load = max(load, stageLoad(capacity, size)); load > treeifyThreshold {
				return nil, capacity, load
			}
			capacity, threshold = grow(capacity, threshold)
		}
	}
	if load = max(load, stageLoad(capacity, n)); load > treeifyThreshold {
		return nil, capacity, load
	}
	start := make([]int, capacity+1)
	for _, h := range hashes {
		start[h&uint32(capacity-1)+1]++
	}
	for b := range capacity {
		start[b+1] += start[b]
	}
	order = make([]int, n)
	for i, h := range hashes {
		b := h & uint32(capacity-1)
		order[start[b]] = i
		start[b]++
	}
	return order, capacity, load
}

// treeifyBin models HashMap.treeifyBin: a small table grows instead of building a tree.
func (m *Map[K]) treeifyBin(b int) {
	if len(m.bins) < minTreeifyCapacity {
		m.resize()
		return
	}
	m.bins[b].tree = true
	m.treeify(b)
}
