package model

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func strs(s ...string) []string { return s }

// The expected orders were printed by java.util.HashMap on OpenJDK 17: a HashMap<String, …>
// created with new HashMap<>(), one computeIfAbsent call per element of calls, then keySet().
func TestJavaStringHashMapOrder(t *testing.T) {
	tests := []struct {
		name  string
		calls []string
		want  []string
	}{
		{"SPEC §E.4 example (golden case 14)",
			strs("s5", "offsets", "s2", "AaAa", "buffer"),
			strs("s5", "offsets", "buffer", "AaAa", "s2")},
		{"head insertion inside a bucket",
			strs("Aa", "BB"),
			strs("BB", "Aa")},
		{"13 names, no further call: still 16 buckets",
			strs("State-0", "State-1", "State-2", "State-3", "State-4", "State-5", "State-6", "State-7", "State-8", "State-9", "State-10", "State-11", "State-12"),
			strs("State-10", "State-0", "State-1", "State-2", "State-3", "State-12", "State-11", "State-8", "State-9", "State-4", "State-5", "State-6", "State-7")},
		{"13 names and one more call for an existing name: 32 buckets",
			strs("State-0", "State-1", "State-2", "State-3", "State-4", "State-5", "State-6", "State-7", "State-8", "State-9", "State-10", "State-11", "State-12", "State-0"),
			strs("State-10", "State-0", "State-1", "State-2", "State-3", "State-12", "State-11", "State-8", "State-9", "State-4", "State-5", "State-6", "State-7")},
		{"25 names: 64 buckets",
			strs("State-0", "State-1", "State-2", "State-3", "State-4", "State-5", "State-6", "State-7", "State-8", "State-9", "State-10", "State-11", "State-12", "State-13", "State-14", "State-15", "State-16", "State-17", "State-18", "State-19", "State-20", "State-21", "State-22", "State-23", "State-24", "State-3"),
			strs("State-10", "State-14", "State-13", "State-12", "State-11", "State-18", "State-17", "State-16", "State-15", "State-19", "State-21", "State-0", "State-20", "State-1", "State-2", "State-3", "State-24", "State-23", "State-22", "State-8", "State-9", "State-4", "State-5", "State-6", "State-7")},
		{"8 colliding names fill one bucket of 16: treeifyBin resizes to 32",
			strs("AaAaAa", "AaAaBB", "AaBBAa", "AaBBBB", "BBAaAa", "BBAaBB", "BBBBAa", "BBBBBB"),
			strs("BBBBBB", "BBBBAa", "BBAaBB", "BBAaAa", "AaBBBB", "AaBBAa", "AaAaBB", "AaAaAa")},
		{"8 colliding names among 12: treeifyBin grows the table although size <= threshold",
			strs("s0", "s1", "s2", "s3", "AaAaAa", "AaAaBB", "AaBBAa", "AaBBBB", "BBAaAa", "BBAaBB", "BBBBAa", "BBBBBB"),
			strs("s0", "s1", "s2", "BBBBBB", "BBBBAa", "BBAaBB", "BBAaAa", "AaBBBB", "AaBBAa", "AaAaBB", "AaAaAa", "s3")},
		{"empty name, non-ASCII names, a surrogate pair",
			strs("", "é", "中文", "😀", "a😀", "zz"),
			strs("zz", "", "中文", "a😀", "😀", "é")},
		{"repeated calls",
			strs("b", "a", "b", "c", "a", "d", "b", "a", "b", "c", "a", "d", "b", "a", "b", "c", "a", "d"),
			strs("a", "b", "c", "d")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m javaStringHashMap
			for _, k := range tt.calls {
				m.computeIfAbsent(k)
			}
			got := []string{}
			for _, i := range m.order() {
				got = append(got, m.keys[i])
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("iteration order (-want +got):\n%s", diff)
			}
		})
	}
}

func TestJavaStringHashMapComputeIfAbsent(t *testing.T) {
	var m javaStringHashMap
	for i, k := range []string{"a", "b", "a", "c", "b"} {
		got, added := m.computeIfAbsent(k)
		want := map[string]int{"a": 0, "b": 1, "c": 2}[k]
		wantAdded := i == 0 || i == 1 || i == 3
		if got != want || added != wantAdded {
			t.Errorf("call %d computeIfAbsent(%q) = %d, %v; want %d, %v", i, k, got, added, want, wantAdded)
		}
	}
}
