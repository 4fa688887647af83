package model

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRepartitionOperatorStateAgainstJDK runs RepartitionOperatorState and an independent
// implementation of SPEC §E in Java (jdkOracleSource, written from the spec, not from Flink's
// source) on the same random inputs and compares the results. The Java side uses the real
// java.util.HashMap (computeIfAbsent, iteration order, resizes, tree bins, String.compareTo
// over UTF-16), java.util.BitSet.size() and map put semantics, so it checks what the golden
// vectors cover only thinly: many SPLIT_DISTRIBUTE names with colliding hashes (tree bins),
// streams shared by several handles, one name in several modes, P_old in 63..129 for the BitSet
// quirk, unchanged parallelism with partly reported broadcast state, and Flink's
// Collectors.toMap duplicate-key failure. Skipped with -short or without a JDK on PATH.
func TestRepartitionOperatorStateAgainstJDK(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs a Java program")
	}
	javac, err1 := exec.LookPath("javac")
	java, err2 := exec.LookPath("java")
	if err1 != nil || err2 != nil {
		t.Skip("no JDK on PATH")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Oracle.java"), []byte(jdkOracleSource), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(javac, "-d", dir, filepath.Join(dir, "Oracle.java")).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}

	const seed, cases = 20261130, 1000
	rng := rand.New(rand.NewPCG(seed, 0))
	var in strings.Builder
	texts := map[string]string{}
	want := map[string][]string{} // the Go model's lines, by case header
	for id := range cases {
		oldP, newP, prev := jdkRandomCase(rng)
		for _, v := range []FlinkVersion{Flink118, Flink1101} {
			key := fmt.Sprintf("case %d %s", id, jdkVersion(v))
			text := jdkCaseText(id, v, oldP, newP, prev)
			texts[key] = text
			in.WriteString(text)
			want[key] = jdkModelLines(v, prev, newP)
		}
	}
	cmd := exec.Command(java, "-cp", dir, "Oracle")
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("java: %v", err)
	}
	got := map[string][]string{}
	var cur string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		if l := sc.Text(); strings.HasPrefix(l, "case ") {
			cur = l
			got[cur] = []string{}
		} else {
			got[cur] = append(got[cur], l)
		}
	}
	for _, lines := range got {
		slices.Sort(lines) // the oracle sorts by String.compareTo (UTF-16), the model by bytes
	}
	if len(got) != len(want) {
		t.Fatalf("the Java oracle answered %d cases, want %d", len(got), len(want))
	}
	failures := 0
	for id := range cases {
		for _, v := range []FlinkVersion{Flink118, Flink1101} {
			key := fmt.Sprintf("case %d %s", id, jdkVersion(v))
			if diff := cmp.Diff(got[key], want[key]); diff != "" {
				t.Errorf("%s (seed %d): the model differs from the JDK oracle (-jdk +model):\n%s\ninput:\n%s", key, seed, diff, texts[key])
				if failures++; failures == 3 {
					t.FailNow()
				}
			}
		}
	}
}

func jdkVersion(v FlinkVersion) string {
	if v == Flink1101 {
		return "1101"
	}
	return "118"
}

// jdkModelLines runs the model and prints its result as the oracle does: one "H subtask
// stream" line per handle, one "S subtask stream name mode offsets…" line per state, sorted.
func jdkModelLines(v FlinkVersion, prev [][]OperatorStateHandle, newP int) []string {
	res, err := RepartitionOperatorState(v, prev, newP)
	if errors.Is(err, ErrDuplicateDelegate) {
		return []string{"error duplicate"}
	}
	if err != nil {
		return []string{"error " + err.Error()}
	}
	lines := []string{}
	for i, hs := range res {
		for _, h := range hs {
			lines = append(lines, fmt.Sprintf("H %d %s", i, h.Delegate.Path))
			for _, st := range h.States {
				var b strings.Builder
				fmt.Fprintf(&b, "S %d %s %s %v", i, h.Delegate.Path, st.Name, st.Mode)
				for _, o := range st.Offsets {
					b.WriteString(" " + strconv.FormatInt(o, 10))
				}
				lines = append(lines, b.String())
			}
		}
	}
	slices.Sort(lines)
	return lines
}

