package sqlkey

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/restoresim/restoresim/model"
	"pgregory.net/rapid"
)

func TestParseRowType(t *testing.T) {
	cases := map[string]string{
		"row<INT,STRING,DECIMAL(10,2)>":                                      "row<INT,STRING,DECIMAL(10,2)>",
		"ROW< int , string >":                                                "row<INT,STRING>",
		"Row(BIGINT)":                                                        "row<BIGINT>",
		"row<INTEGER,VARCHAR,VARCHAR(5),CHAR,CHAR(3)>":                       "row<INT,VARCHAR(1),VARCHAR(5),CHAR(1),CHAR(3)>",
		"row<VARCHAR(2147483647),VARBINARY(2147483647),BYTES>":               "row<STRING,BYTES,BYTES>",
		"row<BINARY(4),VARBINARY(9)>":                                        "row<BINARY(4),VARBINARY(9)>",
		"row<DECIMAL,DECIMAL(5),DEC(38,10),NUMERIC(18,18)>":                  "row<DECIMAL(10,0),DECIMAL(5,0),DECIMAL(38,10),DECIMAL(18,18)>",
		"row<TIME,TIME(3),TIMESTAMP,TIMESTAMP(3),TIMESTAMP_LTZ(9)>":          "row<TIME,TIME(3),TIMESTAMP(6),TIMESTAMP(3),TIMESTAMP_LTZ(9)>",
		"row<TIMESTAMP(3) WITHOUT TIME ZONE,TIMESTAMP WITH LOCAL TIME ZONE>": "row<TIMESTAMP(3),TIMESTAMP_LTZ(6)>",
		"row<DOUBLE PRECISION,FLOAT,BOOLEAN,TINYINT,SMALLINT,DATE>":          "row<DOUBLE,FLOAT,BOOLEAN,TINYINT,SMALLINT,DATE>",
		"ROW<`user_id` BIGINT NOT NULL, region STRING, `a``b` INT NULL>":     "row<BIGINT NOT NULL,STRING,INT>",
		"row<INT INT, ts TIMESTAMP(3)>":                                      "row<INT,TIMESTAMP(3)>",
	}
	for in, want := range cases {
		rt, err := ParseRowType(in)
		if err != nil {
			t.Errorf("ParseRowType(%q): %v", in, err)
			continue
		}
		if got := rt.String(); got != want {
			t.Errorf("ParseRowType(%q) = %s, want %s", in, got, want)
		}
		if again, err := ParseRowType(rt.String()); err != nil || again.String() != want {
			t.Errorf("ParseRowType(%q) does not read back: %v %v", rt, again, err)
		}
	}
}

