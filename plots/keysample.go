package plots

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/restoresim/restoresim/internal/excerpt"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/sqlkey"
)

// KeyType is the type of a sample's keys, which decides their hashCode: a Java int, long or
// String (a DataStream key), or the row of a SQL job's key (sqlkey.RowType: a BinaryRowData).
// The zero KeyType is invalid.
type KeyType struct {
	kind keyKind
	row  sqlkey.RowType
}

type keyKind uint8

const (
	intKind keyKind = iota + 1
	longKind
	stringKind
	rowKind
)

// The Java key types.
var (
	IntKey    = KeyType{kind: intKind}    // java.lang.Integer: model.JavaIntHash
	LongKey   = KeyType{kind: longKind}   // java.lang.Long: model.JavaLongHash
	StringKey = KeyType{kind: stringKind} // java.lang.String: model.JavaStringHash
)

// RowKey is the key type of a SQL job whose key has the row type rt: each key is a JSON array
// of its field values, hashed as Flink's BinaryRowData (model.SQLKeyRow).
func RowKey(rt sqlkey.RowType) KeyType { return KeyType{kind: rowKind, row: rt} }

// ParseKeyType parses "int", "long", "string" or a SQL key's "row<T1,…,Tn>" (sqlkey.ParseRowType).
func ParseKeyType(s string) (KeyType, error) {
	switch s {
	case "int":
		return IntKey, nil
	case "long":
		return LongKey, nil
	case "string":
		return StringKey, nil
	}
	if sqlkey.IsRowType(s) {
		rt, err := sqlkey.ParseRowType(s)
		if err != nil {
			return KeyType{}, fmt.Errorf("key type %s: %v", excerpt.Quote(s, 60), err)
		}
		return RowKey(rt), nil
	}
	if _, err := sqlkey.ParseType(s); err == nil {
		return KeyType{}, fmt.Errorf("unknown key type %s (a SQL job's key is a row, even of one field: row<%s>)", excerpt.Quote(s, 60), s)
	}
	return KeyType{}, fmt.Errorf("unknown key type %s (want int, long, string or a SQL key's row<T1,…,Tn>)", excerpt.Quote(s, 60))
}

// String is the key type as ParseKeyType reads it.
func (t KeyType) String() string {
	switch t.kind {
	case intKind:
		return "int"
	case longKind:
		return "long"
	case stringKind:
		return "string"
	case rowKind:
		return t.row.String()
	}
	return "invalid"
}

// Hash is the hashCode of key, written as text: a decimal integer for int and long keys (an
// error names a key that is not one), the key itself for string keys, a JSON array of the
// field values for row keys (the errors of sqlkey.RowType.ParseValues).
func (t KeyType) Hash(key string) (int32, error) {
	h, _, err := t.hash(key)
	return h, err
}

// hash is Hash and the key's canonical form: equal for keys Flink takes as equal (int and long
// keys as numbers, strings byte for byte, rows by their BinaryRowData bytes).
func (t KeyType) hash(key string) (int32, string, error) {
	switch t.kind {
	case intKind:
		v, err := strconv.ParseInt(key, 10, 32)
		if err != nil {
			return 0, "", fmt.Errorf("key %s is not an int (a 32-bit integer)", excerpt.Quote(key, 40))
		}
		return model.JavaIntHash(int32(v)), strconv.FormatInt(v, 10), nil
	case longKind:
		v, err := strconv.ParseInt(key, 10, 64)
		if err != nil {
			return 0, "", fmt.Errorf("key %s is not a long (a 64-bit integer)", excerpt.Quote(key, 40))
		}
		return model.JavaLongHash(v), strconv.FormatInt(v, 10), nil
	case rowKind:
		h, canon, err := t.row.Hash(key)
		if err != nil {
			return 0, "", fmt.Errorf("key %s: %v", excerpt.Quote(key, 40), err)
		}
		return h, canon, nil
	}
	return model.JavaStringHash(key), key, nil
}

