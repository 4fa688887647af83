package differential

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/sqlkey"
	"github.com/restoresim/restoresim/reference"
)

// sqlKeyMaxParallelism is the max parallelism the key groups of SQL keys are compared at.
const sqlKeyMaxParallelism = 4096

// TestSQLKeysAgainstFlink: the key of a SQL job (model.SQLKeyRow: the BinaryRowData a key
// selector writes, byte for byte, its hashCode and key group) against Flink's BinaryRowWriter,
// BinaryWriter.write, BinaryRowData.hashCode and KeyGroupRangeAssignment (reference SqlKey.java),
// on every version whose sources hold flink-table-runtime's writer package: random keys of every
// type root (and the golden file's rows, model/testdata/flink/sql_key_groups.csv).
func TestSQLKeysAgainstFlink(t *testing.T) {
	golden := goldenSQLKeys(t)
	for _, v := range versions(t) {
		j := jvm(t, v)
		if !j.Build.HasSQLWriter() {
			// The archive of master holds no writer package: FLINK-39458 moved it to
			// flink-table-type-utils, which the archives do not hold.
			t.Logf("%s: skipped, %v", v, reference.ErrNoSQLWriter)
			continue
		}
		start := time.Now()
		r := rand.New(rand.NewPCG(29, uint64(v)))
		var schemas []reference.SQLKeySchema
		for range 400 {
			schemas = append(schemas, randomSQLSchema(r, 1+r.IntN(6), 10))
		}
		// One schema per type root at its edges, alone, with many rows.
		for root := model.SQLChar; root <= model.SQLTimestampLTZ; root++ {
			for _, notNull := range []bool{false, true} {
				s := reference.SQLKeySchema{Types: []model.SQLType{randomSQLType(r, root, notNull)}}
				for range 40 {
					s.Rows = append(s.Rows, []model.SQLValue{randomSQLValue(r, s.Types[0])})
				}
				schemas = append(schemas, s)
			}
		}
		schemas = append(schemas, golden...)
		keys, agree := compareSQLKeys(t, j, v, schemas)
		t.Logf("%s: %d keys in %d schemas (%d golden rows), %d agree (bytes, hashCode, key group at %d) in %v", v, keys, len(schemas), len(golden), agree, sqlKeyMaxParallelism, time.Since(start).Round(time.Millisecond))
	}
}

// compareSQLKeys asks Flink for the keys of the schemas' rows, in batches, and compares the
// model's; it returns the number of keys and of agreements.
func compareSQLKeys(t *testing.T, j *reference.JVM, v model.FlinkVersion, schemas []reference.SQLKeySchema) (keys, agree int) {
	t.Helper()
	bad := 0
	for lo := 0; lo < len(schemas); lo += 100 {
		batch := schemas[lo:min(lo+100, len(schemas))]
		answers, err := j.SQLKeys(batch, sqlKeyMaxParallelism)
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		for i, s := range batch {
			a := answers[i]
			for k, ty := range s.Types {
				if want := ty.String(); want != sqlSummaryAsModel(ty, a.Types[k]) {
					t.Errorf("%s: type %d: model %s, Flink %s", v, k, want, a.Types[k])
				}
			}
			for r, vals := range s.Rows {
				keys++
				got := a.Keys[r]
				row, err := model.SQLKeyRow(s.Types, vals)
				if err != nil {
					t.Errorf("%s: %s %s: model: %v", v, sqlkey.RowType{Fields: s.Types}, sqlValuesString(s.Types, vals), err)
					bad++
					continue
				}
				h := row.HashCode()
				kg := model.ComputeKeyGroupForKeyHash(h, sqlKeyMaxParallelism)
				if !bytes.Equal(row.Bytes, got.Bytes) || h != got.Hash || kg != got.KeyGroup {
					t.Errorf("%s: %s %s:\n model bytes %x hash %d key group %d\n Flink bytes %x hash %d key group %d",
						v, sqlkey.RowType{Fields: s.Types}, sqlValuesString(s.Types, vals), row.Bytes, h, kg, got.Bytes, got.Hash, got.KeyGroup)
					bad++
				} else {
					agree++
				}
				if bad > 20 {
					t.Fatalf("%s: too many disagreements", v)
				}
			}
		}
	}
	return keys, agree
}

