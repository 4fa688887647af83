package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/restoresim/restoresim/internal/realmeta"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/savepoint"
)

// sqlGoldenRows reads model/testdata/flink/sql_key_groups.csv (vectors from Flink's own
// BinaryRowWriter and BinaryRowData) without its header.
func sqlGoldenRows(t *testing.T) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "model", "testdata", "flink", "sql_key_groups.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows[1:]
}

// sqlKeyType is the --key-type of a golden row's types column ("INT;STRING" → row<INT,STRING>).
func sqlKeyType(types string) string { return "row<" + strings.ReplaceAll(types, ";", ",") + ">" }

// TestKeygroupSQLGolden runs keygroup over every golden row, the keys of each key type on stdin
// at parallelism 7 of 128, and compares hash, key group and subtask with Flink's.
func TestKeygroupSQLGolden(t *testing.T) {
	byType := map[string][][]string{}
	for _, r := range sqlGoldenRows(t) {
		byType[r[0]] = append(byType[r[0]], r)
	}
	types := make([]string, 0, len(byType))
	for ty := range byType {
		types = append(types, ty)
	}
	sort.Strings(types)
	n := 0
	for _, ty := range types {
		rows := byType[ty]
		var in strings.Builder
		for _, r := range rows {
			in.WriteString(r[1] + "\n")
		}
		code, out, errs := runCLI(t, in.String(), "keygroup", "--parallelism", "7", "--max-parallelism", "128", "--key-type", sqlKeyType(ty))
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", ty, code, errs)
		}
		got, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil || len(got) != len(rows)+1 || strings.Join(got[0], ",") != "key,hash,key_group,subtask" {
			t.Fatalf("%s: %v\n%s", ty, err, out)
		}
		for i, r := range rows {
			want := []string{r[1], r[2], r[3], r[6]}
			if strings.Join(got[i+1], "|") != strings.Join(want, "|") {
				t.Errorf("%s: got %q, want %q", ty, got[i+1], want)
			}
			n++
		}
	}
	if n != 2000 {
		t.Errorf("%d rows checked, want 2000", n)
	}
}

// TestSQLKeyBadInput: a bad row type or key exits 2 with one line naming the problem and
// prints nothing, in every key-taking command.
func TestSQLKeyBadInput(t *testing.T) {
	kg := func(typ string, keys ...string) []string {
		return append([]string{"keygroup", "--parallelism", "3", "--key-type", typ}, keys...)
	}
	cases := []struct {
		stdin, want string
		args        []string
	}{
		{"", `unknown key type "STRING" (a SQL job's key is a row, even of one field: row<STRING>)`, kg("STRING", `["a"]`)},
		{"", `key type "row<INT,FOO>": row field 2: unknown or unsupported type "FOO"`, kg("row<INT,FOO>", `[1,2]`)},
		{"", `key type "row<DECIMAL(40,2)>": row field 1: DECIMAL(40,2): the precision must be between 1 and 38`, kg("row<DECIMAL(40,2)>", `["1"]`)},
		{"", `key type "row<INT": row field 1: want , or >, got the end`, kg("row<INT", `[1]`)},
		{"", `simulate keygroup: key 2: key "[1]": 1 values for the 2 fields of row<INT,STRING>`, kg("row<INT,STRING>", `[1,"a"]`, `[1]`)},
		{"[1,\"a\"]\n[1,\"a\",]\n", `key 2: key "[1,\"a\",]": not a JSON array: invalid character ']' looking for beginning of value`, kg("row<INT,STRING>")},
		{"", `key 1: key "[\"1.999\"]": field 1 (DECIMAL(10,2)): "1.999" has 3 digits after the point, more than the scale of DECIMAL(10,2)`, kg("row<DECIMAL(10,2)>", `["1.999"]`)},
		{"", `field 1 (TIMESTAMP(9)): 5 is not a TIMESTAMP(9) ([epochMillis, nanoOfMillisecond], nanoOfMillisecond 0..999999)`, kg("row<TIMESTAMP(9)>", `[5]`)},
		{"", `field 1 (STRING): the string has an unpaired UTF-16 surrogate \udc00, which has no UTF-8 form`, kg("row<STRING>", `["\udc00"]`)},
		{"\xff\xfe\n", `key 1: key "\xff\xfe": the key is not valid UTF-8`, kg("row<INT>")},
		{"[1],1\n[x],2\n", `simulate skew: --keys stdin: line 2: key "[x]": not a JSON array`,
			[]string{"skew", "--keys", "-", "--weights", "--key-type", "row<INT>", "--parallelism", "3"}},
		{"[1]\n", `simulate skew: key type "row<>": row field 1: want a type, got ">"`,
			[]string{"skew", "--keys", "-", "--key-type", "row<>", "--parallelism", "3"}},
		{"[true]\n", `simulate advise: --keys stdin: line 1: key "[true]": field 1 (INT): true is not an INT (a 32-bit integer)`,
			[]string{"advise", "--max-expected-parallelism", "4", "--keys", "-", "--key-type", "row<INT>"}},
		{"", `simulate locate: key: key "[1,2]": 2 values for the 1 fields of row<INT>`,
			[]string{"locate", "[1,2]", "/no/such/file", "--key-type", "row<INT>"}},
	}
	for _, c := range cases {
		code, out, errs := runCLI(t, c.stdin, c.args...)
		wantUsageError(t, c.want, code, out, errs)
	}
	// Blanks around JSON values, \r of a \r\n line included, are JSON whitespace: the same key.
	_, out, _ := runCLI(t, "[1]\r\n [ 1 ] \n", kg("row<INT>")...)
	if want := "key,hash,key_group,subtask\n\"[1]\r\",1465514398,94,2\n\" [ 1 ] \",1465514398,94,2\n"; out != want {
		t.Errorf("got %q, want %q", out, want)
	}
}

