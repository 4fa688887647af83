package model

// This file emulates the iteration order of a java.util.HashMap<String, V> that is created with
// the default constructor and filled only through computeIfAbsent, as
// RoundRobinOperatorStateRepartitioner.groupByStateMode fills its per-mode maps (SPEC §E.4).
// The order decides which SPLIT_DISTRIBUTE state is split first, and so, through the carried
// start index, which new subtasks receive the extra partitions.

const (
	javaHashMapInitialCapacity  = 16      // HashMap.DEFAULT_INITIAL_CAPACITY
	javaHashMapMaximumCapacity  = 1 << 30 // HashMap.MAXIMUM_CAPACITY
	javaHashMapTreeifyThreshold = 8       // HashMap.TREEIFY_THRESHOLD
	javaHashMapMinTreeifyCap    = 64      // HashMap.MIN_TREEIFY_CAPACITY
)

// javaStringHashMap records the keys of a java.util.HashMap<String, V> and their bucket layout.
// Keys are numbered densely in insertion order; the values live with the caller, indexed by
// that number.
//
// Exact for JDK 8–21 as long as no bucket of a table with 64 or more buckets collects 8 keys
// (Java then turns the bucket into a red-black tree, whose iteration order this type does not
// model; the keys keep their list order here). Buckets reaching 8 keys in smaller tables make
// the table grow, as in Java.
type javaStringHashMap struct {
	keys      []string
	hashes    []int32 // HashMap.hash(key): h ^ (h >>> 16) with h = String.hashCode
	index     map[string]int
	buckets   [][]int // key numbers, front to back; nil until the first call
	threshold int
}

// spreadHash models HashMap.hash for a non-null key.
func spreadHash(h int32) int32 { return h ^ int32(uint32(h)>>16) }

// computeIfAbsent models HashMap.computeIfAbsent(key, k -> new value): it returns the number of
// key and whether the call added it.
func (m *javaStringHashMap) computeIfAbsent(key string) (int, bool) {
	// Java resizes at the start of the call when the table is missing or over its threshold,
	// also when key is already present.
	if m.buckets == nil || len(m.keys) > m.threshold {
		m.resize()
	}
	if i, ok := m.index[key]; ok {
		return i, false
	}
	if m.index == nil {
		m.index = make(map[string]int)
	}
	h := spreadHash(JavaStringHash(key))
	i := len(m.keys)
	m.keys = append(m.keys, key)
	m.hashes = append(m.hashes, h)
	m.index[key] = i
	b := int(uint32(h) & uint32(len(m.buckets)-1))
	binCount := len(m.buckets[b])
	// A new node is linked at the head of its bucket (newNode(hash, key, v, first)).
	m.buckets[b] = append([]int{i}, m.buckets[b]...)
	if binCount >= javaHashMapTreeifyThreshold-1 && len(m.buckets) < javaHashMapMinTreeifyCap {
		// treeifyBin on a small table resizes instead of building a tree.
		m.resize()
	}
	return i, true
}

// resize models HashMap.resize: the first call allocates 16 buckets (threshold 12), later calls
// double both, splitting each bucket into a "low" and a "high" bucket that keep the relative
// order of their keys.
func (m *javaStringHashMap) resize() {
	old := len(m.buckets)
	if old == 0 {
		m.buckets = make([][]int, javaHashMapInitialCapacity)
		m.threshold = javaHashMapInitialCapacity * 3 / 4
		return
	}
	if old >= javaHashMapMaximumCapacity {
		m.threshold = int(^uint32(0) >> 1) // Integer.MAX_VALUE: never grows again
		return
	}
	next := make([][]int, 2*old)
	for j, bucket := range m.buckets {
		for _, k := range bucket {
			if uint32(m.hashes[k])&uint32(old) == 0 {
				next[j] = append(next[j], k)
			} else {
				next[j+old] = append(next[j+old], k)
			}
		}
	}
	m.buckets = next
	if 2*old >= javaHashMapMaximumCapacity {
		m.threshold = int(^uint32(0) >> 1)
	} else {
		m.threshold *= 2
	}
}

// order returns the key numbers in the map's iteration order: buckets in increasing index,
// each front to back.
func (m *javaStringHashMap) order() []int {
	out := make([]int, 0, len(m.keys))
	for _, bucket := range m.buckets {
		out = append(out, bucket...)
	}
	return out
}
