package model

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/restoresim/restoresim/model/internal/mutant"
)

// The shared-state registry (SPEC §H.3) in its two flavours:
//
//   - SharedStateRegistry models Flink ≥ 1.15's SharedStateRegistryImpl (last-use tracking,
//     FLINK-24611), the registry of Flink 1.18;
//   - RefCountSharedStateRegistry models release-1.10.1's SharedStateRegistry (reference
//     counting).
//
// Neither deletes anything: every physical deletion Flink would schedule is returned to the
// caller as a StreamHandle, in a defined order.

// ErrSharedStateRegistryClosed is Flink's IllegalStateException "Attempt to register state to
// closed SharedStateRegistry." (both versions).
var ErrSharedStateRegistryClosed = errors.New("attempt to register state to closed SharedStateRegistry")

// ErrUnknownSharedState matches (errors.Is) every *UnknownSharedStateError.
var ErrUnknownSharedState = errors.New("attempt to reference unknown state")

// UnknownSharedStateError is Flink's IllegalStateException "Attempt to reference unknown state:
// <key>": a placeholder was registered under a key the registry does not know (both versions).
type UnknownSharedStateError struct{ Key SharedStateKey }

// Error gives Flink's message, naming the key.
func (e *UnknownSharedStateError) Error() string {
	return "Attempt to reference unknown state: " + string(e.Key)
}

// Is reports whether target is ErrUnknownSharedState.
func (e *UnknownSharedStateError) Is(target error) bool { return target == ErrUnknownSharedState }

// ErrUnequalSharedState matches (errors.Is) every *UnequalSharedStateError.
var ErrUnequalSharedState = errors.New("state objects registered under the same key should be equal")

// UnequalSharedStateError is the IllegalStateException of SharedStateRegistryImpl.registerReference
// (Flink 1.15–1.18) when a handle that is neither equal to the registered one nor a placeholder
// is registered under a known key.
type UnequalSharedStateError struct {
	Key                 SharedStateKey
	Registered, Offered SharedHandle
}

// Error gives Flink's message with the key and both handles.
func (e *UnequalSharedStateError) Error() string {
	return fmt.Sprintf("StateObjects underlying same key should be equal ! key %s: registered %v, offered %v",
		e.Key, e.Registered, e.Offered)
}

// Is reports whether target is ErrUnequalSharedState.
func (e *UnequalSharedStateError) Is(target error) bool { return target == ErrUnequalSharedState }

// ErrSharedStateNotRegistered matches (errors.Is) every *SharedStateNotRegisteredError.
var ErrSharedStateNotRegistered = errors.New("cannot unregister a state that is not registered")

// SharedStateNotRegisteredError is 1.10.1's IllegalStateException "Cannot unregister a state
// that is not registered." from SharedStateRegistry.unregisterReference.
type SharedStateNotRegisteredError struct{ Key SharedStateKey }

// Error gives Flink's message, naming the key.
func (e *SharedStateNotRegisteredError) Error() string {
	return "Cannot unregister a state that is not registered: " + string(e.Key)
}

// Is reports whether target is ErrSharedStateNotRegistered.
func (e *SharedStateNotRegisteredError) Is(target error) bool {
	return target == ErrSharedStateNotRegistered
}

// ErrSharedStateAlreadyRegistered is 1.10.1's IllegalStateException "The state handle has
// already registered its shared states to the given registry." from
// IncrementalRemoteKeyedStateHandle.registerSharedStates: one handle object registered twice
// into the same registry.
var ErrSharedStateAlreadyRegistered = errors.New("the state handle has already registered its shared states to the given registry")

// SharedStateKey models SharedStateRegistryKey.
//
// Modern Flink keys a shared file by a name-based (MD5) UUID of its physical id
// (SharedStateRegistryKey.forStreamStateHandle); the model keys it by the physical id itself —
// StreamHandle.Path, the file URI or the in-memory handle name — which identifies the same
// entries. 1.10.1 keys it by "<backendUID>-<KeyGroupRange>-<file name>"
// (RefCountSharedStateKey).
type SharedStateKey string

