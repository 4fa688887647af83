// Package sqlkey reads the key of a SQL (Table API) job as text: its type, ROW<T1, …, Tn>, in
// Flink's SQL type syntax, and a key as a JSON array of its field values. model.SQLKeyRow
// writes the key's BinaryRowData, whose HashCode decides its key group.
//
// A type is spelled as Flink spells it (case-insensitive): INT (INTEGER), BIGINT, SMALLINT,
// TINYINT, BOOLEAN, FLOAT, DOUBLE, STRING, VARCHAR(n), CHAR(n), BYTES, VARBINARY(n),
// BINARY(n), DATE, TIME, TIME(p), TIMESTAMP(p), TIMESTAMP_LTZ(p), DECIMAL(p, s) (DEC and
// NUMERIC too), each optionally followed by NOT NULL; a field may be named (ROW<id BIGINT,
// `my name` STRING>), as Flink prints a key's type. Omitted parameters take Flink's defaults:
// VARCHAR, CHAR, VARBINARY and BINARY have length 1, DECIMAL is DECIMAL(10, 0), DECIMAL(p) is
// DECIMAL(p, 0), TIME is TIME(0), TIMESTAMP and TIMESTAMP_LTZ have precision 6.
//
// A value is JSON, one element per field, null for NULL:
//
//   - TINYINT, SMALLINT, INT, BIGINT: an integer in the type's range;
//   - DATE: days since 1970-01-01; TIME: milliseconds of the day (both an INT);
//   - BOOLEAN: true or false;
//   - FLOAT, DOUBLE: a string in Java's Float.toString/Double.toString form ("1.5", "-0.0",
//     "1.0E-5", "NaN", "Infinity", "-Infinity") or a JSON number, rounded to the type as Java's
//     parseFloat/parseDouble round;
//   - DECIMAL(p, s): a string (or JSON number) of plain decimal digits with at most s fraction
//     digits and at most p digits in all once scaled ("12.50" for DECIMAL(10, 2));
//   - TIMESTAMP(p) and TIMESTAMP_LTZ(p) with p <= 3: epoch milliseconds (an integer); with
//     p > 3: [epochMillis, nanoOfMillisecond] (nanoOfMillisecond 0..999999);
//   - STRING, VARCHAR, CHAR: a JSON string (its UTF-8 bytes; an unpaired UTF-16 surrogate
//     escape is refused);
//   - BYTES, VARBINARY, BINARY: the bytes in hex.
//
// This is the encoding of model/testdata/flink/sql_key_groups.csv, whose rows Flink's own
// BinaryRowWriter and BinaryRowData produced.
package sqlkey

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/restoresim/restoresim/model"
)

// RowType is the type of a SQL key: the fields of the ROW the key selector projects.
type RowType struct {
	Fields []model.SQLType
}

// String spells the type as ParseRowType reads it: row<T1,…,Tn> with each type's String.
func (rt RowType) String() string {
	var b strings.Builder
	b.WriteString("row<")
	for i, f := range rt.Fields {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(f.String())
	}
	b.WriteByte('>')
	return b.String()
}

// IsRowType reports whether s is meant as a row type: it starts with "row" (any case) followed,
// after optional blanks, by '<' or '('.
func IsRowType(s string) bool {
	s = strings.TrimSpace(s)
	if len(s) < 3 || !strings.EqualFold(s[:3], "row") {
		return false
	}
	rest := strings.TrimLeft(s[3:], " \t")
	return rest != "" && (rest[0] == '<' || rest[0] == '(')
}

// ParseRowType parses ROW<T1, …, Tn> (or ROW(T1, …, Tn)), n >= 1.
func ParseRowType(s string) (RowType, error) {
	p := &typeParser{}
	if err := p.lex(s); err != nil {
		return RowType{}, err
	}
	if !p.keyword("ROW") {
		return RowType{}, fmt.Errorf("a SQL key type is row<T1,…,Tn>, not %q", s)
	}
	closeTok := ">"
	switch {
	case p.punct("<"):
	case p.punct("("):
		closeTok = ")"
	default:
		return RowType{}, errors.New("row: want < after row")
	}
	var rt RowType
	for {
		t, err := p.field()
		if err != nil {
			return RowType{}, fmt.Errorf("row field %d: %w", len(rt.Fields)+1, err)
		}
		rt.Fields = append(rt.Fields, t)
		if p.punct(",") {
			continue
		}
		if p.punct(closeTok) {
			break
		}
		return RowType{}, fmt.Errorf("row field %d: want , or %s, got %s", len(rt.Fields), closeTok, p.peekDesc())
	}
	if !p.done() {
		return RowType{}, fmt.Errorf("unexpected %s after the row type", p.peekDesc())
	}
	return rt, nil
}

