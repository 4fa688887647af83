package model

import (
	"slices"
	"unicode/utf16"
)

// This file emulates the iteration order of a java.util.HashMap<String, V> that is created with
// the default constructor and filled only through computeIfAbsent, as
// RoundRobinOperatorStateRepartitioner.groupByStateMode fills its per-mode maps (SPEC §E.4).
// The order decides which SPLIT_DISTRIBUTE state is split first, and so, through the carried
// start index, which new subtasks receive the extra partitions.
//
// Besides the rules of SPEC §E.4 it models what the SPEC leaves out: a bucket reaching 8 keys
// grows a table of fewer than 64 buckets (HashMap.treeifyBin), and in larger tables becomes a
// red-black tree bin (HashMap.TreeNode) whose iteration order differs from list order: the
// tree's root moves to the front, and a new key is linked right after its tree parent.

const (
	javaHashMapInitialCapacity    = 16      // HashMap.DEFAULT_INITIAL_CAPACITY
	javaHashMapMaximumCapacity    = 1 << 30 // HashMap.MAXIMUM_CAPACITY
	javaHashMapTreeifyThreshold   = 8       // HashMap.TREEIFY_THRESHOLD
	javaHashMapUntreeifyThreshold = 6       // HashMap.UNTREEIFY_THRESHOLD
	javaHashMapMinTreeifyCapacity = 64      // HashMap.MIN_TREEIFY_CAPACITY
	javaIntegerMaxValue           = 1<<31 - 1
)

// javaStringHashMap records the keys of a java.util.HashMap<String, V> and their bucket layout.
// Keys are numbered densely in insertion order; the values live with the caller, indexed by
// that number. Checked against OpenJDK 17 (javahashmap_test.go); the code of HashMap involved
// is the same in JDK 8 to 21.
type javaStringHashMap struct {
	keys      []string
	hashes    []int32 // HashMap.hash(key): h ^ (h >>> 16) with h = String.hashCode
	index     map[string]int
	bins      []javaHashMapBin // nil until the first call
	threshold int
	// Red-black tree links of keys in tree bins (TreeNode.left/right/parent/red); -1 is null.
	left, right, parent []int
	red                 []bool
}

// javaHashMapBin is one bucket: its keys in iteration (Node.next) order, and whether it is a
// tree bin.
type javaHashMapBin struct {
	list []int
	tree bool
}

// spreadHash models HashMap.hash for a non-null key.
func spreadHash(h int32) int32 { return h ^ int32(uint32(h)>>16) }

// computeIfAbsent models HashMap.computeIfAbsent(key, k -> new value): it returns the number of
// key and whether the call added it.
func (m *javaStringHashMap) computeIfAbsent(key string) (int, bool) {
	// Java resizes at the start of the call when the table is missing or over its threshold,
	// also when key is already present.
	if m.bins == nil || len(m.keys) > m.threshold {
		m.resize()
	}
	if i, ok := m.index[key]; ok {
		return i, false
	}
	if m.index == nil {
		m.index = make(map[string]int)
	}
	h := spreadHash(JavaStringHash(key))
	x := len(m.keys)
	m.keys = append(m.keys, key)
	m.hashes = append(m.hashes, h)
	m.left = append(m.left, -1)
	m.right = append(m.right, -1)
	m.parent = append(m.parent, -1)
	m.red = append(m.red, false)
	m.index[key] = x
	b := m.binOf(x)
	if m.bins[b].tree {
		m.putTreeVal(b, x)
		return x, true
	}
	binCount := len(m.bins[b].list)
	// A new node is linked at the head of its bucket (newNode(hash, key, v, first)).
	m.bins[b].list = slices.Insert(m.bins[b].list, 0, x)
	if binCount >= javaHashMapTreeifyThreshold-1 {
		m.treeifyBin(b)
	}
	return x, true
}

func (m *javaStringHashMap) binOf(x int) int { return int(uint32(m.hashes[x]) & uint32(len(m.bins)-1)) }

