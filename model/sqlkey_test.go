package model

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/spaolacci/murmur3"
	"pgregory.net/rapid"
)

// words renders bytes as space-separated 8-byte words in hex, for readable layout messages.
func words(b []byte) string {
	var parts []string
	for i := 0; i < len(b); i += 8 {
		parts = append(parts, hex.EncodeToString(b[i:min(i+8, len(b))]))
	}
	return strings.Join(parts, " ")
}

// TestSQLKeyRowLayout writes one-field and composite rows and compares their bytes with the
// layout read off BinaryRowWriter and AbstractBinaryWriter (release-1.18), word by word: the
// 8-byte header (RowKind byte 0, null bit i+8), one little-endian slot per field, the
// variable-length part in whole words.
func TestSQLKeyRowLayout(t *testing.T) {
	dec := func(s string) *big.Int { v, _ := new(big.Int).SetString(s, 10); return v }
	str := SQLType{Root: SQLVarchar, Length: MaxSQLLength}
	cases := []struct {
		name   string
		types  []SQLType
		values []SQLValue
		want   string // words in hex
	}{
		{"INT 7", []SQLType{{Root: SQLInteger}}, []SQLValue{{Int: 7}},
			"0000000000000000 0700000000000000"},
		{"INT -2", []SQLType{{Root: SQLInteger}}, []SQLValue{{Int: -2}},
			"0000000000000000 feffffff00000000"}, // writeInt: four bytes, the slot's others stay zero
		{"TINYINT -1", []SQLType{{Root: SQLTinyInt}}, []SQLValue{{Int: -1}},
			"0000000000000000 ff00000000000000"},
		{"SMALLINT -2", []SQLType{{Root: SQLSmallInt}}, []SQLValue{{Int: -2}},
			"0000000000000000 feff000000000000"},
		{"BOOLEAN true", []SQLType{{Root: SQLBoolean}}, []SQLValue{{Int: 1}},
			"0000000000000000 0100000000000000"},
		{"FLOAT 1.0", []SQLType{{Root: SQLFloat}}, []SQLValue{{Float: 1}},
			"0000000000000000 0000803f00000000"},
		{"DOUBLE -0.0", []SQLType{{Root: SQLDouble}}, []SQLValue{{Float: math.Copysign(0, -1)}},
			"0000000000000000 0000000000000080"},
		{"BIGINT min", []SQLType{{Root: SQLBigInt}}, []SQLValue{{Int: math.MinInt64}},
			"0000000000000000 0000000000000080"},
		{"NULL INT", []SQLType{{Root: SQLInteger}}, []SQLValue{{Null: true, Int: 5}},
			"0001000000000000 0000000000000000"},
		{"STRING empty", []SQLType{str}, []SQLValue{{Bytes: []byte{}}},
			"0000000000000000 0000000000000080"},
		{"STRING 7 bytes inline", []SQLType{str}, []SQLValue{{Bytes: []byte("abcdefg")}},
			"0000000000000000 6162636465666787"},
		{"STRING 8 bytes", []SQLType{str}, []SQLValue{{Bytes: []byte("abcdefgh")}},
			"0000000000000000 0800000010000000 6162636465666768"},
		{"STRING 9 bytes", []SQLType{str}, []SQLValue{{Bytes: []byte("abcdefghi")}},
			"0000000000000000 0900000010000000 6162636465666768 6900000000000000"},
		{"BYTES 3", []SQLType{{Root: SQLVarbinary, Length: MaxSQLLength}}, []SQLValue{{Bytes: []byte{1, 2, 0xff}}},
			"0000000000000000 0102ff0000000083"},
		{"DECIMAL(18,2) 1.00 compact", []SQLType{{Root: SQLDecimal, Precision: 18, Scale: 2}}, []SQLValue{{Unscaled: big.NewInt(100)}},
			"0000000000000000 6400000000000000"},
		{"DECIMAL(19,2) 1.00", []SQLType{{Root: SQLDecimal, Precision: 19, Scale: 2}}, []SQLValue{{Unscaled: big.NewInt(100)}},
			"0000000000000000 0100000010000000 6400000000000000 0000000000000000"},
		{"DECIMAL(38,0) -129", []SQLType{{Root: SQLDecimal, Precision: 38}}, []SQLValue{{Unscaled: big.NewInt(-129)}},
			"0000000000000000 0200000010000000 ff7f000000000000 0000000000000000"},
		{"DECIMAL(38,0) 10^37", []SQLType{{Root: SQLDecimal, Precision: 38}}, []SQLValue{{Unscaled: dec("10000000000000000000000000000000000000")}},
			"0000000000000000 1000000010000000 0785ee10d5da46d9 00f436a000000000"}, // 16 bytes, no sign byte needed
		{"NULL DECIMAL(38,10)", []SQLType{{Root: SQLDecimal, Precision: 38, Scale: 10}}, []SQLValue{{Null: true}},
			"0001000000000000 0000000010000000 0000000000000000 0000000000000000"},
		{"NULL DECIMAL(10,2)", []SQLType{{Root: SQLDecimal, Precision: 10, Scale: 2}}, []SQLValue{{Null: true}},
			"0001000000000000 0000000000000000"},
		{"TIMESTAMP(3)", []SQLType{{Root: SQLTimestamp, Precision: 3}}, []SQLValue{{Int: 1, Nano: 999}},
			"0000000000000000 0100000000000000"}, // compact: the nanos are dropped
		{"TIMESTAMP(4)", []SQLType{{Root: SQLTimestamp, Precision: 4}}, []SQLValue{{Int: 1, Nano: 5}},
			"0000000000000000 0500000010000000 0100000000000000"},
		{"TIMESTAMP_LTZ(9)", []SQLType{{Root: SQLTimestampLTZ, Precision: 9}}, []SQLValue{{Int: -1, Nano: 999_999}},
			"0000000000000000 3f420f0010000000 ffffffffffffffff"},
		{"NULL TIMESTAMP(6)", []SQLType{{Root: SQLTimestamp, Precision: 6}}, []SQLValue{{Null: true}},
			"0001000000000000 0000000010000000 0000000000000000"},
		{"NULL TIMESTAMP(3)", []SQLType{{Root: SQLTimestamp, Precision: 3}}, []SQLValue{{Null: true}},
			"0001000000000000 0000000000000000"},
		{"composite: INT, long STRING, NULL DECIMAL(20,0), STRING", []SQLType{{Root: SQLInteger}, str, {Root: SQLDecimal, Precision: 20}, str},
			[]SQLValue{{Int: 1}, {Bytes: []byte("0123456789")}, {Null: true}, {Bytes: []byte("z")}},
			"0004000000000000 0100000000000000 0a00000028000000 0000000038000000 7a00000000000081 " +
				"3031323334353637 3839000000000000 0000000000000000 0000000000000000"},
	}
	for _, c := range cases {
		row, err := SQLKeyRow(c.types, c.values)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := words(row.Bytes); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

// TestNullBitsAcrossWords checks calculateBitSetWidthInBytes at its first step (56 fields fit
// the first word with the header byte, 57 need a second) and the null bit of field 56, bit 64.
func TestNullBitsAcrossWords(t *testing.T) {
	for arity, want := range map[int]int{0: 8, 1: 8, 56: 8, 57: 16, 120: 16, 121: 24} {
		if got := BinaryRowBitSetWidth(arity); got != want {
			t.Errorf("BinaryRowBitSetWidth(%d) = %d, want %d", arity, got, want)
		}
	}
	types := make([]SQLType, 57)
	values := make([]SQLValue, 57)
	for i := range types {
		types[i] = SQLType{Root: SQLBoolean}
	}
	values[56].Null = true
	row, err := SQLKeyRow(types, values)
	if err != nil {
		t.Fatal(err)
	}
	if len(row.Bytes) != 16+57*8 {
		t.Fatalf("%d bytes, want %d", len(row.Bytes), 16+57*8)
	}
	if got := words(row.Bytes[:16]); got != "0000000000000000 0100000000000000" {
		t.Errorf("header %s, want field 56's null bit as bit 0 of byte 8", got)
	}
}

// TestJavaBigIntegerBytes checks javaBigIntegerBytes against BigInteger.toByteArray's examples:
// the fewest two's-complement bytes that keep the sign.
func TestJavaBigIntegerBytes(t *testing.T) {
	for v, want := range map[int64]string{0: "00", 1: "01", -1: "ff", 127: "7f", 128: "0080", -128: "80", -129: "ff7f", 255: "00ff", 256: "0100", -256: "ff00", -257: "feff", math.MaxInt64: "7fffffffffffffff", math.MinInt64: "8000000000000000"} {
		if got := hex.EncodeToString(javaBigIntegerBytes(big.NewInt(v))); got != want {
			t.Errorf("toByteArray(%d) = %s, want %s", v, got, want)
		}
	}
	// ±(10^38 − 1), the largest DECIMAL(38, s) unscaled values, take 16 bytes.
	nines, _ := new(big.Int).SetString(strings.Repeat("9", 38), 10)
	if n := len(javaBigIntegerBytes(nines)); n != 16 {
		t.Errorf("toByteArray(10^38-1) has %d bytes, want 16", n)
	}
	if n := len(javaBigIntegerBytes(new(big.Int).Neg(nines))); n != 16 {
		t.Errorf("toByteArray(-(10^38-1)) has %d bytes, want 16", n)
	}
}

// TestBinaryRowHashAgainstMurmur3 checks BinaryRowData.HashCode against an independent
// MurmurHash3_x86_32 (spaolacci/murmur3) with MurmurHashUtils.DEFAULT_SEED 42, over random
// word-aligned byte strings.
func TestBinaryRowHashAgainstMurmur3(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := rapid.SliceOfN(rapid.Byte(), 0, 200).Draw(t, "bytes")
		b = b[:len(b)/8*8]
		want := int32(murmur3.Sum32WithSeed(b, 42))
		if got := (BinaryRowData{Bytes: b}).HashCode(); got != want {
			t.Fatalf("HashCode(%x) = %d, murmur3 seed 42 = %d", b, got, want)
		}
	})
}