// sqlSummaryAsModel is Flink's asSummaryString of a type as SQLType.String spells it: DECIMAL(p,s)
// without Flink's blank after the comma, and TIME for TIME(0).
func sqlSummaryAsModel(t model.SQLType, flink string) string {
	switch t.Root {
	case model.SQLDecimal:
		return strings.Replace(flink, ", ", ",", 1)
	case model.SQLTime:
		return strings.Replace(flink, "TIME(0)", "TIME", 1)
	}
	return flink
}

// sqlValuesString spells values for a message.
func sqlValuesString(types []model.SQLType, vals []model.SQLValue) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		switch {
		case v.Null:
			parts[i] = "NULL"
		case types[i].Root == model.SQLFloat:
			parts[i] = fmt.Sprintf("float32bits %#x", math.Float32bits(float32(v.Float)))
		case types[i].Root == model.SQLDouble:
			parts[i] = fmt.Sprintf("float64bits %#x", math.Float64bits(v.Float))
		case types[i].Root == model.SQLDecimal:
			parts[i] = "unscaled " + v.Unscaled.String()
		case types[i].Root == model.SQLTimestamp || types[i].Root == model.SQLTimestampLTZ:
			parts[i] = fmt.Sprintf("%d ms + %d ns", v.Int, v.Nano)
		case v.Bytes != nil:
			parts[i] = fmt.Sprintf("%q", v.Bytes)
		default:
			parts[i] = fmt.Sprint(v.Int)
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// randomSQLSchema is n random field types and rows of random values.
func randomSQLSchema(r *rand.Rand, n, rows int) reference.SQLKeySchema {
	var s reference.SQLKeySchema
	for range n {
		s.Types = append(s.Types, randomSQLType(r, model.SQLTypeRoot(1+r.IntN(int(model.SQLTimestampLTZ))), r.IntN(3) == 0))
	}
	for range rows {
		vals := make([]model.SQLValue, n)
		for i, ty := range s.Types {
			vals[i] = randomSQLValue(r, ty)
		}
		s.Rows = append(s.Rows, vals)
	}
	return s
}

// randomSQLType is a type of the root with random parameters, favouring the bounds: lengths 1
// to MaxSQLLength, DECIMAL precisions around the compact bound 18/19 and the maximum 38, scales
// 0 to the precision, TIME/TIMESTAMP precisions 0 to 9 (the compact bound 3/4 included).
func randomSQLType(r *rand.Rand, root model.SQLTypeRoot, notNull bool) model.SQLType {
	t := model.SQLType{Root: root, NotNull: notNull}
	switch root {
	case model.SQLChar, model.SQLVarchar, model.SQLBinary, model.SQLVarbinary:
		t.Length = []int{1, 1 + r.IntN(20), 1 + r.IntN(1000), model.MaxSQLLength}[r.IntN(4)]
	case model.SQLDecimal:
		t.Precision = []int{1 + r.IntN(38), 18, 19, 17 + r.IntN(4), 38}[r.IntN(5)]
		t.Scale = []int{0, r.IntN(t.Precision + 1), t.Precision}[r.IntN(3)]
	case model.SQLTime, model.SQLTimestamp, model.SQLTimestampLTZ:
		t.Precision = []int{r.IntN(10), 3, 4, 0, 9}[r.IntN(5)]
	}
	return t
}

// randomSQLValue is a value of the type: NULL now and then when the type is nullable, edges
// often (±(10^p − 1) for a DECIMAL, NaN payloads, ±0.0, ±Inf, strings of 0 to 7 and of 8 or
// more bytes, multi-byte UTF-8, negative epoch milliseconds, every nanoOfMillisecond).
func randomSQLValue(r *rand.Rand, t model.SQLType) model.SQLValue {
	if !t.NotNull && r.IntN(5) == 0 {
		return model.SQLValue{Null: true}
	}
	edge := r.IntN(4) == 0
	switch t.Root {
	case model.SQLBoolean:
		return model.SQLValue{Int: int64(r.IntN(2))}
	case model.SQLTinyInt:
		return model.SQLValue{Int: int64(int8(r.Uint32()))}
	case model.SQLSmallInt:
		return model.SQLValue{Int: int64(int16(r.Uint32()))}
	case model.SQLInteger, model.SQLDate:
		if edge {
			return model.SQLValue{Int: []int64{0, -1, math.MinInt32, math.MaxInt32}[r.IntN(4)]}
		}
		return model.SQLValue{Int: int64(int32(r.Uint32()))}
	case model.SQLTime:
		return model.SQLValue{Int: r.Int64N(86_400_000)}
	case model.SQLBigInt:
		if edge {
			return model.SQLValue{Int: []int64{0, -1, math.MinInt64, math.MaxInt64}[r.IntN(4)]}
		}
		return model.SQLValue{Int: int64(r.Uint64())}
	case model.SQLFloat:
		if edge {
			f := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
				math.Float32frombits(0x7fc00000 | r.Uint32()&0x3fffff), math.Float32frombits(0xffc00001), math.MaxFloat32, math.SmallestNonzeroFloat32}[r.IntN(9)]
			return model.SQLValue{Float: float64(f)}
		}
		return model.SQLValue{Float: float64(math.Float32frombits(r.Uint32()))}
	case model.SQLDouble:
		if edge {
			f := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(),
				math.Float64frombits(0x7ff8000000000000 | r.Uint64()&0xfffffffffffff), math.Float64frombits(0xfff0000000000001 | r.Uint64()&0x7ffffffffffff),
				math.MaxFloat64, math.SmallestNonzeroFloat64}[r.IntN(9)]
			return model.SQLValue{Float: f}
		}
		return model.SQLValue{Float: math.Float64frombits(r.Uint64())}
	case model.SQLChar, model.SQLVarchar:
		return model.SQLValue{Bytes: []byte(randomSQLString(r))}
	case model.SQLBinary, model.SQLVarbinary:
		b := make([]byte, randomSQLLength(r))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return model.SQLValue{Bytes: b}
	case model.SQLDecimal:
		var u *big.Int
		switch {
		case edge && r.IntN(3) == 0:
			u = big.NewInt(0)
		case edge:
			u = new(big.Int).Sub(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.Precision)), nil), big.NewInt(1)) // 10^p − 1
		default:
			// A random number of digits, then a random value of that many digits.
			digits := make([]byte, 1+r.IntN(t.Precision))
			for i := range digits {
				digits[i] = byte('0' + r.IntN(10))
			}
			u, _ = new(big.Int).SetString(string(digits), 10)
		}
		if r.IntN(2) == 0 {
			u.Neg(u)
		}
		return model.SQLValue{Unscaled: u}
	case model.SQLTimestamp, model.SQLTimestampLTZ:
		ms := r.Int64N(1<<44) - 1<<43 // about ±278 years around 1970
		if edge {
			ms = []int64{0, -1, math.MinInt64 / 2, 253402300799999}[r.IntN(4)]
		}
		nano := r.Int32N(1_000_000)
		if edge && r.IntN(2) == 0 {
			nano = []int32{0, 999_999}[r.IntN(2)]
		}
		return model.SQLValue{Int: ms, Nano: nano}
	}
	panic("no value of " + t.String())
}

