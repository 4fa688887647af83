package oracle

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The expected values below were printed by OpenJDK 17 (jshell): java.net.URI.hashCode of the
// URIs Flink's Path builds, and the iteration order of java.util.HashMaps filled as Flink fills
// them.

func TestDelegateHashCode(t *testing.T) {
	for _, c := range []struct {
		path string
		want int32
	}{
		{"file:/ckpt/job-1/chk-3/op-source-0", -1273025591}, // new URI("file", null, path, null, null)
		{"op-0-1", -1012309016},                             // new URI(null, null, "op-0-1", null, null)
		{"FILE:/savepoints/savepoint-0-7/op-keyed-12", -2035521103},
	} {
		if got, ok := DelegateHashCode(c.path); !ok || got != c.want {
			t.Errorf("DelegateHashCode(%q) = %d, %v; want %d (java.net.URI.hashCode)", c.path, got, ok, c.want)
		}
	}
	for _, p := range []string{"hdfs://nn:8020/x", "file:/a//b", "file:/a/b/", "a b", "file:/a/%20", "file:/a/../b", ":x"} {
		if _, ok := DelegateHashCode(p); ok {
			t.Errorf("DelegateHashCode(%q) claims a hash; want not modelled", p)
		}
	}
}

func TestJavaPutOrder(t *testing.T) {
	// new HashMap<>(), put("file:/ckpt/job-0/chk-5/op-source-" + i) for i = 0..39: values() order.
	var hashes []int32
	for i := range 40 {
		hashes = append(hashes, StringHashCode(fmt.Sprintf("file:/ckpt/job-0/chk-5/op-source-%d", i)))
	}
	want := []int{29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 5, 4, 7, 6, 1, 0, 3, 2, 19, 18, 17, 39, 16, 38, 15, 37, 9, 14, 36, 8, 13, 35, 12, 34, 11, 33, 10, 32, 31, 30}
	got, ok := javaPutOrder(hashes, -1)
	if !ok || !slices.Equal(got, want) {
		t.Errorf("javaPutOrder = %v, %v; java.util.HashMap gives %v", got, ok, want)
	}
	// new HashMap<>(3) (newHashMapWithExpectedSize(2)), put in this order: keySet() order.
	names := []string{"splits-1", "offsets", "offsets-2", "splits-3", "rules"}
	hashes = hashes[:0]
	for _, n := range names {
		hashes = append(hashes, StringHashCode(n))
	}
	got, _ = javaPutOrder(hashes, 3)
	var gotNames []string
	for _, k := range got {
		gotNames = append(gotNames, names[k])
	}
	if d := cmp.Diff([]string{"rules", "offsets", "splits-3", "splits-1", "offsets-2"}, gotNames); d != "" {
		t.Errorf("javaPutOrder, initial capacity 3 (-java +oracle):\n%s", d)
	}
}

func TestJavaComputeOrder(t *testing.T) {
	// new HashMap<>(), computeIfAbsent in this order: keySet() order (a new key at the head of
	// its bin; the 13th key grows the table at the next call).
	keys := []string{"s5", "offsets", "s2", "AaAa", "buffer", "BBBB", "splits-1", "offsets-2", "splits", "offsets-3", "x", "y", "z", "w", "v"}
	want := []string{"s5", "splits", "offsets-3", "offsets-2", "offsets", "v", "w", "splits-1", "x", "y", "z", "buffer", "BBBB", "AaAa", "s2"}
	got, ok := javaComputeOrder(keys, -1)
	if d := cmp.Diff(want, got); !ok || d != "" {
		t.Errorf("javaComputeOrder (-java +oracle):\n%s", d)
	}
}

// TestOrderBaseAgrees: the order orderBase.with derives from the UNION-only base is the one
// orderFrom builds put by put, for subtasks that start from kept handles, put before the UNION
// puts and after them (streams of the base only).
func TestOrderBaseAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(30, 1))
	stream := func(j int) string { return fmt.Sprintf("file:/ckpt/job-1/chk-2/op-source-%d", j) }
	names := []string{"offsets", "offsets-1", "splits-2", "offsets-3", "rules"}
	for c := range 300 {
		p := 1 + r.IntN(80)
		var union []orderPut
		for _, n := range names[:1+r.IntN(2)] {
			for j := range p {
				union = append(union, orderPut{stream(j), n, javaRequiredCapacity(2)})
			}
		}
		b := newOrderBase(union)
		for range 5 {
			var kept []OperatorHandle
			var before, after []orderPut
			if r.IntN(2) == 0 {
				j := r.IntN(p)
				h := OperatorHandle{Stream: stream(j)}
				for _, n := range names[r.IntN(3):] {
					h.States = append(h.States, NamedList{Name: n})
				}
				kept = append(kept, h)
			} else {
				for range r.IntN(3) {
					before = append(before, orderPut{stream(r.IntN(p)), names[2], javaRequiredCapacity(1)})
				}
			}
			for range r.IntN(2) {
				after = append(after, orderPut{stream(r.IntN(p)), names[4], javaRequiredCapacity(1)})
			}
			modern := r.IntN(2) == 0
			got, ok := b.with(modern, kept, before, after)
			want, _ := orderFrom(keptHandles(modern, kept), before, union, after)
			if !ok {
				t.Fatalf("case %d: with refused streams of the base", c)
			}
			if d := cmp.Diff(want.Lines("op"), got.Lines("op")); d != "" {
				t.Fatalf("case %d (p %d, kept %v, before %v, after %v): (-orderFrom +with)\n%s", c, p, kept, before, after, d)
			}
		}
	}
}
