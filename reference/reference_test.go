package reference

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/restoresim/restoresim/model"
)

// need starts the reference of a version, skipping with one line when Java or the sources are
// missing (failing when CI is set: CI must run it).
func need(t *testing.T, v model.FlinkVersion) *JVM {
	t.Helper()
	j, err := Start(v, Options{})
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

func TestBranch(t *testing.T) {
	if _, err := Branch(model.Flink1101); err == nil || !strings.Contains(err.Error(), "release-1.10 is not in the mirror") {
		t.Errorf("Branch(1.10.1) = %v, want an error saying why", err)
	}
	for v, want := range map[model.FlinkVersion]string{model.Flink118: "release-1.18", model.Flink23: "release-2.3", model.FlinkMaster: "master"} {
		if got, err := Branch(v); err != nil || got != want {
			t.Errorf("Branch(%s) = %q, %v; want %q", v, got, err, want)
		}
	}
	if got := len(Versions()); got != 8 {
		t.Errorf("Versions() has %d versions, want 8 (1.18 … 2.3, master)", got)
	}
}

// TestSharedCases runs the worked examples of ASSIGN-CASE.md through Flink's classes and checks
// that the driver prints Flink's answers (the files were written by another driver over the same
// classes: this checks the driver's decoding and encoding, not Flink).
func TestSharedCases(t *testing.T) {
	for _, v := range []model.FlinkVersion{model.Flink118, model.Flink23, model.FlinkMaster} {
		j := need(t, v)
		branch, _ := Branch(v)
		cases, _ := filepath.Glob(filepath.Join("..", "assigncase", "testdata", "*.case.json"))
		if len(cases) == 0 {
			t.Fatal("no cases in assigncase/testdata")
		}
		for _, c := range cases {
			name := strings.TrimSuffix(filepath.Base(c), ".case.json")
			want, err := os.ReadFile(filepath.Join(filepath.Dir(c), name+"."+branch+".answer.json"))
			if err != nil {
				want, err = os.ReadFile(filepath.Join(filepath.Dir(c), name+".release-1.18.answer.json"))
				if err != nil {
					t.Fatal(err)
				}
			}
			in, err := os.ReadFile(c)
			if err != nil {
				t.Fatal(err)
			}
			got, err := j.Assign(in)
			if err != nil {
				t.Fatalf("%s %s: %v", branch, name, err)
			}
			if d := jsonDiff(want, got); d != "" {
				t.Errorf("%s %s: the driver's answer differs from Flink's: %s", branch, name, d)
			}
		}
	}
}

func TestCrashAndTimeout(t *testing.T) {
	j := need(t, model.Flink118)
	if err := j.Ping(); err != nil {
		t.Fatal(err)
	}
	// A kill is a crash: the error is one line, and the next call starts a new JVM.
	_ = j.cmd.Process.Kill()
	err := j.Ping()
	if err == nil || strings.Contains(err.Error(), "\n") {
		t.Fatalf("after a kill: %v, want a one-line error", err)
	}
	if err := j.Ping(); err != nil {
		t.Fatalf("the JVM was not restarted: %v", err)
	}
	// Bad JSON is answered by the driver, not fatal.
	l, err := j.call([]byte(`{"op":`))
	if err != nil || !strings.Contains(string(l), `"stage":"driver"`) {
		t.Fatalf("bad JSON: %s, %v", l, err)
	}
}

// TestAssignAllSame: an answer line equal to the expected one comes back as Same, any other as
// Flink's own line, and a case with no expectation of the right digest is never answered Same.
func TestAssignAllSame(t *testing.T) {
	j := need(t, model.Flink118)
	cases, _ := filepath.Glob(filepath.Join("..", "assigncase", "testdata", "*.case.json"))
	if len(cases) < 2 {
		t.Fatal("too few cases in assigncase/testdata")
	}
	var ins [][]byte
	for _, c := range cases {
		in, err := os.ReadFile(c)
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, in)
	}
	full, err := j.AssignAll(ins)
	if err != nil {
		t.Fatal(err)
	}
	expect := make([][]byte, len(ins))
	for i := range ins {
		expect[i] = full[i]
		if i%2 == 1 { // a wrong expectation: one byte more
			expect[i] = append(append([]byte{}, full[i]...), ' ')
		}
	}
	got, err := j.AssignAllSame(ins, expect)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ins {
		want := Same
		if i%2 == 1 {
			want = full[i]
		}
		if string(got[i]) != string(want) {
			t.Errorf("case %s: AssignAllSame answered %.200s, want %.200s", cases[i], got[i], want)
		}
	}
}