// SharedHandle is a StreamStateHandle as the shared-state registry sees it: a real stream, a
// PlaceholderStreamStateHandle, or (modern) the EmptyDiscardStateObjectForRegister marker.
// Handles compare as Flink's equals compares them (sameAs): by path or handle name and kind,
// not by size; a placeholder never equals a real stream.
type SharedHandle struct {
	// Stream is the stream (for a placeholder: the stream it stands for).
	Stream StreamHandle
	// Placeholder marks a PlaceholderStreamStateHandle: a reference to a file an earlier
	// checkpoint uploaded. Discarding a placeholder deletes nothing.
	Placeholder bool
	// Marker, when not empty, makes this the EmptyDiscardStateObjectForRegister of the keyed
	// state handle with this StateHandleID (modern). Discarding it deletes nothing.
	Marker string
}

// sameAs models Objects.equals(registered, offered) in registerReference: FileStateHandle and
// ByteStreamStateHandle compare their path or handle name only (not the size), so the same file
// offered with another size is the same stream (differential.TestRegistryAgainstFlink). The
// model keeps the kinds apart (a file never equals an in-memory handle, as in Flink; a
// RelativeFileStateHandle only equals another, as when both handles are relative).
func (h SharedHandle) sameAs(o SharedHandle) bool {
	return h.Placeholder == o.Placeholder && h.Marker == o.Marker && h.Stream.Path == o.Stream.Path &&
		h.Stream.InMemory == o.Stream.InMemory && h.Stream.Relative == o.Stream.Relative
}

// discardable reports whether discarding h deletes a file (scheduleAsyncDelete skips
// placeholders; the marker's discardState is empty).
func (h SharedHandle) discardable() bool { return !h.Placeholder && h.Marker == "" }

// String is for messages.
func (h SharedHandle) String() string {
	switch {
	case h.Marker != "":
		return "EmptyDiscardStateObject{" + h.Marker + "}"
	case h.Placeholder:
		return "PlaceholderStreamStateHandle{" + h.Stream.Path + "}"
	}
	return "StreamStateHandle{" + h.Stream.Path + ", " + strconv.FormatInt(h.Stream.Size, 10) + " bytes}"
}

// sharingOf models CheckpointType.getSharingFilesStrategy of a snapshot's properties: the
// recorded strategy, else NO_SHARING for savepoints and FORWARD_BACKWARD for checkpoints.
func sharingOf(p CheckpointProperties) SharingFilesStrategy {
	switch {
	case p.Sharing != 0:
		return p.Sharing
	case p.Savepoint:
		return NoSharing
	}
	return ForwardBackward
}

// keyedStateMarkerID is the StateHandleID a keyed handle registers its marker under (modern
// OperatorSubtaskState.registerSharedState). Flink gives every handle an ID (a random UUID when
// the metadata held none); for a handle without one the model derives a stable stand-in from
// what identifies it, which intersections of one handle share as their IDs do in Flink.
func keyedStateMarkerID(h KeyedStateHandle) string {
	switch h := h.(type) {
	case *KeyGroupsStateHandle:
		if h.StateHandleID != "" {
			return h.StateHandleID
		}
		return "key-groups:" + h.Delegate.Path
	case *IncrementalKeyedStateHandle:
		if h.StateHandleID != "" {
			return h.StateHandleID
		}
		return "incremental:" + h.BackendID + ":" + strconv.FormatInt(h.CheckpointID, 10) + ":" + h.Meta.Path
	}
	return fmt.Sprintf("%T:%v", h, h.KeyGroupRange())
}

// isNilKeyed reports whether h is nil or a nil pointer of a known handle type (Flink's null).
func isNilKeyed(h KeyedStateHandle) bool {
	switch h := h.(type) {
	case nil:
		return true
	case *KeyGroupsStateHandle:
		return h == nil
	case *IncrementalKeyedStateHandle:
		return h == nil
	}
	return false
}

