package model

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func stream(path string, size int64) SharedHandle {
	return SharedHandle{Stream: StreamHandle{Path: path, Size: size}}
}

func mustRegister(t *testing.T, r *SharedStateRegistry, key string, h SharedHandle, cp int64, prevent bool) SharedHandle {
	t.Helper()
	got, err := r.RegisterReference(SharedStateKey(key), h, cp, prevent)
	if err != nil {
		t.Fatalf("RegisterReference(%q, %v, %d, %v): %v", key, h, cp, prevent, err)
	}
	return got
}

// restoredIncremental builds the checkpoint of SharedStateRegistryTest.registerInitialCheckpoint:
// one operator, one subtask, one incremental handle without files whose StateHandleID is id.
func restoredIncremental(id string) []OperatorState {
	h := &IncrementalKeyedStateHandle{BackendID: "b", Range: EmptyKeyGroupRange, CheckpointID: 1,
		Meta: StreamHandle{Path: "meta", Size: 1, InMemory: true}, StateHandleID: id}
	return []OperatorState{{Parallelism: 1, MaxParallelism: 1,
		Subtasks: []*OperatorSubtaskState{{ManagedKeyedState: []KeyedStateHandle{h}}}}}
}

// §K.9 modern testRegistryNormal.
func TestSharedStateRegistryNormal(t *testing.T) {
	r := NewSharedStateRegistry()
	first, second := stream("first", 5), stream("second", 6)
	if got := mustRegister(t, r, "first", first, 0, false); got != first {
		t.Errorf("first registration returned %v, want the handle itself", got)
	}
	if got := mustRegister(t, r, "second", second, 0, false); got != second {
		t.Errorf("second registration returned %v, want the handle itself", got)
	}
	// Registering the first again (an equal copy, as after deserialisation) is fine.
	if got := mustRegister(t, r, "first", first, 0, false); got != first {
		t.Errorf("re-registration returned %v", got)
	}
	if got := r.UnregisterUnusedState(0); got.Discarded != nil || got.CheckpointsInUse != nil {
		t.Errorf("UnregisterUnusedState(0) = %+v, want nothing discarded", got)
	}
	got := r.UnregisterUnusedState(1)
	want := UnregisterResult{Discarded: []StreamHandle{first.Stream, second.Stream}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("UnregisterUnusedState(1) (-want +got):\n%s", diff)
	}
	if r.Len() != 0 {
		t.Errorf("registry keeps %d entries after everything became unused", r.Len())
	}
}

// §K.9 modern testUnregisterWithUnexistedKey.
func TestSharedStateRegistryUnregisterOnEmptyRegistryIsNoOp(t *testing.T) {
	r := NewSharedStateRegistry()
	for _, l := range []int64{-1, math.MaxInt64, math.MinInt64, 0} {
		if got := r.UnregisterUnusedState(l); got.Discarded != nil || got.CheckpointsInUse != nil {
			t.Errorf("UnregisterUnusedState(%d) on an empty registry = %+v", l, got)
		}
	}
}

// §K.9 modern testRegisterChangelogStateBackendHandles, emulated with the registrations a
// ChangelogStateBackendHandle makes: its materialized part under the materialized handle's id
// (preventing discard), its non-materialized parts under their own keys.
func TestSharedStateRegistryChangelogReuse(t *testing.T) {
	r := NewSharedStateRegistry()
	mat1, nonMat1, nonMat2, mat2 := stream("mat-1", 10), stream("non-mat-1", 2), stream("non-mat-2", 3), stream("mat-2", 11)

	mustRegister(t, r, "mat-1", mat1, 41, true)
	mustRegister(t, r, "non-mat-1", nonMat1, 41, false)
	if got := r.UnregisterUnusedState(41); got.Discarded != nil {
		t.Fatalf("after 41: discarded %v, want nothing", got.Discarded)
	}

	// Checkpoint 42: same materialization (an equal copy), new non-materialized part.
	mustRegister(t, r, "mat-1", mat1, 42, true)
	mustRegister(t, r, "non-mat-2", nonMat2, 42, false)
	got := r.UnregisterUnusedState(42)
	if diff := cmp.Diff([]StreamHandle{nonMat1.Stream}, got.Discarded); diff != "" {
		t.Errorf("after 42: materialized 1 kept, non-materialized 1 discarded (-want +got):\n%s", diff)
	}

	// Checkpoint 43: new materialization, non-materialized part 2 reused.
	mustRegister(t, r, "mat-2", mat2, 43, true)
	mustRegister(t, r, "non-mat-2", nonMat2, 43, false)
	got = r.UnregisterUnusedState(43)
	if diff := cmp.Diff([]StreamHandle{mat1.Stream}, got.Discarded); diff != "" {
		t.Errorf("after 43: materialized 1 discarded, non-materialized 2 kept (-want +got):\n%s", diff)
	}
}