// ParseType parses one field type (as in sql_key_groups.csv's types column, e.g. DECIMAL(10,2)).
func ParseType(s string) (model.SQLType, error) {
	p := &typeParser{}
	if err := p.lex(s); err != nil {
		return model.SQLType{}, err
	}
	t, err := p.typ()
	if err != nil {
		return model.SQLType{}, err
	}
	if !p.done() {
		return model.SQLType{}, fmt.Errorf("unexpected %s after %s", p.peekDesc(), t)
	}
	return t, nil
}

// token is a lexeme of a type string: a word (keyword or identifier), a `quoted` name, a
// number or one punctuation character.
type token struct {
	kind byte // 'w' word, 'q' quoted name, 'n' number, 'p' punctuation
	text string
}

type typeParser struct {
	toks []token
	i    int
}

func (p *typeParser) lex(s string) error {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '<' || c == '>' || c == '(' || c == ')' || c == ',':
			p.toks = append(p.toks, token{'p', string(c)})
			i++
		case c >= '0' && c <= '9':
			j := i
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			p.toks = append(p.toks, token{'n', s[i:j]})
			i = j
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(s) && (s[j] == '_' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			p.toks = append(p.toks, token{'w', s[i:j]})
			i = j
		case c == '`':
			var name strings.Builder
			j := i + 1
			for {
				if j >= len(s) {
					return errors.New("unterminated `quoted` field name")
				}
				if s[j] == '`' {
					if j+1 < len(s) && s[j+1] == '`' { // `` is one backquote
						name.WriteByte('`')
						j += 2
						continue
					}
					break
				}
				name.WriteByte(s[j])
				j++
			}
			p.toks = append(p.toks, token{'q', name.String()})
			i = j + 1
		default:
			r, _ := utf8.DecodeRuneInString(s[i:])
			return fmt.Errorf("unexpected character %q in the type", r)
		}
	}
	return nil
}

func (p *typeParser) done() bool { return p.i == len(p.toks) }

func (p *typeParser) peek() (token, bool) {
	if p.done() {
		return token{}, false
	}
	return p.toks[p.i], true
}

// peekDesc describes the next token for a message.
func (p *typeParser) peekDesc() string {
	t, ok := p.peek()
	if !ok {
		return "the end"
	}
	return strconv.Quote(t.text)
}

// keyword consumes the word w (any case) if it is next.
func (p *typeParser) keyword(w string) bool {
	if t, ok := p.peek(); ok && t.kind == 'w' && strings.EqualFold(t.text, w) {
		p.i++
		return true
	}
	return false
}

// punct consumes the punctuation c if it is next.
func (p *typeParser) punct(c string) bool {
	if t, ok := p.peek(); ok && t.kind == 'p' && t.text == c {
		p.i++
		return true
	}
	return false
}

// field is [name] type [NOT NULL]: a name is a `quoted` name, or a word followed by another
// word that does not continue a type (NOT, NULL, PRECISION, WITH, WITHOUT).
func (p *typeParser) field() (model.SQLType, error) {
	if t, ok := p.peek(); ok && t.kind == 'q' {
		p.i++
	} else if ok && t.kind == 'w' && p.i+1 < len(p.toks) && p.toks[p.i+1].kind == 'w' {
		switch strings.ToUpper(p.toks[p.i+1].text) {
		case "NOT", "NULL", "PRECISION", "WITH", "WITHOUT":
		default:
			p.i++
		}
	}
	return p.typ()
}