// sqlFieldGen draws a SQL type and a value of it (NULL one time in five).
func sqlFieldGen() *rapid.Generator[[2]any] {
	return rapid.Custom(func(t *rapid.T) [2]any {
		roots := []SQLTypeRoot{SQLChar, SQLVarchar, SQLBoolean, SQLBinary, SQLVarbinary, SQLDecimal, SQLTinyInt, SQLSmallInt,
			SQLInteger, SQLBigInt, SQLFloat, SQLDouble, SQLDate, SQLTime, SQLTimestamp, SQLTimestampLTZ}
		ty := SQLType{Root: rapid.SampledFrom(roots).Draw(t, "root"), Length: MaxSQLLength}
		var v SQLValue
		switch ty.Root {
		case SQLBoolean:
			v.Int = rapid.Int64Range(0, 1).Draw(t, "bool")
		case SQLTinyInt:
			v.Int = int64(rapid.Int8().Draw(t, "int8"))
		case SQLSmallInt:
			v.Int = int64(rapid.Int16().Draw(t, "int16"))
		case SQLInteger, SQLDate, SQLTime:
			v.Int = int64(rapid.Int32().Draw(t, "int32"))
		case SQLBigInt:
			v.Int = rapid.Int64().Draw(t, "int64")
		case SQLFloat:
			v.Float = float64(rapid.Float32().Draw(t, "float32"))
		case SQLDouble:
			v.Float = rapid.Float64().Draw(t, "float64")
		case SQLChar, SQLVarchar, SQLBinary, SQLVarbinary:
			v.Bytes = rapid.SliceOfN(rapid.Byte(), 0, 24).Draw(t, "bytes")
		case SQLDecimal:
			ty.Precision = rapid.IntRange(1, MaxDecimalPrecision).Draw(t, "precision")
			ty.Scale = rapid.IntRange(0, ty.Precision).Draw(t, "scale")
			digits := rapid.StringMatching("[0-9]{1,38}").Draw(t, "digits")
			v.Unscaled, _ = new(big.Int).SetString(digits[:min(len(digits), ty.Precision)], 10)
			if rapid.Bool().Draw(t, "negative") {
				v.Unscaled.Neg(v.Unscaled)
			}
		case SQLTimestamp, SQLTimestampLTZ:
			ty.Precision = rapid.IntRange(0, MaxTimestampPrecision).Draw(t, "precision")
			v.Int = rapid.Int64().Draw(t, "millis")
			v.Nano = rapid.Int32Range(0, 999_999).Draw(t, "nanos")
		}
		if rapid.IntRange(0, 4).Draw(t, "null") == 0 {
			v = SQLValue{Null: true}
		}
		return [2]any{ty, v}
	})
}