// resize models HashMap.resize: the first call allocates 16 buckets (threshold 12), later calls
// double both, splitting each bucket into a "low" and a "high" bucket that keep the relative
// order of their keys (TreeNode.split for tree bins).
func (m *javaStringHashMap) resize() {
	old := len(m.bins)
	if old == 0 {
		m.bins = make([]javaHashMapBin, javaHashMapInitialCapacity)
		m.threshold = javaHashMapInitialCapacity * 3 / 4
		return
	}
	if old >= javaHashMapMaximumCapacity {
		m.threshold = javaIntegerMaxValue
		return
	}
	oldBins := m.bins
	m.bins = make([]javaHashMapBin, 2*old)
	if 2*old >= javaHashMapMaximumCapacity {
		m.threshold = javaIntegerMaxValue
	} else {
		m.threshold *= 2
	}
	for j, bin := range oldBins {
		var lo, hi []int
		for _, k := range bin.list {
			if uint32(m.hashes[k])&uint32(old) == 0 {
				lo = append(lo, k)
			} else {
				hi = append(hi, k)
			}
		}
		m.bins[j].list, m.bins[j+old].list = lo, hi
		if !bin.tree {
			continue
		}
		// TreeNode.split: a half of at most 6 keys becomes a list again; a bigger half stays a
		// tree, rebuilt only when the other half is not empty.
		if len(lo) > javaHashMapUntreeifyThreshold {
			m.bins[j].tree = true
			if len(hi) > 0 {
				m.treeify(j)
			}
		}
		if len(hi) > javaHashMapUntreeifyThreshold {
			m.bins[j+old].tree = true
			if len(lo) > 0 {
				m.treeify(j + old)
			}
		}
	}
}

// treeifyBin models HashMap.treeifyBin: a small table grows instead of building a tree.
func (m *javaStringHashMap) treeifyBin(b int) {
	if len(m.bins) < javaHashMapMinTreeifyCapacity {
		m.resize()
		return
	}
	m.bins[b].tree = true
	m.treeify(b)
}

// compareKeys orders key x against key p as TreeNode does for String keys: by hash (as a
// signed int), then by String.compareTo (UTF-16 code units). Distinct keys never compare
// equal, so Java's tieBreakOrder (identity hash codes) is never reached.
func (m *javaStringHashMap) compareKeys(x, p int) int {
	hx, hp := m.hashes[x], m.hashes[p]
	switch {
	case hp > hx:
		return -1
	case hp < hx:
		return 1
	}
	return javaStringCompare(m.keys[x], m.keys[p])
}

// javaStringCompare models String.compareTo: lexicographic over UTF-16 code units (invalid UTF-8
// bytes count as U+FFFD, as in JavaStringHash).
func javaStringCompare(a, b string) int {
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := range min(len(ua), len(ub)) {
		if ua[i] != ub[i] {
			return int(ua[i]) - int(ub[i])
		}
	}
	return len(ua) - len(ub)
}

// treeify models TreeNode.treeify: insert the bin's keys in list order into a red-black tree,
// then move the root to the front of the list.
func (m *javaStringHashMap) treeify(b int) {
	root := -1
	for _, x := range m.bins[b].list {
		m.left[x], m.right[x] = -1, -1
		if root < 0 {
			m.parent[x], m.red[x] = -1, false
			root = x
			continue
		}
		for p := root; ; {
			dir := m.compareKeys(x, p)
			xp := p
			if dir <= 0 {
				p = m.left[p]
			} else {
				p = m.right[p]
			}
			if p < 0 {
				m.parent[x] = xp
				if dir <= 0 {
					m.left[xp] = x
				} else {
					m.right[xp] = x
				}
				root = m.balanceInsertion(root, x)
				break
			}
		}
	}
	m.moveRootToFront(b, root)
}