// TestAssignSame: AssignSame answers Same when the expected line is Flink's answer line, or that
// line without the state-handle ids Flink drew (none of the case's), and Flink's own line, as
// Assign's, when it is not: one byte more, or without the ids the case gave too.
func TestAssignSame(t *testing.T) {
	j := need(t, model.Flink118)
	cases, _ := filepath.Glob(filepath.Join("..", "assigncase", "testdata", "*.case.json"))
	if len(cases) < 2 {
		t.Fatal("too few cases in assigncase/testdata")
	}
	idField := regexp.MustCompile(`,"state_handle_id":"([^"]*)"`)
	var drawn, given int
	var ins [][]byte
	var names []string
	for _, c := range cases {
		in, err := os.ReadFile(c)
		if err != nil {
			t.Fatal(err)
		}
		// The case, and the case with its handles' ids left out (Flink draws them).
		var v any
		if err := json.Unmarshal(in, &v); err != nil {
			t.Fatal(err)
		}
		withoutIDs(v)
		noIDs, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, in, noIDs)
		names = append(names, c, c+" without ids")
	}
	for i, in := range ins {
		c := names[i]
		full, err := j.Assign(in)
		if err != nil {
			t.Fatal(err)
		}
		caseIDs := map[string]bool{}
		for _, m := range regexp.MustCompile(`"state_handle_id":\s*"([^"]*)"`).FindAllSubmatch(in, -1) {
			caseIDs[string(m[1])] = true
		}
		// Flink's line without its drawn ids, and without one id the case gave.
		mask := func(line []byte) []byte {
			return idField.ReplaceAllFunc(line, func(f []byte) []byte {
				if caseIDs[string(idField.FindSubmatch(f)[1])] {
					return f
				}
				return nil
			})
		}
		withoutDrawn := mask(full)
		var withoutGiven []byte // without any id, when some id is one the case gave
		if len(idField.FindAll(withoutDrawn, -1)) > 0 {
			withoutGiven = idField.ReplaceAll(full, nil)
		}
		type expectation struct {
			name   string
			expect []byte
			same   bool
		}
		var exps []expectation
		if len(withoutDrawn) != len(full) {
			// Flink draws other ids on each request: its own line is no expectation.
			drawn++
			exps = append(exps, expectation{"without the drawn ids", withoutDrawn, true},
				expectation{"without the drawn ids, one byte more", append(append([]byte{}, withoutDrawn...), ' '), false})
		} else {
			exps = append(exps, expectation{"Flink's line", full, true}, expectation{"one byte more", append(append([]byte{}, full...), ' '), false})
		}
		if withoutGiven != nil {
			given++
			exps = append(exps, expectation{"without the given ids too", withoutGiven, false})
		}
		for _, e := range exps {
			got, err := j.AssignSame(in, e.expect)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case e.same && string(got) != string(Same):
				t.Errorf("case %s (%s): AssignSame answered %.200s, want Same", c, e.name, got)
			case !e.same && string(mask(got)) != string(withoutDrawn):
				t.Errorf("case %s (%s): AssignSame answered %.200s, want Flink's line %.200s", c, e.name, got, full)
			}
		}
	}
	if drawn == 0 || given == 0 {
		t.Errorf("%d cases whose answer has drawn ids, %d one with a given id; want some of each", drawn, given)
	}
}

// withoutIDs deletes every "state_handle_id" of a JSON value.
func withoutIDs(v any) {
	switch x := v.(type) {
	case map[string]any:
		delete(x, "state_handle_id")
		for _, y := range x {
			withoutIDs(y)
		}
	case []any:
		for _, y := range x {
			withoutIDs(y)
		}
	}
}