func TestParseRowTypeErrors(t *testing.T) {
	cases := map[string]string{
		"":                              `a SQL key type is row<T1,…,Tn>, not ""`,
		"INT":                           `a SQL key type is row<T1,…,Tn>, not "INT"`,
		"row":                           "row: want < after row",
		"row<>":                         `row field 1: want a type, got ">"`,
		"row<INT":                       "row field 1: want , or >, got the end",
		"row<INT,>":                     `row field 2: want a type, got ">"`,
		"row<INT>x":                     `unexpected "x" after the row type`,
		"row<FOO>":                      `row field 1: unknown or unsupported type "FOO" (want INT, BIGINT, SMALLINT, TINYINT, BOOLEAN, FLOAT, DOUBLE, STRING, VARCHAR(n), CHAR(n), BYTES, VARBINARY(n), BINARY(n), DATE, TIME, TIMESTAMP(p), TIMESTAMP_LTZ(p) or DECIMAL(p,s))`,
		"row<DECIMAL(39,2)>":            "row field 1: DECIMAL(39,2): the precision must be between 1 and 38",
		"row<DECIMAL(5,6)>":             "row field 1: DECIMAL(5,6): the scale must be between 0 and the precision 5",
		"row<DECIMAL(0)>":               "row field 1: DECIMAL(0,0): the precision must be between 1 and 38",
		"row<DECIMAL(1,2,3)>":           `row field 1: DECIMAL: want ) after 2 parameter(s), got ","`,
		"row<TIMESTAMP(10)>":            "row field 1: TIMESTAMP(10): the precision must be between 0 and 9",
		"row<VARCHAR(0)>":               "row field 1: VARCHAR(0): the length must be between 1 and 2147483647",
		"row<VARCHAR(99999999999)>":     `row field 1: VARCHAR: 99999999999 is too large`,
		"row<VARCHAR(1,2)>":             `row field 1: VARCHAR: want ) after 1 parameter(s), got ","`,
		"row<INT NOT>":                  "row field 1: INT NOT: want NULL",
		"row<ROW<INT>>":                 "row field 1: a nested ROW is not supported as a key field",
		"row<TIMESTAMP WITH TIME ZONE>": "row field 1: TIMESTAMP WITH TIME ZONE cannot be a key (Flink's runtime has no such data); TIMESTAMP WITH LOCAL TIME ZONE can",
		"row<INT;STRING>":               `unexpected character ';' in the type`,
		"row<`a INT>":                   "unterminated `quoted` field name",
	}
	for in, want := range cases {
		_, err := ParseRowType(in)
		if err == nil || err.Error() != want {
			t.Errorf("ParseRowType(%q): error %v, want %q", in, err, want)
		}
	}
}

func TestIsRowType(t *testing.T) {
	for s, want := range map[string]bool{"row<INT>": true, "ROW (INT)": true, " Row<": true, "row": false, "rows<INT>": false, "int": false, "string": false, "": false} {
		if got := IsRowType(s); got != want {
			t.Errorf("IsRowType(%q) = %v, want %v", s, got, want)
		}
	}
}

// hashOf parses type and key and returns the key's hash, failing the test on an error.
func hashOf(t *testing.T, typ, key string) (int32, string) {
	t.Helper()
	rt, err := ParseRowType(typ)
	if err != nil {
		t.Fatal(err)
	}
	h, canon, err := rt.Hash(key)
	if err != nil {
		t.Fatalf("%s %s: %v", typ, key, err)
	}
	return h, canon
}

// TestValueSpellings checks that the spellings of one value write one row: a DECIMAL with
// fewer fraction digits is scaled, a JSON number equals its string, escapes equal raw UTF-8,
// blanks do not matter; and that values which differ write different rows.
func TestValueSpellings(t *testing.T) {
	same := [][3]string{
		{"row<DECIMAL(10,2)>", `["1.5"]`, `["1.50"]`},
		{"row<DECIMAL(10,2)>", `[1.5]`, `["1.50"]`},
		{"row<DECIMAL(10,2)>", `["+1.5"]`, `["1.50"]`},
		{"row<DECIMAL(10,2)>", `["-0.00"]`, `["0"]`},
		{"row<DECIMAL(38,10)>", `[".5"]`, `["0.5000000000"]`},
		{"row<DOUBLE>", `[1.5]`, `["1.5"]`},
		{"row<DOUBLE>", `["1.0E10"]`, `["10000000000"]`},
		{"row<DOUBLE>", `["1e400"]`, `["Infinity"]`},
		{"row<FLOAT>", `["0.1"]`, `[0.1]`},
		{"row<STRING>", `["\u00e9\ud83d\ude00"]`, `["é😀"]`},
		{"row<STRING,INT>", ` [ "a" , 1 ] `, `["a",1]`},
		{"row<BYTES>", `["ABFF"]`, `["abff"]`},
		{"row<STRING>", `["abc"]`, `["abc"]`},
	}
	for _, c := range same {
		h1, k1 := hashOf(t, c[0], c[1])
		h2, k2 := hashOf(t, c[0], c[2])
		if h1 != h2 || k1 != k2 {
			t.Errorf("%s: %s and %s write different rows (hash %d vs %d)", c[0], c[1], c[2], h1, h2)
		}
	}
	differ := [][3]string{
		{"row<DOUBLE>", `["0.0"]`, `["-0.0"]`},
		{"row<DOUBLE>", `["NaN"]`, `["Infinity"]`},
		{"row<FLOAT>", `["0.1"]`, `["0.10000001"]`},
		{"row<STRING>", `[""]`, `[null]`},
		{"row<INT,INT>", `[null,0]`, `[0,null]`},
		{"row<DECIMAL(38,2)>", `["0"]`, `[null]`},
		{"row<TIMESTAMP(9)>", `[[1,0]]`, `[[1,1]]`},
		{"row<STRING>", `["abcdefg"]`, `["abcdefgh"]`},
		{"row<BYTES>", `["00"]`, `[""]`},
	}
	for _, c := range differ {
		h1, k1 := hashOf(t, c[0], c[1])
		h2, k2 := hashOf(t, c[0], c[2])
		if k1 == k2 {
			t.Errorf("%s: %s and %s write the same row (hash %d vs %d)", c[0], c[1], c[2], h1, h2)
		}
	}
}

