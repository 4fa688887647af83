// Package strictdecode reads a small YAML or JSON document into a tree of values that keeps
// the line of every value, and checks the tree against a schema of fields written in Go: every
// error names the field path and the line (never a Go type), numbers are integers in both
// formats unless a field says otherwise, and unknown or repeated fields are refused, with a
// suggestion for a misspelt name.
//
// It is the strict decoding behind the CLI's --job file; the schema (which fields, what they
// fill) stays with the caller, so the same document type can be described once in Go and read
// from either format.
package strictdecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/restoresim/restoresim/internal/excerpt"
)

// MaxDepth bounds the nesting of a document's values.
const MaxDepth = 32

// MaxValues bounds the values a document may expand to (YAML aliases can repeat a subtree).
const MaxValues = 1 << 20

// ErrEmpty is returned by Decode for a document with no value (empty, blank or an empty YAML
// document); the caller words it, e.g. by saying what the document should hold.
var ErrEmpty = errors.New("strictdecode: empty document")

// Kind is the kind of one value.
type Kind int

// The kinds of values. The zero Kind is invalid.
const (
	Null   Kind = iota + 1 // null, ~ or an empty YAML value
	Bool                   // true or false
	Int                    // an integer (Value.Num holds it unless it overflowed)
	Number                 // a number that is not an integer: 2.9, 1e3, 2.0
	String                 // a string, or in YAML any other plain scalar
	List                   // a YAML sequence or JSON array
	Map                    // a YAML mapping or JSON object
)

// Value is one value of a document, with the line it starts on.
type Value struct {
	Kind  Kind
	Line  int
	Text  string   // scalars: the value as written (strings unquoted)
	Plain bool     // a YAML scalar, whose text may stand for a string whatever its tag
	Num   int64    // Int: the value
	NumOK bool     // Int: Num holds the value (false: it does not fit 64 bits)
	Keys  []string // Map: the field names, in file order
	Vals  []*Value // Map: the value of Keys[i]; List: the items
}

