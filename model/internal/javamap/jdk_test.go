package javamap

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// operatorID is Flink's OperatorID for the tests: 16 bytes, the lower long then the upper long,
// big-endian (AbstractID(byte[])).
type operatorID [16]byte

// operatorIDClass models OperatorID as a HashMap key: AbstractID.hashCode, no compareTo
// (comparableClassFor rejects a class that inherits Comparable<AbstractID>).
var operatorIDClass = Class[operatorID]{HashCode: func(id operatorID) int32 {
	var h uint32
	for i := 0; i < 16; i += 4 {
		h ^= binary.BigEndian.Uint32(id[i:])
	}
	return int32(h)
}}

// idWithHash gives a random OperatorID whose AbstractID.hashCode is h.
func idWithHash(rng *rand.Rand, h int32) operatorID {
	var id operatorID
	binary.BigEndian.PutUint64(id[0:], rng.Uint64())
	binary.BigEndian.PutUint32(id[8:], rng.Uint32())
	rest := binary.BigEndian.Uint32(id[0:]) ^ binary.BigEndian.Uint32(id[4:]) ^ binary.BigEndian.Uint32(id[8:])
	binary.BigEndian.PutUint32(id[12:], uint32(h)^rest)
	return id
}

// jdkMapSource replays map calls on the real java.util.HashMap. Input: one case per line,
// "<ctor>\t<call>\t<class>\t<key>\t<key>…" with ctor "default", "cap:N" (new HashMap<>(N)) or
// "expected:N" (Flink's newHashMapWithExpectedSize(N), copied), call "put" or "cia"
// (computeIfAbsent), class "string" or "id" (a 32-hex-digit OperatorID). Output: the keys in
// keySet() order, tab-separated, one line per case. OperatorID and AbstractID copy Flink's
// classes as far as HashMap sees them (hashCode, equals, Comparable<AbstractID> declared on
// AbstractID only).
const jdkMapSource = `
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.*;

public class MapOracle {
    static class AbstractID implements Comparable<AbstractID> {
        final long lowerPart, upperPart;
        AbstractID(long lower, long upper) { lowerPart = lower; upperPart = upper; }
        @Override public boolean equals(Object obj) {
            if (obj == this) return true;
            if (obj != null && obj.getClass() == getClass()) {
                AbstractID that = (AbstractID) obj;
                return that.lowerPart == lowerPart && that.upperPart == upperPart;
            }
            return false;
        }
        @Override public int hashCode() {
            return ((int) lowerPart) ^ ((int) (lowerPart >>> 32)) ^ ((int) upperPart) ^ ((int) (upperPart >>> 32));
        }
        @Override public int compareTo(AbstractID o) {
            int d1 = Long.compare(upperPart, o.upperPart);
            return d1 != 0 ? d1 : Long.compare(lowerPart, o.lowerPart);
        }
        @Override public String toString() { return String.format("%016x%016x", lowerPart, upperPart); }
    }
    static class OperatorID extends AbstractID {
        OperatorID(long lower, long upper) { super(lower, upper); }
    }

    static int computeRequiredCapacity(int expectedSize, float loadFactor) {
        if (expectedSize <= 2) return expectedSize + 1;
        return expectedSize < (Integer.MAX_VALUE / 2 + 1) ? (int) Math.ceil(expectedSize / loadFactor) : Integer.MAX_VALUE;
    }

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(new BufferedOutputStream(System.out), false, "UTF-8");
        for (String line; (line = in.readLine()) != null; ) {
            String[] f = line.split("\t", -1);
            HashMap<Object, Integer> m;
            if (f[0].equals("default")) m = new HashMap<>();
            else if (f[0].startsWith("cap:")) m = new HashMap<>(Integer.parseInt(f[0].substring(4)));
            else m = new HashMap<>(computeRequiredCapacity(Integer.parseInt(f[0].substring(9)), 0.75f), 0.75f);
            for (int i = 3; i < f.length; i++) {
                Object k = f[2].equals("string") ? f[i]
                    : new OperatorID(Long.parseUnsignedLong(f[i].substring(0, 16), 16), Long.parseUnsignedLong(f[i].substring(16), 16));
                if (f[1].equals("put")) m.put(k, i);
                else m.computeIfAbsent(k, x -> 1);
            }
            out.println(String.join("\t", m.keySet().stream().map(Object::toString).toArray(String[]::new)));
        }
        out.flush();
    }
}
`

// runJDK compiles jdkMapSource and runs it on the cases; it skips the test without a JDK.
func runJDK(t *testing.T, cases []string) []string {
	t.Helper()
	if testing.Short() {
		t.Skip("compiles and runs a Java program")
	}
	javac, err1 := exec.LookPath("javac")
	java, err2 := exec.LookPath("java")
	if err1 != nil || err2 != nil {
		t.Skip("no JDK on PATH")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "MapOracle.java"), []byte(jdkMapSource), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(javac, "-d", dir, filepath.Join(dir, "MapOracle.java")).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	cmd := exec.Command(java, "-cp", dir, "MapOracle")
	cmd.Stdin = strings.NewReader(strings.Join(cases, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("java: %v", err)
	}
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) != len(cases) {
		t.Fatalf("the Java oracle answered %d cases, want %d", len(lines), len(cases))
	}
	return lines
}