// sharedEntry models SharedStateRegistryImpl.SharedStateEntry.
type sharedEntry struct {
	handle            SharedHandle
	createdBy         int64
	lastUsed          int64
	preventDiscarding bool
}

// SharedStateRegistry models SharedStateRegistryImpl of Flink ≥ 1.15 (the 1.18 registry,
// SPEC §H.3 "Modern"): each shared file is tracked with the checkpoint that created it and the
// newest checkpoint that uses it, and is deleted once no retained checkpoint uses it.
//
// The zero value is an open, empty registry. Methods are cheap: registration is O(1) per
// handle, UnregisterUnusedState is linear in the number of entries.
type SharedStateRegistry struct {
	entries map[SharedStateKey]*sharedEntry
	// order lists the keys in first-registration order; outputs follow it.
	order []SharedStateKey
	// restoredSharing models restoredCheckpointSharingStrategies: checkpoint id → sharing
	// strategy of the restored snapshot (0 = Optional.empty: properties unknown).
	restoredSharing map[int64]SharingFilesStrategy
	// highestNotClaimed models highestNotClaimedCheckpointID (−1 while notClaimedSet is false).
	highestNotClaimed int64
	notClaimedSet     bool
	closed            bool
}

// NewSharedStateRegistry returns an open, empty registry (new SharedStateRegistryImpl()).
func NewSharedStateRegistry() *SharedStateRegistry { return &SharedStateRegistry{} }

// Close models close(): later registrations fail with ErrSharedStateRegistryClosed.
func (r *SharedStateRegistry) Close() { r.closed = true }

// Len is the number of registered entries.
func (r *SharedStateRegistry) Len() int { return len(r.entries) }

// HighestNotClaimedCheckpointID models highestNotClaimedCheckpointID: files created by this
// checkpoint or an older one are never deleted by this registry (−1: none).
func (r *SharedStateRegistry) HighestNotClaimedCheckpointID() int64 {
	if !r.notClaimedSet {
		return -1
	}
	return r.highestNotClaimed
}

// SharedStateEntry is a read-only view of one registry entry (SharedStateEntry).
type SharedStateEntry struct {
	Key                                SharedStateKey
	Handle                             SharedHandle
	CreatedByCheckpointID              int64
	LastUsedCheckpointID               int64
	PreventDiscardingCreatedCheckpoint bool
}

// Entries lists the entries in first-registration order.
func (r *SharedStateRegistry) Entries() []SharedStateEntry {
	out := make([]SharedStateEntry, 0, len(r.order))
	for _, k := range r.order {
		e := r.entries[k]
		out = append(out, SharedStateEntry{Key: k, Handle: e.handle, CreatedByCheckpointID: e.createdBy,
			LastUsedCheckpointID: e.lastUsed, PreventDiscardingCreatedCheckpoint: e.preventDiscarding})
	}
	return out
}

// Entry looks one key up.
func (r *SharedStateRegistry) Entry(key SharedStateKey) (SharedStateEntry, bool) {
	e, ok := r.entries[key]
	if !ok {
		return SharedStateEntry{}, false
	}
	return SharedStateEntry{Key: key, Handle: e.handle, CreatedByCheckpointID: e.createdBy,
		LastUsedCheckpointID: e.lastUsed, PreventDiscardingCreatedCheckpoint: e.preventDiscarding}, true
}