// The four "initial checkpoint" rows of §K.9 (modern).
func TestSharedStateRegistryCheckpointsInUse(t *testing.T) {
	handle := stream("restored-file", 100)
	tests := []struct {
		name string
		// restored: properties of the snapshot restored as checkpoint 1 (nil: no restore).
		restored *CheckpointProperties
		// steps run in order; an unregister step checks its result.
		steps []func(t *testing.T, r *SharedStateRegistry)
	}{
		{
			name:     "testUnregisterUnusedSavepointState: a restored native savepoint stays in use while its state is",
			restored: &CheckpointProperties{Savepoint: true, Native: true, Forced: true},
			steps: []func(*testing.T, *SharedStateRegistry){
				reg("restored-state", handle, 2, false),
				reg("restored-state", handle, 3, false),
				reg("new-state", stream("new", 1), 4, false),
				unreg(3, []int64{1}),
				unreg(4, nil),
			},
		},
		{
			name: "testUnregisterNonInitialCheckpoint: a regular checkpoint is never held back",
			steps: []func(*testing.T, *SharedStateRegistry){
				reg("stateId", handle, 1, false),
				reg("stateId", handle, 2, false),
				unreg(2, nil),
			},
		},
		{
			name:     "testUnregisterInitialCheckpoint: a restored retained checkpoint is not held back by reuse",
			restored: &CheckpointProperties{DiscardSubsumed: true},
			steps: []func(*testing.T, *SharedStateRegistry){
				reg("restored-state", handle, 2, false),
				unreg(2, nil),
			},
		},
		{
			name:     "testUnregisterInitialCheckpointUsedInChangelog: preventDiscarding holds it back for good",
			restored: &CheckpointProperties{DiscardSubsumed: true},
			steps: []func(*testing.T, *SharedStateRegistry){
				reg("restored-state", handle, 2, true),
				reg("restored-state", handle, 3, false),
				unreg(3, []int64{1}),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewSharedStateRegistry()
			if tt.restored != nil {
				if err := r.RegisterAllAfterRestored(1, restoredIncremental("restored-state"), tt.restored, NoClaim); err != nil {
					t.Fatal(err)
				}
			}
			for _, step := range tt.steps {
				step(t, r)
			}
		})
	}
}

func reg(key string, h SharedHandle, cp int64, prevent bool) func(*testing.T, *SharedStateRegistry) {
	return func(t *testing.T, r *SharedStateRegistry) {
		t.Helper()
		mustRegister(t, r, key, h, cp, prevent)
	}
}

func unreg(lowest int64, wantInUse []int64) func(*testing.T, *SharedStateRegistry) {
	return func(t *testing.T, r *SharedStateRegistry) {
		t.Helper()
		got := r.UnregisterUnusedState(lowest)
		if diff := cmp.Diff(wantInUse, got.CheckpointsInUse); diff != "" {
			t.Errorf("UnregisterUnusedState(%d) checkpoints in use (-want +got):\n%s", lowest, diff)
		}
	}
}