// typ is a type and its optional NOT NULL.
func (p *typeParser) typ() (model.SQLType, error) {
	t, ok := p.peek()
	if !ok {
		return model.SQLType{}, errors.New("missing type")
	}
	if t.kind != 'w' {
		return model.SQLType{}, fmt.Errorf("want a type, got %q", t.text)
	}
	p.i++
	name := strings.ToUpper(t.text)
	var st model.SQLType
	var err error
	switch name {
	case "INT", "INTEGER":
		st.Root = model.SQLInteger
	case "BIGINT":
		st.Root = model.SQLBigInt
	case "SMALLINT":
		st.Root = model.SQLSmallInt
	case "TINYINT":
		st.Root = model.SQLTinyInt
	case "BOOLEAN":
		st.Root = model.SQLBoolean
	case "FLOAT":
		st.Root = model.SQLFloat
	case "DOUBLE":
		st.Root = model.SQLDouble
		p.keyword("PRECISION")
	case "DATE":
		st.Root = model.SQLDate
	case "STRING":
		st = model.SQLType{Root: model.SQLVarchar, Length: model.MaxSQLLength}
	case "BYTES":
		st = model.SQLType{Root: model.SQLVarbinary, Length: model.MaxSQLLength}
	case "VARCHAR", "CHAR", "VARBINARY", "BINARY":
		st.Root = map[string]model.SQLTypeRoot{"VARCHAR": model.SQLVarchar, "CHAR": model.SQLChar, "VARBINARY": model.SQLVarbinary, "BINARY": model.SQLBinary}[name]
		if st.Length, _, err = p.params(name, 1, 1, -1); err != nil {
			return st, err
		}
	case "DECIMAL", "DEC", "NUMERIC":
		st.Root = model.SQLDecimal
		if st.Precision, st.Scale, err = p.params(name, 2, 10, 0); err != nil {
			return st, err
		}
	case "TIME":
		st.Root = model.SQLTime
		if st.Precision, _, err = p.params(name, 1, 0, -1); err != nil {
			return st, err
		}
		if p.keyword("WITHOUT") {
			if !p.keyword("TIME") || !p.keyword("ZONE") {
				return st, errors.New("TIME WITHOUT: want TIME ZONE")
			}
		}
	case "TIMESTAMP", "TIMESTAMP_LTZ":
		st.Root = model.SQLTimestamp
		if name == "TIMESTAMP_LTZ" {
			st.Root = model.SQLTimestampLTZ
		}
		if st.Precision, _, err = p.params(name, 1, 6, -1); err != nil {
			return st, err
		}
		if name == "TIMESTAMP" {
			switch {
			case p.keyword("WITHOUT"):
				if !p.keyword("TIME") || !p.keyword("ZONE") {
					return st, errors.New("TIMESTAMP WITHOUT: want TIME ZONE")
				}
			case p.keyword("WITH"):
				if !p.keyword("LOCAL") {
					return st, errors.New("TIMESTAMP WITH TIME ZONE cannot be a key (Flink's runtime has no such data); TIMESTAMP WITH LOCAL TIME ZONE can")
				}
				if !p.keyword("TIME") || !p.keyword("ZONE") {
					return st, errors.New("TIMESTAMP WITH LOCAL: want TIME ZONE")
				}
				st.Root = model.SQLTimestampLTZ
			}
		}
	case "ROW":
		return st, errors.New("a nested ROW is not supported as a key field")
	default:
		return st, fmt.Errorf("unknown or unsupported type %q (want INT, BIGINT, SMALLINT, TINYINT, BOOLEAN, FLOAT, DOUBLE, STRING, VARCHAR(n), CHAR(n), BYTES, VARBINARY(n), BINARY(n), DATE, TIME, TIMESTAMP(p), TIMESTAMP_LTZ(p) or DECIMAL(p,s))", t.text)
	}
	if p.keyword("NOT") {
		if !p.keyword("NULL") {
			return st, fmt.Errorf("%s NOT: want NULL", st)
		}
		st.NotNull = true
	} else {
		p.keyword("NULL") // the default: nullable
	}
	return st, st.Check()
}