// TestSQLKeyRowProperties checks, for random composite keys, what the layout promises whatever
// the values: the size (header, one slot a field, a variable part per long string or bytes, 16
// bytes per DECIMAL above precision 18 and 8 per TIMESTAMP above precision 3, NULL or not), a
// multiple of 8; the null bits and zeroed slots of NULL fields; equal keys give equal rows; and
// the hash is MurmurHash3_x86_32 (seed 42) of the bytes.
func TestSQLKeyRowProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		fields := rapid.SliceOfN(sqlFieldGen(), 1, 8).Draw(t, "fields")
		types := make([]SQLType, len(fields))
		values := make([]SQLValue, len(fields))
		for i, f := range fields {
			types[i], values[i] = f[0].(SQLType), f[1].(SQLValue)
		}
		row, err := SQLKeyRow(types, values)
		if err != nil {
			t.Fatal(err)
		}
		size := 8 + 8*len(types)
		for i, ty := range types {
			switch {
			case ty.Root == SQLDecimal && ty.Precision > 18:
				size += 16
			case (ty.Root == SQLTimestamp || ty.Root == SQLTimestampLTZ) && ty.Precision > 3:
				size += 8
			case !values[i].Null && values[i].Bytes != nil && len(values[i].Bytes) > 7:
				size += (len(values[i].Bytes) + 7) / 8 * 8
			}
		}
		if len(row.Bytes) != size || size%8 != 0 {
			t.Fatalf("%d bytes, want %d", len(row.Bytes), size)
		}
		if row.Bytes[0] != 0 {
			t.Fatalf("row kind byte %d, want 0 (INSERT)", row.Bytes[0])
		}
		for i, v := range values {
			bit := row.Bytes[(i+8)/8]>>((i+8)%8)&1 == 1
			if bit != v.Null {
				t.Fatalf("field %d: null bit %v, NULL %v", i, bit, v.Null)
			}
			slot := binary.LittleEndian.Uint64(row.Bytes[8+8*i:])
			compact := !(types[i].Root == SQLDecimal && types[i].Precision > 18) &&
				!((types[i].Root == SQLTimestamp || types[i].Root == SQLTimestampLTZ) && types[i].Precision > 3)
			if v.Null && compact && slot != 0 {
				t.Fatalf("field %d: NULL slot %x, want 0", i, slot)
			}
			if v.Null && !compact && (slot&0xffffffff != 0 || slot>>32 < uint64(8+8*len(types))) {
				t.Fatalf("field %d: NULL slot %x, want the offset of its reserved part and length 0", i, slot)
			}
		}
		again, _ := SQLKeyRow(types, values)
		if !bytes.Equal(again.Bytes, row.Bytes) {
			t.Fatal("the same key wrote two different rows")
		}
		if got, want := row.HashCode(), int32(murmur3.Sum32WithSeed(row.Bytes, 42)); got != want {
			t.Fatalf("hash %d, murmur3 %d", got, want)
		}
	})
}