// TestSkewAndAdviseSQLKeys: skew --keys with a SQL key type counts each golden key on the
// subtask Flink's hash gives it, and a key spelled twice ("1.5", "1.50") is one key; advise
// reads the same sample.
func TestSkewAndAdviseSQLKeys(t *testing.T) {
	var in strings.Builder
	records := make([]int, 7)
	distinct := make([]int, 7)
	for i, r := range sqlGoldenRows(t) {
		if r[0] != "INT;DECIMAL(10,2)" {
			continue
		}
		w := 1 + i%5
		in.WriteString(r[1] + "," + strconv.Itoa(w) + "\n")
		sub, _ := strconv.Atoi(r[6])
		records[sub] += w
		distinct[sub]++
	}
	// The first golden key of the type again, its DECIMAL with a blank and the same value.
	in.WriteString(`[1582, "-785.26"],10` + "\n")
	records[3] += 10
	code, out, errs := runCLI(t, in.String(), "skew", "--keys", "-", "--weights", "--key-type", "row<INT,DECIMAL(10,2)>",
		"--parallelism", "7", "--max-parallelism", "128", "--csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 8 {
		t.Fatalf("%d lines:\n%s", len(lines), out)
	}
	for sub := range 7 {
		f := strings.Split(lines[1+sub], ",")
		if f[2] != strconv.Itoa(records[sub]) || f[3] != strconv.Itoa(distinct[sub]) {
			t.Errorf("subtask %d: %s, want records %d distinct %d", sub, lines[1+sub], records[sub], distinct[sub])
		}
	}
	code, out, errs = runCLI(t, in.String(), "advise", "--max-expected-parallelism", "8", "--candidates", "128",
		"--keys", "-", "--weights", "--key-type", "row<INT,DECIMAL(10,2)>", "--csv")
	if code != 0 || strings.Count(out, "\n") != 2 {
		t.Errorf("advise: exit %d %q\n%s", code, errs, out)
	}
}

// TestLocateSQLKey: locate takes a SQL key and finds it in the key group of its BinaryRowData
// hash (a golden row's), as keygroup does.
func TestLocateSQLKey(t *testing.T) {
	path := filepath.Join(realmeta.Sub(t, "real"), issue17File)
	const key, hash = `[9703,"K2wé{T"]`, -896559464 // sql_key_groups.csv, INT;STRING
	code, out, errs := runCLI(t, "", "locate", key, path, "--key-type", "row<INT,STRING>", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var locs []savepoint.KeyLocation
	if err := json.Unmarshal([]byte(out), &locs); err != nil || len(locs) != 1 {
		t.Fatalf("%v\n%s", err, out)
	}
	if want := model.ComputeKeyGroupForKeyHash(hash, locs[0].MaxParallelism); locs[0].Hash != hash || locs[0].KeyGroup != want {
		t.Errorf("hash %d key group %d, want %d and %d", locs[0].Hash, locs[0].KeyGroup, hash, want)
	}
}