// yamlBigInt is an integer that YAML resolves as a float because it does not fit 64 bits.
var yamlBigInt = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[-+]?[0-9][0-9_]*$`) }) // (compiled when first used, not at start-up)

// Decode reads a document as JSON (name ending in .json, or text starting with '{') or as one
// YAML document into a tree of values. Errors are one line ("YAML: …", "JSON: line 3: …",
// "line 7: …"); a document without a value is ErrEmpty. what names the document's content
// in messages ("job": "JSON: trailing data after the job").
func Decode(name string, data []byte, what string) (*Value, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, ErrEmpty
	}
	if strings.EqualFold(filepath.Ext(name), ".json") || trimmed[0] == '{' {
		return decodeJSON(data, what)
	}
	return decodeYAML(data)
}

// decodeYAML reads one YAML document.
func decodeYAML(data []byte) (*Value, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			return nil, ErrEmpty
		}
		return nil, fmt.Errorf("YAML: %s", excerpt.OneLine(strings.TrimPrefix(err.Error(), "yaml: ")))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err != io.EOF {
		return nil, errors.New("YAML: more than one document in the file")
	}
	budget := MaxValues
	return yamlValue(&doc, 0, &budget)
}

// yamlValue converts a YAML node (following aliases) into a Value.
func yamlValue(n *yaml.Node, depth int, budget *int) (*Value, error) {
	if depth > MaxDepth {
		return nil, fmt.Errorf("line %d: values nested more than %d deep", n.Line, MaxDepth)
	}
	if *budget--; *budget < 0 {
		return nil, fmt.Errorf("line %d: more than %d values (aliases expand too far)", n.Line, MaxValues)
	}
	v := &Value{Line: n.Line}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, ErrEmpty
		}
		return yamlValue(n.Content[0], depth, budget)
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, fmt.Errorf("line %d: unknown alias", n.Line)
		}
		a, err := yamlValue(n.Alias, depth+1, budget)
		if err != nil {
			return nil, err
		}
		c := *a
		c.Line = n.Line
		return &c, nil
	case yaml.SequenceNode:
		v.Kind = List
		for _, c := range n.Content {
			cv, err := yamlValue(c, depth+1, budget)
			if err != nil {
				return nil, err
			}
			v.Vals = append(v.Vals, cv)
		}
	case yaml.MappingNode:
		v.Kind = Map
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: a field name must be plain text", k.Line)
			}
			cv, err := yamlValue(n.Content[i+1], depth+1, budget)
			if err != nil {
				return nil, err
			}
			v.Keys = append(v.Keys, k.Value)
			v.Vals = append(v.Vals, cv)
		}
	case yaml.ScalarNode:
		v.Text, v.Plain = n.Value, true
		switch n.ShortTag() {
		case "!!null":
			v.Kind = Null
		case "!!bool":
			v.Kind = Bool
		case "!!int":
			v.Kind = Int
			v.NumOK = n.Decode(&v.Num) == nil
		case "!!float":
			v.Kind = Number
			if yamlBigInt().MatchString(v.Text) {
				v.Kind = Int // an integer too large for 64 bits: out of bounds, not a fraction
			}
		default:
			v.Kind = String
		}
	default:
		return nil, fmt.Errorf("line %d: unexpected YAML node", n.Line)
	}
	return v, nil
}

// decodeJSON reads exactly one JSON value.
func decodeJSON(data []byte, what string) (*Value, error) {
	d := &jsonTree{dec: json.NewDecoder(bytes.NewReader(data)), data: data, line: 1}
	d.dec.UseNumber()
	tok, err := d.next()
	if err != nil {
		return nil, err
	}
	v, err := d.value(tok, 0)
	if err != nil {
		return nil, err
	}
	if _, err := d.dec.Token(); err != io.EOF {
		if err == nil {
			return nil, errors.New("JSON: more than one value in the file")
		}
		return nil, errors.New("JSON: trailing data after the " + what)
	}
	return v, nil
}

// jsonTree builds a Value tree from JSON tokens, counting lines as it goes.
type jsonTree struct {
	dec  *json.Decoder
	data []byte
	off  int // bytes of data counted into line
	line int // the line where the last token ended
}

// next reads a token and the line it ends on (JSON tokens never span lines).
func (d *jsonTree) next() (json.Token, error) {
	tok, err := d.dec.Token()
	end := min(max(int(d.dec.InputOffset()), d.off), len(d.data))
	d.line += bytes.Count(d.data[d.off:end], []byte{'\n'})
	d.off = end
	switch {
	case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
		return nil, fmt.Errorf("JSON: line %d: unexpected end of the file", d.line)
	case err != nil:
		return nil, fmt.Errorf("JSON: line %d: %s", d.line, excerpt.OneLine(err.Error()))
	}
	return tok, nil
}

// value builds the value that starts with tok, reading the rest of a list or an object.
func (d *jsonTree) value(tok json.Token, depth int) (*Value, error) {
	if depth > MaxDepth {
		return nil, fmt.Errorf("line %d: values nested more than %d deep", d.line, MaxDepth)
	}
	v := &Value{Line: d.line}
	switch t := tok.(type) {
	case nil:
		v.Kind = Null
	case bool:
		v.Kind, v.Text = Bool, strconv.FormatBool(t)
	case string:
		v.Kind, v.Text = String, t
	case json.Number:
		v.Text = string(t)
		if strings.ContainsAny(v.Text, ".eE") {
			v.Kind = Number
		} else {
			n, err := strconv.ParseInt(v.Text, 10, 64)
			v.Kind, v.Num, v.NumOK = Int, n, err == nil
		}
	case json.Delim:
		closing := json.Delim(']')
		v.Kind = List
		if t == '{' {
			closing, v.Kind = '}', Map
		}
		for {
			tok, err := d.next()
			if err != nil {
				return nil, err
			}
			if tok == closing {
				break
			}
			if v.Kind == Map {
				k, _ := tok.(string) // the decoder only gives a string here
				v.Keys = append(v.Keys, k)
				if tok, err = d.next(); err != nil {
					return nil, err
				}
			}
			cv, err := d.value(tok, depth+1)
			if err != nil {
				return nil, err
			}
			v.Vals = append(v.Vals, cv)
		}
	}
	return v, nil
}