// params reads the optional "(a)" or "(a, b)" after a type name (at most max numbers);
// omitted ones take the defaults da and db.
func (p *typeParser) params(name string, most, da, db int) (int, int, error) {
	if !p.punct("(") {
		return da, db, nil
	}
	var vals []int
	for {
		t, ok := p.peek()
		if !ok || t.kind != 'n' {
			return 0, 0, fmt.Errorf("%s(: want a number, got %s", name, p.peekDesc())
		}
		p.i++
		v, err := strconv.Atoi(t.text)
		if err != nil || v > model.MaxSQLLength {
			return 0, 0, fmt.Errorf("%s: %s is too large", name, t.text)
		}
		vals = append(vals, v)
		if p.punct(")") {
			break
		}
		if len(vals) == most || !p.punct(",") {
			return 0, 0, fmt.Errorf("%s: want ) after %d parameter(s), got %s", name, len(vals), p.peekDesc())
		}
	}
	if len(vals) == 2 {
		return vals[0], vals[1], nil
	}
	return vals[0], db, nil
}

// ParseValues parses a key, a JSON array of one value per field (see the package comment).
func (rt RowType) ParseValues(text string) ([]model.SQLValue, error) {
	data := []byte(text)
	if !utf8.Valid(data) {
		return nil, errors.New("the key is not valid UTF-8")
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("not a JSON array: %v", err)
		}
		return nil, fmt.Errorf("not a JSON array of the %d field values", len(rt.Fields))
	}
	if raws == nil {
		return nil, errors.New("not a JSON array (null)")
	}
	if len(raws) != len(rt.Fields) {
		return nil, fmt.Errorf("%d values for the %d fields of %s", len(raws), len(rt.Fields), rt)
	}
	vals := make([]model.SQLValue, len(raws))
	for i, raw := range raws {
		v, err := parseValue(rt.Fields[i], bytes.TrimSpace(raw))
		if err != nil {
			return nil, fmt.Errorf("field %d (%s): %v", i+1, rt.Fields[i], err)
		}
		vals[i] = v
	}
	return vals, nil
}

// Row parses a key and writes its BinaryRowData (model.SQLKeyRow).
func (rt RowType) Row(text string) (model.BinaryRowData, error) {
	vals, err := rt.ParseValues(text)
	if err != nil {
		return model.BinaryRowData{}, err
	}
	return model.SQLKeyRow(rt.Fields, vals)
}

// Hash parses a key and returns its hashCode (BinaryRowData.hashCode) and its row's bytes as a
// string, which are equal exactly when Flink's keys are (BinaryRowData.equals).
func (rt RowType) Hash(text string) (int32, string, error) {
	row, err := rt.Row(text)
	if err != nil {
		return 0, "", err
	}
	return row.HashCode(), string(row.Bytes), nil
}

// excerptOf quotes raw JSON for a message, cut to 40 bytes.
func excerptOf(raw []byte) string {
	s := string(raw)
	if len(s) > 40 {
		i := 40
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		s = s[:i] + "…"
	}
	return s
}

