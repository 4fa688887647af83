package model

import "github.com/spaolacci/murmur3"

// OperatorIDFromUID models how Flink turns a user-set uid into an operator ID
// (StreamGraphHasherV2.generateUserSpecifiedHash): the 128-bit MurmurHash3 (x64 variant, seed 0)
// of the uid's UTF-8 bytes, the 16 digest bytes taken in order (Guava's HashCode.asBytes). The
// ID prints as Flink prints it, e.g. uid "kafka-source-uid" gives
// a4122ae5704b2a344a4284a3b4b9ee29.
func OperatorIDFromUID(uid string) OperatorID {
	h1, h2 := murmur3.Sum128([]byte(uid))
	var id OperatorID
	// Guava writes h1 then h2, each little-endian.
	for i := 0; i < 8; i++ {
		id[i] = byte(h1 >> (8 * i))
		id[8+i] = byte(h2 >> (8 * i))
	}
	return id
}
