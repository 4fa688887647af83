package savepoint

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
)

// KeyLocation is where one key's state lives in a checkpoint, for one operator with keyed
// state (Locate): its key group, the old subtask and handles holding that key group, the byte
// range of the key group in each handle, and the new subtask that owns it at a parallelism.
type KeyLocation struct {
	OperatorID     string `json:"operator_id"`
	Name           string `json:"name,omitempty"`
	UID            string `json:"uid,omitempty"`
	Hash           int32  `json:"hash"`
	MaxParallelism int    `json:"max_parallelism"`
	// KeyGroup is murmurHash(Hash) % MaxParallelism (KeyGroupRangeAssignment).
	KeyGroup       int `json:"key_group"`
	OldParallelism int `json:"old_parallelism"`
	// OldSubtask is the subtask that owned the key group at OldParallelism.
	OldSubtask int `json:"old_subtask"`
	// Handles are the keyed-state handles whose key-group range holds KeyGroup, by subtask.
	Handles []KeyGroupBytes `json:"handles"`
	// NewParallelism and NewSubtask: the subtask that owns the key group at NewParallelism
	// (both 0, and absent from JSON, when no parallelism was given).
	NewParallelism int  `json:"new_parallelism,omitempty"`
	NewSubtask     *int `json:"new_subtask,omitempty"`
	// NonParallel is true when a parallelism was given and the operator's max parallelism is 1:
	// a non-parallel operator stays at parallelism 1 whatever the job's (as `plan` plans it,
	// DefaultVertices), so NewParallelism is 1.
	NonParallel bool `json:"non_parallel,omitempty"`
}

// KeyGroupBytes is one handle holding a key group, and where the key group is in it.
type KeyGroupBytes struct {
	Subtask int32 `json:"subtask"`
	// Kind is "managed keyed state" or "raw keyed state".
	Kind string `json:"kind"`
	// Type is the handle's class; Stream describes its stream (class, path or inline bytes).
	Type        string `json:"type"`
	Stream      string `json:"stream,omitempty"`
	HandleBytes int64  `json:"handle_bytes"`
	// Start and End are the key group's bytes [Start, End) in the stream by the byte rule of
	// model.KeyGroupBytes (from its offset to the next larger offset of the handle, the last to
	// the stream's size; an empty key group, offset 0, is 0..0 and 0 bytes); null for handles
	// without offsets (incremental and changelog handles are read whole).
	Start *int64 `json:"start"`
	End   *int64 `json:"end"`
	Bytes *int64 `json:"bytes"`
}

// Locate finds the key with Java hashCode hash in f: one KeyLocation per operator with keyed
// state, in file order, or only the operator id when it is not nil. newParallelism, when not
// 0, gives the new subtask owning the key group; it must lie in 1..max parallelism, but for an
// operator of max parallelism 1, which stays at parallelism 1 (non-parallel) whatever it is.
func Locate(f *metadata.File, hash int32, id *model.OperatorID, newParallelism int) ([]KeyLocation, error) {
	var out []KeyLocation
	found := false
	for i := range f.Operators {
		op := &f.Operators[i]
		if id != nil && op.ID != *id {
			continue
		}
		found = true
		if id == nil && !hasKeyedState(op) {
			continue
		}
		m := int(op.MaxParallelism)
		if m <= 0 || op.Parallelism <= 0 {
			return nil, fmt.Errorf("operator %v: parallelism %d, max parallelism %d: no key groups", op.ID, op.Parallelism, m)
		}
		kg := model.ComputeKeyGroupForKeyHash(hash, m)
		l := KeyLocation{OperatorID: op.ID.String(), Name: op.Name, UID: op.UID, Hash: hash, MaxParallelism: m, KeyGroup: kg,
			OldParallelism: int(op.Parallelism), OldSubtask: model.ComputeOperatorIndexForKeyGroup(m, int(op.Parallelism), kg), Handles: []KeyGroupBytes{}}
		if p := newParallelism; p != 0 {
			if m == 1 && p > 0 {
				p, l.NonParallel = 1, true
			}
			if p < 1 || p > m {
				return nil, fmt.Errorf("parallelism %d is out of bounds for operator %v (want 1..%d, its max parallelism)", p, op.ID, m)
			}
			s := model.ComputeOperatorIndexForKeyGroup(m, p, kg)
			l.NewParallelism, l.NewSubtask = p, &s
		}
		for _, s := range SubtasksByIndex(op) {
			for _, k := range []struct {
				kind string
				h    metadata.KeyedHandle
			}{{"managed keyed state", s.ManagedKeyedState}, {"raw keyed state", s.RawKeyedState}} {
				if b, ok := keyGroupBytes(k.h, kg); ok {
					b.Subtask, b.Kind = s.Index, k.kind
					l.Handles = append(l.Handles, b)
				}
			}
		}
		out = append(out, l)
	}
	if id != nil && !found {
		return nil, fmt.Errorf("operator %v is not an operator of the checkpoint", *id)
	}
	if len(out) == 0 {
		return nil, errors.New("no operator of the checkpoint has keyed state")
	}
	return out, nil
}

