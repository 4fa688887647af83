package javamap

import "slices"

// compareKeys orders key x against key p as TreeNode.treeify and putTreeVal do: by hash (as a
// signed int), then by compareTo if the class is comparable (comparableClassFor), then by
// tieBreakOrder. Keys of one class have the same class name, so tieBreakOrder compares
// System.identityHashCode, which cannot be modelled: identity hash codes are taken to increase
// in the order the keys were added (a total order, so a tree rebuilt by a resize sees the same
// one), and the tie is counted.
func (m *Map[K]) compareKeys(x, p int) int {
	hx, hp := m.hashes[x], m.hashes[p]
	switch {
	case hp > hx:
		return -1
	case hp < hx:
		return 1
	}
	if m.class.CompareTo != nil {
		if d := m.class.CompareTo(m.keys[x], m.keys[p]); d != 0 {
			return d
		}
	}
	m.ties++
	if x <= p { // System.identityHashCode(x) <= System.identityHashCode(p)
		return -1
	}
	return 1
}

// treeify models TreeNode.treeify: insert the bin's keys in list order into a red-black tree,
// then move the root to the front of the list.
func (m *Map[K]) treeify(b int) {
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
func (m *Map[K]) putTreeVal(b, x int) {
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
func (m *Map[K]) moveRootToFront(b, root int) {
	list := m.bins[b].list
	if list[0] == root {
		return
	}
	i := slices.Index(list, root)
	copy(list[1:i+1], list[:i])
	list[0] = root
}

// rotateLeft models TreeNode.rotateLeft and returns the (possibly new) root.
func (m *Map[K]) rotateLeft(root, p int) int {
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
func (m *Map[K]) rotateRight(root, p int) int {
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
func (m *Map[K]) balanceInsertion(root, x int) int {
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