// TestFloatBits checks the slot of floating-point values: "NaN" is Java's canonical NaN
// (Double.NaN 0x7ff8000000000000, Float.NaN 0x7fc00000), not Go's math.NaN(); a FLOAT is
// rounded once, straight to float32, as Float.parseFloat does (1 + 3·2^-24 - 2^-60 rounds
// to 1 + 2^-23; through a double it would tie to 1 + 2^-22).
func TestFloatBits(t *testing.T) {
	for _, c := range [][3]string{
		{"row<DOUBLE>", `["NaN"]`, "000000000000f87f"},
		{"row<FLOAT>", `["NaN"]`, "0000c07f00000000"},
		{"row<FLOAT>", `["1.000000178813934325304513262011596452794037759304046630859375"]`, "0100803f00000000"},
		{"row<DOUBLE>", `["-Infinity"]`, "000000000000f0ff"},
	} {
		rt, _ := ParseRowType(c[0])
		row, err := rt.Row(c[1])
		if err != nil {
			t.Fatal(err)
		}
		if got := hex.EncodeToString(row.Bytes[8:16]); got != c[2] {
			t.Errorf("%s %s: slot %s, want %s", c[0], c[1], got, c[2])
		}
	}
}

func TestParseValuesErrors(t *testing.T) {
	cases := []struct{ typ, key, want string }{
		{"row<INT>", `1`, "not a JSON array of the 1 field values"},
		{"row<INT>", `null`, "not a JSON array (null)"},
		{"row<INT>", `[1`, "not a JSON array: unexpected end of JSON input"},
		{"row<INT>", `[1] x`, "not a JSON array: invalid character 'x' after top-level value"},
		{"row<INT>", "[\"\xff\"]", "the key is not valid UTF-8"},
		{"row<INT,INT>", `[1]`, "1 values for the 2 fields of row<INT,INT>"},
		{"row<INT>", `[2147483648]`, "field 1 (INT): 2147483648 is not an INT (a 32-bit integer)"},
		{"row<INT>", `[1.0]`, "field 1 (INT): 1.0 is not an INT (a 32-bit integer)"},
		{"row<INT>", `["1"]`, `field 1 (INT): "1" is not an INT (a 32-bit integer)`},
		{"row<TINYINT>", `[128]`, "field 1 (TINYINT): 128 is not a TINYINT (-128..127)"},
		{"row<SMALLINT>", `[-32769]`, "field 1 (SMALLINT): -32769 is not a SMALLINT (-32768..32767)"},
		{"row<BIGINT>", `[9223372036854775808]`, "field 1 (BIGINT): 9223372036854775808 is not a BIGINT (a 64-bit integer)"},
		{"row<DATE>", `[1e3]`, "field 1 (DATE): 1e3 is not a DATE (days since 1970-01-01, a 32-bit integer)"},
		{"row<BOOLEAN>", `[1]`, "field 1 (BOOLEAN): 1 is not a BOOLEAN (true or false)"},
		{"row<DOUBLE>", `["nan"]`, `field 1 (DOUBLE): "nan" is not a DOUBLE (a number, or a string such as "1.5", "-0.0", "1.0E-5", "NaN", "Infinity")`},
		{"row<DOUBLE>", `["0x1p3"]`, `field 1 (DOUBLE): "0x1p3" is not a DOUBLE (a number, or a string such as "1.5", "-0.0", "1.0E-5", "NaN", "Infinity")`},
		{"row<FLOAT>", `[true]`, `field 1 (FLOAT): true is not a FLOAT (a number, or a string such as "1.5", "-0.0", "1.0E-5", "NaN", "Infinity")`},
		{"row<DECIMAL(10,2)>", `["1.234"]`, `field 1 (DECIMAL(10,2)): "1.234" has 3 digits after the point, more than the scale of DECIMAL(10,2)`},
		{"row<DECIMAL(10,2)>", `["123456789.00"]`, `field 1 (DECIMAL(10,2)): "123456789.00" does not fit DECIMAL(10,2): 11 digits, more than the precision 10`},
		{"row<DECIMAL(10,2)>", `["1e3"]`, `field 1 (DECIMAL(10,2)): "1e3" is not a DECIMAL(10,2) (plain decimal digits such as "-12.5", at most 2 after the point)`},
		{"row<DECIMAL(10,2)>", `["."]`, `field 1 (DECIMAL(10,2)): "." is not a DECIMAL(10,2) (plain decimal digits such as "-12.5", at most 2 after the point)`},
		{"row<DECIMAL(10,2)>", `["--1"]`, `field 1 (DECIMAL(10,2)): "--1" is not a DECIMAL(10,2) (plain decimal digits such as "-12.5", at most 2 after the point)`},
		{"row<TIMESTAMP(3)>", `[[1,2]]`, "field 1 (TIMESTAMP(3)): [1,2] is not a TIMESTAMP(3) (epoch milliseconds, a 64-bit integer)"},
		{"row<TIMESTAMP(9)>", `[1]`, "field 1 (TIMESTAMP(9)): 1 is not a TIMESTAMP(9) ([epochMillis, nanoOfMillisecond], nanoOfMillisecond 0..999999)"},
		{"row<TIMESTAMP(9)>", `[[1,1000000]]`, "field 1 (TIMESTAMP(9)): [1,1000000] is not a TIMESTAMP(9) ([epochMillis, nanoOfMillisecond], nanoOfMillisecond 0..999999)"},
		{"row<TIMESTAMP_LTZ(6)>", `[[1,-1]]`, "field 1 (TIMESTAMP_LTZ(6)): [1,-1] is not a TIMESTAMP_LTZ(6) ([epochMillis, nanoOfMillisecond], nanoOfMillisecond 0..999999)"},
		{"row<STRING>", `[1]`, "field 1 (STRING): 1 is not a JSON string"},
		{"row<STRING>", `["a\ud800"]`, `field 1 (STRING): the string has an unpaired UTF-16 surrogate \ud800, which has no UTF-8 form`},
		{"row<STRING>", `["\udc00\ud800"]`, `field 1 (STRING): the string has an unpaired UTF-16 surrogate \udc00, which has no UTF-8 form`},
		{"row<BYTES>", `["abc"]`, `field 1 (BYTES): "abc" is not hex bytes (two hex digits a byte)`},
		{"row<BYTES>", `[12]`, "field 1 (BYTES): 12 is not a JSON string (want the bytes in hex)"},
		{"row<INT NOT NULL>", `[null]`, "field 1 (INT NOT NULL): null in a NOT NULL field"},
	}
	for _, c := range cases {
		rt, err := ParseRowType(c.typ)
		if err != nil {
			t.Fatal(err)
		}
		_, err = rt.ParseValues(c.key)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s %s: error %v, want %q", c.typ, c.key, err, c.want)
		}
	}
}

