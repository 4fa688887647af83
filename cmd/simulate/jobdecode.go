package main

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

	"go.yaml.in/yaml/v3"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/savepoint"
)

// This file turns the text of a --job file into savepoint.JobFile. YAML and JSON are first read into
// the same tree of values (jobValue, each with its line), which is then checked against the job
// file's fields by hand: every error names the file's field path and line (never a Go type),
// numbers must be integers in both formats, and unknown or repeated fields are refused.

// maxJobFileBytes bounds a job file (or stdin given as --job -): it is read whole.
const maxJobFileBytes = 16 << 20

// yamlBigInt is an integer that YAML resolves as a float because it does not fit 64 bits.
var yamlBigInt = regexp.MustCompile(`^[-+]?[0-9][0-9_]*$`)

// maxJobDepth bounds the nesting of a job file's values; the job itself needs 5 levels.
const maxJobDepth = 32

// maxJobValues bounds the values a job file may expand to (YAML aliases can repeat a subtree).
const maxJobValues = 1 << 20

// jobKind is the kind of one value of a job file.
type jobKind int

const (
	jobNull   jobKind = iota + 1 // null, ~ or an empty YAML value
	jobBool                      // true or false
	jobInt                       // an integer (num holds it unless it overflowed)
	jobNumber                    // a number that is not an integer: 2.9, 1e3, 2.0
	jobString                    // a string, or in YAML any other plain scalar
	jobList                      // a YAML sequence or JSON array
	jobMap                       // a YAML mapping or JSON object
)

// jobValue is one value of a job file, with the line it starts on.
type jobValue struct {
	kind  jobKind
	line  int
	text  string      // scalars: the value as written (strings unquoted)
	plain bool        // a YAML scalar, whose text may stand for a string whatever its tag
	num   int64       // jobInt: the value
	numOK bool        // jobInt: num holds the value (false: it does not fit 64 bits)
	keys  []string    // jobMap: the field names, in file order
	vals  []*jobValue // jobMap: the value of keys[i]; jobList: the items
}

// decodeJobText reads a job file as JSON (name ending in .json, or text starting with '{') or
// YAML into a tree of values.
func decodeJobText(name string, data []byte) (*jobValue, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, errors.New("the job file is empty (want a 'vertices' list)")
	}
	if strings.EqualFold(filepath.Ext(name), ".json") || trimmed[0] == '{' {
		return decodeJobJSON(data)
	}
	return decodeJobYAML(data)
}

// decodeJobYAML reads one YAML document.
func decodeJobYAML(data []byte) (*jobValue, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			return nil, errors.New("the job file is empty (want a 'vertices' list)")
		}
		return nil, fmt.Errorf("YAML: %s", oneLine(strings.TrimPrefix(err.Error(), "yaml: ")))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err != io.EOF {
		return nil, errors.New("YAML: more than one document in the file")
	}
	budget := maxJobValues
	return yamlValue(&doc, 0, &budget)
}

// yamlValue converts a YAML node (following aliases) into a jobValue.
func yamlValue(n *yaml.Node, depth int, budget *int) (*jobValue, error) {
	if depth > maxJobDepth {
		return nil, fmt.Errorf("line %d: values nested more than %d deep", n.Line, maxJobDepth)
	}
	if *budget--; *budget < 0 {
		return nil, fmt.Errorf("line %d: more than %d values (aliases expand too far)", n.Line, maxJobValues)
	}
	v := &jobValue{line: n.Line}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, errors.New("the job file is empty (want a 'vertices' list)")
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
		c.line = n.Line
		return &c, nil
	case yaml.SequenceNode:
		v.kind = jobList
		for _, c := range n.Content {
			cv, err := yamlValue(c, depth+1, budget)
			if err != nil {
				return nil, err
			}
			v.vals = append(v.vals, cv)
		}
	case yaml.MappingNode:
		v.kind = jobMap
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: a field name must be plain text", k.Line)
			}
			cv, err := yamlValue(n.Content[i+1], depth+1, budget)
			if err != nil {
				return nil, err
			}
			v.keys = append(v.keys, k.Value)
			v.vals = append(v.vals, cv)
		}
	case yaml.ScalarNode:
		v.text, v.plain = n.Value, true
		switch n.ShortTag() {
		case "!!null":
			v.kind = jobNull
		case "!!bool":
			v.kind = jobBool
		case "!!int":
			v.kind = jobInt
			v.numOK = n.Decode(&v.num) == nil
		case "!!float":
			v.kind = jobNumber
			if yamlBigInt.MatchString(v.text) {
				v.kind = jobInt // an integer too large for 64 bits: out of bounds, not a fraction
			}
		default:
			v.kind = jobString
		}
	default:
		return nil, fmt.Errorf("line %d: unexpected YAML node", n.Line)
	}
	return v, nil
}