// RegisterReference models registerReference(key, handle, checkpointID,
// preventDiscardingCreatedCheckpoint) and returns the handle registered under key afterwards,
// which the caller uses in place of its own (that is how placeholders are resolved).
//
//   - unknown key: a placeholder fails with *UnknownSharedStateError; anything else becomes a
//     new entry created and last used by checkpointID (preventDiscarding is not applied to a new
//     entry, as in Flink);
//   - known key: an equal handle (sameAs: the same path, whatever its size) or a placeholder is
//     accepted, and the registered handle is kept; a handle offered under the key of
//     a marker replaces the marker (changelog case); anything else fails with
//     *UnequalSharedStateError. Then the last use advances to checkpointID (never backwards) and
//     preventDiscarding, if true, sets the entry's flag for good.
func (r *SharedStateRegistry) RegisterReference(key SharedStateKey, h SharedHandle, checkpointID int64, preventDiscarding bool) (SharedHandle, error) {
	if r.closed {
		return SharedHandle{}, ErrSharedStateRegistryClosed
	}
	e, ok := r.entries[key]
	if !ok {
		if h.Placeholder {
			return SharedHandle{}, &UnknownSharedStateError{Key: key}
		}
		if r.entries == nil {
			r.entries = make(map[SharedStateKey]*sharedEntry)
		}
		r.entries[key] = &sharedEntry{handle: h, createdBy: checkpointID, lastUsed: checkpointID}
		r.order = append(r.order, key)
		return h, nil
	}
	switch {
	case e.handle.sameAs(h), h.Placeholder:
	case e.handle.Marker != "":
		e.handle = h
	default:
		return SharedHandle{}, &UnequalSharedStateError{Key: key, Registered: e.handle, Offered: h}
	}
	e.lastUsed = max(e.lastUsed, checkpointID)
	if preventDiscarding {
		e.preventDiscarding = true
	}
	return e.handle, nil
}

// UnregisterResult is what UnregisterUnusedState returns.
type UnregisterResult struct {
	// Discarded lists the streams to delete, in first-registration order of their keys.
	Discarded []StreamHandle
	// CheckpointsInUse lists, ascending, the ids of checkpoints whose directories must not be
	// deleted yet because state they created is still in use (the returned Set<Long>).
	CheckpointsInUse []int64
}

// UnregisterUnusedState models unregisterUnusedState(lowestCheckpointID): every entry last used
// by a checkpoint below lowest is removed, and its stream is deleted if it was created after
// HighestNotClaimedCheckpointID (placeholders and markers delete nothing). Of the remaining
// entries, those that prevent discarding their creating checkpoint — the flag is set and the
// creator was a restored checkpoint, or the creator was restored from a NO_SHARING snapshot
// (e.g. a native savepoint) — name their creator in CheckpointsInUse.
//
// Any lowest is accepted; on an empty registry nothing happens.
func (r *SharedStateRegistry) UnregisterUnusedState(lowest int64) UnregisterResult {
	var res UnregisterResult
	kept := r.order[:0]
	for _, k := range r.order {
		e := r.entries[k]
		if mutant.On(mutant.RegistryDiscardFirstRelease) && e.createdBy < lowest {
			e.lastUsed = e.createdBy
		}
		if e.lastUsed < lowest {
			if (!r.notClaimedSet || e.createdBy > r.highestNotClaimed) && e.handle.discardable() {
				res.Discarded = append(res.Discarded, e.handle.Stream)
			}
			delete(r.entries, k)
			continue
		}
		kept = append(kept, k)
		if r.preventsDiscardingCreatedCheckpoint(e) {
			if i, found := slices.BinarySearch(res.CheckpointsInUse, e.createdBy); !found {
				res.CheckpointsInUse = slices.Insert(res.CheckpointsInUse, i, e.createdBy)
			}
		}
	}
	clear(r.order[len(kept):])
	r.order = kept
	return res
}

func (r *SharedStateRegistry) preventsDiscardingCreatedCheckpoint(e *sharedEntry) bool {
	s, restored := r.restoredSharing[e.createdBy]
	return (e.preventDiscarding && restored) || s == NoSharing
}

// RegisterAll models registerAll(operatorStates, checkpointID), the registration a completing
// checkpoint does (OperatorSubtaskState.registerSharedStates): for every subtask state, every
// non-nil managed and then raw keyed handle registers its marker under its StateHandleID, and
// an incremental handle then registers its shared files (RegisterIncremental). The first error
// stops the registration.
func (r *SharedStateRegistry) RegisterAll(operators []OperatorState, checkpointID int64) error {
	for i := range operators {
		for _, st := range operators[i].Subtasks {
			if st == nil {
				continue
			}
			if err := r.registerKeyed(st.ManagedKeyedState, checkpointID); err != nil {
				return err
			}
			if err := r.registerKeyed(st.RawKeyedState, checkpointID); err != nil {
				return err
			}
		}
	}
	return nil
}

