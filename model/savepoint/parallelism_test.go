package savepoint

import (
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restoresim/restoresim/model"
)

// The savepoint of issue 17: a non-parallel source (max parallelism 1) and keyed operators at
// parallelism 4, max parallelism 4.
const (
	nonParallelSource = "target.test-classes.stateful-scala-udf-migration-itcase-flink1.7-rocksdb-savepoint.metadata"
	sourceID          = "4df504eeb6a1733fdcdc90f79c5fcb20"
	keyedID           = "d1392353922252257afa15351a98bae9"
	statelessID       = "311e8aa7918feea773fb3d9a8307a118"
)

func openReal(t *testing.T, name string) *Savepoint {
	t.Helper()
	sp, err := openLocal(t, filepath.Join(realMetadata(t), name))
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

func mustID(t *testing.T, s string) model.OperatorID {
	t.Helper()
	id, err := model.ParseOperatorID(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// parallelisms gives each operator's new parallelism and source, by operator ID prefix.
func parallelisms(pl *RestorePlan) map[string]string {
	out := map[string]string{}
	for _, o := range pl.Operators {
		out[o.OperatorID[:4]] = o.Status + " " + string(o.ParallelismSource) + " " + strconv.Itoa(o.Parallelism)
	}
	return out
}

func TestKeepAndVertexParallelism(t *testing.T) {
	sp := openReal(t, nonParallelSource)
	// At P=2 the source (max parallelism 1) stays at 1 (non-parallel) and the rest follow P;
	// the largest default parallelism is the keyed operators' max parallelism 4.
	pl, err := PlanRestore(sp, Options{Flink: model.Flink118, Parallelism: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"4df5": "restored non-parallel 1", "d139": "restored default 2", "311e": "restored default 2"}
	if diff := cmp.Diff(want, parallelisms(pl)); !pl.Restorable || diff != "" {
		t.Errorf("P=2: restorable %v (-want +got):\n%s", pl.Restorable, diff)
	}
	if pl.MaxRestorableParallelism == nil || *pl.MaxRestorableParallelism != 4 {
		t.Errorf("P=2: max restorable %v, want 4", pl.MaxRestorableParallelism)
	}
	if v := pl.Vertices[0]; v.ParallelismSource != SourceNonParallel || v.Parallelism != 1 || v.MaxParallelism != 1 || !v.MaxParallelismConfigured {
		t.Errorf("P=2: the source's task %+v, want non-parallel at 1, max parallelism 1 configured", v)
	}
	if n := pl.Operators[0].Notes; len(n) != 1 || n[0] != NonParallelNote {
		t.Errorf("P=2: the source's notes %q, want the non-parallel note", n)
	}

	// --vertex sets the source to 2 (a job that no longer forces it non-parallel): Flink
	// refuses, and the fix is to keep it at 1.
	pl, err = PlanRestore(sp, Options{Flink: model.Flink118, Parallelism: 2, VertexParallelism: map[model.OperatorID]int{mustID(t, sourceID): 2}})
	if err != nil {
		t.Fatal(err)
	}
	if pl.Restorable {
		t.Fatal("restorable with the source at 2")
	}
	src := pl.Operators[0]
	if src.OperatorID != sourceID || *src.Check != model.CheckMaxParallelismBelowParallelism || src.MaxRestorableParallelism == nil || *src.MaxRestorableParallelism != 1 ||
		!strings.HasPrefix(src.Fix, "keep it at 1 (--vertex "+sourceID+"=1") {
		t.Errorf("source: check %v, max restorable %v, fix %q", src.Check, src.MaxRestorableParallelism, src.Fix)
	}
	for _, o := range pl.Operators[1:] {
		if o.MaxRestorableParallelism != nil || o.Fix != "" {
			t.Errorf("%s is not refused, yet max restorable %v, fix %q", o.OperatorID, o.MaxRestorableParallelism, o.Fix)
		}
	}

	// --keep-parallelism: every operator at its old parallelism, restorable.
	pl, err = PlanRestore(sp, Options{Flink: model.Flink118, KeepParallelism: true})
	if err != nil {
		t.Fatal(err)
	}
	want = map[string]string{"4df5": "restored non-parallel 1", "d139": "restored keep 4", "311e": "restored keep 4"}
	if diff := cmp.Diff(want, parallelisms(pl)); !pl.Restorable || diff != "" {
		t.Errorf("keep: restorable %v (-want +got):\n%s", pl.Restorable, diff)
	}
	if pl.MaxRestorableParallelism != nil {
		t.Errorf("keep: no task follows the default, yet max restorable %d", *pl.MaxRestorableParallelism)
	}

	// --vertex ID=2 changes that operator alone.
	pl, err = PlanRestore(sp, Options{Flink: model.Flink118, KeepParallelism: true, VertexParallelism: map[model.OperatorID]int{mustID(t, keyedID): 2}})
	if err != nil {
		t.Fatal(err)
	}
	want["d139"] = "restored vertex 2"
	if diff := cmp.Diff(want, parallelisms(pl)); !pl.Restorable || diff != "" {
		t.Errorf("keep + vertex: restorable %v (-want +got):\n%s", pl.Restorable, diff)
	}
	var sources []ParallelismSource
	for _, v := range pl.Vertices {
		sources = append(sources, v.ParallelismSource)
	}
	if diff := cmp.Diff([]ParallelismSource{SourceNonParallel, SourceVertex, SourceKeep}, sources); diff != "" {
		t.Errorf("vertices (-want +got):\n%s", diff)
	}

	// --parallelism 2 with the source set to 1 by uid-less ID: restorable; the largest default
	// parallelism is the keyed operators' max parallelism 4.
	pl, err = PlanRestore(sp, Options{Flink: model.Flink118, Parallelism: 2, VertexParallelism: map[model.OperatorID]int{mustID(t, sourceID): 1}})
	if err != nil {
		t.Fatal(err)
	}
	want = map[string]string{"4df5": "restored vertex 1", "d139": "restored default 2", "311e": "restored default 2"}
	if diff := cmp.Diff(want, parallelisms(pl)); !pl.Restorable || diff != "" {
		t.Errorf("default + vertex: restorable %v (-want +got):\n%s", pl.Restorable, diff)
	}
	if pl.MaxRestorableParallelism == nil || *pl.MaxRestorableParallelism != 4 {
		t.Errorf("default + vertex: max restorable %v, want 4", pl.MaxRestorableParallelism)
	}
	// And at 4 it restores, at 5 it does not (the check agrees with the number).
	for p, ok := range map[int]bool{4: true, 5: false} {
		pl, err := PlanRestore(sp, Options{Flink: model.Flink118, Parallelism: p, VertexParallelism: map[model.OperatorID]int{mustID(t, sourceID): 1}})
		if err != nil || pl.Restorable != ok {
			t.Errorf("P=%d: restorable %v, want %v (%v)", p, pl.Restorable, ok, err)
		}
	}
}

func TestParallelismBadInput(t *testing.T) {
	sp := openReal(t, nonParallelSource)
	unknown := model.OperatorIDFromUID("no-such-uid")
	for _, c := range []struct {
		opts Options
		want string
	}{
		{Options{Flink: model.Flink118, VertexParallelism: map[model.OperatorID]int{unknown: 2}}, "operator " + unknown.String() + " is not an operator of the checkpoint"},
		{Options{Flink: model.Flink118, VertexParallelism: map[model.OperatorID]int{mustID(t, keyedID): 2}}, `task "operator ` + statelessID + `" has no parallelism`},
		{Options{Flink: model.Flink118, Parallelism: 2, VertexParallelism: map[model.OperatorID]int{mustID(t, keyedID): 0}}, "parallelism 0 is out of bounds"},
		{Options{Flink: model.Flink118, Parallelism: 2, VertexParallelism: map[model.OperatorID]int{mustID(t, keyedID): 40000}}, "parallelism 40000 is out of bounds"},
	} {
		_, err := PlanRestore(sp, c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.opts, err, c.want)
		}
	}
	_, err := PlanRestore(sp, Options{Flink: model.Flink118, Parallelism: 2, VertexParallelism: map[model.OperatorID]int{unknown: 2}})
	var ue *UnknownOperatorError
	if !errors.As(err, &ue) || ue.OperatorID != unknown {
		t.Errorf("error %v is not an UnknownOperatorError for %v", err, unknown)
	}
}

// TestKeepWithJob: with a job, keep fills the vertices the file gives no parallelism; a vertex
// set by the file keeps it, and --vertex wins over both.
func TestKeepWithJob(t *testing.T) {
	sp := openReal(t, nonParallelSource)
	two := 2
	jf := JobFile{Vertices: []JobFileVertex{
		{Name: "src", Operators: []JobFileOperator{{ID: ptr(sourceID)}}},
		{Name: "keyed", Operators: []JobFileOperator{{ID: ptr(keyedID)}}},
		{Name: "other", Parallelism: &two, Operators: []JobFileOperator{{ID: ptr(statelessID)}}},
	}}
	job, err := jf.Validate(3)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := PlanRestore(sp, Options{Flink: model.Flink118, Parallelism: 3, Job: job, KeepParallelism: true,
		VertexParallelism: map[model.OperatorID]int{mustID(t, keyedID): 1}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"4df5": "restored keep 1", "d139": "restored vertex 1", "311e": "restored job 2"}
	if diff := cmp.Diff(want, parallelisms(pl)); !pl.Restorable || diff != "" {
		t.Errorf("restorable %v (-want +got):\n%s", pl.Restorable, diff)
	}
}

func ptr[T any](v T) *T { return &v }

func TestDroppedStateCounted(t *testing.T) {
	sp := openReal(t, nonParallelSource)
	jf := JobFile{Vertices: []JobFileVertex{
		{Name: "src", Operators: []JobFileOperator{{ID: ptr(sourceID)}}},
		{Name: "other", Operators: []JobFileOperator{{ID: ptr(statelessID)}}},
	}}
	job, err := jf.Validate(2)
	if err != nil {
		t.Fatal(err)
	}
	// Without AllowNonRestoredState the keyed operator is refused; its fix names the bytes.
	pl, err := PlanRestore(sp, Options{Flink: model.Flink118, Parallelism: 2, Job: job})
	if err != nil {
		t.Fatal(err)
	}
	k := pl.Operators[1]
	if k.Status != "refused" || k.MaxRestorableParallelism != nil ||
		k.Fix != "add --allow-non-restored-state: drops 227168 bytes of keyed state of operator "+keyedID {
		t.Errorf("keyed: status %s, max restorable %v, fix %q", k.Status, k.MaxRestorableParallelism, k.Fix)
	}
	if pl.MaxRestorableParallelism != nil {
		t.Errorf("no parallelism restores a missing operator, yet max restorable %d", *pl.MaxRestorableParallelism)
	}
	if job, err = jf.Validate(1); err != nil {
		t.Fatal(err)
	}
	pl, err = PlanRestore(sp, Options{Flink: model.Flink118, Parallelism: 1, Job: job, AllowNonRestoredState: true})
	if err != nil {
		t.Fatal(err)
	}
	if !pl.Restorable || pl.DroppedOperators != 1 || pl.DroppedStateBytes != 227168 || pl.Operators[1].DroppedStateBytes != 227168 {
		t.Errorf("restorable %v, dropped %d operators, %d bytes (operator: %d)", pl.Restorable, pl.DroppedOperators, pl.DroppedStateBytes, pl.Operators[1].DroppedStateBytes)
	}
	if pl.MaxRestorableParallelism == nil || *pl.MaxRestorableParallelism != 1 {
		t.Errorf("max restorable %v, want 1 (the source's max parallelism)", pl.MaxRestorableParallelism)
	}
}

func TestUIDs(t *testing.T) {
	var u UIDs
	if err := u.Add("kafka-source-operator-uid", "x"); err != nil {
		t.Fatal(err)
	}
	if err := u.Add(""); err == nil {
		t.Error("empty uid accepted")
	}
	if s, ok := u.Lookup(mustID(t, "cb16aa5adb311e8ac72482def19accbe")); !ok || s != "kafka-source-operator-uid" {
		t.Errorf("Lookup = %q %v", s, ok)
	}
	sp := openReal(t, "kafka-enum1.metadata")
	if n := u.Label(sp.File); n != 1 || sp.File.Operators[1].UID != "kafka-source-operator-uid" {
		t.Errorf("Label named %d operators, UID %q", n, sp.File.Operators[1].UID)
	}
	if got := UIDLine("a,b"); got != `"a,b",`+model.OperatorIDFromUID("a,b").String() {
		t.Errorf("UIDLine = %q", got)
	}
	text := "# uids\nkafka-source-operator-uid,cb16aa5adb311e8ac72482def19accbe\n\nplain\n" + UIDLine("a,b") + "\n"
	got, err := ReadUIDs(strings.NewReader(text))
	if err != nil || !cmp.Equal(got, []string{"kafka-source-operator-uid", "plain", "a,b"}) {
		t.Errorf("ReadUIDs = %q, %v", got, err)
	}
	for _, bad := range []string{"x,cb16aa5adb311e8ac72482def19accbe\n", "x,zz\n", "a,b,c\n", `"",` + model.OperatorIDFromUID("").String() + "\n"} {
		if _, err := ReadUIDs(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("ReadUIDs(%q): %v, want an error naming line 1", bad, err)
		}
	}
}

// TestParallelismChainErrors: one task takes one parallelism; keep needs one old parallelism.
func TestParallelismChainErrors(t *testing.T) {
	sp := openReal(t, nonParallelSource)
	jf := JobFile{Vertices: []JobFileVertex{
		{Name: "chain", Operators: []JobFileOperator{{ID: ptr(sourceID)}, {ID: ptr(keyedID)}}},
		{Name: "other", Operators: []JobFileOperator{{ID: ptr(statelessID)}}},
	}}
	job, err := jf.Validate(1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		opts Options
		want string
	}{
		{Options{Flink: model.Flink118, Parallelism: 1, Job: job, KeepParallelism: true},
			`task "chain": its operators' states ran at parallelisms 1 (operator ` + sourceID + `) and 4 (operator ` + keyedID + `)`},
		{Options{Flink: model.Flink118, Parallelism: 1, Job: job, VertexParallelism: map[model.OperatorID]int{mustID(t, sourceID): 1, mustID(t, keyedID): 2}},
			`task "chain" is set to parallelism`},
		{Options{Flink: model.Flink118, Parallelism: 1, Job: job, VertexParallelism: map[model.OperatorID]int{model.OperatorIDFromUID("x"): 2}},
			"is not an operator of the new job"},
	} {
		_, err := PlanRestore(sp, c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
	// The same parallelism for two operators of one chain is fine.
	pl, err := PlanRestore(sp, Options{Flink: model.Flink118, Parallelism: 1, Job: job, VertexParallelism: map[model.OperatorID]int{mustID(t, sourceID): 1, mustID(t, keyedID): 1}})
	if err != nil || !pl.Restorable || pl.Vertices[0].ParallelismSource != SourceVertex || pl.Vertices[1].ParallelismSource != SourceDefault {
		t.Errorf("plan %+v, %v", pl, err)
	}
}

func TestParseVertexSetting(t *testing.T) {
	hex := "0123456789abcdef0123456789abcdef"
	for _, c := range []struct {
		in   string
		want VertexSetting
	}{
		{hex + "=2", VertexSetting{OperatorID: mustID(t, hex), Parallelism: 2}},
		{"uid:src=32768", VertexSetting{OperatorID: model.OperatorIDFromUID("src"), UID: "src", Parallelism: 32768}},
		{"uid:a=b=1", VertexSetting{OperatorID: model.OperatorIDFromUID("a=b"), UID: "a=b", Parallelism: 1}},
	} {
		if got, err := ParseVertexSetting(c.in); err != nil || got != c.want {
			t.Errorf("%q: %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{hex, "want ID=P (ID: 32 hex digits or uid:NAME)"},
		{"uid:=2", "empty uid"},
		{"xyz=2", `"xyz" is not an operator ID (want 32 hex digits or uid:NAME)`},
		{hex[:30] + "=2", `"` + hex[:30] + `" is not an operator ID`},
		{hex + "=two", `parallelism "two" is not an integer`},
		{hex + "=0", "parallelism 0 is out of bounds (want 1..32768)"},
		{"uid:x=40000", "parallelism 40000 is out of bounds (want 1..32768)"},
	} {
		if _, err := ParseVertexSetting(c.in); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.in, err, c.want)
		}
	}
}