// decodeJobJSON reads exactly one JSON value.
func decodeJobJSON(data []byte) (*jobValue, error) {
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
		return nil, errors.New("JSON: trailing data after the job")
	}
	return v, nil
}

// jsonTree builds a jobValue tree from JSON tokens, counting lines as it goes.
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
		return nil, fmt.Errorf("JSON: line %d: %s", d.line, oneLine(err.Error()))
	}
	return tok, nil
}

func (d *jsonTree) value(tok json.Token, depth int) (*jobValue, error) {
	if depth > maxJobDepth {
		return nil, fmt.Errorf("line %d: values nested more than %d deep", d.line, maxJobDepth)
	}
	v := &jobValue{line: d.line}
	switch t := tok.(type) {
	case nil:
		v.kind = jobNull
	case bool:
		v.kind, v.text = jobBool, strconv.FormatBool(t)
	case string:
		v.kind, v.text = jobString, t
	case json.Number:
		v.text = string(t)
		if strings.ContainsAny(v.text, ".eE") {
			v.kind = jobNumber
		} else {
			n, err := strconv.ParseInt(v.text, 10, 64)
			v.kind, v.num, v.numOK = jobInt, n, err == nil
		}
	case json.Delim:
		closing := json.Delim(']')
		v.kind = jobList
		if t == '{' {
			closing, v.kind = '}', jobMap
		}
		for {
			tok, err := d.next()
			if err != nil {
				return nil, err
			}
			if tok == closing {
				break
			}
			if v.kind == jobMap {
				k, _ := tok.(string) // the decoder only gives a string here
				v.keys = append(v.keys, k)
				if tok, err = d.next(); err != nil {
					return nil, err
				}
			}
			cv, err := d.value(tok, depth+1)
			if err != nil {
				return nil, err
			}
			v.vals = append(v.vals, cv)
		}
	}
	return v, nil
}

// jobField is one field a job-file mapping may have, and what to do with its value.
type jobField struct {
	name string
	set  func(v *jobValue, at string) error
}

// fillJobFile checks the tree against the job file's fields and fills savepoint.JobFile.
func fillJobFile(root *jobValue) (savepoint.JobFile, error) {
	var jf savepoint.JobFile
	vertex := func(item *jobValue, at string) error {
		var jv savepoint.JobFileVertex
		err := jobMapping(item, at, []jobField{
			{"name", setJobString(func(s string) { jv.Name = s })},
			{"parallelism", setJobInt(func(n int) { jv.Parallelism = &n })},
			{"max_parallelism", setJobInt(func(n int) { jv.MaxParallelism = &n })},
			{"operators", func(v *jobValue, at string) error {
				return eachJobItem(v, at, func(item *jobValue, at string) error {
					var jo savepoint.JobFileOperator
					err := jobMapping(item, at, []jobField{
						{"name", setJobString(func(s string) { jo.Name = s })},
						{"uid", setJobString(func(s string) { jo.UID = &s })},
						{"id", setJobString(func(s string) { jo.ID = &s })},
						{"uid_hash", setJobString(func(s string) { jo.UIDHash = &s })},
					})
					jv.Operators = append(jv.Operators, jo)
					return err
				})
			}},
		})
		jf.Vertices = append(jf.Vertices, jv)
		return err
	}
	err := jobMapping(root, "", []jobField{
		{"vertices", func(v *jobValue, at string) error { return eachJobItem(v, at, vertex) }},
	})
	return jf, err
}

// jobPath joins a field path and a field name: "vertices[0]" + "parallelism".
func jobPath(at, name string) string {
	if at == "" {
		return name
	}
	return at + "." + name
}