func TestSharedStateRegistryRegistrationRules(t *testing.T) {
	t.Run("placeholder for an unknown key", func(t *testing.T) {
		r := NewSharedStateRegistry()
		_, err := r.RegisterReference("k", SharedHandle{Stream: StreamHandle{Path: "k"}, Placeholder: true}, 1, false)
		var e *UnknownSharedStateError
		if !errors.As(err, &e) || !errors.Is(err, ErrUnknownSharedState) || e.Key != "k" {
			t.Errorf("err = %v, want *UnknownSharedStateError for key k", err)
		}
	})
	t.Run("placeholder resolves to the registered handle", func(t *testing.T) {
		r := NewSharedStateRegistry()
		real := stream("k", 7)
		mustRegister(t, r, "k", real, 1, false)
		got := mustRegister(t, r, "k", SharedHandle{Stream: StreamHandle{Path: "k"}, Placeholder: true}, 2, false)
		if got != real {
			t.Errorf("placeholder resolved to %v, want %v", got, real)
		}
		if e, _ := r.Entry("k"); e.CreatedByCheckpointID != 1 || e.LastUsedCheckpointID != 2 {
			t.Errorf("entry = %+v, want created 1, last used 2", e)
		}
	})
	t.Run("unequal handle under a known key", func(t *testing.T) {
		r := NewSharedStateRegistry()
		mustRegister(t, r, "k", stream("k", 7), 1, false)
		// Another file under the key (the same file with another size is equal in Flink:
		// TestRegistrySameFileOtherSize).
		_, err := r.RegisterReference("k", stream("other", 7), 2, false)
		if !errors.Is(err, ErrUnequalSharedState) {
			t.Errorf("err = %v, want ErrUnequalSharedState", err)
		}
	})
	t.Run("last use never goes backwards; preventDiscarding only on a known key", func(t *testing.T) {
		r := NewSharedStateRegistry()
		mustRegister(t, r, "k", stream("k", 7), 5, true)
		if e, _ := r.Entry("k"); e.PreventDiscardingCreatedCheckpoint {
			t.Error("a new entry took preventDiscarding; Flink ignores it on first registration")
		}
		mustRegister(t, r, "k", stream("k", 7), 3, true)
		e, _ := r.Entry("k")
		if e.LastUsedCheckpointID != 5 || !e.PreventDiscardingCreatedCheckpoint {
			t.Errorf("entry = %+v, want last used 5 and the flag set", e)
		}
	})
	t.Run("closed registry", func(t *testing.T) {
		r := NewSharedStateRegistry()
		r.Close()
		if _, err := r.RegisterReference("k", stream("k", 1), 1, false); !errors.Is(err, ErrSharedStateRegistryClosed) {
			t.Errorf("err = %v, want ErrSharedStateRegistryClosed", err)
		}
	})
}

// Files created by the restored snapshot are deleted once unused in CLAIM mode only.
func TestSharedStateRegistryRestoreModeDecidesDeletion(t *testing.T) {
	for _, tt := range []struct {
		mode RestoreMode
		want []StreamHandle
	}{
		{Claim, []StreamHandle{{Path: "shared/a", Size: 1}, {Path: "shared/b", Size: 2}}},
		{NoClaim, nil},
		{Legacy, nil},
	} {
		t.Run(tt.mode.String(), func(t *testing.T) {
			r := NewSharedStateRegistry()
			ops := restoredIncremental("h1")
			inc := ops[0].Subtasks[0].ManagedKeyedState[0].(*IncrementalKeyedStateHandle)
			inc.Shared = []SharedFile{{LocalPath: "1.sst", Handle: StreamHandle{Path: "shared/a", Size: 1}},
				{LocalPath: "2.sst", Handle: StreamHandle{Path: "shared/b", Size: 2}}}
			if err := r.RegisterAllAfterRestored(7, ops, &CheckpointProperties{DiscardSubsumed: true}, tt.mode); err != nil {
				t.Fatal(err)
			}
			wantHighest := int64(7)
			if tt.mode == Claim {
				wantHighest = -1
			}
			if got := r.HighestNotClaimedCheckpointID(); got != wantHighest {
				t.Errorf("HighestNotClaimedCheckpointID = %d, want %d", got, wantHighest)
			}
			got := r.UnregisterUnusedState(8)
			if diff := cmp.Diff(tt.want, got.Discarded); diff != "" {
				t.Errorf("discarded (-want +got):\n%s", diff)
			}
			if r.Len() != 0 {
				t.Errorf("%d entries left; unused entries are removed whether or not deleted", r.Len())
			}
		})
	}
}

