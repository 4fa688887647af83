package strictdecode

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// doc is a small schema: a list of items with a name and a count.
type doc struct {
	items []item
}

type item struct {
	name  string
	count *int
}

func fill(t *testing.T, name, text string) (doc, error) {
	t.Helper()
	root, err := Decode(name, []byte(text), "doc")
	if err != nil {
		return doc{}, err
	}
	var d doc
	one := func(v *Value, at string) error {
		d.items = append(d.items, item{})
		it := &d.items[len(d.items)-1]
		return Mapping(v, at, []Field{
			{Name: "name", Set: Text(func(s string) { it.name = s })},
			{Name: "count", Set: Int32("1..100", func(n int) { it.count = &n })},
		})
	}
	err = Fill(root, "the doc", []Field{{Name: "items", Set: func(v *Value, at string) error { return Items(v, at, one) }}})
	return d, err
}

func TestFillSameFromYAMLAndJSON(t *testing.T) {
	for _, tc := range []struct{ name, text string }{
		{"d.yaml", "items:\n  - name: a\n    count: 3\n  - name: 7\n"},
		{"d.json", `{"items": [{"name": "a", "count": 3}, {"name": "7"}]}`},
		{"d", `{"items": [{"name": "a", "count": 3}, {"name": "7", "count": null}]}`},
	} {
		d, err := fill(t, tc.name, tc.text)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(d.items) != 2 || d.items[0].name != "a" || *d.items[0].count != 3 || d.items[1].name != "7" || d.items[1].count != nil {
			t.Errorf("%s: got %+v", tc.name, d.items)
		}
	}
}

func TestErrorsNameLineAndPath(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"d.yaml", "items:\n  - nmae: a\n", `line 2: items[0]: unknown field "nmae" (did you mean name? the fields are name and count)`},
		{"d.yaml", "items:\n  - name: a\n    name: b\n", "line 3: items[0]: field name given twice (first on line 2)"},
		{"d.yaml", "items:\n  - count: 2.9\n", "line 2: items[0].count: want an integer, got the number 2.9"},
		{"d.yaml", "items:\n  - count: 99999999999999999999999\n", "line 2: items[0].count: 99999999999999999999999 is out of bounds (want 1..100)"},
		{"d.json", "{\"items\":\n [{\"count\": 1e3}]}", "line 2: items[0].count: want an integer, got the number 1e3"},
		{"d.json", "{\"items\": [{\"name\": 7}]}", "line 1: items[0].name: want a string, got the number 7"},
		{"d.json", "{\"items\": {}}", "line 1: items: want a list, got a mapping"},
		{"d.yaml", "- 1\n", "line 1: the doc: want a mapping of fields, got a list"},
		{"d.yaml", "zzz: 1\n", `line 1: the doc: unknown field "zzz" (the field is items)`},
		{"d.json", "{} {}", "JSON: more than one value in the file"},
		{"d.json", "{} ]", "JSON: trailing data after the doc"},
		{"d.json", "{\n\"items\": [", "JSON: line 2: unexpected end of the file"},
		{"d.yaml", "a: 1\n---\nb: 2\n", "YAML: more than one document in the file"},
		{"d.yaml", "a: [\n", "YAML: line 1: did not find expected node content"},
		{"d.yaml", strings.Repeat("[", MaxDepth+2) + strings.Repeat("]", MaxDepth+2), "line 1: values nested more than 32 deep"},
	} {
		_, err := fill(t, tc.name, tc.text)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s %q: got error %v, want %s", tc.name, tc.text, err, tc.want)
		}
	}
}

func TestEmpty(t *testing.T) {
	for _, text := range []string{"", " \n\t", "# only a comment\n"} {
		if _, err := Decode("d.yaml", []byte(text), "doc"); !errors.Is(err, ErrEmpty) {
			t.Errorf("Decode(%q) = %v, want ErrEmpty", text, err)
		}
	}
}

func TestAliasesAreBounded(t *testing.T) {
	// Each level repeats the one before ten times through aliases: 10^7 values from 8 lines.
	var b strings.Builder
	b.WriteString("l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i <= 7; i++ {
		prev := fmt.Sprintf("*l%d", i-1)
		fmt.Fprintf(&b, "l%d: &l%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(prev+", ", 10), ", "))
	}
	_, err := Decode("d.yaml", []byte(b.String()), "doc")
	if err == nil || !strings.Contains(err.Error(), "aliases expand too far") {
		t.Fatalf("got %v, want an error for an alias bomb", err)
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{{"name", "name", 0}, {"nmae", "name", 2}, {"nam", "name", 1}, {"xyzw", "name", 3}, {strings.Repeat("a", 65), "a", 3}} {
		if got := editDistance(tc.a, tc.b, 3); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