// putTreeVal models TreeNode.putTreeVal for a key that is not in the tree bin b yet: the new
// node hangs below its parent in the tree and follows it in the list.
func (m *javaStringHashMap) putTreeVal(b, x int) {
	root := m.bins[b].list[0]
	for m.parent[root] >= 0 {
		root = m.parent[root]
	}
	for p := root; ; {
		dir := m.compareKeys(x, p)
		xp := p
		if dir <= 0 {
			p = m.left[p]
		} else {
			p = m.right[p]
		}
		if p < 0 {
			if dir <= 0 {
				m.left[xp] = x
			} else {
				m.right[xp] = x
			}
			m.parent[x] = xp
			list := m.bins[b].list
			m.bins[b].list = slices.Insert(list, slices.Index(list, xp)+1, x)
			m.moveRootToFront(b, m.balanceInsertion(root, x))
			return
		}
	}
}

// moveRootToFront models TreeNode.moveRootToFront.
func (m *javaStringHashMap) moveRootToFront(b, root int) {
	list := m.bins[b].list
	if list[0] == root {
		return
	}
	i := slices.Index(list, root)
	copy(list[1:i+1], list[:i])
	list[0] = root
}

// rotateLeft models TreeNode.rotateLeft and returns the (possibly new) root.
func (m *javaStringHashMap) rotateLeft(root, p int) int {
	if p < 0 || m.right[p] < 0 {
		return root
	}
	r := m.right[p]
	rl := m.left[r]
	m.right[p] = rl
	if rl >= 0 {
		m.parent[rl] = p
	}
	pp := m.parent[p]
	m.parent[r] = pp
	switch {
	case pp < 0:
		root = r
		m.red[r] = false
	case m.left[pp] == p:
		m.left[pp] = r
	default:
		m.right[pp] = r
	}
	m.left[r] = p
	m.parent[p] = r
	return root
}

// rotateRight models TreeNode.rotateRight and returns the (possibly new) root.
func (m *javaStringHashMap) rotateRight(root, p int) int {
	if p < 0 || m.left[p] < 0 {
		return root
	}
	l := m.left[p]
	lr := m.right[l]
	m.left[p] = lr
	if lr >= 0 {
		m.parent[lr] = p
	}
	pp := m.parent[p]
	m.parent[l] = pp
	switch {
	case pp < 0:
		root = l
		m.red[l] = false
	case m.right[pp] == p:
		m.right[pp] = l
	default:
		m.left[pp] = l
	}
	m.right[l] = p
	m.parent[p] = l
	return root
}

// balanceInsertion models TreeNode.balanceInsertion and returns the new root.
func (m *javaStringHashMap) balanceInsertion(root, x int) int {
	m.red[x] = true
	for {
		xp := m.parent[x]
		if xp < 0 {
			m.red[x] = false
			return x
		}
		xpp := m.parent[xp]
		if !m.red[xp] || xpp < 0 {
			return root
		}
		if xppl := m.left[xpp]; xp == xppl {
			if xppr := m.right[xpp]; xppr >= 0 && m.red[xppr] {
				m.red[xppr], m.red[xp], m.red[xpp] = false, false, true
				x = xpp
				continue
			}
			if x == m.right[xp] {
				x = xp
				root = m.rotateLeft(root, x)
				xp = m.parent[x]
				xpp = -1
				if xp >= 0 {
					xpp = m.parent[xp]
				}
			}
			if xp >= 0 {
				m.red[xp] = false
				if xpp >= 0 {
					m.red[xpp] = true
					root = m.rotateRight(root, xpp)
				}
			}
		} else {
			if xppl >= 0 && m.red[xppl] {
				m.red[xppl], m.red[xp], m.red[xpp] = false, false, true
				x = xpp
				continue
			}
			if x == m.left[xp] {
				x = xp
				root = m.rotateRight(root, x)
				xp = m.parent[x]
				xpp = -1
				if xp >= 0 {
					xpp = m.parent[xp]
				}
			}
			if xp >= 0 {
				m.red[xp] = false
				if xpp >= 0 {
					m.red[xpp] = true
					root = m.rotateLeft(root, xpp)
				}
			}
		}
	}
}

// order returns the key numbers in the map's iteration order: buckets in increasing index,
// each front to back.
func (m *javaStringHashMap) order() []int {
	out := make([]int, 0, len(m.keys))
	for _, bin := range m.bins {
		out = append(out, bin.list...)
	}
	return out
}