// A checkpoint registers a marker per keyed handle and the shared files of incremental handles;
// key-groups handles have no shared files.
func TestSharedStateRegistryRegisterAll(t *testing.T) {
	inc := &IncrementalKeyedStateHandle{BackendID: "b1", Range: KeyGroupRange{0, 9}, CheckpointID: 3, StateHandleID: "inc-1",
		Shared: []SharedFile{{LocalPath: "1.sst", Handle: StreamHandle{Path: "s/1", Size: 1}}}}
	kg := &KeyGroupsStateHandle{Offsets: KeyGroupRangeOffsets{Range: KeyGroupRange{0, 1}, Offsets: []int64{0, 5}},
		Delegate: StreamHandle{Path: "kg", Size: 9}, StateHandleID: "kg-1"}
	ops := []OperatorState{{Parallelism: 2, MaxParallelism: 10, Subtasks: []*OperatorSubtaskState{
		{ManagedKeyedState: []KeyedStateHandle{inc, nil}}, nil, {RawKeyedState: []KeyedStateHandle{kg}},
	}}}
	r := NewSharedStateRegistry()
	if err := r.RegisterAll(ops, 3); err != nil {
		t.Fatal(err)
	}
	var keys []SharedStateKey
	for _, e := range r.Entries() {
		keys = append(keys, e.Key)
	}
	if diff := cmp.Diff([]SharedStateKey{"inc-1", "s/1", "kg-1"}, keys); diff != "" {
		t.Errorf("registered keys (-want +got):\n%s", diff)
	}
	// Markers delete nothing; the shared file is deleted once unused.
	got := r.UnregisterUnusedState(4)
	if diff := cmp.Diff([]StreamHandle{{Path: "s/1", Size: 1}}, got.Discarded); diff != "" {
		t.Errorf("discarded (-want +got):\n%s", diff)
	}
}

// §K.9 1.10.1 testRegistryNormal.
func TestRefCountSharedStateRegistryNormal(t *testing.T) {
	r := NewRefCountSharedStateRegistry()
	first, second := stream("first", 1), stream("second", 2)
	check := func(what string, got RefCountResult, err error, want RefCountResult) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", what, diff)
		}
	}
	got, err := r.RegisterReference("first", first)
	check("register first", got, err, RefCountResult{Reference: first, RefCount: 1})
	got, err = r.RegisterReference("second", second)
	check("register second", got, err, RefCountResult{Reference: second, RefCount: 1})
	firstPrime := stream("first-copy", 1)
	got, err = r.RegisterReference("first", firstPrime)
	check("register a different object under first's key", got, err,
		RefCountResult{Reference: first, RefCount: 2, Discarded: []StreamHandle{firstPrime.Stream}})
	got, err = r.RegisterReference("first", first)
	check("register first again", got, err, RefCountResult{Reference: first, RefCount: 3})
	got, err = r.UnregisterReference("second")
	check("unregister second", got, err, RefCountResult{Discarded: []StreamHandle{second.Stream}})
	got, err = r.UnregisterReference("first")
	check("unregister first", got, err, RefCountResult{Reference: first, RefCount: 2})
}

// §K.9 1.10.1 testUnregisterWithUnexistedKey.
func TestRefCountSharedStateRegistryUnregisterUnknownKey(t *testing.T) {
	r := NewRefCountSharedStateRegistry()
	_, err := r.UnregisterReference("non-existent")
	var e *SharedStateNotRegisteredError
	if !errors.As(err, &e) || !errors.Is(err, ErrSharedStateNotRegistered) || e.Key != "non-existent" {
		t.Errorf("err = %v, want *SharedStateNotRegisteredError", err)
	}
}