// KeySample is a key file read by ReadKeySample: one entry per distinct key, in order of first
// appearance.
type KeySample struct {
	Keys    []KeyLoad
	Names   []string // the key as first written, for messages
	Records int64    // the records of all keys
	Lines   int      // the lines read (without a header)
}

// Heaviest returns the index of the key with the most records (the first on ties).
func (k KeySample) Heaviest() int {
	h := 0
	for i, kl := range k.Keys {
		if kl.Records > k.Keys[h].Records {
			h = i
		}
	}
	return h
}

// Errors of ReadKeySample about the whole sample.
var (
	ErrNoKeys    = errors.New("the key sample has no keys")
	ErrNoRecords = errors.New("every weight is 0, so there are no records to balance")
	// ErrNoWeight is a line of a weighted sample without a comma (as a KeyLineError).
	ErrNoWeight = errors.New("no weight (every line is key,weight)")
)

// KeyLineError is a bad line of a key sample.
type KeyLineError struct {
	Line int
	Err  error
}

// Error is "line N: " and the line's error.
func (e *KeyLineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

// Unwrap returns the line's error (ErrNoWeight, for instance).
func (e *KeyLineError) Unwrap() error { return e.Err }

// ReadKeySample streams a key file: one key per line, split on \n only and taken verbatim;
// with weights, each line is key,weight where the weight (a non-negative integer: the records
// of that line) follows the last comma and the key is everything before it, and a first line
// that is exactly "key,weight" is a header. Without weights every line is one record. Keys are
// distinct by value (int and long keys compare as numbers, strings byte for byte, rows by their
// BinaryRowData, so "1.5" and "1.50" are one DECIMAL(10,2)); a key seen on several lines adds up its records. A sample without keys is ErrNoKeys, one without
// records ErrNoRecords; a bad line is a *KeyLineError; a read error is returned as it is.
func ReadKeySample(r io.Reader, t KeyType, weights bool) (KeySample, error) {
	var ks KeySample
	index := map[string]int{}
	br := bufio.NewReaderSize(r, 1<<16)
	for lineNo := 1; ; lineNo++ {
		line, rerr := br.ReadString('\n')
		if rerr != nil && rerr != io.EOF {
			return KeySample{}, rerr
		}
		if rerr == io.EOF && line == "" {
			break
		}
		line = strings.TrimSuffix(line, "\n")
		key, w := line, int64(1)
		if weights {
			i := strings.LastIndexByte(line, ',')
			if i < 0 {
				return KeySample{}, &KeyLineError{lineNo, ErrNoWeight}
			}
			if lineNo == 1 && line == "key,weight" {
				continue
			}
			key = line[:i]
			ws := strings.TrimSpace(line[i+1:])
			var err error
			if w, err = strconv.ParseInt(ws, 10, 64); err != nil || w < 0 {
				return KeySample{}, &KeyLineError{lineNo, fmt.Errorf("weight %q is not a non-negative integer", ws)}
			}
		}
		h, canon, err := t.hash(key)
		if err != nil {
			if strings.HasSuffix(key, "\r") {
				err = fmt.Errorf("%v (the file has \\r\\n line endings; keys are read verbatim, convert it with dos2unix)", err)
			}
			return KeySample{}, &KeyLineError{lineNo, err}
		}
		if ks.Records > math.MaxInt64-w {
			return KeySample{}, &KeyLineError{lineNo, errors.New("the total weight overflows a 64-bit integer")}
		}
		ks.Records += w
		ks.Lines++
		if i, ok := index[canon]; ok {
			ks.Keys[i].Records += w
		} else {
			index[canon] = len(ks.Keys)
			ks.Keys = append(ks.Keys, KeyLoad{Hash: h, Records: w})
			ks.Names = append(ks.Names, key)
		}
		if rerr == io.EOF {
			break
		}
	}
	if len(ks.Keys) == 0 {
		return KeySample{}, ErrNoKeys
	}
	if ks.Records == 0 {
		return KeySample{}, ErrNoRecords
	}
	return ks, nil
}
