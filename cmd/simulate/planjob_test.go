package main

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// goTypeWords are words of Go's decoders that must never reach a job-file error.
var goTypeWords = []string{"Go struct", "Go value", "main.", "planJob", "unmarshal", "!!", "int64", "*int", "*string"}

// checkJobError checks a job-file error: one line, no Go type, mentioning every want.
func checkJobError(t *testing.T, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("no error, want one mentioning %q", want)
		return
	}
	msg := err.Error()
	if strings.ContainsAny(msg, "\n\r") {
		t.Errorf("error %q is not one line", msg)
	}
	for _, w := range goTypeWords {
		if strings.Contains(msg, w) {
			t.Errorf("error %q speaks of Go (%q)", msg, w)
		}
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not mention %q", msg, w)
		}
	}
}

// TestJobFileNumbersAreIntegers: 2.9 or 127.9 is refused with its field and line, in YAML and
// JSON alike (YAML's decoder would truncate it to 2 or 127); so are 2.0, 1e3 and quoted numbers.
func TestJobFileNumbersAreIntegers(t *testing.T) {
	for _, c := range []struct{ file, text string }{
		{"j.yaml", "vertices:\n  - name: a\n    parallelism: 2.9\n    operators: [{uid: a}]\n"},
		{"j.json", "{\"vertices\": [{\"name\": \"a\",\n  \"operators\": [{\"uid\": \"a\"}],\n  \"parallelism\": 2.9}]}"},
	} {
		_, err := parseJobFile(c.file, []byte(c.text), 0)
		checkJobError(t, err, "line 3: vertices[0].parallelism: want an integer, got the number 2.9")
	}
	for _, c := range []struct{ file, text, want string }{
		{"j.yaml", "vertices:\n  - {parallelism: 2, max_parallelism: 127.9, operators: [{uid: a}]}\n", "line 2: vertices[0].max_parallelism: want an integer, got the number 127.9"},
		{"j.json", "{\"vertices\": [\n {\"parallelism\": 2, \"max_parallelism\": 127.9, \"operators\": [{\"uid\": \"a\"}]}]}", "line 2: vertices[0].max_parallelism: want an integer, got the number 127.9"},
		{"j.yaml", "vertices:\n  - {parallelism: 2.0, operators: [{uid: a}]}\n", "got the number 2.0"},
		{"j.json", `{"vertices": [{"parallelism": 2.0, "operators": [{"uid": "a"}]}]}`, "got the number 2.0"},
		{"j.yaml", "vertices:\n  - {parallelism: 1e3, operators: [{uid: a}]}\n", "got the number 1e3"},
		{"j.json", `{"vertices": [{"parallelism": 1e3, "operators": [{"uid": "a"}]}]}`, "got the number 1e3"},
		{"j.yaml", "vertices:\n  - {parallelism: \"2\", operators: [{uid: a}]}\n", `got the string "2"`},
		{"j.json", `{"vertices": [{"parallelism": "2", "operators": [{"uid": "a"}]}]}`, `got the string "2"`},
		{"j.yaml", "vertices:\n  - {parallelism: two, operators: [{uid: a}]}\n", `want an integer, got the string "two"`},
		{"j.yaml", "vertices:\n  - {parallelism: true, operators: [{uid: a}]}\n", "want an integer, got true"},
		{"j.yaml", "vertices:\n  - {parallelism: 99999999999999999999999, operators: [{uid: a}]}\n", "99999999999999999999999 is out of bounds (want 1..32768)"},
		{"j.json", `{"vertices": [{"parallelism": -99999999999999999999999, "operators": [{"uid": "a"}]}]}`, "-99999999999999999999999 is out of bounds"},
		{"j.yaml", "vertices:\n  - {parallelism: 4294967298, operators: [{uid: a}]}\n", "4294967298 is out of bounds"},
	} {
		_, err := parseJobFile(c.file, []byte(c.text), 0)
		checkJobError(t, err, c.want)
	}
}