func TestRefCountSharedStateRegistryRules(t *testing.T) {
	t.Run("placeholder", func(t *testing.T) {
		r := NewRefCountSharedStateRegistry()
		ph := SharedHandle{Stream: StreamHandle{Path: "f"}, Placeholder: true}
		if _, err := r.RegisterReference("k", ph); !errors.Is(err, ErrUnknownSharedState) {
			t.Errorf("placeholder for unknown key: err = %v", err)
		}
		real := stream("f", 4)
		if _, err := r.RegisterReference("k", real); err != nil {
			t.Fatal(err)
		}
		got, err := r.RegisterReference("k", ph)
		if err != nil || got.Reference != real || got.RefCount != 2 || got.Discarded != nil {
			t.Errorf("placeholder for a known key = %+v, %v; want the real handle, count 2, nothing deleted", got, err)
		}
	})
	t.Run("closed registry refuses registration, still unregisters", func(t *testing.T) {
		r := NewRefCountSharedStateRegistry()
		if _, err := r.RegisterReference("k", stream("f", 1)); err != nil {
			t.Fatal(err)
		}
		r.Close()
		if _, err := r.RegisterReference("k", stream("f", 1)); !errors.Is(err, ErrSharedStateRegistryClosed) {
			t.Errorf("register on closed: err = %v", err)
		}
		if got, err := r.UnregisterReference("k"); err != nil || got.RefCount != 0 {
			t.Errorf("unregister on closed = %+v, %v", got, err)
		}
	})
	t.Run("incremental handle: key format, registers once, discards by unregistering", func(t *testing.T) {
		rng := KeyGroupRange{Start: 0, End: 63}
		h := &IncrementalKeyedStateHandle{BackendID: "uid", Range: rng, CheckpointID: 1,
			Shared: []SharedFile{{LocalPath: "000012.sst", Handle: StreamHandle{Path: "shared/a", Size: 3}}}}
		h2 := &IncrementalKeyedStateHandle{BackendID: "uid", Range: rng, CheckpointID: 2,
			Shared: []SharedFile{{LocalPath: "000012.sst", Handle: StreamHandle{Path: "shared/a", Size: 3}}}}
		r := NewRefCountSharedStateRegistry()
		if _, err := r.RegisterIncremental(h); err != nil {
			t.Fatal(err)
		}
		key := SharedStateKey("uid-KeyGroupRange{startKeyGroup=0, endKeyGroup=63}-000012.sst")
		if r.RefCount(key) != 1 {
			t.Fatalf("RefCount(%q) = %d, want 1", key, r.RefCount(key))
		}
		if _, err := r.RegisterIncremental(h); !errors.Is(err, ErrSharedStateAlreadyRegistered) {
			t.Errorf("second registration of one handle: err = %v", err)
		}
		if _, err := r.RegisterIncremental(h2); err != nil {
			t.Fatal(err)
		}
		d, err := r.DiscardIncremental(h)
		if err != nil || d != nil || r.RefCount(key) != 1 {
			t.Errorf("discarding the first user: deleted %v, err %v, count %d; want nothing deleted, count 1", d, err, r.RefCount(key))
		}
		d, err = r.DiscardIncremental(h2)
		if diff := cmp.Diff([]StreamHandle{{Path: "shared/a", Size: 3}}, d); diff != "" || err != nil {
			t.Errorf("discarding the last user (err %v) (-want +got):\n%s", err, diff)
		}
		// A handle that never registered owns its shared files.
		d, _ = NewRefCountSharedStateRegistry().DiscardIncremental(h)
		if len(d) != 1 {
			t.Errorf("unregistered handle discarded %v, want its shared file", d)
		}
	})
}

func BenchmarkSharedStateRegistryCheckpointCycle(b *testing.B) {
	// 16 subtasks × 8 shared files, half reused by the next checkpoint.
	mk := func(cp int64) []OperatorState {
		st := make([]*OperatorSubtaskState, 16)
		for i := range st {
			h := &IncrementalKeyedStateHandle{BackendID: fmt.Sprint("b", i), CheckpointID: cp, StateHandleID: fmt.Sprint(cp, "-", i)}
			for f := range 8 {
				gen := cp
				if f < 4 {
					gen = cp - cp%2
				}
				h.Shared = append(h.Shared, SharedFile{LocalPath: fmt.Sprint(f), Handle: StreamHandle{Path: fmt.Sprint("s/", i, "/", gen, "/", f), Size: 1}})
			}
			st[i] = &OperatorSubtaskState{ManagedKeyedState: []KeyedStateHandle{h}}
		}
		return []OperatorState{{Parallelism: 16, MaxParallelism: 128, Subtasks: st}}
	}
	cps := make([][]OperatorState, 64)
	for i := range cps {
		cps[i] = mk(int64(i + 1))
	}
	for b.Loop() {
		r := NewSharedStateRegistry()
		for i, ops := range cps {
			if err := r.RegisterAll(ops, int64(i+1)); err != nil {
				b.Fatal(err)
			}
			r.UnregisterUnusedState(int64(i + 1))
		}
	}
}

// The shared file of an incremental checkpoint survives as long as a retained checkpoint uses it.
func ExampleSharedStateRegistry() {
	r := NewSharedStateRegistry()
	sst := SharedHandle{Stream: StreamHandle{Path: "shared/000012.sst", Size: 1024}}
	_, _ = r.RegisterReference("shared/000012.sst", sst, 1, false) // checkpoint 1 uploads it
	_, _ = r.RegisterReference("shared/000012.sst", sst, 2, false) // checkpoint 2 reuses it
	fmt.Println(r.UnregisterUnusedState(2).Discarded)              // checkpoint 1 subsumed
	fmt.Println(r.UnregisterUnusedState(3).Discarded)              // checkpoint 2 subsumed
	// Output:
	// []
	// [{shared/000012.sst 1024 false false}]
}