// parseValue parses one field's JSON value (raw, trimmed) for type t.
func parseValue(t model.SQLType, raw []byte) (model.SQLValue, error) {
	if string(raw) == "null" {
		if t.NotNull {
			return model.SQLValue{}, errors.New("null in a NOT NULL field")
		}
		return model.SQLValue{Null: true}, nil
	}
	switch t.Root {
	case model.SQLTinyInt:
		return intValue(raw, 8, "a TINYINT (-128..127)")
	case model.SQLSmallInt:
		return intValue(raw, 16, "a SMALLINT (-32768..32767)")
	case model.SQLInteger:
		return intValue(raw, 32, "an INT (a 32-bit integer)")
	case model.SQLDate:
		return intValue(raw, 32, "a DATE (days since 1970-01-01, a 32-bit integer)")
	case model.SQLTime:
		return intValue(raw, 32, "a TIME (milliseconds of the day, a 32-bit integer)")
	case model.SQLBigInt:
		return intValue(raw, 64, "a BIGINT (a 64-bit integer)")
	case model.SQLBoolean:
		switch string(raw) {
		case "true":
			return model.SQLValue{Int: 1}, nil
		case "false":
			return model.SQLValue{}, nil
		}
		return model.SQLValue{}, fmt.Errorf("%s is not a BOOLEAN (true or false)", excerptOf(raw))
	case model.SQLFloat:
		return floatValue(raw, 32)
	case model.SQLDouble:
		return floatValue(raw, 64)
	case model.SQLChar, model.SQLVarchar:
		s, err := jsonString(raw)
		if err != nil {
			return model.SQLValue{}, err
		}
		return model.SQLValue{Bytes: []byte(s)}, nil
	case model.SQLBinary, model.SQLVarbinary:
		s, err := jsonString(raw)
		if err != nil {
			return model.SQLValue{}, fmt.Errorf("%v (want the bytes in hex)", err)
		}
		b, err := hex.DecodeString(s)
		if err != nil {
			return model.SQLValue{}, fmt.Errorf("%s is not hex bytes (two hex digits a byte)", excerptOf(raw))
		}
		return model.SQLValue{Bytes: b}, nil
	case model.SQLDecimal:
		return decimalValue(t, raw)
	case model.SQLTimestamp, model.SQLTimestampLTZ:
		return timestampValue(t, raw)
	}
	return model.SQLValue{}, fmt.Errorf("unknown type %s", t)
}

// intValue parses a JSON integer of the given bit size.
func intValue(raw []byte, bitSize int, want string) (model.SQLValue, error) {
	v, err := strconv.ParseInt(string(raw), 10, bitSize) // raw is JSON: no '+', no leading zeros
	if err != nil {
		return model.SQLValue{}, fmt.Errorf("%s is not %s", excerptOf(raw), want)
	}
	return model.SQLValue{Int: v}, nil
}

// javaNaN64 and javaNaN32 are the bits of Java's Double.NaN and Float.NaN (what parseDouble and
// parseFloat return for "NaN").
const (
	javaNaN64 = 0x7ff8000000000000
	javaNaN32 = 0x7fc00000
)

// floatValue parses a FLOAT (bitSize 32) or DOUBLE (64): a string in Java's toString form or a
// JSON number, rounded to the type as Float.parseFloat / Double.parseDouble round.
func floatValue(raw []byte, bitSize int) (model.SQLValue, error) {
	name := map[int]string{32: "FLOAT", 64: "DOUBLE"}[bitSize]
	s := string(raw)
	if raw[0] == '"' {
		var err error
		if s, err = jsonString(raw); err != nil {
			return model.SQLValue{}, err
		}
		switch s {
		case "NaN":
			if bitSize == 32 {
				return model.SQLValue{Float: float64(math.Float32frombits(javaNaN32))}, nil
			}
			return model.SQLValue{Float: math.Float64frombits(javaNaN64)}, nil
		case "Infinity":
			return model.SQLValue{Float: math.Inf(1)}, nil
		case "-Infinity":
			return model.SQLValue{Float: math.Inf(-1)}, nil
		}
	}
	if !isDecimalFloat(s) {
		return model.SQLValue{}, fmt.Errorf("%s is not a %s (a number, or a string such as \"1.5\", \"-0.0\", \"1.0E-5\", \"NaN\", \"Infinity\")", excerptOf(raw), name)
	}
	f, err := strconv.ParseFloat(s, bitSize)
	if err != nil && !errors.Is(err, strconv.ErrRange) { // out of range: ±Infinity or ±0, as Java
		return model.SQLValue{}, fmt.Errorf("%s is not a %s", excerptOf(raw), name)
	}
	return model.SQLValue{Float: f}, nil
}

