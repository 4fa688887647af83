package model

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"strconv"
)

// This file models the key of a SQL (Table API) job: the key selector's projection writes the
// key fields into a BinaryRowData with a BinaryRowWriter, and the key's hashCode, which
// KeyGroupRangeAssignment routes by, is BinaryRowData.hashCode: MurmurHashUtils over the row's
// bytes (seed 42), not a Java hashCode of the field values.

// SQLTypeRoot models org.apache.flink.table.types.logical.LogicalTypeRoot for the types a SQL
// key field can have here. The zero SQLTypeRoot is invalid.
type SQLTypeRoot uint8

// The SQL key field types (LogicalTypeRoot constants).
const (
	SQLChar         SQLTypeRoot = iota + 1 // CHAR(n)
	SQLVarchar                             // VARCHAR(n); STRING is VARCHAR(2147483647)
	SQLBoolean                             // BOOLEAN
	SQLBinary                              // BINARY(n)
	SQLVarbinary                           // VARBINARY(n); BYTES is VARBINARY(2147483647)
	SQLDecimal                             // DECIMAL(p, s)
	SQLTinyInt                             // TINYINT
	SQLSmallInt                            // SMALLINT
	SQLInteger                             // INT
	SQLBigInt                              // BIGINT
	SQLFloat                               // FLOAT
	SQLDouble                              // DOUBLE
	SQLDate                                // DATE (days since 1970-01-01)
	SQLTime                                // TIME(p) (milliseconds of the day)
	SQLTimestamp                           // TIMESTAMP(p) (TIMESTAMP_WITHOUT_TIME_ZONE)
	SQLTimestampLTZ                        // TIMESTAMP_LTZ(p) (TIMESTAMP_WITH_LOCAL_TIME_ZONE)
)

// MaxSQLLength is the largest length of a CHAR, VARCHAR, BINARY or VARBINARY (Integer.MAX_VALUE:
// VARCHAR(MaxSQLLength) is STRING, VARBINARY(MaxSQLLength) is BYTES).
const MaxSQLLength = math.MaxInt32

// Precision bounds of DecimalType and TimestampType.
const (
	MaxDecimalPrecision   = 38 // DecimalType.MAX_PRECISION
	MaxTimestampPrecision = 9  // TimestampType.MAX_PRECISION (and TimeType's)
	// MaxCompactDecimalPrecision is DecimalData.MAX_COMPACT_PRECISION: a DECIMAL of at most
	// this precision is stored as its unscaled long in the fixed-length part.
	MaxCompactDecimalPrecision = 18
	// MaxCompactTimestampPrecision is the bound of TimestampData.isCompact: a TIMESTAMP of at
	// most this precision is stored as its epoch milliseconds in the fixed-length part.
	MaxCompactTimestampPrecision = 3
)

// SQLType is one field of a SQL key (a LogicalType): its root and, by root, the length (CHAR,
// VARCHAR, BINARY, VARBINARY), the precision (DECIMAL, TIME, TIMESTAMP, TIMESTAMP_LTZ) and the
// scale (DECIMAL). NotNull is LogicalType.isNullable() == false.
type SQLType struct {
	Root      SQLTypeRoot
	Length    int
	Precision int
	Scale     int
	NotNull   bool
}

// Check reports whether t is a type Flink can construct (the bounds of CharType, VarCharType,
// BinaryType, VarBinaryType, DecimalType, TimeType, TimestampType and LocalZonedTimestampType).
func (t SQLType) Check() error {
	switch t.Root {
	case SQLChar, SQLVarchar, SQLBinary, SQLVarbinary:
		if t.Length < 1 {
			return fmt.Errorf("%s: the length must be between 1 and %d", t, MaxSQLLength)
		}
	case SQLDecimal:
		if t.Precision < 1 || t.Precision > MaxDecimalPrecision {
			return fmt.Errorf("%s: the precision must be between 1 and %d", t, MaxDecimalPrecision)
		}
		if t.Scale < 0 || t.Scale > t.Precision {
			return fmt.Errorf("%s: the scale must be between 0 and the precision %d", t, t.Precision)
		}
	case SQLTime, SQLTimestamp, SQLTimestampLTZ:
		if t.Precision < 0 || t.Precision > MaxTimestampPrecision {
			return fmt.Errorf("%s: the precision must be between 0 and %d", t, MaxTimestampPrecision)
		}
	case SQLBoolean, SQLTinyInt, SQLSmallInt, SQLInteger, SQLBigInt, SQLFloat, SQLDouble, SQLDate:
	default:
		return fmt.Errorf("unknown SQL type root %d", t.Root)
	}
	return nil
}

