package oracle

import (
	"encoding/binary"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/spaolacci/murmur3"
)

// readGolden reads a CSV file of vectors produced by Flink's own classes (SPEC §L), from the
// model's copy of ../shared/golden (a file read, not an import: the model's code stays out), and
// returns its rows without the header, checking the header.
func readGolden(t *testing.T, name, header string) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "model", "testdata", "flink", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if got := strings.Join(rows[0], ","); got != header {
		t.Fatalf("%s: header %q, want %q", name, got, header)
	}
	if len(rows) < 2 {
		t.Fatalf("%s: no rows", name)
	}
	return rows[1:]
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	v, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("bad number %q: %v", s, err)
	}
	return v
}

func TestGoldenKeyGroups(t *testing.T) {
	types := map[string]KeyType{"int": Int, "long": Long, "string": String}
	rows := readGolden(t, "keygroups.csv", "key_type,key,java_hashcode,max_parallelism,key_group,parallelism,operator_index")
	seen := map[KeyType]int{}
	for _, row := range rows {
		kt, ok := types[row[0]]
		if !ok {
			t.Fatalf("unknown key type %q", row[0])
		}
		seen[kt]++
		key := row[1]
		wantHash, m, wantKG, p, wantOp := atoi(t, row[2]), atoi(t, row[3]), atoi(t, row[4]), atoi(t, row[5]), atoi(t, row[6])
		h, err := HashCode(kt, key)
		if err != nil || int(h) != wantHash {
			t.Errorf("%s %q: hashCode %d (%v), want %d", row[0], key, h, err, wantHash)
			continue
		}
		kg, op, err := Route(kt, key, m, p)
		if err != nil || kg != wantKG || op != wantOp {
			t.Errorf("%s %q M=%d p=%d: routed to key group %d, subtask %d (%v), want %d, %d", row[0], key, m, p, kg, op, err, wantKG, wantOp)
		}
	}
	if len(seen) != 3 {
		t.Errorf("key types covered: %v, want int, long and string", seen)
	}
}

func TestGoldenMurmurHash(t *testing.T) {
	for _, row := range readGolden(t, "murmur.csv", "int_input,murmur_hash") {
		in, want := atoi(t, row[0]), atoi(t, row[1])
		if got := MurmurHash(int32(in)); int(got) != want {
			t.Errorf("MurmurHash(%d) = %d, want %d", in, got, want)
		}
	}
}

// TestMurmurHashLibrary checks the written-out MurmurHash against the murmur3 library's
// MurmurHash3_x86_32 over the int's four little-endian bytes, with Flink's sign rule.
func TestMurmurHashLibrary(t *testing.T) {
	codes := []int32{0, 1, -1, math.MinInt32, math.MaxInt32, 99162322, 1772899}
	for i := range 2000 {
		codes = append(codes, int32(uint32(i)*2654435761))
	}
	for _, c := range codes {
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], uint32(c))
		h := int32(murmur3.Sum32WithSeed(b[:], 0))
		switch {
		case h == math.MinInt32:
			h = 0
		case h < 0:
			h = -h
		}
		if got := MurmurHash(c); got != h {
			t.Errorf("MurmurHash(%d) = %d, library %d", c, got, h)
		}
	}
}

func TestGoldenRanges(t *testing.T) {
	for _, row := range readGolden(t, "ranges.csv", "max_parallelism,parallelism,operator_index,start,end") {
		m, p, i, start, end := atoi(t, row[0]), atoi(t, row[1]), atoi(t, row[2]), atoi(t, row[3]), atoi(t, row[4])
		if s, e := KeyGroupRange(m, p, i); s != start || e != end {
			t.Errorf("M=%d p=%d i=%d: [%d, %d], want [%d, %d]", m, p, i, s, e, start, end)
		}
		for _, kg := range []int{start, end, (start + end) / 2} {
			if kg <= end {
				if o := Owner(kg, m, p); o != i {
					t.Errorf("M=%d p=%d: key group %d owned by %d, want %d", m, p, kg, o, i)
				}
			}
		}
	}
}

