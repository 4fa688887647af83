package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
	"github.com/restoresim/restoresim/model/savepoint"
)

// planOut runs 'simulate plan' and decodes its JSON.
func planOut(t *testing.T, args ...string) (int, *savepoint.RestorePlan, string) {
	t.Helper()
	code, out, errs := runCLI(t, "", append([]string{"plan", "--format", "json"}, args...)...)
	if code == 2 {
		t.Fatalf("plan %v: exit 2: %s", args, errs)
	}
	var pl savepoint.RestorePlan
	if err := json.Unmarshal([]byte(out), &pl); err != nil {
		t.Fatalf("plan %v: bad JSON (%v): %s", args, err, out)
	}
	return code, &pl, errs
}

func planOperatorByID(t *testing.T, pl *savepoint.RestorePlan, id string) *savepoint.OperatorPlan {
	t.Helper()
	for i := range pl.Operators {
		if pl.Operators[i].OperatorID == id {
			return &pl.Operators[i]
		}
	}
	t.Fatalf("operator %s not in the plan", id)
	return nil
}

const kafkaSourceID = "cb16aa5adb311e8ac72482def19accbe"

// TestPlanKafkaFacts checks what Flink does with the Kafka source's 10 SourceReaderState splits
// (3/4/3 on 3 subtasks) at parallelism 2, 3 and 5.
func TestPlanKafkaFacts(t *testing.T) {
	path := filepath.Join(realMetadata(t), "kafka-enum1.metadata")
	if got := model.OperatorIDFromUID("kafka-source-operator-uid").String(); got != kafkaSourceID {
		t.Fatalf("uid hash %s, want %s", got, kafkaSourceID)
	}
	for _, tc := range []struct {
		p     int
		pairs [][][2]int // per new subtask
		kg    [][2]int
	}{
		{2, [][][2]int{{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}}, {{1, 2}, {1, 3}, {2, 0}, {2, 1}, {2, 2}}}, [][2]int{{0, 63}, {64, 127}}},
		{3, [][][2]int{{{0, 0}, {0, 1}, {0, 2}}, {{1, 0}, {1, 1}, {1, 2}, {1, 3}}, {{2, 0}, {2, 1}, {2, 2}}}, [][2]int{{0, 42}, {43, 85}, {86, 127}}},
		{5, [][][2]int{{{0, 0}, {0, 1}}, {{0, 2}, {1, 0}}, {{1, 1}, {1, 2}}, {{1, 3}, {2, 0}}, {{2, 1}, {2, 2}}}, [][2]int{{0, 25}, {26, 51}, {52, 76}, {77, 102}, {103, 127}}},
	} {
		t.Run(fmt.Sprint("p=", tc.p), func(t *testing.T) {
			code, pl, _ := planOut(t, path, "--parallelism", fmt.Sprint(tc.p))
			if code != 0 || !pl.Restorable || pl.Error != nil {
				t.Fatalf("exit %d, restorable %v, error %v; want a restore", code, pl.Restorable, pl.Error)
			}
			op := planOperatorByID(t, pl, kafkaSourceID)
			if !op.Valid || op.OldParallelism != 3 || op.MaxParallelism != 128 || op.Parallelism != tc.p {
				t.Fatalf("operator: valid %v, old parallelism %d, max parallelism %d, new parallelism %d", op.Valid, op.OldParallelism, op.MaxParallelism, op.Parallelism)
			}
			var gotPairs [][][2]int
			var gotKG [][2]int
			var bytes int64
			for _, s := range op.Subtasks {
				st := s.ManagedOperatorState["SourceReaderState"]
				if st == nil || st.Mode != "SPLIT_DISTRIBUTE" {
					t.Fatalf("subtask %d: SourceReaderState %+v", s.Index, st)
				}
				gotPairs = append(gotPairs, st.Pairs)
				gotKG = append(gotKG, s.KeyGroups)
				bytes += s.ReceivedBytes
				if len(s.ManagedKeyedState)+len(s.RawKeyedState)+len(s.RawOperatorState) != 0 {
					t.Errorf("subtask %d: unexpected state %+v", s.Index, s)
				}
			}
			if diff := cmp.Diff(tc.pairs, gotPairs); diff != "" {
				t.Errorf("SourceReaderState pairs per new subtask (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.kg, gotKG); diff != "" {
				t.Errorf("key groups (-want +got):\n%s", diff)
			}
			// Offsets 233, 272, 311 (and 350) in streams of 350 and 389 bytes: 39 bytes a split.
			if bytes != 10*39 {
				t.Errorf("operator-state bytes received %d, want %d", bytes, 10*39)
			}
			// State bytes: the three handles (350, 389, 350) and the 126-byte enumerator state.
			if op.StateBytes != 1215 {
				t.Errorf("%d state bytes, want 1215 (as inspect)", op.StateBytes)
			}
		})
	}
}