// jdkCase is one random sequence of calls on one map.
type jdkCase struct {
	ctor string // "default", "cap:N" or "expected:N"
	put  bool   // put, else computeIfAbsent
	keys []string
	ids  []operatorID // instead of keys when not nil
}

func (c jdkCase) text() string {
	call, class := "cia", "string"
	if c.put {
		call = "put"
	}
	keys := c.keys
	if c.ids != nil {
		class = "id"
		keys = nil
		for _, id := range c.ids {
			keys = append(keys, hex.EncodeToString(id[:]))
		}
	}
	return strings.Join(append([]string{c.ctor, call, class}, keys...), "\t")
}

// run replays the case on Map and returns the keys in iteration order, as the oracle prints
// them, the number of identity tie-breaks, and whether the map ends with a tree bin.
func (c jdkCase) run() (keys string, ties int, tree bool) {
	if c.ids != nil {
		return replay(c, operatorIDClass, c.ids, func(id operatorID) string { return hex.EncodeToString(id[:]) })
	}
	return replay(c, String, c.keys, func(s string) string { return s })
}

func replay[K comparable](c jdkCase, class Class[K], keys []K, format func(K) string) (string, int, bool) {
	var n int
	if c.ctor != "default" {
		fmt.Sscanf(c.ctor[strings.IndexByte(c.ctor, ':')+1:], "%d", &n)
	}
	m := New(class)
	if strings.HasPrefix(c.ctor, "cap:") {
		m = WithInitialCapacity(class, n)
	} else if strings.HasPrefix(c.ctor, "expected:") {
		m = WithExpectedSize(class, n)
	}
	for _, k := range keys {
		if c.put {
			m.Put(k)
		} else {
			m.ComputeIfAbsent(k)
		}
	}
	var out []string
	for _, k := range m.Keys() {
		out = append(out, format(k))
	}
	tree := false
	for _, b := range m.bins {
		tree = tree || b.tree
	}
	return strings.Join(out, "\t"), m.IdentityTieBreaks(), tree
}

// randomJDKCase draws a call sequence that often overfills buckets: String keys from families
// with one hash code (blocks "Aa"/"BB", NUL strings) mixed with plain names, or OperatorIDs
// whose hash codes agree in their low bits (or, for some, entirely).
func randomJDKCase(rng *rand.Rand) jdkCase {
	var c jdkCase
	n := 1 + rng.IntN(120)
	switch rng.IntN(3) {
	case 0:
		c.ctor = "default"
	case 1:
		c.ctor = fmt.Sprintf("cap:%d", rng.IntN(n+1))
	default:
		c.ctor = fmt.Sprintf("expected:%d", rng.IntN(n+1))
	}
	c.put = rng.IntN(2) == 0
	if rng.IntN(2) == 0 {
		var pool []string
		pool = append(pool, prefixed("p", aaBB(4))...)
		pool = append(pool, prefixed("q", aaBB(3))...)
		pool = append(pool, nuls(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)...)
		pool = append(pool, names("n", 0, 80)...)
		for range n {
			c.keys = append(c.keys, pool[rng.IntN(len(pool))])
		}
		return c
	}
	shift := rng.IntN(12)
	var pool []operatorID
	for range 40 {
		h := int32(rng.Uint32()) << shift // low bits zero: one bucket for tables up to 2^shift
		if rng.IntN(3) == 0 {
			h = int32(rng.Uint32())
		}
		pool = append(pool, idWithHash(rng, h))
	}
	if rng.IntN(4) == 0 { // some keys with one hash code: identity tie-breaks
		for range 12 {
			pool = append(pool, idWithHash(rng, 1<<20))
		}
	}
	for range n {
		c.ids = append(c.ids, pool[rng.IntN(len(pool))])
	}
	return c
}

// TestMapAgainstJDK replays random put and computeIfAbsent sequences on java.util.HashMap
// (the JDK on PATH) and on Map, with each constructor, String keys and OperatorID keys, and
// compares the iteration orders, tree bins included. Cases whose order rests on identity hash
// codes are not compared (the JVM's differ from run to run); the test checks that some were
// drawn and that all others agree.
func TestMapAgainstJDK(t *testing.T) {
	const seed, cases = 20261201, 3000
	rng := rand.New(rand.NewPCG(seed, 0))
	var in []jdkCase
	var texts []string
	for range cases {
		c := randomJDKCase(rng)
		in = append(in, c)
		texts = append(texts, c.text())
	}
	got := runJDK(t, texts)
	compared, ties, trees := 0, 0, 0
	for i, c := range in {
		want, tie, tree := c.run()
		if tie > 0 {
			ties++
			continue
		}
		compared++
		if diff := cmp.Diff(strings.Split(got[i], "\t"), strings.Split(want, "\t")); diff != "" {
			t.Fatalf("case %d (seed %d): Map differs from java.util.HashMap (-jdk +model):\n%s\ninput: %q", i, seed, diff, texts[i])
		}
		if tree {
			trees++
		}
	}
	t.Logf("%d cases compared (%d with a tree bin at the end), %d left out for identity tie-breaks", compared, trees, ties)
	if ties == 0 || trees < cases/10 {
		t.Errorf("weak draw: %d cases with identity tie-breaks, %d with a tree bin", ties, trees)
	}
}
