package oracle

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"unicode/utf16"

	"github.com/spaolacci/murmur3"
)

// KeyType is the Java type of a key, which decides its hashCode.
type KeyType uint8

const (
	// Int keys are java.lang.Integer: hashCode is the value.
	Int KeyType = iota + 1
	// Long keys are java.lang.Long: hashCode is (int)(v ^ (v >>> 32)).
	Long
	// String keys are java.lang.String: hashCode is h = 31·h + c over the UTF-16 code units.
	String
	// Row keys are a SQL job's ROW<BIGINT, STRING> key, displayed as a JSON array
	// [id, "region"] (null for NULL): hashCode is BinaryRowData.hashCode (RowHashCode).
	Row
)

// IntHashCode is java.lang.Integer.hashCode.
func IntHashCode(v int32) int32 { return v }

// LongHashCode is java.lang.Long.hashCode: the high 32 bits folded into the low ones by XOR.
func LongHashCode(v int64) int32 {
	hi := int32(uint64(v) >> 32)
	lo := int32(uint64(v) & 0xffffffff)
	return hi ^ lo
}

// StringHashCode is java.lang.String.hashCode: s[0]·31^(n−1) + … + s[n−1] in int arithmetic
// (wrapping), over the UTF-16 code units of s, so a character outside the Basic Multilingual Plane
// counts as its two surrogates. Invalid UTF-8 bytes count as U+FFFD each (Go's []rune conversion).
func StringHashCode(s string) int32 {
	var h int32
	for _, r := range s {
		if r >= 0x10000 { // outside the BMP: its surrogate pair
			hi, lo := utf16.EncodeRune(r)
			h = 31*(31*h+hi) + lo
			continue
		}
		h = 31*h + r
	}
	return h
}

// HashCode is the Java hashCode of a key of type t given in its display form (decimal for Int
// and Long, the string itself for String).
func HashCode(t KeyType, key string) (int32, error) {
	switch t {
	case Int:
		v, err := strconv.ParseInt(key, 10, 32)
		if err != nil {
			return 0, fmt.Errorf("oracle: key %q is not an int: %w", key, err)
		}
		return IntHashCode(int32(v)), nil
	case Long:
		v, err := strconv.ParseInt(key, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("oracle: key %q is not a long: %w", key, err)
		}
		return LongHashCode(v), nil
	case String:
		return StringHashCode(key), nil
	case Row:
		return RowHashCode(RowFields, key)
	}
	return 0, fmt.Errorf("oracle: unknown key type %d", t)
}

// RowFields are the field types of the simulator's SQL key (Row).
var RowFields = []string{"BIGINT", "STRING"}

// RowHashCode is the hashCode of a SQL key whose fields are INT, BIGINT or STRING (types),
// given as a JSON array (null for NULL), written out from Flink's BinaryRowWriter as a flat
// byte layout: a header of whole words whose bit 8+i flags field i as NULL, a word per field
// (the int or long; a string of up to 7 UTF-8 bytes with 0x80|length in its top byte; else the
// string's offset in the high half and its length in the low half, the string following in
// whole words, zero padded), all little-endian. The hash is MurmurHash3_x86_32 with seed 42 of
// those bytes (BinaryRowData.hashCode, MurmurHashUtils.hashBytesByWords).
func RowHashCode(types []string, key string) (int32, error) {
	var fields []json.RawMessage
	if err := json.Unmarshal([]byte(key), &fields); err != nil || len(fields) != len(types) {
		return 0, fmt.Errorf("oracle: row key %q is not a JSON array of %d values", key, len(types))
	}
	header := (len(types) + 8 + 63) / 64 * 8
	buf := make([]byte, header+8*len(types))
	for i, f := range fields {
		slot := buf[header+8*i : header+8*i+8]
		if string(f) == "null" {
			buf[(i+8)/8] |= 1 << ((i + 8) % 8)
			continue
		}
		switch types[i] {
		case "INT", "BIGINT":
			d := json.NewDecoder(bytes.NewReader(f))
			d.UseNumber()
			var n json.Number
			if err := d.Decode(&n); err != nil {
				return 0, fmt.Errorf("oracle: row key %q: field %d is not a number", key, i)
			}
			v, err := strconv.ParseInt(n.String(), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("oracle: row key %q: field %d is not a long", key, i)
			}
			if types[i] == "INT" {
				binary.LittleEndian.PutUint32(slot, uint32(int32(v)))
			} else {
				binary.LittleEndian.PutUint64(slot, uint64(v))
			}
		case "STRING":
			var s string
			if err := json.Unmarshal(f, &s); err != nil {
				return 0, fmt.Errorf("oracle: row key %q: field %d is not a string", key, i)
			}
			if len(s) < 8 {
				copy(slot, s)
				slot[7] = 0x80 | byte(len(s))
				continue
			}
			binary.LittleEndian.PutUint32(slot, uint32(len(s)))
			binary.LittleEndian.PutUint32(slot[4:], uint32(len(buf)))
			buf = append(buf, s...)
			for len(buf)%8 != 0 {
				buf = append(buf, 0)
			}
		default:
			return 0, fmt.Errorf("oracle: row field type %q", types[i])
		}
	}
	return int32(murmur3.Sum32WithSeed(buf, 42)), nil
}