// randomSQLLength is a length of bytes: 0 to 7 (in the slot), 8 (the first one out of it) or
// more.
func randomSQLLength(r *rand.Rand) int {
	switch r.IntN(4) {
	case 0, 1:
		return r.IntN(8)
	case 2:
		return 8
	}
	return 9 + r.IntN(40)
}

// randomSQLString is a string of about randomSQLLength bytes, ASCII or multi-byte UTF-8.
func randomSQLString(r *rand.Rand) string {
	n := randomSQLLength(r)
	var b strings.Builder
	for b.Len() < n {
		switch r.IntN(4) {
		case 0, 1:
			b.WriteRune(rune(0x20 + r.IntN(0x5f)))
		case 2:
			b.WriteRune(rune(0xa0 + r.IntN(0x700)))
		default:
			b.WriteRune([]rune{'日', '本', '\U0001F600', '€'}[r.IntN(4)])
		}
	}
	return b.String()
}

// goldenSQLKeys are the rows of model/testdata/flink/sql_key_groups.csv (Flink 1.18's keys; see
// its .md), as schemas of one row each.
func goldenSQLKeys(t *testing.T) []reference.SQLKeySchema {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "model", "testdata", "flink", "sql_key_groups.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []reference.SQLKeySchema
	for n, row := range rows[1:] {
		rt, err := sqlkey.ParseRowType("row<" + strings.ReplaceAll(row[0], ";", ",") + ">")
		if err == nil {
			var vals []model.SQLValue
			if vals, err = rt.ParseValues(row[1]); err == nil {
				out = append(out, reference.SQLKeySchema{Types: rt.Fields, Rows: [][]model.SQLValue{vals}})
				continue
			}
		}
		t.Fatalf("sql_key_groups.csv line %d: %v", n+2, err)
	}
	return out
}
