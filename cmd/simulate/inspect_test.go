package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/restoresim/restoresim/internal/realmeta"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
	"github.com/restoresim/restoresim/model/savepoint"
)

// realMetadata is the folder of the real Flink files (see internal/realmeta): the test is
// skipped, or fails under CI, when they are absent.
func realMetadata(t *testing.T) string {
	t.Helper()
	return realmeta.Sub(t, "real")
}

// writeSynthetic writes a small version-4 metadata file built from the model into dir/name.
func writeSynthetic(t *testing.T, dir, name string) string {
	t.Helper()
	r, _ := model.ComputeKeyGroupRangeForOperatorIndex(8, 2, 1)
	md := model.CheckpointMetadata{CheckpointID: 3, Operators: []model.OperatorState{{
		OperatorID: model.OperatorIDFromUID("my-uid"), Parallelism: 2, MaxParallelism: 8,
		Subtasks: []*model.OperatorSubtaskState{nil, {
			ManagedOperatorState: []model.OperatorStateHandle{{Delegate: model.StreamHandle{Path: "op", Size: 40, InMemory: true},
				States: []model.NamedOperatorState{{Name: "buffer", Mode: model.SplitDistribute, Offsets: []int64{10, 20}}}}},
			ManagedKeyedState: []model.KeyedStateHandle{&model.KeyGroupsStateHandle{
				Offsets:  model.KeyGroupRangeOffsets{Range: r, Offsets: []int64{5, 0, 9, 30}}, // key group 5 empty
				Delegate: model.StreamHandle{Path: "kg", Size: 50, InMemory: true}}},
		}},
	}}}
	f, err := metadata.FromModel(md)
	if err != nil {
		t.Fatal(err)
	}
	b, err := metadata.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestInspectSyntheticText(t *testing.T) {
	dir := t.TempDir()
	writeSynthetic(t, dir, "_metadata")
	// A directory means <dir>/_metadata.
	code, out, errs := runCLI(t, "", "inspect", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := strings.Join([]string{
		filepath.Join(dir, "_metadata") + `: format version 4 (Flink 1.16–1.20), checkpoint 3, 1 operators, 90 state bytes`,
		`properties: checkpoint "Checkpoint", sharing FORWARD_BACKWARD; forced false, unclaimed false; discarded when subsumed, finished, cancelled, failed, suspended`,
		`operator ` + model.OperatorIDFromUID("my-uid").String() + `: parallelism 2, max parallelism 8, 1 subtask entries, 90 state bytes`,
		`  subtask 1: 90 state bytes`,
		`    managed operator state: OperatorStreamStateHandle, 1 states, in ByteStreamStateHandle 40 bytes inline`,
		`      "buffer" SPLIT_DISTRIBUTE: 2 entries, offsets [10 20]`,
		`    managed keyed state: KeyGroupsStateHandle, key groups 4..7, 50 bytes`,
		`      in ByteStreamStateHandle 50 bytes inline`,
		`      bytes per key group:`,
		`            4: 4 0 21 20`,
		``}, "\n")
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("text output (-want +got):\n%s", diff)
	}
}

func TestInspectSyntheticJSON(t *testing.T) {
	p := writeSynthetic(t, t.TempDir(), "any-name")
	code, out, errs := runCLI(t, "", "inspect", "--format", "json", p)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	op := got["operators"].([]any)[0].(map[string]any)
	sub := op["subtasks"].([]any)[0].(map[string]any)
	want := map[string]any{
		"index": 1.0, "finished": false, "state_bytes": 90.0,
		"managed_operator_state": []any{[]any{map[string]any{"name": "buffer", "mode": "SPLIT_DISTRIBUTE", "offsets": []any{10.0, 20.0}}}},
		"raw_operator_state":     []any{},
		"managed_keyed_state": []any{map[string]any{"type": "KeyGroupsStateHandle", "tag": 12.0, "start": 4.0, "end": 7.0,
			"state_bytes": 50.0, "offsets": []any{5.0, 0.0, 9.0, 30.0}, "key_group_bytes": []any{4.0, 0.0, 21.0, 20.0}}},
		"raw_keyed_state":       []any{},
		"input_channel_handles": 0.0, "result_subpartition_handles": 0.0,
	}
	if diff := cmp.Diff(want, sub); diff != "" {
		t.Errorf("subtask JSON (-want +got):\n%s", diff)
	}
	if op["coordinator_state_bytes"] != nil {
		t.Errorf("coordinator_state_bytes = %v, want null", op["coordinator_state_bytes"])
	}
}

func TestInspectBadInput(t *testing.T) {
	dir := t.TempDir()
	good := writeSynthetic(t, dir, "good")
	b, _ := os.ReadFile(good)
	truncated := filepath.Join(dir, "truncated")
	os.WriteFile(truncated, b[:len(b)-30], 0o644)
	flipped := filepath.Join(dir, "flipped")
	c := append([]byte{}, b...)
	c[20+3] = 0x7f // numOperators: 1 → 127
	os.WriteFile(flipped, c, 0o644)
	v1 := filepath.Join(dir, "v1")
	os.WriteFile(v1, []byte{0x49, 0x60, 0x67, 0x2d, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0}, 0o644)
	empty := filepath.Join(dir, "empty-dir")
	os.Mkdir(empty, 0o755)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"inspect", filepath.Join(dir, "missing")}, "missing: no such file or directory"},
		{[]string{"inspect", empty}, "cannot find meta data file '_metadata' in directory"},
		{[]string{"inspect", truncated}, "metadata: offset 0x"},
		{[]string{"inspect", flipped}, "offset 0x14 (20): numOperators: count exceeds the remaining bytes"},
		{[]string{"inspect", v1}, "unsupported format version: 1 (written by Flink 1.2"},
		{[]string{"inspect", "--format", "xml", good}, `unknown --format "xml"`},
		{[]string{"inspect"}, "want exactly one PATH"},
		{[]string{"inspect", good, good}, "want exactly one PATH"},
	}
	for _, tt := range tests {
		code, out, errs := runCLI(t, "", tt.args...)
		wantUsageError(t, tt.want, code, out, errs)
	}
}