// jdkCaseText writes a case in the oracle's input format.
func jdkCaseText(id int, v FlinkVersion, oldP, newP int, prev [][]OperatorStateHandle) string {
	var b strings.Builder
	fmt.Fprintf(&b, "case %d %s %d %d\n", id, jdkVersion(v), oldP, newP)
	for j, hs := range prev {
		fmt.Fprintf(&b, "sub %d %d\n", j, len(hs))
		for _, h := range hs {
			fmt.Fprintf(&b, "h %s %d\n", h.Delegate.Path, len(h.States))
			for _, st := range h.States {
				fmt.Fprintf(&b, "s %s %v %d", st.Name, st.Mode, len(st.Offsets))
				for _, o := range st.Offsets {
					b.WriteString(" " + strconv.FormatInt(o, 10))
				}
				b.WriteString("\n")
			}
		}
	}
	b.WriteString("end\n")
	return b.String()
}

// jdkNamePool holds state names for jdkRandomCase: ordinary ones, families whose Java hashes
// collide (Aa/BB concatenations; and two prefixes with equal hashes where one starts with
// U+E000 and the other with the surrogate pair of U+10000, which String.compareTo and Go's
// byte order rank differently), and n0..n59.
var jdkNamePool, jdkColliding = func() ([]string, []string) {
	pool := []string{"a", "b", "c", "x", "y", "z", "Aa", "BB", "AaAa", "BBBB", "AaBB", "BBAa",
		"offsets", "buffer", "s2", "s5", "pending", "é", "中文", "😀"}
	family := func(prefix string, pairs int) []string {
		out := []string{prefix}
		for range pairs {
			var next []string
			for _, s := range out {
				next = append(next, s+"Aa", s+"BB")
			}
			out = next
		}
		return out
	}
	pool = append(pool, family("", 3)...)
	colliding := family("", 4)
	pool = append(pool, colliding...)
	utf16 := append(family("\ue000\u5b03\u6418\u9f2b\u775c\u7ac1\u60c5", 3), family("\U00010000\u659a\u9f9e\u8f5f\u8f52\u7ba1", 3)...)
	pool = append(pool, utf16...)
	for i := range 60 {
		pool = append(pool, "n"+strconv.Itoa(i))
	}
	return pool, append(colliding, utf16...)
}()

// jdkRandomCase draws one input; offsets are unique over the input.
func jdkRandomCase(rng *rand.Rand) (oldP, newP int, prev [][]OperatorStateHandle) {
	if rng.IntN(10) == 0 {
		oldP = []int{63, 64, 65, 127, 128, 129}[rng.IntN(6)]
		newP = oldP
		if rng.IntN(10) < 3 {
			newP = 1 + rng.IntN(130)
		}
	} else {
		oldP = rng.IntN(10)
		newP = 1 + rng.IntN(10)
		if oldP > 0 && rng.IntN(100) < 35 {
			newP = oldP
		}
	}
	pick := func(src []string, n int) []string {
		s := slices.Clone(src)
		rng.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
		return s[:min(n, len(s))]
	}
	names := pick(jdkNamePool, []int{1, 2, 3, 5, 8, 13, 20, 40, 70}[rng.IntN(9)])
	if rng.IntN(100) < 15 { // one colliding family in full: tree bins
		names = slices.Concat(jdkColliding[:16], pick(names, 5))
		if rng.IntN(2) == 0 {
			names = slices.Concat(jdkColliding[16:], pick(names, 8))
		}
		names = sortedUnique(names)
		rng.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	}
	modes := []DistributionMode{SplitDistribute, SplitDistribute, SplitDistribute, Union, Broadcast}
	mode := map[string]DistributionMode{}
	for _, n := range names {
		mode[n] = modes[rng.IntN(len(modes))]
	}
	inconsistent := rng.IntN(10) == 0
	shared := rng.IntN(100) < 15
	nextDelegate, nextOffset := 0, int64(0)
	large := oldP > 20
	prev = make([][]OperatorStateHandle, oldP)
	for j := range prev {
		prev[j] = []OperatorStateHandle{}
		nh := []int{0, 1, 1, 1, 2, 3}[rng.IntN(6)]
		if large && rng.IntN(10) < 8 {
			nh = 1
		}
		for range nh {
			d := nextDelegate
			if shared && nextDelegate > 0 && rng.IntN(10) < 3 {
				d = rng.IntN(nextDelegate)
			} else {
				nextDelegate++
			}
			h := OperatorStateHandle{Delegate: StreamHandle{Path: strconv.Itoa(d)}}
			maxStates := 40
			if large {
				maxStates = 3
			}
			for _, n := range pick(names, rng.IntN(min(len(names), maxStates)+1)) {
				m := mode[n]
				if inconsistent && rng.IntN(10) < 3 {
					m = modes[rng.IntN(len(modes))]
				}
				k := []int{0, 0, 1, 1, 2, 3, 5}[rng.IntN(7)]
				if m == Broadcast {
					k = []int{0, 1, 3}[rng.IntN(3)]
				}
				offs := make([]int64, k)
				for i := range offs {
					offs[i] = nextOffset
					nextOffset++
				}
				h.States = append(h.States, NamedOperatorState{Name: n, Mode: m, Offsets: offs})
			}
			prev[j] = append(prev[j], h)
		}
	}
	return oldP, newP, prev
}

