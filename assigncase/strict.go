package assigncase

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// This file holds the strict JSON reading both cases and answers go through: the text is read
// into a tree first (duplicate keys refused), the tree is checked against the Go type's json
// tags (unknown fields, missing required fields, wrong kinds, non-integral or out-of-range
// numbers, each named by its path, e.g. "operators[0].subtasks[1].managed_keyed_state[0].type"),
// and only then decoded with encoding/json.

// A field is required unless its json tag says omitempty; a pointer field may also be null.

// maxDepth bounds the nesting of a document.
const maxDepth = 64

// node is one JSON value.
type node struct {
	kind  byte // 'o' object, 'a' array, 's' string, 'n' number, 'b' bool, 'z' null
	keys  []string
	vals  []*node
	items []*node
	num   json.Number
}

// parseTree reads exactly one JSON value from data.
func parseTree(data []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := readNode(dec, "", 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the JSON object")
	}
	return n, nil
}

func readNode(dec *json.Decoder, path string, depth int) (*node, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("%s: nested more than %d deep", where(path), maxDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, jsonError(err)
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := &node{kind: 'o'}
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, jsonError(err)
				}
				k := kt.(string)
				if seen[k] {
					return nil, fmt.Errorf("%s: field %q given twice", where(path), k)
				}
				seen[k] = true
				v, err := readNode(dec, join(path, k), depth+1)
				if err != nil {
					return nil, err
				}
				n.keys, n.vals = append(n.keys, k), append(n.vals, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, jsonError(err)
			}
			return n, nil
		case '[':
			n := &node{kind: 'a'}
			for dec.More() {
				v, err := readNode(dec, fmt.Sprintf("%s[%d]", path, len(n.items)), depth+1)
				if err != nil {
					return nil, err
				}
				n.items = append(n.items, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, jsonError(err)
			}
			return n, nil
		}
	case string:
		return &node{kind: 's'}, nil
	case json.Number:
		return &node{kind: 'n', num: t}, nil
	case bool:
		return &node{kind: 'b'}, nil
	case nil:
		return &node{kind: 'z'}, nil
	}
	return nil, fmt.Errorf("%s: unexpected %v", where(path), tok)
}

// jsonError words a syntax error of encoding/json as one line.
func jsonError(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return errors.New("malformed JSON: unexpected end of the line")
	}
	return fmt.Errorf("malformed JSON: %s", strings.TrimPrefix(err.Error(), "json: "))
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// where names a path in a message ("the object" for the top level).
func where(path string) string {
	if path == "" {
		return "the object"
	}
	return path
}

// checkTree checks n against Go type t (see the file comment).
func checkTree(n *node, t reflect.Type, path string) error {
	if n.kind == 'z' {
		if t.Kind() == reflect.Pointer || t.Kind() == reflect.Interface {
			return nil
		}
		return fmt.Errorf("%s: null, want %s", where(path), kindName(t))
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.kind != 'o' {
			return fmt.Errorf("%s: %s, want an object", where(path), nodeName(n))
		}
		fields := map[string]reflect.StructField{}
		var required []string
		for i := range t.NumField() {
			f := t.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			fields[name] = f
			if !strings.Contains(opts, "omitempty") {
				required = append(required, name)
			}
		}
		for i, k := range n.keys {
			f, ok := fields[k]
			if !ok {
				return fmt.Errorf("%s: unknown field %q", where(path), k)
			}
			if err := checkTree(n.vals[i], f.Type, join(path, k)); err != nil {
				return err
			}
		}
		for _, r := range required {
			if !contains(n.keys, r) {
				return fmt.Errorf("%s: missing field %q", where(path), r)
			}
		}
	case reflect.Slice:
		if n.kind != 'a' {
			return fmt.Errorf("%s: %s, want an array", where(path), nodeName(n))
		}
		for i, it := range n.items {
			if err := checkTree(it, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.String:
		if n.kind != 's' {
			return fmt.Errorf("%s: %s, want a string", where(path), nodeName(n))
		}
	case reflect.Bool:
		if n.kind != 'b' {
			return fmt.Errorf("%s: %s, want true or false", where(path), nodeName(n))
		}
	case reflect.Int, reflect.Int32, reflect.Int64:
		if n.kind != 'n' {
			return fmt.Errorf("%s: %s, want an integer", where(path), nodeName(n))
		}
		v, err := strconv.ParseInt(n.num.String(), 10, 64)
		if err != nil {
			return fmt.Errorf("%s: %s is not an integer (of at most 64 bits)", where(path), n.num)
		}
		if t.Kind() != reflect.Int64 && (v < math.MinInt32 || v > math.MaxInt32) {
			return fmt.Errorf("%s: %d is out of range (a Java int)", where(path), v)
		}
	default:
		return fmt.Errorf("%s: internal error: no rule for %v", where(path), t)
	}
	return nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func nodeName(n *node) string {
	switch n.kind {
	case 'o':
		return "an object"
	case 'a':
		return "an array"
	case 's':
		return "a string"
	case 'n':
		return "a number"
	case 'b':
		return "a boolean"
	}
	return "null"
}

func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Struct:
		return "an object"
	case reflect.Slice:
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	}
	return "an integer"
}

// decodeStrict reads one JSON value from data into v (a pointer to a struct) after checking it.
func decodeStrict(data []byte, v any) error {
	n, err := parseTree(data)
	if err != nil {
		return err
	}
	if err := checkTree(n, reflect.TypeOf(v).Elem(), ""); err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("internal error: %v", err)
	}
	return nil
}
