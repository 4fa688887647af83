package metadata

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/restoresim/restoresim/model"
)

// Iteration orders printed by OpenJDK 17 for HashMap<String,Integer> filled with put(key, i):
// "legacy" = new HashMap<>(n) (Flink ≤ 1.17, 1.10.1), "1.18" =
// new HashMap<>(CollectionUtil.computeRequiredCapacity(n, 0.75f)). Each want is key=index of
// the put whose value the map holds.
var javaPutOrderVectors = []struct {
	ctor string
	keys string
	want string
}{
	{"legacy", "a,b", "a=0,b=1"},
	{"legacy", "b,a", "a=1,b=0"},
	{"1.18", "b,a", "a=1,b=0"},
	{"1.18", "SourceReaderState", "SourceReaderState=0"},
	{"1.18", "s5,offsets,s2,AaAa,buffer", "s5=0,buffer=4,offsets=1,s2=2,AaAa=3"},
	// AaAa, BBBB, AaBB and BBAa share one hash code: put keeps them in insertion order.
	{"1.18", "AaAa,BBBB,AaBB,BBAa,x", "x=4,AaAa=0,BBBB=1,AaBB=2,BBAa=3"},
	{"legacy", "AaAa,BBBB,AaBB,BBAa,x", "x=4,AaAa=0,BBBB=1,AaBB=2,BBAa=3"},
	{"legacy", "n0,n7,n14,n21,n28,n35,n42,n49,n56,n63,n70,n77,n84", "n0=0,n70=10,n7=1,n63=9,n84=12,n21=3,n42=6,n56=8,n77=11,n14=2,n35=5,n49=7,n28=4"},
	{"1.18", "n0,n7,n14,n21,n28,n35,n42,n49,n56,n63,n70,n77,n84", "n0=0,n70=10,n7=1,n63=9,n84=12,n21=3,n42=6,n56=8,n77=11,n14=2,n35=5,n49=7,n28=4"},
	{"legacy", "state-0,state-1,state-2,state-3,state-4,state-5,state-6,state-7,state-8,state-9,state-10,state-11,state-12,state-13,state-14,state-15,state-16,state-17,state-18,state-19,state-20,state-21,state-22,state-23,state-24,state-25,state-26,state-27,state-28,state-29,state-30,state-31,state-32,state-33,state-34,state-35,state-36,state-37,state-38,state-39",
		"state-30=30,state-10=10,state-32=32,state-31=31,state-12=12,state-34=34,state-11=11,state-33=33,state-14=14,state-36=36,state-13=13,state-35=35,state-7=7,state-27=27,state-6=6,state-26=26,state-5=5,state-29=29,state-4=4,state-28=28,state-9=9,state-8=8,state-3=3,state-2=2,state-1=1,state-0=0,state-21=21,state-20=20,state-23=23,state-22=22,state-25=25,state-24=24,state-16=16,state-38=38,state-15=15,state-37=37,state-18=18,state-17=17,state-39=39,state-19=19"},
	// Ten keys with one hash code: the 9th and 10th make treeifyBin double a small table
	// (16 → 32 → 64) instead of building a tree.
	{"legacy", "z,AaAaAaAa,AaAaAaBB,topic-partition-state,AaAaBBAa,AaAaBBBB,AaBBAaAa,AaBBAaBB,AaBBBBAa,AaBBBBBB,BBAaAaAa,BBAaAaBB,q",
		"AaAaAaAa=1,AaAaAaBB=2,AaAaBBAa=4,AaAaBBBB=5,AaBBAaAa=6,AaBBAaBB=7,AaBBBBAa=8,AaBBBBBB=9,BBAaAaAa=10,BBAaAaBB=11,topic-partition-state=3,q=12,z=0"},
	// The same keys with the 1.18 capacity (32 buckets): the 9th doubles the table to 64, the
	// 10th finds 9 keys in its bucket and Java makes it a tree bin (treeifyBin → treeify), ordered
	// by String.compareTo under equal hashes, whose root AaAaBBBB moves to the front
	// (moveRootToFront). Printed by OpenJDK 17 (the MapOracle of package javamap).
	{"1.18", "z,AaAaAaAa,AaAaAaBB,topic-partition-state,AaAaBBAa,AaAaBBBB,AaBBAaAa,AaBBAaBB,AaBBBBAa,AaBBBBBB,BBAaAaAa,BBAaAaBB,q",
		"AaAaBBBB=5,AaAaAaAa=1,AaAaAaBB=2,AaAaBBAa=4,AaBBAaAa=6,AaBBAaBB=7,AaBBBBAa=8,AaBBBBBB=9,BBAaAaAa=10,BBAaAaBB=11,topic-partition-state=3,q=12,z=0"},
	// The 9th key of one hash code makes treeifyBin double the 16-bucket table to 32, which
	// moves s10 behind the colliding keys.
	{"legacy", "s10,AaAaAaAa,AaAaAaBB,AaAaBBAa,AaAaBBBB,AaBBAaAa,AaBBAaBB,AaBBBBAa,AaBBBBBB,BBAaAaAa",
		"AaAaAaAa=1,AaAaAaBB=2,AaAaBBAa=3,AaAaBBBB=4,AaBBAaAa=5,AaBBAaBB=6,AaBBBBAa=7,AaBBBBBB=8,BBAaAaAa=9,s10=0"},
	{"1.18", "s10,AaAaAaAa,AaAaAaBB,AaAaBBAa,AaAaBBBB,AaBBAaAa,AaBBAaBB,AaBBBBAa,AaBBBBBB,BBAaAaAa",
		"AaAaAaAa=1,AaAaAaBB=2,AaAaBBAa=3,AaAaBBBB=4,AaBBAaAa=5,AaBBAaBB=6,AaBBBBAa=7,AaBBBBBB=8,BBAaAaAa=9,s10=0"},
	// A repeated key keeps its first position and takes the last value.
	{"legacy", "u,v,u,w", "u=2,v=1,w=3"},
	{"1.18", "u,v,u,w", "u=2,v=1,w=3"},
}