// TestPlanKafkaText checks the text form: five entries per subtask at p=2, with bytes.
func TestPlanKafkaText(t *testing.T) {
	path := filepath.Join(realMetadata(t), "kafka-enum1.metadata")
	code, out, errs := runCLI(t, "", "plan", path, "--parallelism", "2")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	for _, want := range []string{
		"restore: OK\n",
		"operator cb16aa5adb311e8ac72482def19accbe: parallelism 3 -> 2, max parallelism 128",
		"  subtask 0: key groups 0..63, keyed state 0 bytes, operator state 5 entries, 195 bytes\n",
		`    managed "SourceReaderState" SPLIT_DISTRIBUTE: 5 entries [0:0 0:1 0:2 1:0 1:1], 195 bytes` + "\n",
		"  subtask 1: key groups 64..127, keyed state 0 bytes, operator state 5 entries, 195 bytes\n",
		`    managed "SourceReaderState" SPLIT_DISTRIBUTE: 5 entries [1:2 1:3 2:0 2:1 2:2], 195 bytes` + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
}

// TestPlanRefusalText checks a refusal in text form: exit 1, the check and the operator named,
// nothing on stderr.
func TestPlanRefusalText(t *testing.T) {
	path := filepath.Join(realMetadata(t), "new-stateful-udf-migration-itcase-flink1.18-hashmap-savepoint.metadata")
	code, out, errs := runCLI(t, "", "plan", path, "--parallelism", "5")
	if code != 1 || errs != "" {
		t.Fatalf("exit %d, stderr %q; want 1 and nothing", code, errs)
	}
	want := "restore: REFUSED (check max-parallelism-below-parallelism, operator 1f2b5df5a66154aca61fcb26193792be): " +
		"The state for task operator 1f2b5df5a66154aca61fcb26193792be can not be restored. The maximum parallelism (4) of the restored state is lower than the configured parallelism (5)."
	if !strings.Contains(out, want) {
		t.Errorf("text lacks %q:\n%s", want, out)
	}
}

func writeJob(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPlanJob runs the checks of SPEC §F–§G through job files on kafka-enum1.
func TestPlanJob(t *testing.T) {
	path := filepath.Join(realMetadata(t), "kafka-enum1.metadata")
	const other = "7d246211b2be972287522fe7978b38c1"
	type want struct {
		Code     int
		Check    string // "" = restorable
		Operator string
		Status   map[string]string // operator → status
		NewOps   int               // operators of the job without state
	}
	for _, tc := range []struct {
		name, file, text string
		args             []string
		want             want
	}{
		{"uid", "job.yaml", `
vertices:
  - name: source
    parallelism: 2
    operators:
      - uid: kafka-source-operator-uid
`, nil, want{0, "", "", map[string]string{kafkaSourceID: "restored", other: "dropped"}, 0}},
		{"setUidHash and default parallelism (JSON)", "job.json", `{"vertices": [{"name": "source", "operators": [
  {"id": "0123456789abcdef0123456789abcdef", "uid_hash": "cb16aa5adb311e8ac72482def19accbe"}]}]}`,
			[]string{"--parallelism", "2"}, want{0, "", "", map[string]string{kafkaSourceID: "restored", other: "dropped"}, 0}},
		{"configured max parallelism differs", "job.yaml", `
vertices:
  - {name: source, parallelism: 2, max_parallelism: 256, operators: [{uid: kafka-source-operator-uid}]}
`, nil, want{1, "max-parallelism-mismatch", kafkaSourceID, map[string]string{kafkaSourceID: "refused", other: "dropped"}, 0}},
		{"configured max parallelism equal", "job.yaml", `
vertices:
  - {name: source, parallelism: 2, max_parallelism: 128, operators: [{uid: kafka-source-operator-uid}]}
`, nil, want{0, "", "", map[string]string{kafkaSourceID: "restored", other: "dropped"}, 0}},
		{"state missing from the job", "job.yaml", `
vertices:
  - {name: map, parallelism: 2, operators: [{id: 7d246211b2be972287522fe7978b38c1}]}
`, nil, want{1, "non-restored-state", kafkaSourceID, map[string]string{kafkaSourceID: "refused", other: "restored"}, 0}},
		{"state missing, allowed", "job.yaml", `
vertices:
  - {name: map, parallelism: 2, operators: [{id: 7d246211b2be972287522fe7978b38c1}]}
`, []string{"--allow-non-restored-state"}, want{0, "", "", map[string]string{kafkaSourceID: "dropped", other: "restored"}, 0}},
		{"a new operator chained to the source", "job.yaml", `
vertices:
  - name: source
    parallelism: 2
    operators:
      - uid: kafka-source-operator-uid
      - {uid: brand-new-map, name: map}
`, nil, want{0, "", "", map[string]string{kafkaSourceID: "restored", other: "dropped"}, 1}},
		{"chained, parallelism above state max parallelism", "job.yaml", `
vertices:
  - name: chain
    parallelism: 200
    operators:
      - uid: kafka-source-operator-uid
      - id: 7d246211b2be972287522fe7978b38c1
`, nil, want{1, "max-parallelism-below-parallelism", "", map[string]string{kafkaSourceID: "refused", other: "refused"}, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			job := writeJob(t, tc.file, tc.text)
			code, pl, errs := planOut(t, append([]string{path, "--job", job}, tc.args...)...)
			if code != tc.want.Code || errs != "" {
				t.Fatalf("exit %d (stderr %q), want %d", code, errs, tc.want.Code)
			}
			gotCheck, gotOp := "", ""
			if pl.Check != nil {
				gotCheck = string(*pl.Check)
			}
			if pl.OperatorID != nil && tc.want.Operator != "" {
				gotOp = *pl.OperatorID
			}
			status := map[string]string{}
			for _, o := range pl.Operators {
				status[o.OperatorID] = o.Status
				if o.Valid != (o.Status != "refused") || (o.Error != nil) == o.Valid {
					t.Errorf("%s: valid %v, status %s, error %v disagree", o.OperatorID, o.Valid, o.Status, o.Error)
				}
			}
			if diff := cmp.Diff(tc.want, want{code, gotCheck, gotOp, status, len(pl.NewOps)}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if tc.want.Code == 0 {
				op := planOperatorByID(t, pl, kafkaSourceID)
				if op.Status == "restored" {
					if len(op.Subtasks) != 2 || len(op.Subtasks[0].ManagedOperatorState["SourceReaderState"].Pairs) != 5 {
						t.Errorf("kafka source: %+v", op.Subtasks)
					}
				}
			}
		})
	}
}

// TestPlanJobFileErrors: a bad job file is bad input, named by its field.
func TestPlanJobFileErrors(t *testing.T) {
	path := filepath.Join(realMetadata(t), "kafka-enum1.metadata")
	for _, tc := range []struct{ name, file, text, want string }{
		{"unknown field", "j.yaml", "vertices:\n  - {parallelism: 2, paralelism: 3, operators: [{uid: a}]}\n", `unknown field "paralelism"`},
		{"unknown top-level field", "j.yaml", "vertex: []\n", `unknown field "vertex"`},
		{"unknown field JSON", "j.json", `{"vertices": [{"parallelism": 2, "operators": [{"uid": "a", "uuid": "b"}]}]}`, `unknown field "uuid"`},
		{"missing parallelism", "j.yaml", "vertices:\n  - {operators: [{uid: a}]}\n", "vertices[0].parallelism: missing"},
		{"zero parallelism", "j.yaml", "vertices:\n  - {parallelism: 0, operators: [{uid: a}]}\n", "vertices[0].parallelism: 0 is out of bounds"},
		{"max below parallelism", "j.yaml", "vertices:\n  - {parallelism: 4, max_parallelism: 2, operators: [{uid: a}]}\n", "vertices[0].max_parallelism: 2 is below"},
		{"bad hex", "j.yaml", "vertices:\n  - {parallelism: 2, operators: [{id: xyz}]}\n", "vertices[0].operators[0].id"},
		{"bad uid_hash", "j.yaml", "vertices:\n  - {parallelism: 2, operators: [{uid: a, uid_hash: 0123456789abcdef0123456789abcdeg}]}\n", "vertices[0].operators[0].uid_hash"},
		{"uid and id", "j.yaml", "vertices:\n  - {parallelism: 2, operators: [{uid: a, id: 0123456789abcdef0123456789abcdef}]}\n", "give either uid or id"},
		{"no operators", "j.yaml", "vertices:\n  - {parallelism: 2}\n", "vertices[0].operators: missing or empty"},
		{"no vertices", "j.yaml", "vertices: []\n", "vertices: missing or empty"},
		{"empty file", "j.yaml", "\n", "empty"},
		{"duplicate operator", "j.yaml", "vertices:\n  - {name: a, parallelism: 2, operators: [{uid: x}]}\n  - {name: b, parallelism: 2, operators: [{uid: x}]}\n", "vertices[1].operators[0]: operator ID"},
		{"duplicate vertex name", "j.yaml", "vertices:\n  - {name: a, parallelism: 2, operators: [{uid: x}]}\n  - {name: a, parallelism: 2, operators: [{uid: y}]}\n", "vertices[1].name"},
		{"wrong type", "j.yaml", "vertices:\n  - {parallelism: two, operators: [{uid: x}]}\n", "want an integer"},
		{"not JSON", "j.json", `{"vertices": [`, "JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			job := writeJob(t, tc.file, tc.text)
			code, out, errs := runCLI(t, "", "plan", path, "--job", job)
			wantUsageError(t, tc.want, code, out, errs)
		})
	}
}

func TestPlanBadUsage(t *testing.T) {
	dir := realMetadata(t)
	path := filepath.Join(dir, "kafka-enum1.metadata")
	garbage := filepath.Join(t.TempDir(), "garbage")
	if err := os.WriteFile(garbage, []byte("not a savepoint"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{}, "want exactly one PATH"},
		{[]string{path}, "--parallelism P is required"},
		{[]string{path, "--parallelism", "0"}, "out of bounds"},
		{[]string{path, "--parallelism", "32769"}, "out of bounds"},
		{[]string{path, "--parallelism", "x"}, "not an integer"},
		{[]string{path, "--parallelism", "2", "--format", "yaml"}, "unknown --format"},
		{[]string{path, "--parallelism", "2", "--flink", "1.11"}, "unknown --flink"},
		{[]string{path, "--parallelism", "2", "--out", "x.gif"}, "--out"},
		{[]string{path, "--parallelism", "2", "--embed-fonts"}, "--embed-fonts needs --out FILE.svg"},
		{[]string{path, "--parallelism", "2", "--out", "x.png", "--embed-fonts"}, "--embed-fonts applies to SVG only"},
		{[]string{path, path, "--parallelism", "2"}, "got 2 arguments"},
		{[]string{filepath.Join(dir, "does-not-exist"), "--parallelism", "2"}, "no such file"},
		{[]string{t.TempDir(), "--parallelism", "2"}, "cannot find meta data file '_metadata'"},
		{[]string{garbage, "--parallelism", "2"}, "magic"},
		{[]string{path, "--parallelism", "2", "--job", filepath.Join(dir, "nope.yaml")}, "--job"},
		{[]string{path, "--parallelism", "2", "--bogus"}, "bogus"},
	} {
		code, out, errs := runCLI(t, "", append([]string{"plan"}, tc.args...)...)
		wantUsageError(t, tc.want, code, out, errs)
	}
}

// TestPlanFlink1101 checks the 1.10.1 path: it reads only format versions up to 2.
func TestPlanFlink1101(t *testing.T) {
	dir := realMetadata(t)
	code, pl, _ := planOut(t, filepath.Join(dir, "kafka-enum1.metadata"), "--parallelism", "2", "--flink", "1.10.1")
	if code != 1 || pl.Check == nil || *pl.Check != "metadata-version" || pl.Flink != "1.10.1" {
		t.Errorf("format version 4 under 1.10.1: exit %d, check %v; want 1, metadata-version", code, pl.Check)
	}
	// The operators are still planned (with 1.10.1's algorithm).
	if op := planOperatorByID(t, pl, kafkaSourceID); !op.Valid || len(op.Subtasks) != 2 {
		t.Errorf("kafka source under 1.10.1: %+v", op)
	}
	v2 := filepath.Join(dir, "target.test-classes.type-serializer-snapshot-migration-itcase-flink1.9-savepoint.metadata")
	if code, pl, _ := planOut(t, v2, "--parallelism", "1", "--flink", "1.10.1"); code != 0 || !pl.Restorable {
		t.Errorf("format version 2 at its own parallelism under 1.10.1: exit %d, error %v", code, pl.Error)
	}
}

// TestPlanChartAndDeterminism: --out writes a chart and leaves stdout unchanged; output is the
// same byte for byte on every run.
func TestPlanChartAndDeterminism(t *testing.T) {
	path := filepath.Join(realMetadata(t), "kafka-enum1.metadata")
	_, plain, _ := runCLI(t, "", "plan", path, "--parallelism", "2", "--format", "json")
	for i := 0; i < 3; i++ {
		if _, again, _ := runCLI(t, "", "plan", path, "--parallelism", "2", "--format", "json"); again != plain {
			t.Fatalf("run %d differs", i)
		}
	}
	for _, ext := range []string{"png", "svg"} {
		out := filepath.Join(t.TempDir(), "plan."+ext)
		code, got, errs := runCLI(t, "", "plan", path, "--parallelism", "2", "--format", "json", "--out", out)
		if code != 0 || errs != "" || got != plain {
			t.Fatalf("%s: exit %d, stderr %q, stdout differs: %v", ext, code, errs, got != plain)
		}
		if fi, err := os.Stat(out); err != nil || fi.Size() < 100 {
			t.Errorf("%s: chart %v %v", ext, fi, err)
		}
	}
	// A refused plan's chart is written too (exit 1) and titled with the check.
	refused := filepath.Join(realMetadata(t), "new-stateful-udf-migration-itcase-flink1.18-hashmap-savepoint.metadata")
	out := filepath.Join(t.TempDir(), "refused.svg")
	if code, _, errs := runCLI(t, "", "plan", refused, "--parallelism", "5", "--out", out); code != 1 || errs != "" {
		t.Fatalf("refused plan: exit %d, stderr %q", code, errs)
	}
	if b, err := os.ReadFile(out); err != nil || !strings.Contains(string(b), ">REFUSED: max-parallelism-below-parallelism</text>") {
		t.Errorf("refused plan's SVG (%v) has no title REFUSED: max-parallelism-below-parallelism", err)
	}
}

// TestPlanDocs checks that the example in docs/plan.md is what plan prints.
func TestPlanDocs(t *testing.T) {
	path := filepath.Join(realMetadata(t), "kafka-enum1.metadata")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(t.TempDir(), "kafka-enum1.metadata")
	if err := os.WriteFile(local, b, 0o644); err != nil {
		t.Fatal(err)
	}
	checkDocExample(t, "../../docs/plan.md", "$ simulate plan kafka-enum1.metadata --parallelism 2\n",
		filepath.Dir(local), "plan", local, "--parallelism", "2")
}

// TestPlanDamagedFiles plans every single-bit corruption (one bit per byte) of the Kafka
// savepoint: no panic, exit 0, 1 or 2, valid JSON unless exit 2, and one stderr line on exit 2.
func TestPlanDamagedFiles(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(realMetadata(t), "kafka-enum1.metadata"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "_metadata")
	codes := map[int]int{}
	stride := 1
	if testing.Short() {
		stride = 7
	}
	for i := 0; i < len(b); i += stride {
		d := append([]byte{}, b...)
		d[i] ^= 1 << (i % 8)
		if err := os.WriteFile(path, d, 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errs := runCLI(t, "", "plan", path, "--parallelism", "2", "--format", "json")
		codes[code]++
		switch code {
		case 0, 1:
			var pl savepoint.RestorePlan
			if err := json.Unmarshal([]byte(out), &pl); err != nil || errs != "" || pl.Restorable != (code == 0) {
				t.Fatalf("byte %d: exit %d, bad output (%v), stderr %q", i, code, err, errs)
			}
		case 2:
			if out != "" || strings.Count(errs, "\n") != 1 || strings.Contains(errs, "internal error") {
				t.Fatalf("byte %d: exit 2 with stdout %q, stderr %q", i, out, errs)
			}
		default:
			t.Fatalf("byte %d: exit %d", i, code)
		}
	}
	t.Logf("exit codes %v", codes)
}

// TestPlanHazard chains two operators whose states carry max parallelism 128 and 1 into one
// task whose max parallelism is not configured (SPEC §F.1 hazard): the plan restores but says
// which operator's keyed state is cut with a foreign key-group count.
func TestPlanHazard(t *testing.T) {
	path := filepath.Join(realMetadata(t), "restore-tests.stream-exec-join_1.cross-join.metadata")
	job := writeJob(t, "job.yaml", `
vertices:
  - name: chain
    parallelism: 1
    operators:
      - id: 020737887cc50ea1c941a41e647c6b3c
      - id: cb7de915bd91ae539c64da799ab813a7
  - {name: a, parallelism: 1, operators: [{id: 37f03f45ad6dbc181bf1fb709966743f}]}
  - {name: b, parallelism: 1, operators: [{id: f4e499dcab1c6a843a69c40734cdc32e}]}
`)
	code, pl, _ := planOut(t, path, "--job", job)
	if code != 0 {
		t.Fatalf("exit %d: %v", code, pl.Error)
	}
	op := planOperatorByID(t, pl, "cb7de915bd91ae539c64da799ab813a7")
	want := []string{"hazard (known issue FLINK-40113): the task holds keyed state and its operators cb7de915bd91ae539c64da799ab813a7 and 020737887cc50ea1c941a41e647c6b3c recorded different max parallelisms (1 and 128), which Flink master refuses (check max-parallelism-agreement); this version adopts the last one it checks (128): the keyed state of [cb7de915bd91ae539c64da799ab813a7] is cut with a foreign key-group count"}
	if diff := cmp.Diff(want, op.Notes); diff != "" || op.MaxParallelism != 1 || op.NewMaxParallelism != 128 || *op.ChainPosition != 0 {
		t.Errorf("notes (-want +got):\n%s\nmax parallelism %d, task's %d, chain position %d", diff, op.MaxParallelism, op.NewMaxParallelism, *op.ChainPosition)
	}
}

// sqlLimitChainJob chains the SQL limit savepoint's source d3f21cab… (max parallelism 128,
// an empty SourceReaderState: operator state only) with the listed operators at parallelism 1;
// every other operator of the file runs alone.
func sqlLimitChainJob(t *testing.T, chain ...string) string {
	t.Helper()
	text := "vertices:\n  - name: chain\n    parallelism: 1\n    operators:\n      - id: d3f21cabc6fe0fdf76c8be915bdb22a2\n"
	for _, id := range chain {
		text += "      - id: " + id + "\n"
	}
	for i, id := range []string{"0b9bdb0dc57283189dc032ca71e5b210", "549d0085b219f96a359ff3ed86f9dc24", "d1f88f581f7db6bdd7872c2ac6a9f331"} {
		if !strings.Contains(text, id) {
			text += fmt.Sprintf("  - {name: v%d, parallelism: 1, operators: [{id: %s}]}\n", i, id)
		}
	}
	return writeJob(t, "job.yaml", text)
}

// TestPlanAgreementWithoutKeyedState is issue 28's FLINK-40113 case: the SQL source
// (operator state only, max parallelism 128) chained with 0b9bdb0d… (max parallelism 1, an
// empty subtask entry). No state of the chain holds keyed state, so master's
// checkMaxParallelismAgreement does not refuse (StateAssignmentOperation: it throws only when
// vertexHasKeyedState) and no release notes the hazard: nothing is cut by a max parallelism.
func TestPlanAgreementWithoutKeyedState(t *testing.T) {
	path := filepath.Join(realMetadata(t), "restore-tests.stream-exec-limit_1.limit.metadata")
	job := sqlLimitChainJob(t, "0b9bdb0dc57283189dc032ca71e5b210")
	for _, v := range []string{"1.18", "2.3", "master"} {
		code, pl, _ := planOut(t, path, "--job", job, "--flink", v)
		if code != 0 || !pl.Restorable {
			t.Errorf("%s: exit %d: %v", v, code, pl.Error)
			continue
		}
		for _, o := range pl.Operators {
			for _, n := range o.Notes {
				if strings.Contains(n, "FLINK-40113") {
					t.Errorf("%s: operator %s: %q", v, o.OperatorID, n)
				}
			}
		}
	}
}

// TestPlanAgreementRefusesTheTask: the SQL source, 0b9bdb0d… (empty entry, max 1) and the keyed
// limit 549d0085… (max 1) in one task. Master refuses the task with Flink's message, which
// names the first operator in HashMap order and the first later one that recorded another max
// parallelism (here the keyed operator and the source); the plan names the keyed state's
// operator as the refusal's and refuses every state of the task. 2.3 restores and its hazard
// note names the same two operators and values, in the same order.
func TestPlanAgreementRefusesTheTask(t *testing.T) {
	path := filepath.Join(realMetadata(t), "restore-tests.stream-exec-limit_1.limit.metadata")
	job := sqlLimitChainJob(t, "0b9bdb0dc57283189dc032ca71e5b210", "549d0085b219f96a359ff3ed86f9dc24")
	code, pl, _ := planOut(t, path, "--job", job, "--flink", "master")
	want := "The state for the execution job vertex chain can not be restored. Operators 549d0085b219f96a359ff3ed86f9dc24 and d3f21cabc6fe0fdf76c8be915bdb22a2 are chained into the same keyed vertex but recorded different maximum parallelism in the checkpoint (1 and 128)."
	if code != 1 || pl.Error == nil || !strings.HasPrefix(*pl.Error, want) || *pl.Check != model.CheckMaxParallelismAgreement || *pl.OperatorID != "549d0085b219f96a359ff3ed86f9dc24" {
		t.Fatalf("master: exit %d, check %v, operator %v: %v\nwant %s", code, pl.Check, pl.OperatorID, pl.Error, want)
	}
	for _, o := range pl.Operators {
		inChain := o.OperatorID != "d1f88f581f7db6bdd7872c2ac6a9f331"
		if inChain != (o.Status == "refused") || inChain && (o.Error == nil || *o.Error != *pl.Error) {
			t.Errorf("master: operator %s: status %s, error %v", o.OperatorID, o.Status, o.Error)
		}
	}
	code, pl, _ = planOut(t, path, "--job", job, "--flink", "2.3")
	if code != 0 {
		t.Fatalf("2.3: exit %d: %v", code, pl.Error)
	}
	note := "hazard (known issue FLINK-40113): the task holds keyed state and its operators 549d0085b219f96a359ff3ed86f9dc24 and d3f21cabc6fe0fdf76c8be915bdb22a2 recorded different max parallelisms (1 and 128), which Flink master refuses"
	for _, id := range []string{"d3f21cabc6fe0fdf76c8be915bdb22a2", "0b9bdb0dc57283189dc032ca71e5b210", "549d0085b219f96a359ff3ed86f9dc24"} {
		if o := planOperatorByID(t, pl, id); !slices.ContainsFunc(o.Notes, func(n string) bool { return strings.HasPrefix(n, note) }) {
			t.Errorf("2.3: operator %s: notes %q, want one starting %q", id, o.Notes, note)
		}
	}
}

// writePlanSynthetic writes a version-4 file: operator "finished" (uid) fully finished,
// operator "buffer" with split state on 2 subtasks, both at parallelism 2, max parallelism 128.
func writePlanSynthetic(t *testing.T) string {
	t.Helper()
	handle := func(path string, offs ...int64) []model.OperatorStateHandle {
		return []model.OperatorStateHandle{{Delegate: model.StreamHandle{Path: path, Size: 100, InMemory: true},
			States: []model.NamedOperatorState{{Name: "buffer", Mode: model.SplitDistribute, Offsets: offs}}}}
	}
	md := model.CheckpointMetadata{CheckpointID: 7, Operators: []model.OperatorState{
		{OperatorID: model.OperatorIDFromUID("finished"), Parallelism: 2, MaxParallelism: 128, FullyFinished: true},
		{OperatorID: model.OperatorIDFromUID("buffer"), Parallelism: 2, MaxParallelism: 128, Subtasks: []*model.OperatorSubtaskState{
			{ManagedOperatorState: handle("s0", 10, 40)}, {ManagedOperatorState: handle("s1", 10, 20, 30)}}},
	}}
	f, err := metadata.FromModel(md)
	if err != nil {
		t.Fatal(err)
	}
	b, err := metadata.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "_metadata")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPlanFinishedOperators: a fully finished operator is restored as finished; chained with an
// unfinished one Flink 1.18 refuses the vertex (both operators named invalid); Flink 1.10.1
// cannot read the file at all.
func TestPlanFinishedOperators(t *testing.T) {
	path := writePlanSynthetic(t)
	finished, buffer := model.OperatorIDFromUID("finished").String(), model.OperatorIDFromUID("buffer").String()

	code, pl, _ := planOut(t, path, "--parallelism", "3")
	if code != 0 {
		t.Fatalf("exit %d: %v", code, pl.Error)
	}
	for _, s := range planOperatorByID(t, pl, finished).Subtasks {
		if !s.Finished || !s.RestoreObject {
			t.Errorf("finished operator, subtask %d: finished %v, restore object %v", s.Index, s.Finished, s.RestoreObject)
		}
	}
	var got [][][2]int
	for _, s := range planOperatorByID(t, pl, buffer).Subtasks {
		got = append(got, s.ManagedOperatorState["buffer"].Pairs)
	}
	if diff := cmp.Diff([][][2]int{{{0, 0}, {0, 1}}, {{1, 0}, {1, 1}}, {{1, 2}}}, got); diff != "" {
		t.Errorf("buffer pairs (-want +got):\n%s", diff)
	}

	job := writeJob(t, "job.yaml", "vertices:\n  - {name: chain, parallelism: 3, operators: [{uid: buffer}, {uid: finished}]}\n")
	code, pl, _ = planOut(t, path, "--job", job)
	if code != 1 || pl.Check == nil || *pl.Check != "mixed-finished-operators" || pl.OperatorID == nil || *pl.OperatorID != finished {
		t.Fatalf("exit %d, check %v, operator %v; want 1, mixed-finished-operators, %s", code, pl.Check, pl.OperatorID, finished)
	}
	for _, id := range []string{finished, buffer} {
		if op := planOperatorByID(t, pl, id); op.Valid || op.Check == nil || *op.Check != "mixed-finished-operators" || !strings.Contains(*op.Error, "vertex chain") {
			t.Errorf("%s: valid %v, check %v, error %v", id, op.Valid, op.Check, op.Error)
		}
	}

	code, pl, _ = planOut(t, path, "--parallelism", "3", "--flink", "1.10.1")
	if code != 1 || pl.Check == nil || *pl.Check != "metadata-version" {
		t.Fatalf("1.10.1: exit %d, check %v; want 1, metadata-version", code, pl.Check)
	}
	if op := planOperatorByID(t, pl, finished); len(op.Notes) == 0 || !strings.Contains(op.Notes[0], "FLIP-147") {
		t.Errorf("1.10.1: finished operator notes %v", op.Notes)
	}
}
