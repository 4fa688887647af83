package javamap

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func strs(s ...string) []string { return s }

func cat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// names gives prefix+from … prefix+(to-1).
func names(prefix string, from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, prefix+strconv.Itoa(i))
	}
	return out
}

// aaBB gives the 2^k strings of k blocks "Aa" or "BB" (all with the same String.hashCode), in
// the order of Python's itertools.product(["Aa", "BB"], repeat=k).
func aaBB(k int) []string {
	var out []string
	for bits := range 1 << k {
		var b strings.Builder
		for i := k - 1; i >= 0; i-- {
			if bits&(1<<i) == 0 {
				b.WriteString("Aa")
			} else {
				b.WriteString("BB")
			}
		}
		out = append(out, b.String())
	}
	return out
}

func prefixed(prefix string, l []string) []string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = prefix + s
	}
	return out
}

func reversed(l []string) []string {
	out := slices.Clone(l)
	slices.Reverse(out)
	return out
}

// nuls gives strings of n NUL characters (String.hashCode 0) for each n.
func nuls(ns ...int) []string {
	var out []string
	for _, n := range ns {
		out = append(out, strings.Repeat("\x00", n))
	}
	return out
}

// The expected orders were printed by java.util.HashMap on OpenJDK 17 (tree bins included): a HashMap<String, …>
// created with new HashMap<>(), one computeIfAbsent call per element of calls, then keySet().
func TestComputeIfAbsentOrder(t *testing.T) {
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
		{"colliding names mixed with others: a tree bin in a table of 64",
			cat(names("x", 0, 10), aaBB(3), aaBB(2), strs("Aa", "BB")),
			strs("BB", "Aa", "x8", "x9", "BBBB", "BBAa", "AaBB", "AaAa", "BBAaAa", "BBBBBB", "BBBBAa", "BBAaBB", "AaBBBB", "AaBBAa", "AaAaBB", "AaAaAa", "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7")},
		{"16 colliding names in a table of 64: one tree bin grown by putTreeVal",
			cat(names("n", 0, 30), aaBB(4), reversed(aaBB(4))),
			strs("n0", "n1", "n2", "n3", "n4", "n5", "n6", "AaBBAaBB", "AaBBBBAa", "AaBBAaAa", "AaAaBBBB", "AaAaBBAa", "AaAaAaBB", "AaAaAaAa", "n7", "BBBBBBAa", "BBBBBBBB", "BBBBAaAa", "BBBBAaBB", "BBAaBBAa", "BBAaBBBB", "BBAaAaAa", "BBAaAaBB", "AaBBBBBB", "n8", "n9", "n10", "n12", "n11", "n14", "n13", "n16", "n15", "n18", "n17", "n19", "n21", "n20", "n23", "n22", "n25", "n24", "n27", "n26", "n29", "n28")},
		{"a tree bin splits into two trees when the table grows to 128",
			cat(names("n", 0, 30), prefixed("b", aaBB(3)), prefixed("C", aaBB(3)), names("n", 30, 60), strs("n0")),
			strs("n0", "n1", "n2", "n3", "n4", "n5", "n50", "n6", "n7", "n52", "n8", "n51", "n9", "n54", "n10", "n53", "n56", "n12", "n55", "n11", "n58", "n14", "n57", "n13", "n16", "n59", "n15", "n18", "n17", "n19", "bBBAaAa", "bBBBBBB", "bBBBBAa", "bBBAaBB", "bAaBBBB", "bAaBBAa", "bAaAaBB", "bAaAaAa", "n21", "n20", "n23", "n22", "n25", "n24", "n27", "n26", "n29", "n28", "n30", "n32", "n31", "n34", "n33", "n36", "n35", "n38", "n37", "n39", "CAaBBBB", "CAaAaAa", "CAaAaBB", "CAaBBAa", "CBBAaAa", "CBBAaBB", "CBBBBAa", "CBBBBBB", "n41", "n40", "n43", "n42", "n45", "n44", "n47", "n46", "n49", "n48")},
		{"names with hash 0 that are prefixes of each other: String.compareTo by length",
			cat(names("n", 0, 30), nuls(3, 0, 7, 1, 9, 2, 5, 11, 4, 8, 6, 10)),
			strs("\u0000\u0000\u0000\u0000\u0000", "\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000", "\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000", "\u0000\u0000", "\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000", "\u0000", "\u0000\u0000\u0000\u0000\u0000\u0000\u0000", "\u0000\u0000\u0000\u0000\u0000\u0000", "\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000", "", "\u0000\u0000\u0000", "\u0000\u0000\u0000\u0000", "n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9", "n10", "n12", "n11", "n14", "n13", "n16", "n15", "n18", "n17", "n19", "n21", "n20", "n23", "n22", "n25", "n24", "n27", "n26", "n29", "n28")},
		{"one tree bin holding names of hash 0 and of other hashes, positive and negative",
			cat(names("n", 0, 30), nuls(3, 0, 1, 5), strs("k10180", "k309", "k11072", "k507"), nuls(2, 4, 6), strs("k628", "k11193", "k705", "k11270")),
			strs("\u0000", "k507", "k628", "k705", "k11072", "k309", "k10180", "k11270", "\u0000\u0000\u0000\u0000\u0000", "\u0000\u0000\u0000\u0000\u0000\u0000", "\u0000\u0000\u0000\u0000", "", "k11193", "\u0000\u0000\u0000", "\u0000\u0000", "n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9", "n10", "n12", "n11", "n14", "n13", "n16", "n15", "n18", "n17", "n19", "n21", "n20", "n23", "n22", "n25", "n24", "n27", "n26", "n29", "n28")},
		{"a tree bin kept whole by a resize, then grown",
			cat(names("n", 0, 30), prefixed("b", aaBB(4)[:8]), names("n", 30, 60), prefixed("b", aaBB(4)[8:])),
			strs("n0", "n1", "n2", "n3", "n4", "n5", "n50", "n6", "n7", "n52", "n8", "n51", "n9", "n54", "n10", "n53", "n56", "n12", "n55", "n11", "n58", "n14", "n57", "n13", "n16", "n59", "n15", "n18", "n17", "n19", "bAaBBAaAa", "bAaBBBBBB", "bBBAaAaAa", "bBBAaAaBB", "bBBAaBBAa", "bBBAaBBBB", "bBBBBAaAa", "bBBBBAaBB", "bBBBBBBAa", "bBBBBBBBB", "bAaBBBBAa", "bAaBBAaBB", "bAaAaBBBB", "bAaAaBBAa", "bAaAaAaBB", "bAaAaAaAa", "n21", "n20", "n23", "n22", "n25", "n24", "n27", "n26", "n29", "n28", "n30", "n32", "n31", "n34", "n33", "n36", "n35", "n38", "n37", "n39", "n41", "n40", "n43", "n42", "n45", "n44", "n47", "n46", "n49", "n48")},
		{"empty name, non-ASCII names, a surrogate pair",
			strs("", "é", "中文", "😀", "a😀", "zz"),
			strs("zz", "", "中文", "a😀", "😀", "é")},
		{"repeated calls",
			strs("b", "a", "b", "c", "a", "d", "b", "a", "b", "c", "a", "d", "b", "a", "b", "c", "a", "d"),
			strs("a", "b", "c", "d")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New(String)
			for _, k := range tt.calls {
				m.ComputeIfAbsent(k)
			}
			got := m.Keys()
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("iteration order (-want +got):\n%s", diff)
			}
		})
	}
}