func sortedUnique(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

func TestJDKNamePoolCollides(t *testing.T) {
	for _, fam := range [][]string{jdkColliding[:16], jdkColliding[16:]} {
		for _, n := range fam {
			if JavaStringHash(n) != JavaStringHash(fam[0]) {
				t.Errorf("%q and %q: Java hashes %d and %d, want equal", n, fam[0], JavaStringHash(n), JavaStringHash(fam[0]))
			}
		}
	}
}

// jdkOracleSource is the Java side of TestRepartitionOperatorStateAgainstJDK.
const jdkOracleSource = `import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.*;

// Independent oracle for SPEC §E, written from the spec, using the real JDK HashMap and BitSet.
public class Oracle {
    static final class D { final int id; D(int id){this.id=id;} public boolean equals(Object o){return o instanceof D && ((D)o).id==id;} public int hashCode(){return Integer.hashCode(id)*31+7;} }
    static final class Meta { final long[] offs; final String mode; Meta(long[] o,String m){offs=o;mode=m;} }
    static final class H { final D d; final Map<String,Meta> states; H(D d, Map<String,Meta> s){this.d=d;states=s;} }
    static final class E { final D d; final Meta m; E(D d, Meta m){this.d=d;this.m=m;} }

    public static void main(String[] a) throws Exception {
        BufferedReader r = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintWriter w = new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
        String line;
        while ((line = r.readLine()) != null) {
            String[] f = line.split(" ");
            String id = f[1]; boolean modern = f[2].equals("118"); int oldP = Integer.parseInt(f[3]); int newP = Integer.parseInt(f[4]);
            List<List<H>> prev = new ArrayList<>();
            for (int j = 0; j < oldP; j++) {
                String[] sf = r.readLine().split(" "); int nh = Integer.parseInt(sf[2]);
                List<H> hs = new ArrayList<>();
                for (int k = 0; k < nh; k++) {
                    String[] hf = r.readLine().split(" "); D d = new D(Integer.parseInt(hf[1])); int ns = Integer.parseInt(hf[2]);
                    Map<String,Meta> st = new LinkedHashMap<>();
                    for (int s = 0; s < ns; s++) {
                        String[] tf = r.readLine().split(" ", -1);
                        int n = Integer.parseInt(tf[3]); long[] offs = new long[n];
                        for (int i = 0; i < n; i++) offs[i] = Long.parseLong(tf[4+i]);
                        st.put(tf[1], new Meta(offs, tf[2]));
                    }
                    hs.add(new H(d, st));
                }
                prev.add(hs);
            }
            r.readLine(); // end
            w.println("case " + id + " " + f[2]);
            List<String> out = new ArrayList<>();
            try {
                List<List<H>> res = repartition(modern, prev, oldP, newP);
                for (int i = 0; i < res.size(); i++) for (H h : res.get(i)) {
                    out.add("H " + i + " " + h.d.id);
                    for (Map.Entry<String,Meta> e : h.states.entrySet()) {
                        StringBuilder b = new StringBuilder("S " + i + " " + h.d.id + " " + e.getKey() + " " + e.getValue().mode);
                        for (long o : e.getValue().offs) b.append(' ').append(o);
                        out.add(b.toString());
                    }
                }
            } catch (IllegalStateException ex) { out.add("error duplicate"); }
            Collections.sort(out);
            for (String s : out) w.println(s);
        }
        w.flush();
    }

    static void put(Map<D,H> mm, D d, String name, Meta m) {
        mm.computeIfAbsent(d, k -> new H(k, new HashMap<>())).states.put(name, m);
    }

    static List<List<H>> repartition(boolean modern, List<List<H>> prev, int oldP, int newP) {
        List<Map<D,H>> mml = new ArrayList<>();
        if (newP == oldP) {
            Map<String,List<E>> union = new HashMap<>();
            Map<String,List<E>> bc = new HashMap<>();
            Map<String,BitSet> rep = new HashMap<>();
            for (int j = 0; j < oldP; j++) for (H h : prev.get(j)) for (Map.Entry<String,Meta> e : h.states.entrySet()) {
                if (e.getValue().mode.equals("UNION")) union.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(new E(h.d, e.getValue()));
                if (modern && e.getValue().mode.equals("BROADCAST")) {
                    bc.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(new E(h.d, e.getValue()));
                    rep.computeIfAbsent(e.getKey(), k -> new BitSet(oldP)).set(j);
                }
            }
            Map<String,List<E>> partly = new HashMap<>();
            for (Map.Entry<String,List<E>> e : bc.entrySet()) { BitSet b = rep.get(e.getKey()); if (b.cardinality() > 0 && b.cardinality() < b.size()) partly.put(e.getKey(), e.getValue()); }
            if (union.isEmpty() && partly.isEmpty()) return prev;
            for (int j = 0; j < oldP; j++) {
                Map<D,H> mm = new HashMap<>();
                for (H h : prev.get(j)) {
                    if (mm.containsKey(h.d)) throw new IllegalStateException("dup");
                    mm.put(h.d, new H(h.d, new HashMap<>(h.states)));
                }
                mml.add(mm);
            }
            for (int i = 0; i < newP; i++) for (Map.Entry<String,List<E>> e : union.entrySet()) for (E x : e.getValue()) put(mml.get(i), x.d, e.getKey(), x.m);
            for (int i = 0; i < newP; i++) for (Map.Entry<String,List<E>> e : partly.entrySet()) { E x = e.getValue().get(i % e.getValue().size()); put(mml.get(i), x.d, e.getKey(), x.m); }
        } else {
            Map<String,List<E>> split = new HashMap<>(), union = new HashMap<>(), bc = new HashMap<>();
            for (List<H> hs : prev) for (H h : hs) for (Map.Entry<String,Meta> e : h.states.entrySet()) {
                Map<String,List<E>> m = e.getValue().mode.equals("SPLIT_DISTRIBUTE") ? split : e.getValue().mode.equals("UNION") ? union : bc;
                m.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(new E(h.d, e.getValue()));
            }
            for (int i = 0; i < newP; i++) mml.add(new HashMap<>());
            int start = 0;
            for (Map.Entry<String,List<E>> e : split.entrySet()) {
                List<E> cur = e.getValue(); int total = 0; for (E x : cur) total += x.m.offs.length;
                int base = total / newP, rem = total % newP, next = start, li = 0, oi = 0;
                for (int k = 0; k < newP; k++) {
                    int t = (k + start) % newP; int n = base;
                    if (rem > 0) { n++; rem--; } else if (rem == 0) { next = t; rem--; }
                    while (n > 0) {
                        E x = cur.get(li); int left = x.m.offs.length - oi; long[] g;
                        if (left > n) { g = Arrays.copyOfRange(x.m.offs, oi, oi + n); oi += n; }
                        else { g = Arrays.copyOfRange(x.m.offs, oi, x.m.offs.length); oi = 0; li++; }
                        n -= left;
                        put(mml.get(t), x.d, e.getKey(), new Meta(g, "SPLIT_DISTRIBUTE"));
                    }
                }
                start = next;
            }
            for (int i = 0; i < newP; i++) for (Map.Entry<String,List<E>> e : union.entrySet()) for (E x : e.getValue()) put(mml.get(i), x.d, e.getKey(), x.m);
            for (int i = 0; i < newP; i++) for (Map.Entry<String,List<E>> e : bc.entrySet()) { E x = e.getValue().get(i % e.getValue().size()); put(mml.get(i), x.d, e.getKey(), x.m); }
        }
        List<List<H>> res = new ArrayList<>();
        for (Map<D,H> mm : mml) res.add(new ArrayList<>(mm.values()));
        return res;
    }
}
`