// String spells t as Flink's LogicalType.asSummaryString does (with its shorthands STRING and
// BYTES for the unbounded VARCHAR and VARBINARY), but for two spellings of the project's own:
// DECIMAL(p,s) without the blank Flink writes after the comma, and a plain TIME for TIME(0)
// (differential.TestSQLKeysAgainstFlink compares the rest).
func (t SQLType) String() string {
	var s string
	switch t.Root {
	case SQLChar:
		s = "CHAR(" + strconv.Itoa(t.Length) + ")"
	case SQLVarchar:
		s = "VARCHAR(" + strconv.Itoa(t.Length) + ")"
		if t.Length == MaxSQLLength {
			s = "STRING"
		}
	case SQLBinary:
		s = "BINARY(" + strconv.Itoa(t.Length) + ")"
	case SQLVarbinary:
		s = "VARBINARY(" + strconv.Itoa(t.Length) + ")"
		if t.Length == MaxSQLLength {
			s = "BYTES"
		}
	case SQLBoolean:
		s = "BOOLEAN"
	case SQLDecimal:
		s = fmt.Sprintf("DECIMAL(%d,%d)", t.Precision, t.Scale)
	case SQLTinyInt:
		s = "TINYINT"
	case SQLSmallInt:
		s = "SMALLINT"
	case SQLInteger:
		s = "INT"
	case SQLBigInt:
		s = "BIGINT"
	case SQLFloat:
		s = "FLOAT"
	case SQLDouble:
		s = "DOUBLE"
	case SQLDate:
		s = "DATE"
	case SQLTime:
		s = "TIME"
		if t.Precision != 0 {
			s = "TIME(" + strconv.Itoa(t.Precision) + ")"
		}
	case SQLTimestamp:
		s = "TIMESTAMP(" + strconv.Itoa(t.Precision) + ")"
	case SQLTimestampLTZ:
		s = "TIMESTAMP_LTZ(" + strconv.Itoa(t.Precision) + ")"
	default:
		s = "SQLType(" + strconv.Itoa(int(t.Root)) + ")"
	}
	if t.NotNull {
		s += " NOT NULL"
	}
	return s
}

// SQLValue is the internal value of one key field (what a RowData holds for the field's type):
//
//   - Null: the field is NULL (the other fields are ignored);
//   - Int: BOOLEAN (0 false, 1 true), TINYINT, SMALLINT, INT, BIGINT, DATE (days), TIME
//     (milliseconds of the day), TIMESTAMP and TIMESTAMP_LTZ (TimestampData.getMillisecond);
//   - Nano: TIMESTAMP and TIMESTAMP_LTZ: TimestampData.getNanoOfMillisecond (0..999,999),
//     written only when the precision is above 3;
//   - Float: FLOAT and DOUBLE (a FLOAT's value converted to float64), written by its raw bits
//     as MemorySegment.putFloat/putDouble do: every NaN keeps its payload (Java's Double.NaN is
//     0x7ff8000000000000, Float.NaN 0x7fc00000) and -0.0 differs from 0.0;
//   - Bytes: CHAR and VARCHAR (the UTF-8 bytes of the BinaryStringData), BINARY and VARBINARY;
//   - Unscaled: DECIMAL: the unscaled value (value × 10^scale) of the DecimalData.
type SQLValue struct {
	Null     bool
	Int      int64
	Nano     int32
	Float    float64
	Bytes    []byte
	Unscaled *big.Int
}

// BinaryRowData models org.apache.flink.table.data.binary.BinaryRowData as written by a
// BinaryRowWriter into one segment: Bytes is the row (its getSizeInBytes bytes), Arity its
// number of fields.
type BinaryRowData struct {
	Arity int
	Bytes []byte
}