// MurmurHash is Flink's MathUtils.murmurHash(int), written out as Flink's Java code does it:
// one MurmurHash3_x86_32 block (seed 0) over the int, length 4, the fmix finaliser, then the
// sign rule (a negative result becomes its absolute value, Integer.MIN_VALUE becomes 0).
func MurmurHash(code int32) int32 {
	c := uint32(code) * 0xcc9e2d51
	c = bits.RotateLeft32(c, 15)
	c *= 0x1b873593
	c = bits.RotateLeft32(c, 13)
	c = c*5 + 0xe6546b64
	c ^= 4
	c ^= c >> 16
	c *= 0x85ebca6b
	c ^= c >> 13
	c *= 0xc2b2ae35
	c ^= c >> 16
	h := int32(c)
	switch {
	case h >= 0:
		return h
	case h == math.MinInt32:
		return 0
	}
	return -h
}

// KeyGroup is KeyGroupRangeAssignment.computeKeyGroupForKeyHash: murmurHash(hashCode) mod M.
func KeyGroup(hashCode int32, maxParallelism int) int {
	return int(MurmurHash(hashCode)) % maxParallelism
}

// KeyGroupRange is the key groups subtask i of p owns at max parallelism M
// (computeKeyGroupRangeForOperatorIndex): [⌈i·M/p⌉, ⌈(i+1)·M/p⌉ − 1], computed with 64-bit
// arithmetic so that no product overflows.
func KeyGroupRange(maxParallelism, parallelism, i int) (start, end int) {
	m, p := int64(maxParallelism), int64(parallelism)
	ceil := func(a int64) int64 { return (a*m + p - 1) / p }
	return int(ceil(int64(i))), int(ceil(int64(i)+1) - 1)
}

// Owner is the subtask of p owning key group kg at max parallelism M: the unique i whose
// KeyGroupRange holds kg, found by a binary search over the range ends (not Flink's kg·p/M
// shortcut, so that the two derivations check each other).
func Owner(kg, maxParallelism, parallelism int) int {
	lo, hi := 0, parallelism-1
	for lo < hi {
		mid := (lo + hi) / 2
		if _, end := KeyGroupRange(maxParallelism, parallelism, mid); end >= kg {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// Route is where Flink's KeyGroupStreamPartitioner sends a key of type t (display form key) at
// max parallelism M and parallelism p: its key group and the subtask owning it.
func Route(t KeyType, key string, maxParallelism, parallelism int) (kg, subtask int, err error) {
	h, err := HashCode(t, key)
	if err != nil {
		return 0, 0, err
	}
	kg = KeyGroup(h, maxParallelism)
	return kg, Owner(kg, maxParallelism, parallelism), nil
}

// Bounds of the default max parallelism (KeyGroupRangeAssignment).
const (
	// LowerBoundMaxParallelism is DEFAULT_LOWER_BOUND_MAX_PARALLELISM.
	LowerBoundMaxParallelism = 128
	// UpperBoundMaxParallelism is UPPER_BOUND_MAX_PARALLELISM (Short.MAX_VALUE + 1).
	UpperBoundMaxParallelism = 1 << 15
)

// DefaultMaxParallelism is KeyGroupRangeAssignment.computeDefaultMaxParallelism: 1.5·p rounded
// up to a power of two, at least 128 and at most 32,768. It returns 0 for a parallelism outside
// 1..32,768, which Flink refuses.
func DefaultMaxParallelism(parallelism int) int {
	if parallelism < 1 || parallelism > UpperBoundMaxParallelism {
		return 0
	}
	m := 1
	for m < parallelism+parallelism/2 {
		m <<= 1
	}
	return min(max(m, LowerBoundMaxParallelism), UpperBoundMaxParallelism)
}

// OperatorID is a Flink operator ID: 16 bytes, printed as 32 lowercase hex digits.
type OperatorID [16]byte

// String prints the ID as Flink does.
func (id OperatorID) String() string { return hex.EncodeToString(id[:]) }

// OperatorIDFromUID is the operator ID Flink derives from a uid(...) (StreamGraphHasherV2's
// generateUserSpecifiedHash): Guava's murmur3_128(0) over the uid's UTF-8 bytes, whose asBytes
// are h1 then h2, each little-endian.
func OperatorIDFromUID(uid string) OperatorID {
	h1, h2 := murmur3.Sum128([]byte(uid))
	var id OperatorID
	for i := range 8 {
		id[i] = byte(h1 >> (8 * i))
		id[8+i] = byte(h2 >> (8 * i))
	}
	return id
}
