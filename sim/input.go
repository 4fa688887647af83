package sim

import (
	"math"
	"strconv"

	"github.com/restoresim/restoresim/model"
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
func keyOf(t KeyType, k int) (string, int32) {
	switch t {
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

// ruleAt is broadcast update i: a rule name and value.
func ruleAt(seed uint64, i int) (string, int64) {
	h := mix64(seed ^ 0xb7e151628aed2a6b ^ uint64(i)*0x9e3779b97f4a7c15)
	return "rule-" + strconv.Itoa(int(h%7)), int64(h>>40) % 1000
}