// isDecimalFloat reports whether s is [+-]digits[.digits][(e|E)[+-]digits] (or .digits): the
// decimal floating-point literals Java's parseDouble reads that Go's ParseFloat reads alike.
func isDecimalFloat(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := func() int {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - j
	}
	n := digits()
	if i < len(s) && s[i] == '.' {
		i++
		n += digits()
	}
	if n == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// decimalValue parses a DECIMAL(p, s): plain decimal digits (a JSON string or number) with at
// most s fraction digits, scaled to s; more than p digits is an error, as
// DecimalData.fromBigDecimal cannot hold it.
func decimalValue(t model.SQLType, raw []byte) (model.SQLValue, error) {
	s := string(raw)
	if raw[0] == '"' {
		var err error
		if s, err = jsonString(raw); err != nil {
			return model.SQLValue{}, err
		}
	}
	body, neg := s, false
	if rest, ok := strings.CutPrefix(body, "-"); ok {
		body, neg = rest, true
	} else {
		body = strings.TrimPrefix(body, "+")
	}
	intPart, frac, _ := strings.Cut(body, ".")
	if intPart+frac == "" || strings.Trim(intPart, "0123456789") != "" || strings.Trim(frac, "0123456789") != "" {
		return model.SQLValue{}, fmt.Errorf("%s is not a %s (plain decimal digits such as \"-12.5\", at most %d after the point)", excerptOf(raw), t, t.Scale)
	}
	if len(frac) > t.Scale {
		return model.SQLValue{}, fmt.Errorf("%s has %d digits after the point, more than the scale of %s", excerptOf(raw), len(frac), t)
	}
	u, _ := new(big.Int).SetString(intPart+frac+strings.Repeat("0", t.Scale-len(frac)), 10) // digits only
	if neg {
		u.Neg(u)
	}
	if n := len(new(big.Int).Abs(u).String()); n > t.Precision {
		return model.SQLValue{}, fmt.Errorf("%s does not fit %s: %d digits, more than the precision %d", excerptOf(raw), t, n, t.Precision)
	}
	return model.SQLValue{Unscaled: u}, nil
}

// timestampValue parses a TIMESTAMP(p) or TIMESTAMP_LTZ(p): epoch milliseconds for p <= 3,
// [epochMillis, nanoOfMillisecond] otherwise.
func timestampValue(t model.SQLType, raw []byte) (model.SQLValue, error) {
	if t.Precision <= model.MaxCompactTimestampPrecision {
		v, err := intValue(raw, 64, fmt.Sprintf("a %s (epoch milliseconds, a 64-bit integer)", t))
		return v, err
	}
	want := fmt.Sprintf("a %s ([epochMillis, nanoOfMillisecond], nanoOfMillisecond 0..999999)", t)
	var pair []json.RawMessage
	if err := json.Unmarshal(raw, &pair); err != nil || len(pair) != 2 {
		return model.SQLValue{}, fmt.Errorf("%s is not %s", excerptOf(raw), want)
	}
	ms, err1 := strconv.ParseInt(string(bytes.TrimSpace(pair[0])), 10, 64)
	ns, err2 := strconv.ParseInt(string(bytes.TrimSpace(pair[1])), 10, 32)
	if err1 != nil || err2 != nil || ns < 0 || ns > 999_999 {
		return model.SQLValue{}, fmt.Errorf("%s is not %s", excerptOf(raw), want)
	}
	return model.SQLValue{Int: ms, Nano: int32(ns)}, nil
}

// jsonString decodes a JSON string literal (raw, already valid JSON), refusing an unpaired
// UTF-16 surrogate escape, which has no UTF-8 form (Java would write '?' for it, Go U+FFFD).
func jsonString(raw []byte) (string, error) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", fmt.Errorf("%s is not a JSON string", excerptOf(raw))
	}
	s := raw[1 : len(raw)-1]
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			i++
			continue
		}
		e := s[i+1]
		i += 2
		switch e {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r := hex4(s[i : i+4])
			i += 4
			if utf16.IsSurrogate(r) {
				if r < 0xdc00 && i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
					if lo := hex4(s[i+2 : i+6]); lo >= 0xdc00 && lo <= 0xdfff {
						b.WriteRune(utf16.DecodeRune(r, lo))
						i += 6
						continue
					}
				}
				return "", fmt.Errorf("the string has an unpaired UTF-16 surrogate \\u%04x, which has no UTF-8 form", r)
			}
			b.WriteRune(r)
		default: // " \ /
			b.WriteByte(e)
		}
	}
	return b.String(), nil
}

// hex4 is the value of four hex digits (valid: the JSON was checked).
func hex4(h []byte) rune {
	v, _ := strconv.ParseUint(string(h), 16, 32)
	return rune(v)
}