// HashCode models BinaryRowData.hashCode: BinarySegmentUtils.hashByWords over the row's bytes,
// that is MurmurHashUtils.hashBytesByWords (MurmurHash3_x86_32, seed 42, little-endian 4-byte
// words; a row's size is a multiple of 8, so there is no tail).
func (r BinaryRowData) HashCode() int32 { return murmurHashBytesByWords(r.Bytes, sqlHashSeed) }

// sqlHashSeed is MurmurHashUtils.DEFAULT_SEED.
const sqlHashSeed = 42

// murmurHashBytesByWords models MurmurHashUtils.hashBytesByWords(segment, offset, length, seed)
// on a little-endian machine: len(b) must be a multiple of 4.
func murmurHashBytesByWords(b []byte, seed uint32) int32 {
	if len(b)%4 != 0 {
		panic("model: internal error: hashBytesByWords over " + strconv.Itoa(len(b)) + " bytes, not a multiple of 4")
	}
	h := seed
	for i := 0; i < len(b); i += 4 {
		k := binary.LittleEndian.Uint32(b[i:])
		k *= 0xcc9e2d51
		k = bits.RotateLeft32(k, 15)
		k *= 0x1b873593
		h ^= k
		h = bits.RotateLeft32(h, 13)
		h = h*5 + 0xe6546b64
	}
	h ^= uint32(len(b))
	return int32(bitMix(h))
}

// Layout constants of BinaryRowData and BinaryFormat.
const (
	binaryRowHeaderBits = 8 // BinaryRowData.HEADER_SIZE_IN_BITS (the RowKind byte)
	maxFixPartDataSize  = 7 // BinaryFormat.MAX_FIX_PART_DATA_SIZE
)

// BinaryRowBitSetWidth models BinaryRowData.calculateBitSetWidthInBytes: the header byte and
// one null bit per field, rounded up to whole 8-byte words.
func BinaryRowBitSetWidth(arity int) int { return (arity + 63 + binaryRowHeaderBits) / 64 * 8 }

// BinaryRowWriter models org.apache.flink.table.data.writer.BinaryRowWriter (and its base
// AbstractBinaryWriter) writing one row: the null-bit header, one 8-byte slot per field in the
// fixed-length part, and a variable-length part in 8-byte words behind it. Bytes are written
// little-endian, as MemorySegment's native order on the x86 and ARM machines Flink runs on. A
// new writer is reset; one writer writes one row (Flink's writers are reused per key schema,
// which leaves the same bytes: a slot's unwritten bytes are only ever zero).
type BinaryRowWriter struct {
	arity    int
	nullBits int // nullBitsSizeInBytes
	buf      []byte
	cursor   int
}

// NewBinaryRowWriter returns a writer for a row of arity fields, as
// new BinaryRowWriter(new BinaryRowData(arity)) followed by reset().
func NewBinaryRowWriter(arity int) *BinaryRowWriter {
	nb := BinaryRowBitSetWidth(arity)
	fixed := nb + 8*arity // BinaryRowData.getFixedLengthPartSize
	return &BinaryRowWriter{arity: arity, nullBits: nb, buf: make([]byte, fixed), cursor: fixed}
}

// fieldOffset models BinaryRowWriter.getFieldOffset.
func (w *BinaryRowWriter) fieldOffset(pos int) int {
	if pos < 0 || pos >= w.arity {
		panic(fmt.Sprintf("model: internal error: field %d of a row of arity %d", pos, w.arity))
	}
	return w.nullBits + 8*pos
}

// SetNullAt models BinaryRowWriter.setNullAt: the field's null bit (bit pos+8 of the header)
// and a zeroed slot.
func (w *BinaryRowWriter) SetNullAt(pos int) {
	w.setNullBit(pos)
	binary.LittleEndian.PutUint64(w.buf[w.fieldOffset(pos):], 0)
}

// setNullBit models BinaryRowWriter.setNullBit (BinarySegmentUtils.bitSet).
func (w *BinaryRowWriter) setNullBit(pos int) {
	i := pos + binaryRowHeaderBits
	w.buf[i>>3] |= 1 << (i & 7)
}