// TestStringLengthsAroundInlineLimit checks, through the parser, that a string of at most 7
// UTF-8 bytes (not characters) stays in its slot and a longer one takes a variable part padded
// to whole words: "中中" is 6 bytes, "中中中" 9, "😀😀" 8.
func TestStringLengthsAroundInlineLimit(t *testing.T) {
	for s, size := range map[string]int{"": 16, "abcdefg": 16, "abcdefgh": 24, "中中": 16, "中中中": 32, "😀😀": 24, "é": 16, strings.Repeat("a", 16): 32, strings.Repeat("a", 17): 40} {
		rt, _ := ParseRowType("row<STRING>")
		b, _ := json.Marshal([]string{s})
		row, err := rt.Row(string(b))
		if err != nil {
			t.Fatal(err)
		}
		if len(row.Bytes) != size {
			t.Errorf("%q (%d bytes): row of %d bytes, want %d", s, len(s), len(row.Bytes), size)
		}
		inline := row.Bytes[15]&0x80 != 0
		if inline != (len(s) <= 7) {
			t.Errorf("%q (%d bytes): inline %v", s, len(s), inline)
		}
	}
}

// fieldCase is a random type and a value of it, both as model values and in the JSON encoding.
type fieldCase struct {
	typ  model.SQLType
	val  model.SQLValue
	json any
}