func hasKeyedState(op *metadata.Operator) bool {
	for i := range op.Subtasks {
		if op.Subtasks[i].ManagedKeyedState != nil || op.Subtasks[i].RawKeyedState != nil {
			return true
		}
	}
	return false
}

// keyGroupBytes gives where key group kg lies in h (ok false when h does not hold it).
func keyGroupBytes(h metadata.KeyedHandle, kg int) (KeyGroupBytes, bool) {
	if h == nil {
		return KeyGroupBytes{}, false
	}
	start, num := KeyGroups(h)
	if kg < int(start) || kg >= int(start)+int(num) {
		return KeyGroupBytes{}, false
	}
	b := KeyGroupBytes{Type: h.ClassName(), HandleBytes: KeyedBytes(h)}
	if g, ok := h.(*metadata.KeyGroupsHandle); ok {
		b.Stream = describeStream(g.Delegate)
		i := kg - int(start)
		s, n := g.Offsets[i], g.KeyGroupBytes()[i]
		if s <= 0 { // an empty key group (offset 0): no bytes in the stream
			s, n = 0, 0
		}
		e := s + n
		b.Start, b.End, b.Bytes = &s, &e, &n
	}
	return b, true
}

// WriteLocationText writes locations as text, one block per operator.
func WriteLocationText(w io.Writer, key string, locs []KeyLocation) error {
	var b strings.Builder
	for _, l := range locs {
		fmt.Fprintf(&b, "operator %s", l.OperatorID)
		if l.Name != "" {
			fmt.Fprintf(&b, " %q", l.Name)
		}
		if l.UID != "" {
			fmt.Fprintf(&b, " uid %q", l.UID)
		}
		fmt.Fprintf(&b, ": key %q (hash %d) is in key group %d of %d\n", key, l.Hash, l.KeyGroup, l.MaxParallelism)
		fmt.Fprintf(&b, "  old: subtask %d of %d\n", l.OldSubtask, l.OldParallelism)
		for _, h := range l.Handles {
			fmt.Fprintf(&b, "    subtask %d %s: %s, %d bytes", h.Subtask, h.Kind, h.Type, h.HandleBytes)
			if h.Stream != "" {
				fmt.Fprintf(&b, ", in %s", h.Stream)
			}
			switch {
			case h.Bytes != nil && *h.Start == 0 && *h.Bytes == 0:
				fmt.Fprintf(&b, "; key group %d: empty (offset 0, 0 bytes)\n", l.KeyGroup)
			case h.Bytes != nil:
				fmt.Fprintf(&b, "; key group %d: bytes %d..%d (%d bytes)\n", l.KeyGroup, *h.Start, *h.End, *h.Bytes)
			default:
				fmt.Fprintf(&b, "; no per-key-group offsets: the handle is read whole\n")
			}
		}
		if len(l.Handles) == 0 {
			fmt.Fprintf(&b, "    no handle holds key group %d\n", l.KeyGroup)
		}
		if l.NewSubtask != nil {
			fmt.Fprintf(&b, "  new: subtask %d of %d", *l.NewSubtask, l.NewParallelism)
			if l.NonParallel {
				b.WriteString(" (non-parallel: max parallelism 1 keeps it at parallelism 1)")
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ParseOperatorRef parses an operator given as 32 hex digits or uid:NAME (the ID Flink derives
// from the uid, model.OperatorIDFromUID).
func ParseOperatorRef(s string) (model.OperatorID, error) {
	v, err := ParseVertexSetting(s + "=1")
	return v.OperatorID, err
}
