package strictdecode

import (
	"fmt"
	"strings"

	"github.com/restoresim/restoresim/internal/excerpt"
)

// Field is one field a mapping may have, and what to do with its value. Set receives the value
// and its field path ("vertices[0].parallelism") for messages.
type Field struct {
	Name string
	Set  func(v *Value, at string) error
}

// Path joins a field path and a field name: "vertices[0]" + "parallelism".
func Path(at, name string) string {
	if at == "" {
		return name
	}
	return at + "." + name
}

// Fill checks that the document's root is a mapping (or null) of fields and sets them; doc
// names the document in messages about the root ("the job file").
func Fill(root *Value, doc string, fields []Field) error {
	return mapping(root, "", doc, fields)
}

// Mapping checks that v, at field path at, is a mapping (or null) whose fields are among
// fields, each given once, and sets them in file order.
func Mapping(v *Value, at string, fields []Field) error {
	return mapping(v, at, at, fields)
}

func mapping(v *Value, at, where string, fields []Field) error {
	if v.Kind == Null {
		return nil
	}
	if v.Kind != Map {
		return fmt.Errorf("line %d: %s: want a mapping of fields, got %s", v.Line, where, Describe(v))
	}
	seen := make(map[string]int, len(v.Keys))
	for i, k := range v.Keys {
		var f *Field
		for j := range fields {
			if fields[j].Name == k {
				f = &fields[j]
			}
		}
		if f == nil {
			return fmt.Errorf("line %d: %s: unknown field %s%s", v.Vals[i].Line, where, excerpt.Quote(k, 40), fieldHint(k, fields))
		}
		if line, dup := seen[k]; dup {
			return fmt.Errorf("line %d: %s: field %s given twice (first on line %d)", v.Vals[i].Line, where, k, line)
		}
		seen[k] = v.Vals[i].Line
		if err := f.Set(v.Vals[i], Path(at, k)); err != nil {
			return err
		}
	}
	return nil
}

// fieldHint suggests the field a misspelt name was meant to be, and lists the fields.
func fieldHint(name string, fields []Field) string {
	names := make([]string, len(fields))
	best, bestD := "", 3 // suggest only names at most 2 edits away
	for i, f := range fields {
		names[i] = f.Name
		if d := editDistance(strings.ToLower(name), f.Name, bestD); d < bestD {
			best, bestD = f.Name, d
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

// Items checks that v, at field path at, is a list (or null) and calls item for each element
// with its path ("vertices[2]").
func Items(v *Value, at string, item func(v *Value, at string) error) error {
	switch v.Kind {
	case Null:
		return nil
	case List:
		for i, it := range v.Vals {
			if err := item(it, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("line %d: %s: want a list, got %s", v.Line, at, Describe(v))
}

// Int32 is the Set of an integer field; null leaves it unset. Numbers with a fraction or an
// exponent are refused (2.9 is not a count), as are integers outside the 32-bit range, which
// are reported as out of bounds with want (e.g. "1..32768"), the caller's own bounds to check.
func Int32(want string, set func(n int)) func(v *Value, at string) error {
	return func(v *Value, at string) error {
		switch {
		case v.Kind == Null:
			return nil
		case v.Kind == Int && v.NumOK && v.Num >= -1<<31 && v.Num < 1<<31:
			set(int(v.Num))
			return nil
		case v.Kind == Int:
			return fmt.Errorf("line %d: %s: %s is out of bounds (want %s)", v.Line, at, numberText(v.Text), want)
		}
		return fmt.Errorf("line %d: %s: want an integer, got %s", v.Line, at, Describe(v))
	}
}

// Text is the Set of a text field; null leaves it unset. In YAML any plain scalar is its text
// (uid: 123 is the text "123"); in JSON it must be a string.
func Text(set func(s string)) func(v *Value, at string) error {
	return func(v *Value, at string) error {
		switch v.Kind {
		case Null:
			return nil
		case String:
			set(v.Text)
			return nil
		case Bool, Int, Number:
			if v.Plain {
				set(v.Text)
				return nil
			}
		}
		return fmt.Errorf("line %d: %s: want a string, got %s", v.Line, at, Describe(v))
	}
}

// Describe names a value for an error message, quoting at most a short excerpt.
func Describe(v *Value) string {
	switch v.Kind {
	case Null:
		return "null"
	case Bool:
		return v.Text
	case Int, Number:
		return "the number " + numberText(v.Text)
	case String:
		return "the string " + excerpt.Quote(v.Text, 40)
	case List:
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
	return excerpt.Quote(s, 40)
}
