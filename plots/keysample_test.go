package plots

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restoresim/restoresim/model"
)

func TestReadKeySample(t *testing.T) {
	ks, err := ReadKeySample(strings.NewReader("key,weight\n7,2\n007,3\n-1,0\n"), IntKey, true)
	if err != nil {
		t.Fatal(err)
	}
	want := KeySample{Keys: []KeyLoad{{model.JavaIntHash(7), 5}, {model.JavaIntHash(-1), 0}}, Names: []string{"7", "-1"}, Records: 5, Lines: 3}
	if diff := cmp.Diff(want, ks); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if ks.Heaviest() != 0 {
		t.Errorf("Heaviest = %d, want 0", ks.Heaviest())
	}
	ks, err = ReadKeySample(strings.NewReader("a,b\n a,b\na,b"), StringKey, false)
	if err != nil || len(ks.Keys) != 2 || ks.Keys[0].Records != 2 || ks.Keys[0].Hash != model.JavaStringHash("a,b") {
		t.Errorf("string keys: %+v, %v", ks, err)
	}
}

func TestReadKeySampleErrors(t *testing.T) {
	for _, tc := range []struct {
		in      string
		t       KeyType
		weights bool
		want    string
		is      error
	}{
		{"", StringKey, false, "the key sample has no keys", ErrNoKeys},
		{"a,0\n", StringKey, true, "every weight is 0, so there are no records to balance", ErrNoRecords},
		{"a,1\nb\n", StringKey, true, "line 2: no weight (every line is key,weight)", ErrNoWeight},
		{"a,-1\n", StringKey, true, `line 1: weight "-1" is not a non-negative integer`, nil},
		{"1\n2\r\n", LongKey, false, `line 2: key "2\r" is not a long (a 64-bit integer) (the file has \r\n line endings; keys are read verbatim, convert it with dos2unix)`, nil},
		{"a,9223372036854775807\nb,1\n", StringKey, true, "line 2: the total weight overflows a 64-bit integer", nil},
	} {
		_, err := ReadKeySample(strings.NewReader(tc.in), tc.t, tc.weights)
		if err == nil || err.Error() != tc.want || (tc.is != nil && !errors.Is(err, tc.is)) {
			t.Errorf("%q: got %v, want %s", tc.in, err, tc.want)
		}
	}
	for in, want := range map[string]string{
		"short":        `unknown key type "short" (want int, long, string or a SQL key's row<T1,…,Tn>)`,
		"STRING":       `unknown key type "STRING" (a SQL job's key is a row, even of one field: row<STRING>)`,
		"row<INT":      `key type "row<INT": row field 1: want , or >, got the end`,
		"row<DOUBLE>x": `key type "row<DOUBLE>x": unexpected "x" after the row type`,
	} {
		if _, err := ParseKeyType(in); err == nil || err.Error() != want {
			t.Errorf("ParseKeyType(%q): %v, want %s", in, err, want)
		}
	}
}

// TestRowKeySample reads a SQL key sample: keys are JSON arrays (with commas, so a weight
// follows the last comma), equal rows are one key however spelled, and a bad key names its
// line and field.
func TestRowKeySample(t *testing.T) {
	kt, err := ParseKeyType("row<INT,DECIMAL(10,2)>")
	if err != nil {
		t.Fatal(err)
	}
	if kt.String() != "row<INT,DECIMAL(10,2)>" {
		t.Errorf("String() = %s", kt)
	}
	ks, err := ReadKeySample(strings.NewReader("key,weight\n[1,\"1.5\"],2\n[1,\"1.50\"],3\n[null,null],1\n"), kt, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(ks.Keys) != 2 || ks.Keys[0].Records != 5 || ks.Names[0] != `[1,"1.5"]` || ks.Records != 6 {
		t.Errorf("sample %+v", ks)
	}
	// A row of sql_key_groups.csv (INT;DECIMAL(10,2)), with blanks.
	if h, err := kt.Hash(`[1582, "-785.26"]`); err != nil || h != -1602336167 {
		t.Errorf("[1582, \"-785.26\"]: hash %d, error %v; want -1602336167", h, err)
	}
	_, err = ReadKeySample(strings.NewReader("[1,\"1.5\"]\n[1,\"1.555\"]\n"), kt, false)
	want := `line 2: key "[1,\"1.555\"]": field 2 (DECIMAL(10,2)): "1.555" has 3 digits after the point, more than the scale of DECIMAL(10,2)`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}
