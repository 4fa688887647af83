package sim

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/sqlkey"
)

// The input log is a pure function of (seed, split, offset): the source re-reads the same records
// after a restore rewinds its offsets, which is how Flink's replayable sources give exactly-once,
// and the oracle recomputes expected state from it without looking at the model.

// mix64 is SplitMix64's finaliser: a bijective 64-bit mixer.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// record is one input record: a key (by index into the key space) and a value to add.
type record struct {
	key   int
	value int64
}

// recordAt is the record at offset of split in the job's input.
func recordAt(seed uint64, j *Job, split int, offset int64) record {
	h := mix64(seed ^ mix64(uint64(split)+0x9e3779b97f4a7c15*uint64(offset+1)))
	u := float64(h>>11) / (1 << 53)
	n := j.NumKeys
	var k int
	switch j.KeyDist {
	case Zipf: // log-uniform: a Zipf-like skew without a CDF table
		k = int(math.Pow(float64(n), u)) - 1
	case HotKey:
		if h&1 == 0 {
			k = 0
		} else {
			k = int(u * float64(n))
		}
	case Sequential:
		k = int((uint64(split)*1_000_003 + uint64(offset)) % uint64(n))
	default:
		k = int(u * float64(n))
	}
	k = min(max(k, 0), n-1)
	return record{key: k, value: int64(1 + mix64(h)%100)}
}

// derivedKey is the key keyed stages key a record with key index k by: k modulo DerivedKeys, a
// java.lang.Integer (its display form and hashCode).
func derivedKey(k int) (string, int32) {
	d := int32(k % DerivedKeys)
	return strconv.Itoa(int(d)), model.JavaIntHash(d)
}

// keyOf renders key index k as the job's key value (its display form) and its Java hashCode.
func keyOf(t KeyType, values KeyValues, k int) (string, int32) {
	if values == ExtremeKeys {
		return extremeKey(t, k)
	}
	if values == MinHashKeys && k == 0 {
		return minHashKey(t)
	}
	switch t {
	case KeyRow:
		s := "user-" + strconv.Itoa(k)
		if k%7 == 3 {
			s = "ключ-" + strconv.Itoa(k) + "-😀"
		}
		if k%11 == 5 {
			return rowKey(nil, &s)
		}
		id := int64(k)
		return rowKey(&id, &s)
	case KeyLong:
		v := int64(k)<<33 | int64(k) // exercises Long.hashCode's high-bits fold
		if k%3 == 1 {
			v = -v
		}
		return strconv.FormatInt(v, 10), model.JavaLongHash(v)
	case KeyString:
		s := "user-" + strconv.Itoa(k)
		if k%7 == 3 {
			s = "ключ-" + strconv.Itoa(k) + "-😀" // non-ASCII and a surrogate pair
		}
		return s, model.JavaStringHash(s)
	default:
		v := int32(k*7919 - 5000)
		return strconv.Itoa(int(v)), model.JavaIntHash(v)
	}
}

// keyCache holds keyOf of key indexes for one key type and kind of values, filled as keys
// are asked for.
type keyCache struct {
	t      KeyType
	values KeyValues
	keys   []cachedKey
}

type cachedKey struct {
	name string
	hash int32
	ok   bool
}

// maxCachedKeys bounds a keyCache (a scenario may name millions of keys).
const maxCachedKeys = 1 << 16

// of is keyOf(t, values, k), computed once for each k while t and values stay the same.
func (c *keyCache) of(t KeyType, values KeyValues, k int) (string, int32) {
	if c.t != t || c.values != values {
		*c = keyCache{t: t, values: values}
	}
	if k >= maxCachedKeys {
		return keyOf(t, values, k)
	}
	if k >= len(c.keys) {
		c.keys = append(c.keys, make([]cachedKey, k+1-len(c.keys))...)
	}
	x := &c.keys[k]
	if !x.ok {
		x.name, x.hash = keyOf(t, values, k)
		x.ok = true
	}
	return x.name, x.hash
}

// Edge values of each key type: the first key indexes of an ExtremeKeys job. "Aa" and "BB" (and
// "AaAa", "BBBB") have the same String.hashCode; "é" precomposed and decomposed are different
// strings; the supplementary characters are UTF-16 surrogate pairs.
var (
	extremeInts    = []int32{math.MinInt32, math.MaxInt32, 0, -1, 1, math.MinInt32 + 1, math.MaxInt32 - 1, -2}
	extremeLongs   = []int64{math.MinInt64, math.MaxInt64, 0, -1, 1, math.MinInt32, math.MaxInt32, 1 << 32, -1 << 32, math.MinInt64 + 1, math.MaxInt64 - 1, math.MaxUint32}
	extremeStrings = []string{"", "Aa", "BB", "AaAa", "BBBB", "😀", "𝄞", "\U0010FFFF", "\uFFFF", "\u0000", "é", "e\u0301", "日本語", "ключ", "a😀b", "😀😀😀😀😀😀😀😀", "\uD7FF\uE000"}
	// keyScripts are the alphabets of the later string keys: ASCII, Latin-1, Cyrillic, CJK,
	// and supplementary planes (emoji, musical symbols, CJK extension B).
	keyScripts = [][]rune{[]rune("abcXYZ09-_"), []rune("äöüßñçø"), []rune("жщюяЁ"), []rune("日本語中文한국"), []rune("😀🎉🚀𝄞𝄢𠀀𠜎")}
)

