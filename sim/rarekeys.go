package sim

import (
	"strconv"

	"github.com/restoresim/restoresim/model"
)

// Keys whose MathUtils.murmurHash is Integer.MIN_VALUE before the sign rule, one of each key
// type, precomputed offline by inverting the hash (rarekeys_test.go checks each against the
// oracle's murmur). MurmurHash3's 32-bit mix of one int is a bijection, so exactly one hashCode,
// −2089875627, reaches Integer.MIN_VALUE; the sign rule maps it to 0, key group 0 at every max
// parallelism. A Math.abs in its place leaves it negative (key group MIN_VALUE mod M, negative
// unless M is a power of two).
const (
	// MinHashCode is the hashCode whose murmur hash is Integer.MIN_VALUE.
	MinHashCode int32 = -2089875627
	// minHashInt is the java.lang.Integer of hashCode MinHashCode: the value itself.
	minHashInt int32 = MinHashCode
	// minHashLong is a java.lang.Long whose high and low words XOR to MinHashCode
	// (0x12345678 in the high word).
	minHashLong int64 = 1311768467306402093
	// minHashString is an ASCII string of String.hashCode MinHashCode.
	minHashString = "min-gafagca"
	// minHashRowID and minHashRowRegion are a SQL row key [id, region] whose BinaryRowData
	// hashCode (MurmurHash3_x86_32, seed 42, over the row's 24 bytes) is MinHashCode: the id's
	// low word solved for with the rest fixed.
	minHashRowID     int64 = 184473796295
	minHashRowRegion       = "minhash"
)

// minHashKey is key index 0 of a MinHashKeys job: the key of type t whose hashCode is
// MinHashCode (its display form and hashCode).
func minHashKey(t KeyType) (string, int32) {
	switch t {
	case KeyRow:
		id, region := minHashRowID, minHashRowRegion
		return rowKey(&id, &region)
	case KeyLong:
		return strconv.FormatInt(minHashLong, 10), model.JavaLongHash(minHashLong)
	case KeyString:
		return minHashString, model.JavaStringHash(minHashString)
	default:
		return strconv.Itoa(int(minHashInt)), model.JavaIntHash(minHashInt)
	}
}