// TestInspectRealFiles runs inspect on every real file: version 1 is refused on one line, every
// other file gives JSON listing every operator and subtask of the file, and text output.
func TestInspectRealFiles(t *testing.T) {
	dir := realMetadata(t)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		code, out, errs := runCLI(t, "", "inspect", "--format", "json", p)
		if len(b) >= 8 && b[7] == 1 {
			wantUsageError(t, "version: unsupported format version: 1", code, out, errs)
			continue
		}
		if code != 0 {
			t.Errorf("%s: exit %d: %s", e.Name(), code, errs)
			continue
		}
		var got savepoint.Summary
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		f, _ := metadata.Read(b)
		if len(got.Operators) != len(f.Operators) {
			t.Errorf("%s: %d operators in JSON, %d in file", e.Name(), len(got.Operators), len(f.Operators))
		}
		for i, op := range got.Operators {
			if len(op.Subtasks) != len(f.Operators[i].Subtasks) {
				t.Errorf("%s: operator %s: %d subtasks in JSON, %d in file", e.Name(), op.OperatorID, len(op.Subtasks), len(f.Operators[i].Subtasks))
			}
		}
		if code, _, errs := runCLI(t, "", "inspect", p); code != 0 {
			t.Errorf("%s: text: exit %d: %s", e.Name(), code, errs)
		}
	}
}