// extremeKey renders key index k of an ExtremeKeys job: the edge values first, then values
// spread over the whole type (a bijective mix of k, so distinct indexes give distinct ints and
// longs; strings carry k in a suffix).
func extremeKey(t KeyType, k int) (string, int32) {
	h := mix64(uint64(k) + 0x2545f4914f6cdd1d)
	switch t {
	case KeyRow:
		if k < len(extremeRows) {
			return rowKey(extremeRows[k].id, extremeRows[k].region)
		}
		s, _ := extremeKey(KeyString, k)
		id := int64(h)
		if h%5 == 0 {
			return rowKey(nil, &s)
		}
		return rowKey(&id, &s)
	case KeyLong:
		v := int64(h)
		if k < len(extremeLongs) {
			v = extremeLongs[k]
		}
		return strconv.FormatInt(v, 10), model.JavaLongHash(v)
	case KeyString:
		if k < len(extremeStrings) {
			return extremeStrings[k], model.JavaStringHash(extremeStrings[k])
		}
		var b []rune
		for i := range 1 + int(h%9) {
			sc := keyScripts[(h>>(8+3*i))%uint64(len(keyScripts))]
			b = append(b, sc[(h>>(20+2*i))%uint64(len(sc))])
		}
		s := string(b) + "#" + strconv.Itoa(k)
		return s, model.JavaStringHash(s)
	default:
		v := int32(uint32(k)*0x9e3779b1 ^ 0x5bd1e995) // bijective on 32 bits: distinct keys
		if k < len(extremeInts) {
			v = extremeInts[k]
		}
		return strconv.Itoa(int(v)), model.JavaIntHash(v)
	}
}

// SQLKeyType is the row type of a KeyRow job's keys: ROW<BIGINT, STRING>, as a SQL job
// grouping by a user id and a region keys its aggregation.
var SQLKeyType = sqlkey.RowType{Fields: []model.SQLType{{Root: model.SQLBigInt}, {Root: model.SQLVarchar, Length: model.MaxSQLLength}}}

// extremeRows are the first keys of an ExtremeKeys row job: NULLs in either field and both, the
// edge longs, the empty string, strings of 7 and 8 UTF-8 bytes (the last inline length and the
// first in the variable-length part, in ASCII and in multi-byte characters), a 16-byte one.
var extremeRows = func() []struct {
	id     *int64
	region *string
} {
	i64 := func(v int64) *int64 { return &v }
	str := func(s string) *string { return &s }
	return []struct {
		id     *int64
		region *string
	}{
		{nil, nil}, {nil, str("")}, {i64(0), nil}, {i64(0), str("")},
		{i64(math.MinInt64), str("abcdefg")}, {i64(math.MaxInt64), str("abcdefgh")},
		{i64(-1), str("中中")}, {i64(1), str("中中中")}, {nil, str("😀😀")}, {i64(math.MinInt32), str("é")},
		{i64(math.MaxInt32), str("0123456789abcdef")}, {i64(1 << 32), str("\u0000")},
	}
}()

// rowKey is the display form (a JSON array, null for NULL) and the hashCode of the row key
// [id, region], written by the model as a SQL job's key selector writes it.
func rowKey(id *int64, region *string) (string, int32) {
	vals := []model.SQLValue{{Null: true}, {Null: true}}
	js := []any{nil, nil}
	if id != nil {
		vals[0], js[0] = model.SQLValue{Int: *id}, *id
	}
	if region != nil {
		vals[1], js[1] = model.SQLValue{Bytes: []byte(*region)}, *region
	}
	row, err := model.SQLKeyRow(SQLKeyType.Fields, vals)
	if err != nil {
		panic("sim: internal error: " + err.Error())
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(js) // plain values: cannot fail
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), row.HashCode()
}

// ruleAt is broadcast update i: a rule name and value.
func ruleAt(seed uint64, i int) (string, int64) {
	h := mix64(seed ^ 0xb7e151628aed2a6b ^ uint64(i)*0x9e3779b97f4a7c15)
	return "rule-" + strconv.Itoa(int(h%7)), int64(h>>40) % 1000
}
