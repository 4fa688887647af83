package model

import (
	"math"
	"math/bits"

	"github.com/restoresim/restoresim/model/internal/javamap"
	"github.com/restoresim/restoresim/model/internal/mutant"
)

// MurmurHash models org.apache.flink.util.MathUtils.murmurHash(int): MurmurHash3_x86_32 with
// seed 0 over the four little-endian bytes of code, followed by Flink's sign rule (a negative
// result becomes its absolute value, Integer.MIN_VALUE becomes 0). The result is never negative.
// See SPEC §A.
func MurmurHash(code int32) int32 {
	k := uint32(code) * 0xcc9e2d51
	k = bits.RotateLeft32(k, 15)
	k *= 0x1b873593
	h := bits.RotateLeft32(k, 13)
	h = h*5 + 0xe6546b64
	h ^= 4
	h = bitMix(h)
	return murmurSign(int32(h))
}

// bitMix models MathUtils.bitMix, the MurmurHash3 32-bit finalizer ("fmix").
func bitMix(h uint32) uint32 {
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

// murmurSign is the tail of MathUtils.murmurHash: non-negative values pass, Integer.MIN_VALUE
// becomes 0, other negative values become their absolute value.
func murmurSign(h int32) int32 {
	if h == math.MinInt32 && mutant.On(mutant.MurmurMinValueAbs) {
		return h // Math.abs(Integer.MIN_VALUE)
	}
	if h == math.MinInt32 && mutant.On(mutant.MurmurMinValueMax) {
		return math.MaxInt32
	}
	switch {
	case h >= 0:
		return h
	case h == math.MinInt32:
		return 0
	default:
		return -h
	}
}

// JavaIntHash models java.lang.Integer.hashCode: the value itself.
func JavaIntHash(v int32) int32 {
	if mutant.On(mutant.JavaIntHashNegativeAbs) && v < 0 {
		return -v
	}
	return v
}

// JavaLongHash models java.lang.Long.hashCode: (int)(v ^ (v >>> 32)).
func JavaLongHash(v int64) int32 {
	if mutant.On(mutant.JavaLongHashLowWord) {
		return int32(v)
	}
	return int32(uint64(v) ^ uint64(v)>>32)
}

// JavaStringHash models java.lang.String.hashCode: h = 31*h + c over the UTF-16 code units of s
// (characters outside the BMP count as a surrogate pair). Invalid UTF-8 bytes in s decode to
// U+FFFD, one per invalid byte, as Go's range over a string does.
func JavaStringHash(s string) int32 {
	if mutant.On(mutant.JavaStringHashCodePoints) {
		var h int32
		for _, r := range s {
			h = 31*h + r
		}
		return h
	}
	if mutant.On(mutant.JavaStringHashUTF8) {
		var h int32
		for i := 0; i < len(s); i++ {
			h = 31*h + int32(s[i])
		}
		return h
	}
	return javamap.StringHashCode(s)
}

// JavaBooleanHash models java.lang.Boolean.hashCode: 1231 for true, 1237 for false.
func JavaBooleanHash(v bool) int32 {
	if v {
		return 1231
	}
	return 1237
}

// JavaDoubleHash models java.lang.Double.hashCode over doubleToLongBits, so every NaN collapses
// to the canonical 0x7ff8000000000000 and 0.0 and -0.0 hash differently.
func JavaDoubleHash(v float64) int32 {
	b := math.Float64bits(v)
	if v != v {
		b = 0x7ff8000000000000
	}
	return JavaLongHash(int64(b))
}

// JavaFloatHash models java.lang.Float.hashCode over floatToIntBits (canonical NaN 0x7fc00000).
func JavaFloatHash(v float32) int32 {
	if v != v {
		return 0x7fc00000
	}
	return int32(math.Float32bits(v))
}

// JavaShortHash models java.lang.Short.hashCode: the sign-extended value.
func JavaShortHash(v int16) int32 { return int32(v) }

// JavaByteHash models java.lang.Byte.hashCode: the sign-extended value.
func JavaByteHash(v int8) int32 { return int32(v) }

// JavaCharHash models java.lang.Character.hashCode: the UTF-16 code unit.
func JavaCharHash(v uint16) int32 { return int32(v) }

// FlinkTupleHash models org.apache.flink.api.java.tuple.TupleN.hashCode (N ≥ 1) given the hash
// codes of its fields in order (0 for a null field): h = hash(f0), then h = 31*h + hash(fi).
// There is no leading 1, unlike java.util.List. With no fields it returns 0.
func FlinkTupleHash(fieldHashes ...int32) int32 {
	if len(fieldHashes) == 0 {
		return 0
	}
	h := fieldHashes[0]
	for _, f := range fieldHashes[1:] {
		h = 31*h + f
	}
	return h
}

// JavaListHash models java.util.List.hashCode given the hash codes of its elements in order
// (0 for a null element): h = 1, then h = 31*h + hash(e).
func JavaListHash(elementHashes ...int32) int32 {
	h := int32(1)
	for _, e := range elementHashes {
		h = 31*h + e
	}
	return h
}