// WriteBoolean models BinaryRowWriter.writeBoolean: one byte, 1 or 0.
func (w *BinaryRowWriter) WriteBoolean(pos int, v bool) {
	var b byte
	if v {
		b = 1
	}
	w.buf[w.fieldOffset(pos)] = b
}

// WriteTinyInt models BinaryRowWriter.writeByte (named so as not to look like io.ByteWriter).
func (w *BinaryRowWriter) WriteTinyInt(pos int, v int8) { w.buf[w.fieldOffset(pos)] = byte(v) }

// WriteShort models BinaryRowWriter.writeShort.
func (w *BinaryRowWriter) WriteShort(pos int, v int16) {
	binary.LittleEndian.PutUint16(w.buf[w.fieldOffset(pos):], uint16(v))
}

// WriteInt models BinaryRowWriter.writeInt.
func (w *BinaryRowWriter) WriteInt(pos int, v int32) {
	binary.LittleEndian.PutUint32(w.buf[w.fieldOffset(pos):], uint32(v))
}

// WriteLong models BinaryRowWriter.writeLong.
func (w *BinaryRowWriter) WriteLong(pos int, v int64) {
	binary.LittleEndian.PutUint64(w.buf[w.fieldOffset(pos):], uint64(v))
}

// WriteFloat models BinaryRowWriter.writeFloat (the float's raw bits).
func (w *BinaryRowWriter) WriteFloat(pos int, v float32) {
	binary.LittleEndian.PutUint32(w.buf[w.fieldOffset(pos):], math.Float32bits(v))
}

// WriteDouble models BinaryRowWriter.writeDouble (the double's raw bits).
func (w *BinaryRowWriter) WriteDouble(pos int, v float64) {
	binary.LittleEndian.PutUint64(w.buf[w.fieldOffset(pos):], math.Float64bits(v))
}

// WriteString models AbstractBinaryWriter.writeString with the string's UTF-8 bytes: the same
// layout as WriteBinary.
func (w *BinaryRowWriter) WriteString(pos int, utf8 []byte) { w.WriteBinary(pos, utf8) }

// WriteBinary models AbstractBinaryWriter.writeBinary: at most 7 bytes sit in the slot
// (writeBytesToFixLenPart: byte i at bit 8·i, the last byte 0x80 | length); longer ones go to
// the variable-length part, padded with zeros to whole words (writeBytesToVarLenPart), and the
// slot holds offset << 32 | length.
func (w *BinaryRowWriter) WriteBinary(pos int, b []byte) {
	if len(b) <= maxFixPartDataSize {
		var v uint64
		for i, c := range b {
			v |= uint64(c) << (8 * i)
		}
		v |= uint64(0x80|len(b)) << 56
		binary.LittleEndian.PutUint64(w.buf[w.fieldOffset(pos):], v)
		return
	}
	off := w.grow(roundToWord(len(b)))
	copy(w.buf[off:], b)
	w.setOffsetAndSize(pos, off, uint64(len(b)))
}

// WriteDecimal models AbstractBinaryWriter.writeDecimal of a DecimalData of the given precision
// with unscaled value unscaled; nil is a NULL, as the generated projection writes one for a
// DECIMAL that is not compact (CodeGenUtils.binaryWriterWriteNull). A compact DECIMAL
// (precision <= 18) is its unscaled long in the slot; any other reserves 16 zeroed bytes in the
// variable-length part, holding BigInteger.toByteArray of the unscaled value (nothing for a
// NULL, whose null bit is set), and the slot holds offset << 32 | the bytes' length. A compact
// NULL is SetNullAt; an unscaled value that does not fit the DECIMAL is an error (Flink's
// DecimalData cannot hold one).
func (w *BinaryRowWriter) WriteDecimal(pos int, unscaled *big.Int, precision int) error {
	if precision <= MaxCompactDecimalPrecision {
		if unscaled == nil || !unscaled.IsInt64() {
			return fmt.Errorf("model: the unscaled value of a compact DECIMAL(%d) must be a long", precision)
		}
		w.WriteLong(pos, unscaled.Int64())
		return nil
	}
	var b []byte
	if unscaled != nil {
		if b = javaBigIntegerBytes(unscaled); len(b) > 16 {
			return fmt.Errorf("model: the unscaled value %s of a DECIMAL(%d) needs %d bytes, more than 16", unscaled, precision, len(b))
		}
	}
	off := w.grow(16)
	if unscaled == nil {
		w.setNullBit(pos)
	}
	copy(w.buf[off:], b)
	w.setOffsetAndSize(pos, off, uint64(len(b)))
	return nil
}