// TestJobFileErrorsSpeakOfTheFile: misspelt fields, wrong types and repeated fields are named by
// the file's field path and line, never by Go types.
func TestJobFileErrorsSpeakOfTheFile(t *testing.T) {
	for _, c := range []struct{ file, text, want string }{
		{"j.yaml", "vertices:\n  - parallelism: 2\n    paralelism: 3\n    operators: [{uid: a}]\n", `line 3: vertices[0]: unknown field "paralelism" (did you mean parallelism? the fields are name, parallelism, max_parallelism, operators and inputs)`},
		{"j.json", "{\"vertices\": [{\"parallelism\": 2,\n \"paralelism\": 3, \"operators\": [{\"uid\": \"a\"}]}]}", `line 2: vertices[0]: unknown field "paralelism" (did you mean parallelism?`},
		{"j.json", `{"vertices": [{"parallelism": 2, "operators": [{"uid": "a", "uuid": "b"}]}]}`, `line 1: vertices[0].operators[0]: unknown field "uuid" (did you mean uid?`},
		{"j.yaml", "vertex: []\n", `line 1: the job file: unknown field "vertex" (the field is vertices)`},
		{"j.json", `{"vertices": [{"parallelism": 2, "operators": [{"uid": "a"}], "` + strings.Repeat("x", 3000) + `": 1}]}`, `unknown field "xxxxxxxx`},
		{"j.yaml", "vertices:\n  - {parallelism: 2, operators: [{id: " + strings.Repeat("f", 2000) + "}]}\n", `vertices[0].operators[0].id: "ffffffffffffffffffffffffffffffffffffffff"… (2000 bytes) is not an operator ID (want 32 hex digits, got 2000 characters)`},
		{"j.yaml", "- a\n", "line 1: the job file: want a mapping of fields, got a list"},
		{"j.json", `{"vertices": {"a": 1}}`, "line 1: vertices: want a list, got a mapping"},
		{"j.yaml", "vertices:\n  - [1, 2]\n", "line 2: vertices[0]: want a mapping of fields, got a list"},
		{"j.yaml", "vertices:\n  - {parallelism: 2, operators: {uid: a}}\n", "line 2: vertices[0].operators: want a list, got a mapping"},
		{"j.json", `{"vertices": [{"parallelism": 2, "operators": [{"uid": 5}]}]}`, "line 1: vertices[0].operators[0].uid: want a string, got the number 5"},
		{"j.yaml", "vertices:\n  - {parallelism: 2, operators: [{uid: [a]}]}\n", "line 2: vertices[0].operators[0].uid: want a string, got a list"},
		{"j.yaml", "vertices:\n  - parallelism: 2\n    parallelism: 3\n    operators: [{uid: a}]\n", "line 3: vertices[0]: field parallelism given twice (first on line 2)"},
		{"j.json", "{\"vertices\": [],\n\"vertices\": []}", "line 2: the job file: field vertices given twice (first on line 1)"},
		{"j.yaml", "vertices:\n  - {? [a]: 1}\n", "line 2: a field name must be plain text"},
		{"j.yaml", "vertices: [\n", "YAML: line"},
		{"j.json", "{\"vertices\": [\n\n x", "JSON: line 3: invalid character 'x'"},
		{"j.json", `{"vertices": [`, "JSON: line 1: unexpected end of the file"},
		{"j.yaml", "a: &a [*a]\n", "nested more than 32 deep"},
		{"j.json", strings.Repeat("[", 100), "nested more than 32 deep"},
		{"j.yaml", "# nothing\n", "the job file is empty"},
		{"j.yaml", "vertices: []\n---\nvertices: []\n", "more than one document"},
	} {
		_, err := parseJobFile(c.file, []byte(c.text), 0)
		checkJobError(t, err, c.want)
	}
}

// TestJobFileYAMLEqualsJSON: the same job in both formats gives the same vertices.
func TestJobFileYAMLEqualsJSON(t *testing.T) {
	y := `
vertices:
  - name: source
    parallelism: 2
    max_parallelism: 0x80   # YAML integers may be hex
    operators:
      - uid: 123            # a plain scalar is its text
      - id: 0123456789abcdef0123456789abcdef
        uid_hash: cb16aa5adb311e8ac72482def19accbe
        name: second
  - operators: [{uid: b}]
    max_parallelism: null
`
	j := `{"vertices": [
  {"name": "source", "parallelism": 2, "max_parallelism": 128, "operators": [
    {"uid": "123"}, {"id": "0123456789abcdef0123456789abcdef", "uid_hash": "cb16aa5adb311e8ac72482def19accbe", "name": "second"}]},
  {"operators": [{"uid": "b"}], "max_parallelism": null}]}`
	vy, err := parseJobFile("j.yaml", []byte(y), 3)
	if err != nil {
		t.Fatal(err)
	}
	vj, err := parseJobFile("j.json", []byte(j), 3)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(vj, vy); diff != "" {
		t.Errorf("YAML and JSON differ (-json +yaml):\n%s", diff)
	}
	if got := fmt.Sprint(len(vy), vy[0].Parallelism, vy[0].MaxParallelism, vy[1].Parallelism, vy[0].Labels); got != "2 2 128 3 [second uid 123]" {
		t.Errorf("decoded %s", got)
	}
}

// TestJobFileAliasBomb: YAML aliases that expand exponentially (10^12 nodes) are refused by the
// decoder's alias budget, before any expansion, rather than decoded. No wall-clock bound: the
// error is the evidence (a decoder that expanded them would not return in any useful time).
func TestJobFileAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 12; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [*a%d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d]\n", i, i, i-1)
	}
	_, err := parseJobFile("j.yaml", []byte(b.String()), 0)
	checkJobError(t, err, "aliases expand too far")
}