// Random call sequences (tab-separated) whose Java orders exercise tree bins through resizes:
// a tree kept whole, rebuilt, or turned back into a list (UNTREEIFY_THRESHOLD). They come from
// a run of 6000 such sequences through OpenJDK 17, all of which the emulation reproduces.
func TestComputeIfAbsentOrderRandomTrees(t *testing.T) {
	tests := []struct {
		line        int
		calls, want string
	}{
		{774,
			"AaAaAa\tBBBBBB\tx14\tx27\tx6\tAaBBBB\tx15\tAa\tAaAaAa\tAaBBAa\tBBAaAa\tx7\tx18\tx12\tx2\tx11\tx34\tAaAaBB\tx28\tx13\tBBAaBB\tBBAaBB\tx28\tAa\tx26\tx8\tAaBBBB\tx0\tx18\tx11\tx1\tx33\tx11\tx15\tBBBB\tx31\tx14\tx22\tBB\tx9\tx9\tx30\tBBAa\tx24\tx30\tx25\tx10\tx32\tAaBBBB\tx24\tx11\tAaBB\tx21\tx23\tAaAa\tx17\tx5\tBB\tAaBBBB\tx20\tx8\tx14\tx16\tx13\tx23\tx0\tAaBBBB\tBBAaBB\tx28\tx24\tx9\tAaAaAa\tx20\tx18\tx15\tx2\tBB\tx31\tx26\tx1\tx7\tBBBBAa\tx17\tx21\tx35\tAaAa\tx34\tBBAaBB\tAaBBBB\tx23\tx15\tx4\tx31\tx32\tAaBB\tAaAaAa\tx12\tx22\tx27\tBB\tx33\tx0\tx25\tAaAaBB\tx3\tx29\tx29",
			"x10\tx12\tx11\tx14\tx13\tx16\tx15\tx18\tx17\tAaAa\tAaBB\tBBAa\tBBBB\tBBAaBB\tBBBBAa\tAaAaBB\tBBAaAa\tAaBBAa\tAaBBBB\tBBBBBB\tAaAaAa\tx21\tx20\tx23\tx0\tx22\tx1\tx25\tx2\tx3\tx24\tx4\tx27\tx5\tx26\tx29\tx6\tx28\tx7\tBB\tx8\tAa\tx9\tx30\tx32\tx31\tx34\tx33\tx35"},
		{3000,
			"BBBBBBBBAaAaBBBB\tBBBBAaAaBBAa\tn37\tBBBBBBAa\tBBBBAaAa\tAaBBBBAaBBAa\tn30\tAaAaAaAaAaBBBBBB\tAaAaBBAaBBBBBBAa\tBBAaBBBBBBAa\tn42\tn2\tBBAaBBBB\tn27\tn11\tAaAaAaBB\tAaBBBBBBBBAa\tn5\tn33\tn38\tAaAaBBBB\tAaAaAaAaAaAa\tn22\tBBBBAaAaBBBB\tAaAaAaAa\tAaBBBBAaAaAa\tAaBBBBAa\tAaBBAaBBBBBBBBAa\tBBBBAaBBAaBB\tn50\tn15\tAaBBAaBBAaAa\t😀a😀BB\tAaBBAaBBBBBBBBBB\tBBBBBBBB\tAaBBAaAa\tn49\tn17\tn13\tBBAaAaBBBBAaBBBB\tBBAaAaBB\tAaAaAaAaBBBB\tBBBBBBAaBBBB\tn18\tAaBBAaAaBBAa\tn46\tAaBBAaAaAaAa\tBBBBAaAaBBAaBBAa\tAaBBAaBBAaAaAaAa\tn14\tn21\tn16\tAaBBBBAaAaBB\tn19\tBBAaBBAaBBBB\tn1\tn20\tBBBBAaBB\tBBBBAaAaAaAa\tAaAaBBAaBB\tn44\tn32\tAaBBBBBB\tn34\tn10\tBBAaAaAa\tn52\tBBBBBBAaAaBBBBBB\tAaBBAaAaBBAaAaAa\tAaAaBBAa\tBBBBBBAaAaBBAaAa\tBBBBBBBBBBBB\tBBAaAaAaBBBB\tn45\tn6\tAaAaAaBBAaBBAaBB\tn23\tAaAaAaBBAaBB\tn35\tBBAaBBBBAaBB\tn7\tAaAaAaBBBBAa\tB\tn24\tn28\tn0\tBBAaAaBBAaAa\tn29\tBBBBBBBBAaAaBBBB\tBBBBAaAaBBAa\tn37\tBBBBBBAa\tBBBBAaAa",
			"n0\tn1\tn2\tn5\tn6\tn50\tn7\tn52\tn10\tn11\tn14\tn13\tn16\tn15\tn18\tn17\tn19\tAaAaBBAaBB\tAaBBBBBBBBAa\tBBBBAaBBAaBB\tBBBBBBAaBBBB\tBBBBBBBBBBBB\tAaBBBBAaAaAa\tBBBBAaAaBBBB\tAaAaAaAaAaAa\tAaBBAaBBAaAa\tAaBBAaAaBBAa\tAaBBAaAaAaAa\tAaAaAaBBAaBB\tAaAaAaBBBBAa\tAaAaAaAaBBBB\tBBAaBBBBBBAa\tBBAaBBAaBBBB\tBBAaBBBBAaBB\tBBAaAaAaBBBB\tBBAaAaBBAaAa\tAaBBBBAaBBAa\tAaBBBBAaAaBB\tBBBBAaAaBBAa\tBBBBAaAaAaAa\tn21\tn20\tn23\tn22\tn24\tn27\tn29\tn28\tAaBBAaBBBBBBBBAa\tBBAaAaBBBBAaBBBB\tAaBBAaBBAaAaAaAa\tAaBBAaAaBBAaAaAa\tBBBBAaAaBBAaBBAa\tBBBBBBAaAaBBAaAa\tAaBBAaBBBBBBBBBB\tAaAaBBAaBBBBBBAa\tAaAaAaAaAaBBBBBB\tB\tAaAaAaBBAaBBAaBB\tBBBBBBBBAaAaBBBB\tBBBBBBAaAaBBBBBB\tAaBBBBAa\tBBBBBBBB\tAaAaAaAa\tAaAaBBBB\tAaAaBBAa\tAaBBAaAa\tAaAaAaBB\tBBAaBBBB\tBBAaAaBB\tAaBBBBBB\tBBAaAaAa\tBBBBAaAa\tBBBBBBAa\tBBBBAaBB\tn30\tn32\tn34\tn33\tn35\tn38\tn37\t😀a😀BB\tn42\tn45\tn44\tn46\tn49"},
		{3003,
			"n1\tBBAaBB\tn20\tAaBBAa\tAaBBBBAaAaAaAaAa\tBBBBBBBBAa\tn1\tAaBBBBAaAa\tn4\tBBBBBBBBAaBBBBAa\tAaBBBBAaAa\tAaBBBBAaAaBBBBAa\tn10\tAaAaBBBBAaBBBBAa\tAaBBBB\tn12\tn16\tBBBBAa\tAaBBAaAaAaAaAaAa\tBBBBAaBBAaBBBBBB\tAaBBAaAaBB\tn1\tAaAaBBBBAaBBBBAa\tn19\tAaAaBBBBAaBBBBAa\tBBBBBBBBAa\tAaBBAaAaAaAaAaAa\tn10\tBBBBAaBBBBBBBBAa\tAaBBAa\tn4\tn22\tAaBBBB\tAaBBBBAaAaAaAaAa\tBBAaAa\taa\ta\tn17\tn12\tBBBBBBBBAa\tn8\tn10\tAaBBAaAaAaAaAaAa\tn4\tn9\tAaAaBBAaAaBBAaAa\taa\tn20\tBBAaBBBBAaBBBBBB\tBBAaBBBBBBAaAaAa\tBBBBBB\tn19\tn19\tn21\tBBBBAaBBBBBBBBAa\t😀Aé\tBBBBBBBBAa\tBBBBAaAaAaBBBBAa\tAaAaBBAaAaBBAaAa\tn6\tn16\tAaAaBBBBAaBBBBAa\tn21\tAaBBBBAaAa\tn20\tBBBBAaBBAaBBBBBB\tBBBBBBBBAa\tAaBBBBAaAaBBBBAa\tn18\tBBBBAaBBAaBBBBBB\tBBAaBB\taa\tAaAaBBAaAaBBAaAa\tBBAaBBAaBBBBBBBB\tn2\tAaBBAa\tAaBBBB\tBBBBBBBBAaBBBBAa\tn12\tn11\tAaAaAa\tBBBBAaAaBBBBBBAa\tBBAaBBBBBBAaAaAa\tn14\tBBAaBBAaBBBBBBBB\tAaAaBBAaAaBBAaAa\tAaBBBBAaAaBBBBAa\tn14\tBBBBBBBBAa\tn8\tBBBBAaBBAaBBBBBB\tn6\tBBAaBB\tAaAaAaAaBBBBAaAa\tn4\tn3\tn13\tAaBBBBAaAaBBBBAa\tn16\tBBBBBB\tn20\tBBBBBBBBAa\tn8\tAaAaBB\tBBBBBB\tn11\tAaBBAa\tn19\tAaAaAaAaBBAaAaBB\tBBAaBBBBAaBBBBBB\tn0\tBBBBBBBBAa\tn4\tAaAaAa\tn20\tAaBBAaAaAaAaAaAa\tn13\tAaAaAaAaBBBBAaAa\tAaBBBB\tAaBBAa\tBBAaBBBBAaBBBBBB\tBBAaBBBBAaBBBBBB\tBBAaBBBBBBAaAaAa\tAaAaBBAaAaBBAaAa\tn7\tn6\tn4\tAaBBAaAaBB\tn5\tn8\tAaBBAa\tn12\tn0\taa\tn13\tBBAaBB\tn7\tn10\tn14\tn20\tBBBBAa\tAaAaAaAaBBBBAaAa\tBBBBAaBBBBBBBBAa\tAaAaAaAaBBBBAaAa\tn2\tBBBBAaBBBBBBBBAa\tn3\tn6\tn11\tn10\tAaAaAa\tAaBBBBAaAa\tn3\tAaBBAaAaBB\tAaAaBBBBBBAaBBBB\tn5\tBBBBBBBBAa\tn10\tBBAaBBAaBBBBBBBB\tAaAaBBBBAaBBBBAa\tn5\tAaAaBBBBBBAaBBBB\tn2\tn13\tBBAaBBBBBBAaAaAa\tn7\tAaAaBBBBBBAaBBBB\tn14\tn17\tn19\tAaAaBBBBBBAaBBBB\tAaAaBB\tAaBBBB\tn21\tAaAaAaAaBBAaAaBB\tn9\tBBBBAa\tn12\tBBBBAaBBBBBBBBAa\tAaBBAaAaBB\tn20\tn15\tAaAaAaAaBBBBAaAa\tAaAaAa\tAaBBBBAaAaAaAaAa\tn19\tBBBBBBBBAa\tAaAaAa\tn9\tn18\tAaBBBBAaAaAaAaAa\tBBAaBB\taa\tBBBBAaAaBBBBBBAa\tAaBBBBAaAa\tn18\tn2\tBBAaBBBBAaBBBBBB\tn20\tAaAaAaAaBBAaAaBB\tBBBBAa\tn5\tAaBBAa\taa\tn18\tn1\tAaAaBBBBAaAaAaBB\t😀Aé\tAaAaAaAaBBAaAaBB\tn10\tn17\tBBBBBB\tAaAaAa\tn11\tAaBBAaAaBB\tn1\tBBBBBB\tAaBBBBAaAaBBBBAa\tAaAaAa\tBBBBBBBBAaBBBBAa\tn5\tAaAaBBBBAaAaAaBB\tBBBBBB\tAaAaBBBBAaBBBBAa\tn0\tBBBBAaAaAaBBBBAa\tn14\tAaBBAaAaBB\tn1\tn10\tBBAaBBBBAaBBBBBB\tn12\tn9\tn15\tAaBBAaAaBB\tAaAaBBBBAaBBBBAa\tn21\tn19\tn5\t😀Aé\tBBBBAaAaAaBBBBAa\tAaAaBBBBBBAaBBBB\tn18\tBBBBAaAaAaBBBBAa\tAaAaAaAaBBAaAaBB\tn2\tBBBBBB\tn4\tBBAaBBAaBBBBBBBB\tn22\tn4\tn11\tBBBBBBBBAaBBBBAa\tBBAaBBBBBBAaAaAa\tBBAaBBBBBBAaAaAa\tn11\tn15\tn18\tn8\tn16\tn9\tAaBBAaAaAaAaAaAa\tn12\tBBAaBBBBBBAaAaAa\tn20\tAaAaAaAaBBAaAaBB\tAaBBAaAaAaAaAaAa\tAaAaAaAaBBAaAaBB\tn4\tn13\tAaBBAaAaAaAaAaAa\tn15\tBBBBAa\tn12\tAaAaAa\tAaBBBB\tBBAaBBBBBBAaAaAa\tBBAaBBBBAaBBBBBB\tAaBBBBAaAa\tAaAaBB\tn11\tBBBBAa\tAaBBAa\tBBBBAaAaBBBBBBAa\tn6\tBBAaBBBBBBAaAaAa\tBBAaBB\tn20\tBBAaAa\tn15\tBBBBAaBBBBBBBBAa\tn7\tAaAaAaAaBBAaAaBB\tn12\tAaAaBBBBAaBBBBAa\tn2\tn2\tBBBBBBBBAaBBBBAa\tAaBBBBAaAaBBBBAa\tAaAaBBAaAaBBAaAa\tAaAaBBAaAaBBAaAa\tn3\tn19\tBBBBAaAaAaBBBBAa\ta\tBBAaBB\taa\tBBBBBB\tn0\taa\t😀Aé\tn11\ta\tn21\tn21\tAaBBBBAaAaBBBBAa\tn0\tAaBBBBAaAa\tn19\tBBAaBBBBAaBBBBBB\tAaAaAaAaBBBBAaAa\taa\tAaAaBBBBAaAaAaBB\tAaAaBBBBAaBBBBAa\tAaAaBBBBAaAaAaBB\tn13\ta\tn10\tAaBBBBAaAaAaAaAa\tAaAaBBBBBBAaBBBB\tn7\tn20\tn19\t😀Aé\tBBBBAaBBAaBBBBBB\tAaBBBBAaAa\tn13\tAaAaBBBBAaBBBBAa\tn9\tAaBBAa\tn1\tAaBBBBAaAaAaAaAa\tBBAaAa\tn6\tBBAaAa\tAaBBBBAaAa\tn8\tn8\tn3",
			"n0\tn1\tn2\tn3\tn4\tn5\tn6\tn7\tn8\tn9\tn10\tn12\tn11\tn14\tn13\tn16\tn15\tn18\tn17\tn19\tAaBBAaAaBB\tAaBBBBAaAa\tBBBBBBBBAa\tAaBBBB\tAaAaAa\tBBBBBB\taa\tBBAaAa\tBBBBAa\tAaBBAa\tAaAaBB\tBBAaBB\tn21\tn20\tn22\tAaBBBBAaAaAaAaAa\tBBBBAaBBAaBBBBBB\tAaAaBBAaAaBBAaAa\tAaAaBBBBAaAaAaBB\tAaAaAaAaBBBBAaAa\tAaAaAaAaBBAaAaBB\tBBBBAaBBBBBBBBAa\tAaBBAaAaAaAaAaAa\tAaAaBBBBBBAaBBBB\tAaAaBBBBAaBBBBAa\tAaBBBBAaAaBBBBAa\tBBAaBBAaBBBBBBBB\tBBAaBBBBAaBBBBBB\tBBAaBBBBBBAaAaAa\tBBBBAaAaAaBBBBAa\tBBBBAaAaBBBBBBAa\tBBBBBBBBAaBBBBAa\ta\t😀Aé"},
		{3034,
			"BBAaBBBBAa\tBBAaBBAaBBAaAa\tAaBBBBBBBBAaAaBB\tBBBBAaBBAaAaAaBB\tBBBBBBBBBBBBAa\tn20\tBBBBAaBBAaAaAaAa\tBBAaBBAaAa\tn8\tn32\tBBAaAaAaBBBBBBBB\tBBBBAaAaBBAaAaAa\tAaAaBBAaAaBBAaBB\tBBAaBBAaAaAaBBAa\tn26\tAaBBBBBBBB\tBBBBBBAaAaAaBB\tAaBBBBAaBBAaAa\tn6\tBBAaAaBBAaBBAa\tBBBBBBBBBBAaBB\tn17\tAaAaBBBBBB\tBBBBAaAaAa\tBBBBBBAaBBAaBBAa\tBBAaBBAaBB\tn11\tn1\tn2\tn0\tBBAaAaAaAa\tBBAaAaAaBBAaBB\tn7\tBBAaAaBBAaAaBBBB\tAaAaAaBBAaBBBBBB\tAaAaAaAaBB\tn16\tBBBBAaAaAaBBAa\tBBAaAaAaAaBBAaAa\tAaAaAaBBBB\tBBBBAaBBAaBBBB\tAaBBBBAaAa\tBBBBAaAaBBAaAa\tAaAaAaBBAaBBBBAa\tAaBBBBAaAaAaBBAa\tn3\tn25\tBBAaBBBBBBBBBB\tAaAaBBAaAa\tAaAaBBBBBBBBAaAa\tAaBBAaBBBB\tAaAaAaAaAa\tBBAaBBBBBBBBAa\tBBAaBBAaAaAaAa\tn28\tn31\tAaAaAaBBAa\tBBAaAaAaBB\tn12\tAaBBBBBBAaBBBBAa\tn34\tAaBBBBAaBB\tBBAaAaAaAaAaBBBB\tBBBBAaBBAa\tn9\tAaAaBBBBBBBBAaBB\tAaBBAaBBAaBBBB\tn18\tAaBBAaBBBBAaBBBB\tAaBBBBAaAaAaBBBB\tAaBBBBAaAaBBAaBB\tAaBBBBBBAa\tBBBBBBAaBB\tAaAaBBBBBBAaBBBB\tn29\tBBAaBBBBBBBBBBBB\tAaAaAaBBAaAaBBBB\tn4\tn14\tAaAaBBBBBBAaBB\tAaBBAaAaBB\tAaAaBBBBAa\tBBAaBBAaBBBBAa\tBBAaBBBBAaBB\tBBBBBBAaAaBBAaBB\tBBBBAaAaBBAaBB\tn19\tBBBBAaBBBB\tAaBBAaBBAa\tAaAaAaAaBBAaBB\tn27\tn21\tAaBBAaAaBBAaAaAa\tBBAaAaAaAaAa\tn23\tBBBBBBBBBB\tBBAaBBAaBBAa\tn5\tn13\tAaAaAaBBBBAaAa\tBBAaBBBBAa\tBBAaBBAaBBAaAa\tAaBBBBBBBBAaAaBB\tBBBBAaBBAaAaAaBB\tBBBBBBBBBBBBAa",
			"n12\tn11\tn14\tn13\tn16\tn18\tn17\tn19\tBBAaAaAaAa\tAaAaAaAaBB\tAaAaAaBBAa\tAaAaAaAaAa\tAaAaAaBBBB\tAaAaBBAaAa\tAaAaBBBBAa\tBBAaBBAaBB\tBBBBAaAaAa\tBBBBAaBBAa\tBBBBBBAaBB\tBBBBBBBBBB\tBBBBAaBBBB\tAaAaBBBBBB\tAaBBBBBBBB\tAaBBBBAaBB\tAaBBBBBBAa\tAaBBBBAaAa\tAaBBAaBBBB\tAaBBAaAaBB\tAaBBAaBBAa\tBBAaBBAaAa\tBBAaAaAaBB\tBBAaBBBBAa\tn21\tn20\tn23\tn25\tn27\tn26\tn29\tn28\tBBAaBBAaAaAaBBAa\tAaAaAaBBAaBBBBBB\tAaAaAaBBAaBBBBAa\tAaAaAaBBAaAaBBBB\tBBBBBBAaBBAaBBAa\tAaAaBBAaAaBBAaBB\tAaAaBBBBBBAaBBBB\tAaAaBBBBBBBBAaAa\tAaAaBBBBBBBBAaBB\tAaBBAaBBBBAaBBBB\tAaBBAaAaBBAaAaAa\tBBBBAaAaBBAaAaAa\tBBAaBBBBBBBBBBBB\tBBAaAaAaBBBBBBBB\tBBAaAaBBAaAaBBBB\tBBBBAaBBAaAaAaAa\tBBBBAaBBAaAaAaBB\tBBBBBBAaAaBBAaBB\tAaBBBBBBBBAaAaBB\tAaBBBBBBAaBBBBAa\tAaBBBBAaAaAaBBBB\tAaBBBBAaAaBBAaBB\tAaBBBBAaAaAaBBAa\tBBAaAaAaAaBBAaAa\tBBAaAaAaAaAaBBBB\tn32\tn31\tn34\tn0\tn1\tn2\tn3\tn4\tn5\tn6\tn7\tn8\tn9\tBBAaBBAaBBAa\tBBAaAaAaAaAa\tBBAaBBBBAaBB\tBBBBAaAaAaBBAa\tBBAaBBAaBBAaAa\tBBAaAaAaBBAaBB\tBBBBBBBBBBAaBB\tBBAaAaBBAaBBAa\tBBAaBBAaAaAaAa\tAaBBBBAaBBAaAa\tAaBBAaBBAaBBBB\tAaAaBBBBBBAaBB\tAaAaAaAaBBAaBB\tAaAaAaBBBBAaAa\tBBBBBBAaAaAaBB\tBBBBBBBBBBBBAa\tBBAaBBBBBBBBBB\tBBAaBBBBBBBBAa\tBBAaBBAaBBBBAa\tBBBBAaBBAaBBBB\tBBBBAaAaBBAaAa\tBBBBAaAaBBAaBB"},
		{3429,
			"n8\tAaAaAa\tn23\tn24\tb\tn8\tééé\tn24\tn4\t😀\tn21\tABbAé\tn27\tn1\tAa\tn4\tn41\tn22\tAaBBAaAaAaAa\tAaBBAaAaAaAa\tn26\tn20\tn5\tAaAaAa\té😀ab\té😀ab\tn14\tBBAaAa\tAA\tAaBBAaBBAaAa\tAaBBAaAaAaAa\tn36\tn10\t😀\tn7\tAaA😀😀\tn25\téé\tabA😀\tBBAaAaBBBBBB\tn4\tn15\tn6\t😀b\tBBBba\tAaB\tAaAaAa\tAaB\tAaBBAaBBAaAa\tn15\tn1\tn40\tBAaA\tn34\tA😀\tn38\tn3\tbaéab\téé\tBBAaAaBBBBBB\tn25\tbaéab\tBBBba\tBAaA\tn26\tn38\tééé\tAb😀éA\tBBAaAa\tn36\tBBAaAaBBBBBB\tn38\tn31\tAaBBAaBBAaAa\tn19\tAé\tBBAaAaBBBBBB\tbaéab\tn10\tAaB\tn8\tBAAb\tn14\tA😀\tn38\tabA😀\tAaBBAaAaAaAa\tabA😀\tn13\tAbA\tn36\tAaA😀😀\tn0\tn39\tAé\tAaB\tBBAaAaBBBBBB\tn28\té😀ab\tn25\tBAaA\tAA\tBAAb\tAaBBAaBBAaBB\téé\tBBBBAa\tAbA\tn29\tn17\tb\tAa\tn22\tn14\tBB\tABbAé\tn3\taBBb\tn29\tn8\tn16\tn38\tn5\tn13\tn27\tA😀\tn18\tn17\tn36\tBAaA\tAaB\tn11\tA😀\té\tn36\tAa\tABbAé\tAaAaAa\t😀b\tA😀\tAaBBAaAaAaAa\tAbA\tn15\tBAaA\tn9\tn13\tAaé\tn16\tn3\tn18\tn37\tb😀B\tn26\tbaéab\tn27\tn18\tA😀\tABbAé\tn34\t😀\tBAaA\té😀ab\tAaA😀😀\tbA\tAaA😀😀\tn5\tn22\tAaB\tBBAaAaBBBBBB\tn3\tn2\tn5\tn40\tBBAaAaBBBBBB\té\té\tn35",
			"BBBba\tAb😀éA\tn0\tAaB\tn1\tn2\tn3\tn4\tn5\tn6\tn7\tn8\tn9\taBBb\tn10\tn11\tn14\tn13\tn16\tn15\tn18\tn17\tn19\t😀b\tbA\tAaBBAaBBAaAa\tBBAaAaBBBBBB\tAaBBAaBBAaBB\téé\tAA\tBBAaAa\tBBBBAa\tAaBBAaAaAaAa\tAaAaAa\tAbA\tAaé\tn21\tn20\tn23\tn22\tn25\tAaA😀😀\tn24\tn27\tn26\tn29\tn28\tabA😀\tbaéab\tBB\tAa\tAé\tééé\tn31\té😀ab\tn34\tn36\tn35\tn38\tn37\tn39\tABbAé\tBAAb\tBAaA\tb\té\tn41\tn40\tb😀B\tA😀\t😀"},
		{4326,
			"n53\tBb\tn74\tn60\tn92\tn30\tBBBBAaBBBBBB\tn117\tn79\tn8\tn94\tn78\tn97\tAaBBBBBBAaAa\tn66\tn23\tAéaa😀\t😀ébA\tn2\tn43\tn21\tn98\tn96\tn87\tn88\tn50\tn102\tn12\tBBAaBBAa\tn61\tn62\tn115\tAaBBAaBBBBBB\tBBBBBBAaBBAa\tAaBBBBAaBBBB\t😀A\tn100\tn35\tn105\tBBAaAaAaAaBB\tAaBBAaBBBBAa\tn34\tn18\tn29\tn24\tn84\tn71\tn20\tn11\tn83\tn22\tn28\tn4\tAaAaBBAaAaBB\tBBAaAaAaBBAa\tn17\tBBAaAaBBAaBB\tn77\tn39\tn70\tn114\tn14\t😀aAb\tn67\tBBBBBBAa\tn59\tB\tAaAaAaAa\tn25\tBBBBAaAa\tAaaA\tn40\tn1\tn99\tn48\tn33\tn68\tn51\tn57\tBBBBAaBBAaBB\tn54\tn108\tn85\tn55\tn112\tn10\tn80\tn113\t😀😀\tn41\tBBAaBBAaAaAa\tn93\tBbaaB\tn52\tn95\tn116\tBBAaAaBB\tn90\tn72\tn15\tn65\tAaBBBBAa\tn86\tn9\tBa😀B\tn47\tn13\tn109\tBBBBBBAaAaAa\tn19\tn58\tn37\tBBAaBBBB\tn82\tn101\tn6\tn3\tn89\tn75\taaB\tn106\tn81\tn16\tn119\tn27\tn64\tn7\tn26\tn0\ta\tn32\tn38\tAaAaBBAaAaAaAaAa\tAaBBBBAaBBAa\tn118\tAaAaAaBBBBAa\tn73\tn91\tn103\tn53\tBb\tn74\tn60\tn92",
			"😀aAb\tn90\tn92\tn91\tn94\tn93\tn96\tn95\tn10\tn98\tn97\tn12\tn99\tn11\tn14\tn13\tn16\tBbaaB\tn15\tn18\tn17\tn19\taaB\tn21\tn20\tn23\tn22\tn25\tn24\tn27\tn26\tn29\tn28\tAaAaBBAaAaAaAaAa\tB\tn30\tn32\tAéaa😀\tn34\tn33\tn35\tn38\tn37\tn39\tAaaA\tBb\ta\tn41\tn40\tn43\tn47\tn48\t😀A\tn0\tn1\tn2\tn3\tn4\tn6\tn50\tn7\tn52\tn8\tn9\tn51\tn54\tn53\tn55\tn58\tn57\tn59\tBa😀B\t😀ébA\tBBAaAaAaAaBB\tAaBBBBAaBBBB\tAaBBAaBBBBAa\tAaAaBBAaAaBB\tAaAaAaBBBBAa\tBBBBBBAaBBAa\tBBBBBBAaAaAa\tAaBBAaBBBBBB\tAaBBBBAaBBAa\tAaBBBBBBAaAa\tBBBBAaBBBBBB\tBBAaAaAaBBAa\tBBAaAaBBAaBB\tBBBBAaBBAaBB\tBBAaBBAaAaAa\tn61\tn60\tn62\tn65\tn64\t😀😀\tn67\tn66\tn68\tn70\tn72\tBBAaAaBB\tBBAaBBBB\tAaBBBBAa\tBBBBAaAa\tAaAaAaAa\tBBBBBBAa\tn71\tBBAaBBAa\tn74\tn73\tn75\tn78\tn77\tn79\tn114\tn115\tn112\tn113\tn118\tn119\tn116\tn117\tn81\tn80\tn83\tn82\tn85\tn84\tn87\tn86\tn89\tn88\tn100\tn103\tn101\tn102\tn108\tn105\tn106\tn109"},
	}
	for _, tt := range tests {
		m := New(String)
		for _, k := range strings.Split(tt.calls, "\t") {
			m.ComputeIfAbsent(k)
		}
		got := m.Keys()
		if diff := cmp.Diff(strings.Split(tt.want, "\t"), got); diff != "" {
			t.Errorf("sequence %d: iteration order (-want +got):\n%s", tt.line, diff)
		}
	}
}