// WriteTimestamp models AbstractBinaryWriter.writeTimestamp of a TimestampData (millis,
// nanoOfMillisecond) at the given precision; null is a NULL, as the generated projection writes
// one for a TIMESTAMP that is not compact. A compact TIMESTAMP (precision <= 3) is its epoch
// milliseconds in the slot (the nanos are dropped); any other puts the milliseconds in 8 bytes
// of the variable-length part (zeros for a NULL, whose null bit is set) and the slot holds
// offset << 32 | nanoOfMillisecond. A compact NULL is SetNullAt; a nanoOfMillisecond outside
// 0..999,999 is an error (TimestampData's constructor refuses it).
func (w *BinaryRowWriter) WriteTimestamp(pos int, millis int64, nanoOfMilli int32, null bool, precision int) error {
	if !null && (nanoOfMilli < 0 || nanoOfMilli > 999_999) {
		return fmt.Errorf("model: nanoOfMillisecond %d is outside 0..999999", nanoOfMilli)
	}
	if precision <= MaxCompactTimestampPrecision {
		if null {
			return errors.New("model: a NULL compact TIMESTAMP is written with SetNullAt")
		}
		w.WriteLong(pos, millis)
		return nil
	}
	off := w.grow(8)
	if null {
		w.setNullBit(pos)
		w.setOffsetAndSize(pos, off, 0)
		return nil
	}
	binary.LittleEndian.PutUint64(w.buf[off:], uint64(millis))
	w.setOffsetAndSize(pos, off, uint64(nanoOfMilli))
	return nil
}

// Complete models BinaryRowWriter.complete followed by BinaryRowData.copy: the row written so
// far, in bytes of its own.
func (w *BinaryRowWriter) Complete() BinaryRowData {
	return BinaryRowData{Arity: w.arity, Bytes: append([]byte(nil), w.buf[:w.cursor]...)}
}

// grow reserves n zeroed bytes (n a multiple of 8) at the cursor of the variable-length part and
// returns their offset; AbstractBinaryWriter zeroes the padding and the reserved words the same
// way (zeroOutPaddingBytes, putLong(cursor, 0)).
func (w *BinaryRowWriter) grow(n int) int {
	off := w.cursor
	w.buf = append(w.buf, make([]byte, n)...)
	w.cursor += n
	return off
}

// setOffsetAndSize models BinaryRowWriter.setOffsetAndSize: ((long) offset << 32) | size.
func (w *BinaryRowWriter) setOffsetAndSize(pos, offset int, size uint64) {
	binary.LittleEndian.PutUint64(w.buf[w.fieldOffset(pos):], uint64(offset)<<32|size)
}

// roundToWord models AbstractBinaryWriter.roundNumberOfBytesToNearestWord.
func roundToWord(n int) int { return (n + 7) &^ 7 }

// javaBigIntegerBytes models java.math.BigInteger.toByteArray: the two's-complement big-endian
// bytes of v in the fewest bytes that hold its sign bit (bitLength()/8 + 1).
func javaBigIntegerBytes(v *big.Int) []byte {
	bitLen := v.BitLen() // BigInteger.bitLength: of v, or of -v-1 when v is negative
	if v.Sign() < 0 {
		bitLen = new(big.Int).Not(v).BitLen()
	}
	n := bitLen/8 + 1
	x := new(big.Int).Set(v)
	if v.Sign() < 0 {
		x.Add(x, new(big.Int).Lsh(big.NewInt(1), uint(8*n)))
	}
	return x.FillBytes(make([]byte, n))
}