func drawField(t *rapid.T, i int) fieldCase {
	n := func(s string) string { return fmt.Sprintf("%s%d", s, i) }
	root := rapid.SampledFrom([]model.SQLTypeRoot{model.SQLVarchar, model.SQLBoolean, model.SQLVarbinary, model.SQLDecimal,
		model.SQLTinyInt, model.SQLSmallInt, model.SQLInteger, model.SQLBigInt, model.SQLFloat, model.SQLDouble, model.SQLDate,
		model.SQLTime, model.SQLTimestamp, model.SQLTimestampLTZ}).Draw(t, n("root"))
	c := fieldCase{typ: model.SQLType{Root: root, Length: model.MaxSQLLength}}
	if rapid.IntRange(0, 5).Draw(t, n("null")) == 0 {
		if root == model.SQLDecimal {
			c.typ.Precision = rapid.IntRange(1, 38).Draw(t, n("precision"))
		}
		if root == model.SQLTimestamp || root == model.SQLTimestampLTZ {
			c.typ.Precision = rapid.IntRange(0, 9).Draw(t, n("precision"))
		}
		c.val.Null = true
		return c
	}
	switch root {
	case model.SQLVarchar:
		s := rapid.String().Draw(t, n("string"))
		c.val.Bytes, c.json = []byte(s), s
	case model.SQLVarbinary:
		b := rapid.SliceOfN(rapid.Byte(), 0, 20).Draw(t, n("bytes"))
		c.val.Bytes, c.json = b, hex.EncodeToString(b)
	case model.SQLBoolean:
		v := rapid.Bool().Draw(t, n("bool"))
		c.json = v
		if v {
			c.val.Int = 1
		}
	case model.SQLTinyInt:
		c.val.Int = int64(rapid.Int8().Draw(t, n("v")))
		c.json = c.val.Int
	case model.SQLSmallInt:
		c.val.Int = int64(rapid.Int16().Draw(t, n("v")))
		c.json = c.val.Int
	case model.SQLInteger, model.SQLDate, model.SQLTime:
		c.val.Int = int64(rapid.Int32().Draw(t, n("v")))
		c.json = c.val.Int
	case model.SQLBigInt:
		c.val.Int = rapid.Int64().Draw(t, n("v"))
		c.json = c.val.Int
	case model.SQLFloat:
		f := rapid.Float32().Draw(t, n("v"))
		c.val.Float = float64(f)
		c.json = strconv.FormatFloat(float64(f), 'g', -1, 32)
		if math.IsInf(float64(f), 0) {
			c.json = map[bool]string{true: "Infinity", false: "-Infinity"}[f > 0]
		}
	case model.SQLDouble:
		f := rapid.Float64().Draw(t, n("v"))
		c.val.Float = f
		c.json = strconv.FormatFloat(f, 'g', -1, 64)
		if math.IsInf(f, 0) {
			c.json = map[bool]string{true: "Infinity", false: "-Infinity"}[f > 0]
		}
	case model.SQLDecimal:
		c.typ.Precision = rapid.IntRange(1, 38).Draw(t, n("precision"))
		c.typ.Scale = rapid.IntRange(0, c.typ.Precision).Draw(t, n("scale"))
		digits := rapid.StringMatching(fmt.Sprintf("-?[0-9]{1,%d}", c.typ.Precision)).Draw(t, n("digits"))
		c.val.Unscaled, _ = new(big.Int).SetString(digits, 10)
		abs := strings.TrimPrefix(digits, "-")
		abs = strings.Repeat("0", max(0, c.typ.Scale+1-len(abs))) + abs
		s := abs[:len(abs)-c.typ.Scale]
		if c.typ.Scale > 0 {
			s += "." + abs[len(abs)-c.typ.Scale:]
		}
		if strings.HasPrefix(digits, "-") {
			s = "-" + s
		}
		c.json = s
	case model.SQLTimestamp, model.SQLTimestampLTZ:
		c.typ.Precision = rapid.IntRange(0, 9).Draw(t, n("precision"))
		c.val.Int = rapid.Int64().Draw(t, n("millis"))
		c.json = c.val.Int
		if c.typ.Precision > 3 {
			c.val.Nano = rapid.Int32Range(0, 999_999).Draw(t, n("nanos"))
			c.json = []any{c.val.Int, c.val.Nano}
		}
	}
	return c
}

