package sim

import (
	"encoding/binary"
	"testing"

	"github.com/restoresim/restoresim/sim/oracle"
	"github.com/spaolacci/murmur3"
)

// TestMinHashKeys checks the precomputed keys of rarekeys.go: each key's hashCode, by the
// oracle's own Java hash of its display form, is MinHashCode, and MinHashCode's MurmurHash3
// (MathUtils.murmurHash before the sign rule: one 4-byte block, seed 0) is Integer.MIN_VALUE,
// which the sign rule maps to 0.
func TestMinHashKeys(t *testing.T) {
	var b [4]byte
	code := MinHashCode
	binary.LittleEndian.PutUint32(b[:], uint32(code))
	if h := murmur3.Sum32WithSeed(b[:], 0); h != 0x80000000 {
		t.Fatalf("murmur3(%d) = %#x, want Integer.MIN_VALUE", MinHashCode, h)
	}
	if got := oracle.MurmurHash(MinHashCode); got != 0 {
		t.Errorf("oracle.MurmurHash(%d) = %d, want 0 (the sign rule)", MinHashCode, got)
	}
	for _, kt := range []KeyType{KeyInt, KeyLong, KeyString, KeyRow} {
		key, h := minHashKey(kt)
		want, err := oracle.HashCode(oracleKeyType(kt), key)
		if err != nil || want != MinHashCode || h != MinHashCode {
			t.Errorf("%s key %s: hashCode %d (oracle %d, %v), want %d", kt, key, h, want, err, MinHashCode)
		}
		if k0, _ := keyOf(kt, MinHashKeys, 0); k0 != key {
			t.Errorf("%s: key index 0 of a min-hash job is %s, want %s", kt, k0, key)
		}
		if k1, _ := keyOf(kt, MinHashKeys, 1); k1 == key {
			t.Errorf("%s: key index 1 of a min-hash job is the min-hash key too", kt)
		}
	}
}