// TestSQLKeyRowErrors checks that values that cannot be of their type are refused.
func TestSQLKeyRowErrors(t *testing.T) {
	big39, _ := new(big.Int).SetString(strings.Repeat("9", 39), 10)
	cases := []struct {
		name  string
		types []SQLType
		vals  []SQLValue
		want  string
	}{
		{"arity", []SQLType{{Root: SQLInteger}}, nil, "bad SQL key: 0 values for 1 fields"},
		{"int range", []SQLType{{Root: SQLInteger}}, []SQLValue{{Int: 1 << 31}}, "bad SQL key: field 1 (INT): 2147483648 is outside -2147483648..2147483647"},
		{"boolean", []SQLType{{Root: SQLBoolean}}, []SQLValue{{Int: 2}}, "bad SQL key: field 1 (BOOLEAN): 2 is outside 0..1"},
		{"decimal digits", []SQLType{{Root: SQLDecimal, Precision: 3, Scale: 1}}, []SQLValue{{Unscaled: big.NewInt(-1000)}}, "bad SQL key: field 1 (DECIMAL(3,1)): the unscaled value -1000 has 4 digits, more than the precision 3"},
		{"decimal 39", []SQLType{{Root: SQLDecimal, Precision: 38}}, []SQLValue{{Unscaled: big39}}, "bad SQL key: field 1 (DECIMAL(38,0)): the unscaled value " + big39.String() + " has 39 digits, more than the precision 38"},
		{"decimal nil", []SQLType{{Root: SQLDecimal, Precision: 5}}, []SQLValue{{}}, "bad SQL key: field 1 (DECIMAL(5,0)): no unscaled value"},
		{"precision", []SQLType{{Root: SQLDecimal, Precision: 39}}, []SQLValue{{Null: true}}, "bad SQL key: field 1 (DECIMAL(39,0)): DECIMAL(39,0): the precision must be between 1 and 38"},
		{"nanos", []SQLType{{Root: SQLTimestamp, Precision: 9}}, []SQLValue{{Nano: 1_000_000}}, "bad SQL key: field 1 (TIMESTAMP(9)): model: nanoOfMillisecond 1000000 is outside 0..999999"},
		{"not null", []SQLType{{Root: SQLInteger, NotNull: true}}, []SQLValue{{Null: true}}, "bad SQL key: field 1 (INT NOT NULL): NULL in a NOT NULL field"},
		{"root", []SQLType{{}}, []SQLValue{{}}, "bad SQL key: field 1 (SQLType(0)): unknown SQL type root 0"},
	}
	for _, c := range cases {
		_, err := SQLKeyRow(c.types, c.vals)
		if err == nil || err.Error() != c.want || !errors.Is(err, ErrSQLKey) {
			t.Errorf("%s: error %v, want %q (matching ErrSQLKey)", c.name, err, c.want)
		}
	}
}