func TestComputeIfAbsent(t *testing.T) {
	m := New(String)
	for i, k := range []string{"a", "b", "a", "c", "b"} {
		got, added := m.ComputeIfAbsent(k)
		want := map[string]int{"a": 0, "b": 1, "c": 2}[k]
		wantAdded := i == 0 || i == 1 || i == 3
		if got != want || added != wantAdded {
			t.Errorf("call %d computeIfAbsent(%q) = %d, %v; want %d, %v", i, k, got, added, want, wantAdded)
		}
	}
}

// TestPutOrderMatchesMap checks PutOrder against Map (itself checked against the JDK by
// TestMapAgainstJDK) on random key sets: hash codes drawn from a small range (many collisions),
// a wide one, or one value with a few bits varied (long buckets, tree bins), maps made by New
// and WithInitialCapacity; where PutOrder declines (a load above TreeifyThreshold) the test
// only counts it.
func TestPutOrderMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	declined := 0
	for c := range 4000 {
		n := []int{0, 1, 2, 3, 7, 8, 9, 13, 40, 100, 700}[rng.IntN(11)]
		hashes := make([]int32, n)
		for i := range hashes {
			switch c % 3 {
			case 0:
				hashes[i] = int32(rng.IntN(64))
			case 1:
				hashes[i] = int32(rng.Uint32())
			default:
				hashes[i] = int32(rng.IntN(4)) << uint(rng.IntN(20))
			}
		}
		initial := []int{-1, 0, 1, 2, 3, 5, 16, 100}[rng.IntN(8)]
		class := Class[int]{HashCode: func(i int) int32 { return hashes[i] }}
		m := New(class)
		if initial >= 0 {
			m = WithInitialCapacity(class, initial)
		}
		for i := range n {
			m.Put(i)
		}
		got, capacity, load := PutOrder(n, func(i int) int32 { return hashes[i] }, initial)
		if load > TreeifyThreshold {
			declined++
			continue
		}
		if capacity != m.Capacity() {
			t.Fatalf("case %d: hashes %v, initial %d: PutOrder's capacity %d, Map's %d", c, hashes, initial, capacity, m.Capacity())
		}
		if want := m.Order(); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Fatalf("case %d: hashes %v, initial %d: PutOrder %v, Map %v", c, hashes, initial, got, want)
		}
	}
	if declined == 0 || declined > 2000 {
		t.Errorf("PutOrder declined %d of 4000 cases: the generator lost its long buckets", declined)
	}
}