// TestInspectAgreesWithIndex compares, for every real file, the format version, the byte size
// and the keyed-handle types and counts in inspect's JSON with INDEX.md, which an independent
// reader produced.
func TestInspectAgreesWithIndex(t *testing.T) {
	dir := realMetadata(t)
	index, err := os.ReadFile(filepath.Join(realmeta.Dir(t), "INDEX.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("^\\| `([^`]+)` \\| (\\d+) \\| (\\d+) \\| [^|]* \\| ([^|]*) \\|")
	n := 0
	for _, line := range strings.Split(string(index), "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		name, version, size, handles := m[1], m[2], m[3], strings.TrimSpace(m[4])
		p := filepath.Join(dir, name)
		fi, err := os.Stat(p)
		if err != nil {
			t.Errorf("%s listed in INDEX.md is missing", name)
			continue
		}
		if strconv.FormatInt(fi.Size(), 10) != size {
			t.Errorf("%s: %d bytes, INDEX.md says %s", name, fi.Size(), size)
		}
		if version == "1" {
			continue
		}
		code, out, errs := runCLI(t, "", "inspect", "--format", "json", p)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", name, code, errs)
			continue
		}
		var got savepoint.Summary
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		if strconv.Itoa(int(got.Version)) != version {
			t.Errorf("%s: version %d, INDEX.md says %s", name, got.Version, version)
		}
		counts := map[string]int{}
		for _, op := range got.Operators {
			for _, s := range op.Subtasks {
				for _, k := range append(append([]savepoint.KeyedSummary{}, s.ManagedKeyedState...), s.RawKeyedState...) {
					typ := k.Type
					if k.Tag == metadata.TagIncremental || k.Tag == metadata.TagKeyGroupsV2 || k.Tag == metadata.TagChangelogBackend {
						typ += "(v2)"
					}
					counts[typ]++
				}
			}
		}
		var parts []string
		for typ, c := range counts {
			parts = append(parts, fmt.Sprintf("%s×%d", typ, c))
		}
		sort.Strings(parts)
		gotHandles := strings.Join(parts, ", ")
		if gotHandles == "" {
			gotHandles = "-"
		}
		if gotHandles != handles {
			t.Errorf("%s: keyed handles %q, INDEX.md says %q", name, gotHandles, handles)
		}
		n++
	}
	if n < 400 {
		t.Errorf("compared only %d files with INDEX.md", n)
	}
}

// TestInspectDeterministic: the same file gives the same bytes every time.
func TestInspectDeterministic(t *testing.T) {
	p := writeSynthetic(t, t.TempDir(), "_metadata")
	_, a, _ := runCLI(t, "", "inspect", "--format", "json", p)
	for i := 0; i < 5; i++ {
		if _, b, _ := runCLI(t, "", "inspect", "--format", "json", p); a != b {
			t.Fatalf("run %d differs", i)
		}
	}
}

// TestInspectDocs checks that the text example in docs/inspect.md is what inspect prints for
// kafka-enum1.metadata in a checkpoint directory chk-1.
func TestInspectDocs(t *testing.T) {
	src := filepath.Join(realMetadata(t), "kafka-enum1.metadata")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "chk-1")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "_metadata"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	checkDocExample(t, "../../docs/inspect.md", "$ simulate inspect chk-1            # kafka-enum1.metadata copied to chk-1/_metadata\n",
		filepath.Dir(dir), "inspect", dir)
}

// TestEmptyPathRefused: an empty PATH or FILE argument is bad input, not the current directory
// (issue 28: inspect "" read the working directory).
func TestEmptyPathRefused(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, c := range []struct {
		want string
		args []string
	}{
		{"simulate inspect: an empty path (want a _metadata file, a checkpoint directory or a URL)", []string{"inspect", ""}},
		{"simulate inspect: an empty path", []string{"inspect", "", "--latest"}},
		{"simulate plan: an empty path", []string{"plan", "", "--parallelism", "2"}},
		{"simulate diff: an empty path", []string{"diff", "", ""}},
		{"simulate locate: an empty path", []string{"locate", "1", "", "--key-type", "int"}},
		{`simulate replay: an empty file name ("-" reads stdin)`, []string{"replay", ""}},
		{`simulate summarize: an empty file name ("-" reads stdin)`, []string{"summarize", ""}},
	} {
		code, out, errs := runCLI(t, "", c.args...)
		wantUsageError(t, c.want, code, out, errs)
	}
}