func (r *SharedStateRegistry) registerKeyed(handles []KeyedStateHandle, checkpointID int64) error {
	for _, h := range handles {
		if isNilKeyed(h) {
			continue
		}
		id := keyedStateMarkerID(h)
		if _, err := r.RegisterReference(SharedStateKey(id), SharedHandle{Marker: id}, checkpointID, false); err != nil {
			return err
		}
		if inc, ok := h.(*IncrementalKeyedStateHandle); ok {
			if err := r.RegisterIncremental(inc, checkpointID); err != nil {
				return err
			}
		}
	}
	return nil
}

// RegisterIncremental models IncrementalRemoteKeyedStateHandle.registerSharedStates (modern):
// each shared file is registered under its physical id for checkpointID. Like Flink, it
// replaces each h.Shared[i].Handle with the handle the registry returns (a no-op unless the
// registry holds a different, accepted handle under that key).
func (r *SharedStateRegistry) RegisterIncremental(h *IncrementalKeyedStateHandle, checkpointID int64) error {
	if h == nil {
		return nil
	}
	for i := range h.Shared {
		f := &h.Shared[i]
		got, err := r.RegisterReference(SharedStateKey(f.Handle.Path), SharedHandle{Stream: f.Handle}, checkpointID, false)
		if err != nil {
			return err
		}
		if got.Marker == "" && got.Stream != f.Handle {
			f.Handle = got.Stream
		}
	}
	return nil
}

// RegisterAllAfterRestored models registerAllAfterRestored(checkpoint, restoreMode): the
// restored checkpoint's state is registered with its id, the sharing strategy of the snapshot
// it was restored from (restored: the properties recorded in its metadata; nil when unknown) is
// remembered, and unless mode is Claim, HighestNotClaimedCheckpointID rises to its id, so that
// files the restored snapshot (or an older one) created are never deleted by this job.
func (r *SharedStateRegistry) RegisterAllAfterRestored(checkpointID int64, operators []OperatorState, restored *CheckpointProperties, mode RestoreMode) error {
	if err := r.RegisterAll(operators, checkpointID); err != nil {
		return err
	}
	if r.restoredSharing == nil {
		r.restoredSharing = make(map[int64]SharingFilesStrategy)
	}
	var s SharingFilesStrategy
	if restored != nil {
		s = sharingOf(*restored)
	}
	r.restoredSharing[checkpointID] = s
	if mode != Claim {
		if !r.notClaimedSet || checkpointID > r.highestNotClaimed {
			r.highestNotClaimed = checkpointID
		}
		r.notClaimedSet = true
	}
	return nil
}

// RefCountSharedStateKey builds 1.10.1's registry key for a shared file of an incremental
// handle (IncrementalRemoteKeyedStateHandle.createSharedStateRegistryKeyFromFileName):
// "<backendUID>-<KeyGroupRange>-<file name>", e.g.
// "uid-KeyGroupRange{startKeyGroup=0, endKeyGroup=63}-000012.sst".
func RefCountSharedStateKey(backendID string, r KeyGroupRange, fileName string) SharedStateKey {
	return SharedStateKey(backendID + "-" + r.String() + "-" + fileName)
}

// RefCountResult models 1.10.1's SharedStateRegistry.Result: the handle registered under the key
// after the call and its reference count. After an unregistration that removed the entry,
// Reference is the zero SharedHandle (Flink: null) and RefCount is 0.
type RefCountResult struct {
	Reference SharedHandle
	RefCount  int
	// Discarded is the stream the call scheduled for deletion, if any: a redundant duplicate on
	// registration, the registered stream when its count dropped to 0 on unregistration.
	Discarded []StreamHandle
}