func TestJavaHashMapPutOrder(t *testing.T) {
	for _, v := range javaPutOrderVectors {
		keys := strings.Split(v.keys, ",")
		version := model.Flink1101 // new HashMap<>(n), as up to 1.17
		if v.ctor == "1.18" {
			version = model.Flink118
		}
		order, last := putOrder(readerMap(len(keys), version), keys)
		var got []string
		for _, i := range order {
			got = append(got, keys[i]+"="+strconv.Itoa(last[i]))
		}
		if diff := cmp.Diff(strings.Split(v.want, ","), got); diff != "" {
			t.Errorf("%s %s: order mismatch (-want +got):\n%s", v.ctor, v.keys, diff)
		}
	}
}

// TestModelStateOrder checks that Model lists operator states in the reader's HashMap order
// and keeps file order in File.
func TestModelStateOrder(t *testing.T) {
	f := &File{Version: 4, Properties: PropertiesFromModel(nil), Operators: []Operator{{
		Parallelism: 1, MaxParallelism: 128,
		Subtasks: []Subtask{{ManagedOperatorState: &OperatorHandle{Tag: TagOperatorStream,
			Delegate: &StreamHandle{Tag: TagByteStream, Name: "d", Data: make([]byte, 10)},
			States: []StateEntry{
				{Name: "s5", Offsets: []int64{}}, {Name: "offsets", Mode: 1, Offsets: []int64{1}},
				{Name: "s2", Offsets: []int64{}}, {Name: "AaAa", Offsets: []int64{}}, {Name: "buffer", Mode: 2, Offsets: []int64{2}},
			}}}},
	}}}
	var got []string
	for _, s := range f.Model().Operators[0].Subtasks[0].ManagedOperatorState[0].States {
		got = append(got, s.Name)
	}
	if diff := cmp.Diff([]string{"s5", "buffer", "offsets", "s2", "AaAa"}, got); diff != "" {
		t.Errorf("Model state order (-want +got):\n%s", diff)
	}
	got = nil
	for _, s := range f.ModelFor(model.Flink1101).Operators[0].Subtasks[0].ManagedOperatorState[0].States {
		got = append(got, s.Name)
	}
	if diff := cmp.Diff([]string{"s5", "buffer", "offsets", "s2", "AaAa"}, got); diff != "" {
		t.Errorf("ModelFor(1.10.1) state order (-want +got):\n%s", diff)
	}
	if f.Operators[0].Subtasks[0].ManagedOperatorState.States[0].Name != "s5" {
		t.Errorf("File lost file order")
	}
}

// TestJavaHashMapPutOrderTreeBinFix: the reader's emulation before package javamap had no tree
// bins and listed a bucket in insertion order whatever its size, so for the 1.18 capacity it
// gave the keys of the vector above in the legacy order (no tree: AaAaAaAa first). Java, and
// now the model, list the tree's root AaAaBBBB first. SPLIT_DISTRIBUTE order follows from this
// list order, so the fix can move which new subtasks receive the extra partitions.
func TestJavaHashMapPutOrderTreeBinFix(t *testing.T) {
	keys := strings.Split("z,AaAaAaAa,AaAaAaBB,topic-partition-state,AaAaBBAa,AaAaBBBB,AaBBAaAa,AaBBAaBB,AaBBBBAa,AaBBBBBB,BBAaAaAa,BBAaAaBB,q", ",")
	legacy, _ := putOrder(readerMap(len(keys), model.Flink1101), keys)
	v118, _ := putOrder(readerMap(len(keys), model.Flink118), keys)
	if legacy[0] != 1 || v118[0] != 5 {
		t.Errorf("first keys %q (legacy) and %q (1.18), want AaAaAaAa and AaAaBBBB", keys[legacy[0]], keys[v118[0]])
	}
	m := readerMap(len(keys), model.Flink118)
	putOrder(m, keys)
	if m.Capacity() != 64 {
		t.Errorf("1.18 table of %d buckets, want 64", m.Capacity())
	}
}
