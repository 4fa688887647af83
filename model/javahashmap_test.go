package model

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// listOnlyPutOrder is the emulation javaHashMapPutOrder used before package javamap: buckets in
// index order, each in insertion order, with the table growth of put and treeifyBin but no tree
// bins. Kept to show the fidelity fix below.
func listOnlyPutOrder(ids []OperatorID) []int {
	capacity := 1
	for capacity < javaRequiredCapacityForTest(len(ids)) {
		capacity <<= 1
	}
	threshold := capacity * 3 / 4
	hashes := make([]uint32, len(ids))
	for i, id := range ids {
		h := operatorIDHashCode(id)
		hashes[i] = uint32(h) ^ uint32(h)>>16
	}
	counts := make([]int, capacity)
	grow := func(inserted int) {
		capacity *= 2
		threshold = capacity * 3 / 4
		counts = make([]int, capacity)
		for _, h := range hashes[:inserted] {
			counts[h&uint32(capacity-1)]++
		}
	}
	for i, h := range hashes {
		b := h & uint32(capacity-1)
		counts[b]++
		if counts[b] > 8 && capacity < 64 {
			grow(i + 1)
		}
		if i+1 > threshold {
			grow(i + 1)
		}
	}
	order := make([]int, len(ids))
	for i := range order {
		order[i] = i
	}
	mask := uint32(capacity - 1)
	slices.SortStableFunc(order, func(a, b int) int { return int(hashes[a]&mask) - int(hashes[b]&mask) })
	return order
}

// javaRequiredCapacityForTest is CollectionUtil.computeRequiredCapacity for small n.
func javaRequiredCapacityForTest(n int) int {
	if n <= 2 {
		return n + 1
	}
	return (4*n + 2) / 3
}

// treeBinIDs are twelve operator IDs whose hash codes (k<<8: 0x100 … 0xb00, then 0) fall into
// bucket 0 of every table up to 256 buckets: k1 … k11, then k0.
func treeBinIDs() []OperatorID {
	var ids []OperatorID
	for _, k := range []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0} {
		var id OperatorID
		id[14] = k
		ids = append(ids, id)
	}
	return ids
}

// TestJavaHashMapPutOrderTreeBin is the fidelity fix of the one HashMap emulation: twelve
// operator IDs in one bucket of a 64-bucket table. The list-only emulation kept them in
// insertion order; java.util.HashMap (OpenJDK 17, the MapOracle of package javamap, and the
// source: HashMap.putVal, treeifyBin, TreeNode.treeify/putTreeVal/moveRootToFront) gives
// k4 k1 k0 k2 k3 k5 … k11:
//   - newHashMapWithExpectedSize(12) makes 16 buckets; k1 … k8 fill bucket 0 (put links at the tail);
//   - k9 finds 8 keys in the bucket (binCount ≥ TREEIFY_THRESHOLD−1): treeifyBin, and a table of
//     fewer than 64 buckets grows instead (32); k10 likewise (64); k11 finds 10 keys in a table of
//     64: the bucket becomes a red-black tree ordered by hash, whose root k4 moves to the front;
//   - k0 (hash 0, the smallest) goes below k1, the leftmost node, and is linked right after it.
func TestJavaHashMapPutOrderTreeBin(t *testing.T) {
	ids := treeBinIDs()
	java := []int{3, 0, 11, 1, 2, 4, 5, 6, 7, 8, 9, 10} // k4 k1 k0 k2 k3 k5 … k11
	if diff := cmp.Diff(java, javaHashMapPutOrder(ids)); diff != "" {
		t.Errorf("javaHashMapPutOrder (-java +model):\n%s", diff)
	}
	if old := listOnlyPutOrder(ids); slices.Equal(old, java) {
		t.Errorf("the list-only emulation gives %v too: the case no longer shows the fix", old)
	}
}

// TestAssignStatesTreeBinCheckOrder shows the fix where it matters: 1.18 checks the operator
// states of a chain in that HashMap's order, and the last differing max parallelism wins
// (§F.1). Here k11's state has M=256 and k0's M=512: Java checks k11 last and ends with 256;
// the list-only order checked k0 last and gave 512.
func TestAssignStatesTreeBinCheckOrder(t *testing.T) {
	ids := treeBinIDs()
	a := mustAssign(t, AssignmentInput{Version: Flink118, CheckpointID: 1,
		Vertices:  []JobVertex{saVertex("v", 2, 128, false, ids...)},
		Operators: []OperatorState{saOperatorState(ids[10], 2, 256, true), saOperatorState(ids[11], 2, 512, true)}})
	va := a.Vertices[0]
	if va.MaxParallelism != 256 {
		t.Errorf("max parallelism %d, want 256 (k11 checked last)", va.MaxParallelism)
	}
	if va.Hazard == nil || va.Hazard.Checked[len(va.Hazard.Checked)-1].OperatorID != ids[10] {
		t.Errorf("hazard %+v, want k11 checked last", va.Hazard)
	}
}