func TestGoldenDefaultMaxParallelism(t *testing.T) {
	for _, row := range readGolden(t, "default_max_parallelism.csv", "parallelism,default_max_parallelism") {
		p := atoi(t, row[0])
		want := 0 // Flink refuses the parallelism
		if !strings.HasPrefix(row[1], "ERROR") {
			want = atoi(t, row[1])
		}
		if got := DefaultMaxParallelism(p); got != want {
			t.Errorf("DefaultMaxParallelism(%d) = %d, want %d", p, got, want)
		}
	}
}

func TestHashCodes(t *testing.T) {
	for _, c := range []struct {
		t    KeyType
		key  string
		want int32
	}{
		{String, "", 0},
		{String, "Aa", 2112},
		{String, "polygenelubricants", math.MinInt32},
		{String, "hello", 99162322},
		{String, "😀", 1772899}, // surrogate pair D83D DE00: 31·0xD83D + 0xDE00
		{String, "e\u0301", 101*31 + 0x301},
		{Long, "4294967296", 1},
		{Long, "-1", 0},
		{Long, "-9223372036854775808", math.MinInt32},
		{Int, "-5000", -5000},
	} {
		if got, err := HashCode(c.t, c.key); err != nil || got != c.want {
			t.Errorf("HashCode(%d, %q) = %d, %v; want %d", c.t, c.key, got, err, c.want)
		}
	}
	for _, bad := range []struct {
		t   KeyType
		key string
	}{{Int, "4294967296"}, {Long, "x"}, {KeyType(9), "1"}} {
		if _, err := HashCode(bad.t, bad.key); err == nil {
			t.Errorf("HashCode(%d, %q): no error", bad.t, bad.key)
		}
	}
}

func TestOperatorIDFromUID(t *testing.T) {
	// As Flink logs it (SPEC §E): uid "kafka-source-uid".
	if got := OperatorIDFromUID("kafka-source-uid").String(); got != "a4122ae5704b2a344a4284a3b4b9ee29" {
		t.Errorf("OperatorIDFromUID(kafka-source-uid) = %s", got)
	}
}

// TestStringHashCodeUTF16 checks StringHashCode against the textbook definition over the string's
// UTF-16 encoding, invalid UTF-8 included (each invalid byte is one U+FFFD).
func TestStringHashCodeUTF16(t *testing.T) {
	for _, s := range []string{"", "user-42", "ключ-3-😀", "a\xffb", "\xed\xa0\x80", "𝄞𝄞x", "\U0010ffff"} {
		var want int32
		for _, u := range utf16.Encode([]rune(s)) {
			want = 31*want + int32(u)
		}
		if got := StringHashCode(s); got != want {
			t.Errorf("StringHashCode(%q) = %d, want %d", s, got, want)
		}
	}
}

// TestGoldenRowKeys checks RowHashCode against every key of sql_key_groups.csv (Flink's
// BinaryRowWriter and BinaryRowData.hashCode) whose fields are INT, BIGINT or STRING, and
// Route of Row keys against its ROW<BIGINT, STRING> ones.
func TestGoldenRowKeys(t *testing.T) {
	rows := readGolden(t, "sql_key_groups.csv", "types,values,hash_code,key_group_128,key_group_4096,key_group_32768,operator_index_p7_m128")
	n, routed := 0, 0
	for _, row := range rows {
		types := strings.Split(row[0], ";")
		if slices.ContainsFunc(types, func(s string) bool { return s != "INT" && s != "BIGINT" && s != "STRING" }) {
			continue
		}
		n++
		h, err := RowHashCode(types, row[1])
		if err != nil || int(h) != atoi(t, row[2]) {
			t.Errorf("%s %s: hash %d (%v), want %s", row[0], row[1], h, err, row[2])
			continue
		}
		for i, m := range []int{128, 4096, 32768} {
			if kg := KeyGroup(h, m); kg != atoi(t, row[3+i]) {
				t.Errorf("%s: key group %d at %d, want %s", row[1], kg, m, row[3+i])
			}
		}
		if row[0] == "BIGINT;STRING" {
			routed++
			if _, op, _ := Route(Row, row[1], 128, 7); op != atoi(t, row[6]) {
				t.Errorf("%s: subtask %d of 7, want %s", row[1], op, row[6])
			}
		}
	}
	if n < 100 || routed == 0 {
		t.Fatalf("only %d rows of INT, BIGINT and STRING fields, %d of ROW<BIGINT, STRING>", n, routed)
	}
	t.Logf("%d rows", n)
}