type refEntry struct {
	handle SharedHandle
	count  int
}

// RefCountSharedStateRegistry models release-1.10.1's SharedStateRegistry (SPEC §H.3
// "1.10.1"): reference counting. 1.11–1.14 use the same rules.
//
// The zero value is an open, empty registry.
type RefCountSharedStateRegistry struct {
	entries map[SharedStateKey]*refEntry
	// registered models each IncrementalRemoteKeyedStateHandle's sharedStateRegistry field for
	// this registry: the handles that registered their shared state here.
	registered map[*IncrementalKeyedStateHandle]bool
	closed     bool
}

// NewRefCountSharedStateRegistry returns an open, empty registry (new SharedStateRegistry()).
func NewRefCountSharedStateRegistry() *RefCountSharedStateRegistry {
	return &RefCountSharedStateRegistry{}
}

// Close models close(): later registrations fail with ErrSharedStateRegistryClosed;
// unregistration still works, as in Flink.
func (r *RefCountSharedStateRegistry) Close() { r.closed = true }

// Len is the number of registered keys.
func (r *RefCountSharedStateRegistry) Len() int { return len(r.entries) }

// RefCount is the reference count under key (0 when unknown).
func (r *RefCountSharedStateRegistry) RefCount(key SharedStateKey) int {
	if e, ok := r.entries[key]; ok {
		return e.count
	}
	return 0
}

// RegisterReference models registerReference(key, handle): an unknown key takes the handle with
// count 1 (a placeholder fails with *UnknownSharedStateError); a known key's count rises by
// one and, if the offered handle is not equal to the registered one, the offered handle is a
// redundant duplicate and is scheduled for deletion (placeholders never are). The returned
// Reference — the registered handle — replaces the caller's.
func (r *RefCountSharedStateRegistry) RegisterReference(key SharedStateKey, h SharedHandle) (RefCountResult, error) {
	if r.closed {
		return RefCountResult{}, ErrSharedStateRegistryClosed
	}
	e, ok := r.entries[key]
	if !ok {
		if h.Placeholder {
			return RefCountResult{}, &UnknownSharedStateError{Key: key}
		}
		if r.entries == nil {
			r.entries = make(map[SharedStateKey]*refEntry)
		}
		r.entries[key] = &refEntry{handle: h, count: 1}
		return RefCountResult{Reference: h, RefCount: 1}, nil
	}
	var discarded []StreamHandle
	if h != e.handle && h.discardable() {
		discarded = []StreamHandle{h.Stream}
	}
	e.count++
	return RefCountResult{Reference: e.handle, RefCount: e.count, Discarded: discarded}, nil
}

// UnregisterReference models unregisterReference(key): an unknown key fails with
// *SharedStateNotRegisteredError; otherwise the count drops by one and at 0 the entry is
// removed and its stream scheduled for deletion.
func (r *RefCountSharedStateRegistry) UnregisterReference(key SharedStateKey) (RefCountResult, error) {
	e, ok := r.entries[key]
	if !ok {
		return RefCountResult{}, &SharedStateNotRegisteredError{Key: key}
	}
	e.count--
	if mutant.On(mutant.RegistryDiscardFirstRelease) {
		e.count = 0
	}
	if e.count > 0 {
		return RefCountResult{Reference: e.handle, RefCount: e.count}, nil
	}
	delete(r.entries, key)
	var discarded []StreamHandle
	if e.handle.discardable() {
		discarded = []StreamHandle{e.handle.Stream}
	}
	return RefCountResult{Discarded: discarded}, nil
}