// TestParsedKeyIsModelKey checks, for random composite keys, that writing the key's JSON
// encoding (the sql_key_groups.csv form) and parsing it gives the row model.SQLKeyRow writes
// from the values themselves, and that the type's String parses back to the same type.
func TestParsedKeyIsModelKey(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		k := rapid.IntRange(1, 6).Draw(t, "fields")
		var rt RowType
		var vals []model.SQLValue
		var js []any
		for i := range k {
			c := drawField(t, i)
			rt.Fields = append(rt.Fields, c.typ)
			vals = append(vals, c.val)
			js = append(js, c.json)
		}
		text, err := json.Marshal(js)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseRowType(rt.String())
		if err != nil || back.String() != rt.String() {
			t.Fatalf("type %s reads back as %v (%v)", rt, back, err)
		}
		got, err := back.Row(string(text))
		if err != nil {
			t.Fatalf("%s %s: %v", rt, text, err)
		}
		want, err := model.SQLKeyRow(rt.Fields, vals)
		if err != nil {
			t.Fatal(err)
		}
		if string(got.Bytes) != string(want.Bytes) {
			t.Fatalf("%s %s:\nparsed %x\n model %x", rt, text, got.Bytes, want.Bytes)
		}
	})
}

// The keys below are rows of sql_key_groups.csv, so the hashes are Flink's.
func ExampleRowType_Hash() {
	rt, _ := ParseRowType("row<BIGINT,STRING,DECIMAL(10,2)>")
	h, _, _ := rt.Hash(`[9223372036854775806,"中中中","7235420.69"]`)
	fmt.Println(h, model.ComputeKeyGroupForKeyHash(h, 128))
	rt, _ = ParseRowType("row<STRING,DECIMAL(10,2)>")
	h, _, _ = rt.Hash(`["ab中def","-74612116.00"]`)
	fmt.Println(h, model.ComputeKeyGroupForKeyHash(h, 128))
	// Output:
	// -434623862 25
	// -731723362 39
}
