package metadata

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/restoresim/restoresim/model"
)

// fileOpts compares Files: nil and empty slices are the same.
var fileOpts = cmp.Options{cmpopts.EquateEmpty()}

func TestPropertiesModel(t *testing.T) {
	tests := []struct {
		name string
		in   *model.CheckpointProperties
	}{
		{"nil is a regular checkpoint", nil},
		{"checkpoint", &model.CheckpointProperties{DiscardSubsumed: true, Sharing: model.ForwardBackward}},
		{"full checkpoint", &model.CheckpointProperties{DiscardSubsumed: true, Sharing: model.Forward}},
		{"canonical savepoint", &model.CheckpointProperties{Savepoint: true, Forced: true, Sharing: model.NoSharing}},
		{"native stop-with-savepoint", &model.CheckpointProperties{Savepoint: true, Forced: true, Synchronous: true, Native: true, Sharing: model.NoSharing}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := PropertiesFromModel(tt.in)
			want := tt.in
			if want == nil {
				want = &model.CheckpointProperties{DiscardSubsumed: true, Sharing: model.ForwardBackward}
			}
			b := encodeProperties(p)
			back, end, err := parseProperties(b, 0, MaxDepth)
			if err != nil || end != len(b) {
				t.Fatalf("parseProperties: %v (end %d of %d)", err, end, len(b))
			}
			if diff := cmp.Diff(want, back.Model()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestChangelog114 reads a Flink 1.14 changelog layout (tags 8, 9, 10 without the 1.15 fields)
// and writes it back unchanged.
func TestChangelog114(t *testing.T) {
	f := &File{Version: 3, Changelog114: true, Operators: []Operator{{
		Parallelism: 1, MaxParallelism: 8,
		Subtasks: []Subtask{{ManagedKeyedState: &ChangelogBackendHandle{
			Tag: TagChangelogBackendV1, StartKeyGroup: 0, NumKeyGroups: 8,
			Materialized: []KeyedHandle{&KeyGroupsHandle{Tag: TagKeyGroups, Offsets: make([]int64, 8),
				Delegate: &StreamHandle{Tag: TagByteStream, Name: "m", Data: []byte{1, 2}}}},
			NonMaterialized: []KeyedHandle{
				&InMemoryChangelogHandle{StartKeyGroup: 0, NumKeyGroups: 8, From: 1, To: 2, Changes: []StateChange{{KeyGroup: -1, Data: []byte{7}}}},
				&ChangelogStreamHandle{Tag: TagChangelogStreamV1, StartKeyGroup: 0, NumKeyGroups: 8, StateSize: 5,
					Parts: []ChangelogPart{{Offset: 3, Handle: &StreamHandle{Tag: TagFile, Path: "/x", Size: 5}}}},
			},
		}}},
	}}}
	b, err := Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Read(b)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if diff := cmp.Diff(f, got, fileOpts); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// The same handles in the modern layout are read without the fallback.
	f.Changelog114 = false
	b, _ = Marshal(f)
	if got, err = Read(b); err != nil || got.Changelog114 {
		t.Errorf("modern layout: err %v, Changelog114 %v", err, got != nil && got.Changelog114)
	}
}

// TestChangelogIntersection checks that a changelog handle cuts its parts (getIntersection).
func TestChangelogIntersection(t *testing.T) {
	h := KeyedModel(&ChangelogBackendHandle{Tag: TagChangelogBackend, StartKeyGroup: 0, NumKeyGroups: 10,
		Materialized: []KeyedHandle{
			&KeyGroupsHandle{Tag: TagKeyGroupsV2, StartKeyGroup: 0, Offsets: []int64{0, 1, 2, 3, 4}, Delegate: &StreamHandle{Tag: TagFile, Path: "a", Size: 5}},
			&KeyGroupsHandle{Tag: TagKeyGroupsV2, StartKeyGroup: 5, Offsets: []int64{0, 1, 2, 3, 4}, Delegate: &StreamHandle{Tag: TagFile, Path: "b", Size: 5}},
		},
		NonMaterialized: []KeyedHandle{&ChangelogStreamHandle{Tag: TagChangelogStream, StartKeyGroup: 0, NumKeyGroups: 10, StateSize: 9}},
	})
	got := h.Intersection(model.KeyGroupRange{Start: 6, End: 20})
	c, ok := got.(*ChangelogStateBackendHandle)
	if !ok {
		t.Fatalf("Intersection gave %T", got)
	}
	if c.Range != (model.KeyGroupRange{Start: 6, End: 9}) || len(c.Materialized) != 1 || len(c.NonMaterialized) != 1 {
		t.Fatalf("got range %v, %d materialized, %d non-materialized; want [6,9], 1, 1", c.Range, len(c.Materialized), len(c.NonMaterialized))
	}
	kg := c.Materialized[0].(*model.KeyGroupsStateHandle)
	if diff := cmp.Diff([]int64{1, 2, 3, 4}, kg.Offsets.Offsets); diff != "" {
		t.Errorf("materialized offsets (-want +got):\n%s", diff)
	}
	if c.NonMaterialized[0].Range != (model.KeyGroupRange{Start: 6, End: 9}) {
		t.Errorf("non-materialized range %v, want [6,9]", c.NonMaterialized[0].Range)
	}
	if h.Intersection(model.KeyGroupRange{Start: 10, End: 20}) != nil {
		t.Errorf("disjoint intersection is not nil")
	}
}

// TestFromModelFlinkForm: FromModel writes what Flink's reader and writer keep unchanged
// (checked against Flink's own classes by reference.TestMetadataGenerated): operator-state
// entries in the iteration order of the map Flink's reader rebuilds, whatever the model's order;
// a name twice or a file handle with an empty path, which Flink cannot hold or read, is refused.
func TestFromModelFlinkForm(t *testing.T) {
	handle := func(names ...string) model.CheckpointMetadata {
		h := model.OperatorStateHandle{Delegate: model.StreamHandle{Path: "file:/s", Size: 1}}
		for _, n := range names {
			h.States = append(h.States, model.NamedOperatorState{Name: n, Mode: model.SplitDistribute, Offsets: []int64{0}})
		}
		return model.CheckpointMetadata{Operators: []model.OperatorState{{Parallelism: 1, MaxParallelism: 1,
			Subtasks: []*model.OperatorSubtaskState{{ManagedOperatorState: []model.OperatorStateHandle{h}}}}}}
	}
	for _, names := range [][]string{{"A", ""}, {"", "A"}} {
		f, err := FromModel(handle(names...))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range f.Operators[0].Subtasks[0].ManagedOperatorState.States {
			got = append(got, e.Name)
		}
		// newHashMapWithExpectedSize(2) has 4 buckets: "" (hash 0) in 0, "A" (65) in 1.
		if diff := cmp.Diff([]string{"", "A"}, got); diff != "" {
			t.Errorf("states %q written as (-want +got):\n%s", names, diff)
		}
	}
	if _, err := FromModel(handle("a", "b", "a")); !errors.Is(err, ErrNotWritable) || !strings.Contains(err.Error(), `"a" is named twice`) {
		t.Errorf("a name twice: %v", err)
	}
	md := handle("a")
	md.Operators[0].Subtasks[0].ManagedOperatorState[0].Delegate.Path = ""
	if _, err := FromModel(md); !errors.Is(err, ErrNotWritable) || !strings.Contains(err.Error(), "empty path") {
		t.Errorf("an empty path: %v", err)
	}
}