// jobMapping checks that v is a mapping (or null) whose fields are among fields, each given
// once, and sets them in file order.
func jobMapping(v *jobValue, at string, fields []jobField) error {
	if v.kind == jobNull {
		return nil
	}
	where := at
	if where == "" {
		where = "the job file"
	}
	if v.kind != jobMap {
		return fmt.Errorf("line %d: %s: want a mapping of fields, got %s", v.line, where, describeJobValue(v))
	}
	seen := make(map[string]int, len(v.keys))
	for i, k := range v.keys {
		var f *jobField
		for j := range fields {
			if fields[j].name == k {
				f = &fields[j]
			}
		}
		if f == nil {
			return fmt.Errorf("line %d: %s: unknown field %s%s", v.vals[i].line, where, excerpt(k, 40), fieldHint(k, fields))
		}
		if line, dup := seen[k]; dup {
			return fmt.Errorf("line %d: %s: field %s given twice (first on line %d)", v.vals[i].line, where, k, line)
		}
		seen[k] = v.vals[i].line
		if err := f.set(v.vals[i], jobPath(at, k)); err != nil {
			return err
		}
	}
	return nil
}

// fieldHint suggests the field a misspelt name was meant to be, and lists the fields.
func fieldHint(name string, fields []jobField) string {
	names := make([]string, len(fields))
	best, bestD := "", 3 // suggest only names at most 2 edits away
	for i, f := range fields {
		names[i] = f.name
		if d := editDistance(strings.ToLower(name), f.name, bestD); d < bestD {
			best, bestD = f.name, d
		}
	}
	list := "the field is " + names[0]
	if len(names) > 1 {
		list = "the fields are " + strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	}
	if best != "" {
		return fmt.Sprintf(" (did you mean %s? %s)", best, list)
	}
	return " (" + list + ")"
}

// editDistance is the Levenshtein distance of a and b, or limit when it is limit or more.
func editDistance(a, b string, limit int) int {
	if len(a) > 64 || len(b) > 64 {
		return limit
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], limit)
}

// eachJobItem checks that v is a list (or null) and calls item for each element.
func eachJobItem(v *jobValue, at string, item func(v *jobValue, at string) error) error {
	switch v.kind {
	case jobNull:
		return nil
	case jobList:
		for i, it := range v.vals {
			if err := item(it, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("line %d: %s: want a list, got %s", v.line, at, describeJobValue(v))
}

// setJobInt sets an integer field; null leaves it unset. Numbers with a fraction or an exponent
// are refused (2.9 is not a parallelism), as are integers too large for any bound.
func setJobInt(set func(n int)) func(v *jobValue, at string) error {
	return func(v *jobValue, at string) error {
		switch {
		case v.kind == jobNull:
			return nil
		case v.kind == jobInt && v.numOK && v.num >= -1<<31 && v.num < 1<<31:
			set(int(v.num))
			return nil
		case v.kind == jobInt:
			return fmt.Errorf("line %d: %s: %s is out of bounds (want 1..%d)", v.line, at, numberText(v.text), model.UpperBoundMaxParallelism)
		}
		return fmt.Errorf("line %d: %s: want an integer, got %s", v.line, at, describeJobValue(v))
	}
}

// setJobString sets a text field; null leaves it unset. In YAML any plain scalar is its text
// (uid: 123 is the uid "123"); in JSON it must be a string.
func setJobString(set func(s string)) func(v *jobValue, at string) error {
	return func(v *jobValue, at string) error {
		switch v.kind {
		case jobNull:
			return nil
		case jobString:
			set(v.text)
			return nil
		case jobBool, jobInt, jobNumber:
			if v.plain {
				set(v.text)
				return nil
			}
		}
		return fmt.Errorf("line %d: %s: want a string, got %s", v.line, at, describeJobValue(v))
	}
}

// describeJobValue names a value for an error message, quoting at most a short excerpt.
func describeJobValue(v *jobValue) string {
	switch v.kind {
	case jobNull:
		return "null"
	case jobBool:
		return v.text
	case jobInt, jobNumber:
		return "the number " + numberText(v.text)
	case jobString:
		return "the string " + excerpt(v.text, 40)
	case jobList:
		return "a list"
	}
	return "a mapping"
}

// numberText is a number as written, for a message: YAML and JSON numbers are printable ASCII,
// but a very long one is cut.
func numberText(s string) string {
	if len(s) <= 40 {
		return s
	}
	return excerpt(s, 40)
}
