package model

import (
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// readGolden reads a CSV file from testdata/flink (vectors produced by Flink's own classes, see
// SPEC §L) and returns its rows without the header, checking the header.
func readGolden(t *testing.T, name, header string) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "flink", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	rows, err := r.ReadAll()
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

func TestGoldenMurmurHash(t *testing.T) {
	rows := readGolden(t, "murmur.csv", "int_input,murmur_hash")
	for _, row := range rows {
		in, want := atoi(t, row[0]), atoi(t, row[1])
		if got := MurmurHash(int32(in)); int(got) != want {
			t.Errorf("MurmurHash(%d) = %d, want %d", in, got, want)
		}
	}
	t.Logf("%d rows", len(rows))
}

// keyHash computes the Java hashCode of a golden key of the given type.
func keyHash(t *testing.T, keyType, key string) int32 {
	t.Helper()
	switch keyType {
	case "int":
		v, err := strconv.ParseInt(key, 10, 32)
		if err != nil {
			t.Fatal(err)
		}
		return JavaIntHash(int32(v))
	case "long":
		v, err := strconv.ParseInt(key, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return JavaLongHash(v)
	case "string":
		return JavaStringHash(key)
	}
	t.Fatalf("unknown key type %q", keyType)
	return 0
}

func TestGoldenKeyGroups(t *testing.T) {
	rows := readGolden(t, "keygroups.csv", "key_type,key,java_hashcode,max_parallelism,key_group,parallelism,operator_index")
	for _, row := range rows {
		keyType, key := row[0], row[1]
		wantHash, m, wantKG, p, wantOp := atoi(t, row[2]), atoi(t, row[3]), atoi(t, row[4]), atoi(t, row[5]), atoi(t, row[6])
		h := keyHash(t, keyType, key)
		if int(h) != wantHash {
			t.Errorf("%s %q: hashCode %d, want %d", keyType, key, h, wantHash)
			continue
		}
		if kg := ComputeKeyGroupForKeyHash(h, m); kg != wantKG {
			t.Errorf("%s %q M=%d: key group %d, want %d", keyType, key, m, kg, wantKG)
		}
		if op := ComputeOperatorIndexForKeyGroup(m, p, wantKG); op != wantOp {
			t.Errorf("%s %q M=%d p=%d: operator index of key group %d = %d, want %d", keyType, key, m, p, wantKG, op, wantOp)
		}
		if op := AssignKeyToParallelOperator(h, m, p); op != wantOp {
			t.Errorf("%s %q M=%d p=%d: AssignKeyToParallelOperator = %d, want %d", keyType, key, m, p, op, wantOp)
		}
	}
	t.Logf("%d rows", len(rows))
}

func TestGoldenRanges(t *testing.T) {
	rows := readGolden(t, "ranges.csv", "max_parallelism,parallelism,operator_index,start,end")
	for _, row := range rows {
		m, p, i, start, end := atoi(t, row[0]), atoi(t, row[1]), atoi(t, row[2]), atoi(t, row[3]), atoi(t, row[4])
		got, err := ComputeKeyGroupRangeForOperatorIndex(m, p, i)
		if err != nil {
			t.Errorf("M=%d p=%d i=%d: %v", m, p, i, err)
			continue
		}
		if want := (KeyGroupRange{Start: start, End: end}); got != want {
			t.Errorf("M=%d p=%d i=%d: %v, want %v", m, p, i, got, want)
		}
		for kg := start; kg <= end; kg++ {
			if op := ComputeOperatorIndexForKeyGroup(m, p, kg); op != i {
				t.Errorf("M=%d p=%d: key group %d → operator %d, but it is in range %d", m, p, kg, op, i)
			}
		}
	}
	t.Logf("%d rows", len(rows))
}

func TestGoldenDefaultMaxParallelism(t *testing.T) {
	rows := readGolden(t, "default_max_parallelism.csv", "parallelism,default_max_parallelism")
	for _, row := range rows {
		p := atoi(t, row[0])
		got, err := ComputeDefaultMaxParallelism(p)
		if want, ok := strings.CutPrefix(row[1], "ERROR IllegalArgumentException: "); ok {
			if !errors.Is(err, ErrParallelismOutOfBounds) {
				t.Errorf("p=%d: err %v, want ErrParallelismOutOfBounds", p, err)
			} else if err.Error() != want {
				t.Errorf("p=%d: message %q, want Flink's %q", p, err.Error(), want)
			}
			continue
		}
		if err != nil || got != atoi(t, row[1]) {
			t.Errorf("p=%d: (%d, %v), want %s", p, got, err, row[1])
		}
	}
	t.Logf("%d rows", len(rows))
}

func TestGoldenJavaHashCodesMisc(t *testing.T) {
	rows := readGolden(t, "java_hashcodes_misc.csv", "java_type,value,java_hashcode")
	seen := map[string]int{}
	for _, row := range rows {
		typ, val, want := row[0], row[1], atoi(t, row[2])
		got, ok := miscHash(t, typ, val)
		if !ok {
			t.Errorf("no model for %s %q", typ, val)
			continue
		}
		seen[typ]++
		if int(got) != want {
			t.Errorf("%s %q: hashCode %d, want %d", typ, val, got, want)
		}
	}
	for _, typ := range []string{"Boolean", "Double", "Float", "Short", "Byte", "Character", "java.util.List", "flink.TupleN"} {
		if seen[typ] == 0 {
			t.Errorf("no golden rows checked for %s", typ)
		}
	}
}

// miscHash interprets a display value of java_hashcodes_misc.csv. List and tuple elements are
// written like "[1, x, -7]": an element that parses as an int is an Integer, else a String.
func miscHash(t *testing.T, typ, val string) (int32, bool) {
	t.Helper()
	switch typ {
	case "Boolean":
		return JavaBooleanHash(val == "true"), true
	case "Double":
		f, err := strconv.ParseFloat(strings.Replace(val, "Infinity", "Inf", 1), 64)
		if err != nil {
			t.Fatal(err)
		}
		return JavaDoubleHash(f), true
	case "Float":
		f, err := strconv.ParseFloat(val, 32)
		if err != nil {
			t.Fatal(err)
		}
		return JavaFloatHash(float32(f)), true
	case "Short":
		return JavaShortHash(int16(atoi(t, val))), true
	case "Byte":
		return JavaByteHash(int8(atoi(t, val))), true
	case "Character":
		r := []rune(val)
		return JavaCharHash(uint16(r[0])), true
	case "java.util.List", "flink.TupleN":
		inner := strings.TrimSuffix(strings.TrimPrefix(val, "["), "]")
		var hashes []int32
		if inner != "" {
			for _, e := range strings.Split(inner, ", ") {
				if v, err := strconv.ParseInt(e, 10, 32); err == nil {
					hashes = append(hashes, JavaIntHash(int32(v)))
				} else {
					hashes = append(hashes, JavaStringHash(e))
				}
			}
		}
		if typ == "java.util.List" {
			return JavaListHash(hashes...), true
		}
		return FlinkTupleHash(hashes...), true
	}
	return 0, false
}
