package reference

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/restoresim/restoresim/model"
)

// SQLKeySchema is one key schema of a SQL job (its fields' types) and rows of values to key.
type SQLKeySchema struct {
	Types []model.SQLType
	Rows  [][]model.SQLValue
}

// SQLKey is Flink's answer for one key row: the BinaryRowData's bytes (its getSizeInBytes
// bytes), its hashCode and its key group (KeyGroupRangeAssignment.assignToKeyGroup).
type SQLKey struct {
	Bytes    []byte
	Hash     int32
	KeyGroup int
}

// SQLKeyAnswer is Flink's answer for one schema: the fields' LogicalType.asSummaryString and a
// key per row.
type SQLKeyAnswer struct {
	Types []string
	Keys  []SQLKey
}

// ErrNoSQLWriter reports a build whose sources hold no flink-table-runtime writer package (the
// archive of master: FLINK-39458 moved it to flink-table-type-utils), so SQLKeys cannot run.
var ErrNoSQLWriter = errors.New("no BinaryRowWriter in the sources")

// sqlWriterFile is the file SqlKey.java requires.
const sqlWriterFile = "org/apache/flink/table/data/writer/BinaryRowWriter.java"

// HasSQLWriter reports whether the build compiled Flink's BinaryRowWriter (and so the sql_key op).
func (b *Build) HasSQLWriter() bool {
	_, found := slices.BinarySearch(b.Compiled, sqlWriterFile)
	return found
}

// SQLKeys asks Flink to key rows as a SQL job's key selector does (SqlKey.java): a
// BinaryRowWriter, each value written by BinaryWriter.write as Flink's internal data object, a
// NULL as CodeGenUtils.binaryWriterWriteNull, then complete() and copy(). One writer is reused
// for the rows of a schema.
func (j *JVM) SQLKeys(schemas []SQLKeySchema, maxParallelism int) ([]SQLKeyAnswer, error) {
	if !j.Build.HasSQLWriter() {
		return nil, fmt.Errorf("%w (Flink %s)", ErrNoSQLWriter, j.Version)
	}
	wire := make([]map[string]any, len(schemas))
	for i, s := range schemas {
		types := make([]map[string]any, len(s.Types))
		for k, t := range s.Types {
			root, ok := sqlRootNames[t.Root]
			if !ok {
				return nil, fmt.Errorf("reference: no SQL type root %d", t.Root)
			}
			types[k] = map[string]any{"root": root, "length": t.Length, "precision": t.Precision, "scale": t.Scale, "nullable": !t.NotNull}
		}
		rows := make([][]any, len(s.Rows))
		for r, vs := range s.Rows {
			if len(vs) != len(s.Types) {
				return nil, fmt.Errorf("reference: %d values for %d fields", len(vs), len(s.Types))
			}
			row := make([]any, len(vs))
			for k, v := range vs {
				w, err := sqlWireValue(s.Types[k], v)
				if err != nil {
					return nil, err
				}
				row[k] = w
			}
			rows[r] = row
		}
		wire[i] = map[string]any{"types": types, "rows": rows}
	}
	var out struct {
		Results []struct {
			Types []string `json:"types"`
			Rows  []struct {
				Bytes    string `json:"bytes"`
				Hash     int32  `json:"hash"`
				KeyGroup int    `json:"key_group"`
			} `json:"rows"`
		} `json:"results"`
	}
	if err := j.request(map[string]any{"op": "sql_key", "max_parallelism": maxParallelism, "schemas": wire}, &out); err != nil {
		return nil, err
	}
	if len(out.Results) != len(schemas) {
		return nil, fmt.Errorf("%w (Flink %s): %d answers to %d schemas", ErrJVM, j.Version, len(out.Results), len(schemas))
	}
	answers := make([]SQLKeyAnswer, len(schemas))
	for i, res := range out.Results {
		if len(res.Rows) != len(schemas[i].Rows) {
			return nil, fmt.Errorf("%w (Flink %s): %d keys for %d rows", ErrJVM, j.Version, len(res.Rows), len(schemas[i].Rows))
		}
		a := SQLKeyAnswer{Types: res.Types, Keys: make([]SQLKey, len(res.Rows))}
		for r, row := range res.Rows {
			b, err := hex.DecodeString(row.Bytes)
			if err != nil {
				return nil, fmt.Errorf("%w (Flink %s): key bytes: %v", ErrJVM, j.Version, err)
			}
			a.Keys[r] = SQLKey{Bytes: b, Hash: row.Hash, KeyGroup: row.KeyGroup}
		}
		answers[i] = a
	}
	return answers, nil
}

// sqlRootNames are SqlKey.java's names of the type roots.
var sqlRootNames = map[model.SQLTypeRoot]string{
	model.SQLChar: "CHAR", model.SQLVarchar: "VARCHAR", model.SQLBoolean: "BOOLEAN",
	model.SQLBinary: "BINARY", model.SQLVarbinary: "VARBINARY", model.SQLDecimal: "DECIMAL",
	model.SQLTinyInt: "TINYINT", model.SQLSmallInt: "SMALLINT", model.SQLInteger: "INTEGER",
	model.SQLBigInt: "BIGINT", model.SQLFloat: "FLOAT", model.SQLDouble: "DOUBLE",
	model.SQLDate: "DATE", model.SQLTime: "TIME", model.SQLTimestamp: "TIMESTAMP",
	model.SQLTimestampLTZ: "TIMESTAMP_LTZ",
}

// sqlWireValue is a value as SqlKey.java reads it: nil for NULL, else a string (see SqlKey.run).
func sqlWireValue(t model.SQLType, v model.SQLValue) (any, error) {
	if v.Null {
		return nil, nil
	}
	switch t.Root {
	case model.SQLChar, model.SQLVarchar, model.SQLBinary, model.SQLVarbinary:
		return base64.StdEncoding.EncodeToString(v.Bytes), nil
	case model.SQLFloat:
		return strconv.FormatInt(int64(int32(math.Float32bits(float32(v.Float)))), 10), nil
	case model.SQLDouble:
		return strconv.FormatInt(int64(math.Float64bits(v.Float)), 10), nil
	case model.SQLDecimal:
		if v.Unscaled == nil {
			return nil, errors.New("reference: a DECIMAL value without an unscaled value")
		}
		return v.Unscaled.String(), nil
	case model.SQLTimestamp, model.SQLTimestampLTZ:
		return strconv.FormatInt(v.Int, 10) + ":" + strconv.FormatInt(int64(v.Nano), 10), nil
	}
	return strconv.FormatInt(v.Int, 10), nil
}