// RegisterIncremental models 1.10.1's IncrementalRemoteKeyedStateHandle.registerSharedStates:
// a handle may register once per registry (else ErrSharedStateAlreadyRegistered); each shared
// file registers under RefCountSharedStateKey(backend, range, local file name) and its handle
// is replaced by the registered one, as in Flink. It returns the redundant duplicates
// scheduled for deletion, in shared-file order.
func (r *RefCountSharedStateRegistry) RegisterIncremental(h *IncrementalKeyedStateHandle) ([]StreamHandle, error) {
	if h == nil {
		return nil, nil
	}
	if r.registered[h] {
		return nil, ErrSharedStateAlreadyRegistered
	}
	if r.registered == nil {
		r.registered = make(map[*IncrementalKeyedStateHandle]bool)
	}
	r.registered[h] = true
	var discarded []StreamHandle
	for i := range h.Shared {
		f := &h.Shared[i]
		res, err := r.RegisterReference(RefCountSharedStateKey(h.BackendID, h.Range, f.LocalPath), SharedHandle{Stream: f.Handle})
		if err != nil {
			return discarded, err
		}
		discarded = append(discarded, res.Discarded...)
		f.Handle = res.Reference.Stream
	}
	return discarded, nil
}

// DiscardIncremental models the shared part of 1.10.1's
// IncrementalRemoteKeyedStateHandle.discardState: a handle that registered with this registry
// unregisters each of its shared files (the streams whose count reaches 0 are returned);
// a handle that did not owns its shared files and they are all returned. (Its meta and private
// files are always deleted; they are not listed here.) Unregistration errors do not stop the
// walk — Flink discards best-effort — and the first one is returned.
func (r *RefCountSharedStateRegistry) DiscardIncremental(h *IncrementalKeyedStateHandle) ([]StreamHandle, error) {
	if h == nil {
		return nil, nil
	}
	var discarded []StreamHandle
	if !r.registered[h] {
		for _, f := range h.Shared {
			discarded = append(discarded, f.Handle)
		}
		return discarded, nil
	}
	var first error
	for _, f := range h.Shared {
		res, err := r.UnregisterReference(RefCountSharedStateKey(h.BackendID, h.Range, f.LocalPath))
		if err != nil && first == nil {
			first = err
		}
		discarded = append(discarded, res.Discarded...)
	}
	return discarded, first
}

// RegisterAll models 1.10.1's registerAll(operatorStates): every non-nil managed and raw keyed
// handle of every subtask registers its shared state (only incremental handles have any).
// It returns the duplicates scheduled for deletion; the first error stops it.
func (r *RefCountSharedStateRegistry) RegisterAll(operators []OperatorState) ([]StreamHandle, error) {
	var discarded []StreamHandle
	err := forEachIncremental(operators, func(h *IncrementalKeyedStateHandle) error {
		d, err := r.RegisterIncremental(h)
		discarded = append(discarded, d...)
		return err
	})
	return discarded, err
}

// DiscardAll models the shared-state part of discarding all of a checkpoint's operator states
// in 1.10.1 (CompletedCheckpoint.discard → StateUtil.bestEffortDiscardAllStateObjects): every
// incremental handle is discarded with DiscardIncremental. All handles are visited; the first
// error is returned.
func (r *RefCountSharedStateRegistry) DiscardAll(operators []OperatorState) ([]StreamHandle, error) {
	var discarded []StreamHandle
	var first error
	_ = forEachIncremental(operators, func(h *IncrementalKeyedStateHandle) error {
		d, err := r.DiscardIncremental(h)
		discarded = append(discarded, d...)
		if err != nil && first == nil {
			first = err
		}
		return nil
	})
	return discarded, first
}

// forEachIncremental visits, in operator, subtask, managed-then-raw order, every non-nil
// incremental keyed handle, stopping at the first error.
func forEachIncremental(operators []OperatorState, f func(*IncrementalKeyedStateHandle) error) error {
	for i := range operators {
		for _, st := range operators[i].Subtasks {
			if st == nil {
				continue
			}
			for _, hs := range [2][]KeyedStateHandle{st.ManagedKeyedState, st.RawKeyedState} {
				for _, h := range hs {
					if inc, ok := h.(*IncrementalKeyedStateHandle); ok && inc != nil {
						if err := f(inc); err != nil {
							return err
						}
					}
				}
			}
		}
	}
	return nil
}