// TestPlanJobFileBadNumbersCLI runs the job-file cases of issue 16 through 'simulate plan'.
func TestPlanJobFileBadNumbersCLI(t *testing.T) {
	dir := t.TempDir()
	md := writeSynthetic(t, dir, "_metadata")
	for _, c := range []struct{ file, text, want string }{
		{"j.yaml", "vertices:\n  - {parallelism: 2.9, operators: [{uid: my-uid}]}\n", "line 2: vertices[0].parallelism: want an integer, got the number 2.9"},
		{"j.yaml", "vertices:\n  - {parallelism: 2, max_parallelism: 127.9, operators: [{uid: my-uid}]}\n", "line 2: vertices[0].max_parallelism: want an integer, got the number 127.9"},
		{"j.json", `{"vertices": [{"parallelism": 2.9, "operators": [{"uid": "my-uid"}]}]}`, "line 1: vertices[0].parallelism: want an integer, got the number 2.9"},
		{"j.yaml", "vertices:\n  - {paralelism: 2, operators: [{uid: my-uid}]}\n", `unknown field "paralelism" (did you mean parallelism?`},
		{"j.json", `{"vertices": [{"parallelism": 2, "operators": [{"uid": 1}]}]}`, "vertices[0].operators[0].uid: want a string"},
	} {
		job := writeJob(t, c.file, c.text)
		code, out, errs := runCLI(t, "", "plan", md, "--job", job)
		wantUsageError(t, c.want, code, out, errs)
		checkJobError(t, errors.New(strings.TrimSuffix(errs, "\n")), "--job "+job)
	}
	if names := dirNames(t, dir); len(names) != 1 {
		t.Errorf("bad runs left files: %q", names)
	}
	// The job file may come from stdin.
	code, out, errs := runCLI(t, "vertices:\n  - {parallelism: 2, operators: [{uid: my-uid}]}\n", "plan", md, "--job", "-", "--format", "json")
	if code != 0 || !strings.Contains(out, `"restorable": true`) {
		t.Errorf("--job -: exit %d, stderr %q\n%s", code, errs, out)
	}
	code, out, errs = runCLI(t, "", "plan", md, "--job", "-")
	wantUsageError(t, "--job -: the job file is empty", code, out, errs)
}

// quoted matches a quoted excerpt of the input in an error, which may say anything.
var quoted = regexp.MustCompile(`"(\\.|[^"\\])*"`)

// fuzzJobSeeds are the seed corpus of the job-file fuzz targets: valid jobs and the bad cases
// above, in both formats.
var fuzzJobSeeds = []string{
	"vertices:\n  - name: source\n    parallelism: 2\n    max_parallelism: 128\n    operators:\n      - uid: kafka-source-operator-uid\n      - id: 0123456789abcdef0123456789abcdef\n        uid_hash: cb16aa5adb311e8ac72482def19accbe\n",
	`{"vertices": [{"name": "source", "parallelism": 2, "operators": [{"uid": "a"}, {"id": "0123456789abcdef0123456789abcdef"}]}]}`,
	"vertices:\n  - {parallelism: 2.9, operators: [{uid: a}]}\n",
	`{"vertices": [{"parallelism": 2, "max_parallelism": 127.9, "operators": [{"uid": "a"}]}]}`,
	"vertices:\n  - {paralelism: 2, operators: [{uid: a}]}\n",
	`{"vertices": [{"parallelism": "2", "operators": [{"uid": 5, "uuid": null}]}]}`,
	"a: &a [*a]\n",
	"vertices: [\n",
	"vertices:\n  - {? [a]: 1}\n",
	"--- !!map\nvertices: !!seq [ !custom {parallelism: 0x10, operators: [{uid: !!binary aGk=}]}]\n",
	"\xff\xfe\x00",
	"{\"vertices\": [\n\n x",
	"vertices:\n  - <<: {parallelism: 2}\n    operators: [{uid: a}]\n",
}

// checkFuzzError: an error is one line, not too long, and speaks of the file, not of Go.
func checkFuzzError(t *testing.T, err error) {
	if err == nil {
		return
	}
	msg := err.Error()
	if strings.ContainsAny(msg, "\n\r") || len(msg) > 800 {
		t.Fatalf("error is not one short line: %q", msg)
	}
	bare := quoted.ReplaceAllString(msg, `""`)
	for _, w := range []string{"Go struct", "Go value", "main.", "planJob", "unmarshal", "reflect"} {
		if strings.Contains(bare, w) {
			t.Fatalf("error %q speaks of Go (%q)", msg, w)
		}
	}
}

// FuzzJobFileYAML: the YAML job-file decoder never panics and its errors are one line.
//
//	go test -fuzz FuzzJobFileYAML -fuzztime 60s ./cmd/simulate
func FuzzJobFileYAML(f *testing.F) {
	for _, s := range fuzzJobSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := parseJobFile("job.yaml", data, 0)
		checkFuzzError(t, err)
		_, err = parseJobFile("job.yaml", data, 3)
		checkFuzzError(t, err)
	})
}

// FuzzJobFileJSON: the JSON job-file decoder never panics and its errors are one line.
//
//	go test -fuzz FuzzJobFileJSON -fuzztime 60s ./cmd/simulate
func FuzzJobFileJSON(f *testing.F) {
	for _, s := range fuzzJobSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := parseJobFile("job.json", data, 2)
		checkFuzzError(t, err)
	})
}