// ErrSQLKey matches every error of SQLKeyRow about its input.
var ErrSQLKey = errors.New("bad SQL key")

// SQLKeyRow models a SQL job's key selector (BinaryRowDataKeySelector over the generated
// projection): a BinaryRowWriter of len(types) fields, each value written as
// BinaryWriter.write dispatches on its type root, a NULL as CodeGenUtils.binaryWriterWriteNull
// writes it (SetNullAt, but WriteDecimal/WriteTimestamp of null for a DECIMAL or TIMESTAMP
// that is not compact), then complete() and copy(). Its HashCode is the key's hashCode. Values
// that do not fit their types are errors matching ErrSQLKey.
func SQLKeyRow(types []SQLType, values []SQLValue) (BinaryRowData, error) {
	if len(values) != len(types) {
		return BinaryRowData{}, fmt.Errorf("%w: %d values for %d fields", ErrSQLKey, len(values), len(types))
	}
	w := NewBinaryRowWriter(len(types))
	for i, t := range types {
		if err := w.writeField(i, t, values[i]); err != nil {
			return BinaryRowData{}, fmt.Errorf("%w: field %d (%s): %v", ErrSQLKey, i+1, t, err)
		}
	}
	return w.Complete(), nil
}

// writeField writes value v of field pos of type t.
func (w *BinaryRowWriter) writeField(pos int, t SQLType, v SQLValue) error {
	if err := t.Check(); err != nil {
		return err
	}
	if v.Null {
		if t.NotNull {
			return errors.New("NULL in a NOT NULL field")
		}
		switch {
		case t.Root == SQLDecimal && t.Precision > MaxCompactDecimalPrecision:
			return w.WriteDecimal(pos, nil, t.Precision)
		case (t.Root == SQLTimestamp || t.Root == SQLTimestampLTZ) && t.Precision > MaxCompactTimestampPrecision:
			return w.WriteTimestamp(pos, 0, 0, true, t.Precision)
		}
		w.SetNullAt(pos)
		return nil
	}
	inRange := func(lo, hi int64) error {
		if v.Int < lo || v.Int > hi {
			return fmt.Errorf("%d is outside %d..%d", v.Int, lo, hi)
		}
		return nil
	}
	switch t.Root {
	case SQLBoolean:
		if err := inRange(0, 1); err != nil {
			return err
		}
		w.WriteBoolean(pos, v.Int == 1)
	case SQLTinyInt:
		if err := inRange(math.MinInt8, math.MaxInt8); err != nil {
			return err
		}
		w.WriteTinyInt(pos, int8(v.Int))
	case SQLSmallInt:
		if err := inRange(math.MinInt16, math.MaxInt16); err != nil {
			return err
		}
		w.WriteShort(pos, int16(v.Int))
	case SQLInteger, SQLDate, SQLTime:
		if err := inRange(math.MinInt32, math.MaxInt32); err != nil {
			return err
		}
		w.WriteInt(pos, int32(v.Int))
	case SQLBigInt:
		w.WriteLong(pos, v.Int)
	case SQLFloat:
		w.WriteFloat(pos, float32(v.Float))
	case SQLDouble:
		w.WriteDouble(pos, v.Float)
	case SQLChar, SQLVarchar:
		w.WriteString(pos, v.Bytes)
	case SQLBinary, SQLVarbinary:
		w.WriteBinary(pos, v.Bytes)
	case SQLDecimal:
		if v.Unscaled == nil {
			return errors.New("no unscaled value")
		}
		if d := decimalDigits(v.Unscaled); d > t.Precision {
			return fmt.Errorf("the unscaled value %s has %d digits, more than the precision %d", v.Unscaled, d, t.Precision)
		}
		return w.WriteDecimal(pos, v.Unscaled, t.Precision)
	case SQLTimestamp, SQLTimestampLTZ:
		return w.WriteTimestamp(pos, v.Int, v.Nano, false, t.Precision)
	}
	return nil
}

// decimalDigits is BigDecimal.precision of an unscaled value: its number of decimal digits (1
// for zero).
func decimalDigits(v *big.Int) int {
	s := new(big.Int).Abs(v).String()
	return len(s)
}
