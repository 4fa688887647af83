package model

import "testing"

// TestRegistrySameFileOtherSize: registerReference takes the same file offered with another size
// for the registered one (FileStateHandle.equals and ByteStreamStateHandle.equals compare the
// path or name only) and returns the registered handle; found by
// differential.TestRegistryAgainstFlink (the model refused it as unequal).
func TestRegistrySameFileOtherSize(t *testing.T) {
	r := NewSharedStateRegistry()
	first := SharedHandle{Stream: StreamHandle{Path: "file-1", Size: 10}}
	if _, err := r.RegisterReference("k1", first, 1, false); err != nil {
		t.Fatal(err)
	}
	got, err := r.RegisterReference("k1", SharedHandle{Stream: StreamHandle{Path: "file-1", Size: 11}}, 2, false)
	if err != nil || got != first {
		t.Fatalf("RegisterReference of file-1 with another size = %v, %v; want %v", got, err, first)
	}
	if e, _ := r.Entry("k1"); e.LastUsedCheckpointID != 2 {
		t.Fatalf("last used %d, want 2", e.LastUsedCheckpointID)
	}
	if _, err := r.RegisterReference("k1", SharedHandle{Stream: StreamHandle{Path: "other-1", Size: 10}}, 3, false); err == nil {
		t.Fatal("another file under the key was accepted")
	}
	if _, err := r.RegisterReference("k1", SharedHandle{Stream: StreamHandle{Path: "file-1", Size: 10, InMemory: true}}, 3, false); err == nil {
		t.Fatal("an in-memory handle was taken for the file")
	}
}
