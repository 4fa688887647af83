package model

import (
	"errors"
	"fmt"
	"iter"
	"slices"
	"strconv"

	"github.com/restoresim/restoresim/model/internal/mutant"
)

// ErrInvalidKeyGroupRange matches (errors.Is) the IllegalArgumentException of the KeyGroupRange
// constructor (start < 0 or start > end) and of KeyGroupRangeOffsets (offset array length).
var ErrInvalidKeyGroupRange = errors.New("invalid key-group range")

// ErrKeyGroupOutOfRange matches (errors.Is) Flink's IllegalArgumentException when an offset is
// looked up or set for a key group outside a KeyGroupRangeOffsets' range.
var ErrKeyGroupOutOfRange = errors.New("key group is not in key-group range")

// KeyGroupRange models org.apache.flink.runtime.state.KeyGroupRange: the key groups
// Start..End, both inclusive. EmptyKeyGroupRange (Start 0, End −1) holds no key group; every
// other value built by NewKeyGroupRange has 0 ≤ Start ≤ End. The zero value is the range [0, 0].
type KeyGroupRange struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// EmptyKeyGroupRange models KeyGroupRange.EMPTY_KEY_GROUP_RANGE.
var EmptyKeyGroupRange = KeyGroupRange{Start: 0, End: -1}

// NewKeyGroupRange models the KeyGroupRange constructor: it requires 0 ≤ start ≤ end.
func NewKeyGroupRange(start, end int) (KeyGroupRange, error) {
	if start < 0 || start > end {
		return EmptyKeyGroupRange, fmt.Errorf("%w: start %d, end %d (need 0 <= start <= end)", ErrInvalidKeyGroupRange, start, end)
	}
	return KeyGroupRange{Start: start, End: end}, nil
}

// KeyGroupRangeOf models KeyGroupRange.of: EmptyKeyGroupRange when start > end, otherwise the
// constructor (which rejects a negative start).
func KeyGroupRangeOf(start, end int) (KeyGroupRange, error) {
	if start > end {
		return EmptyKeyGroupRange, nil
	}
	return NewKeyGroupRange(start, end)
}

// NumberOfKeyGroups models getNumberOfKeyGroups: 1 + End − Start (0 for the empty range).
func (r KeyGroupRange) NumberOfKeyGroups() int { return max(0, 1+r.End-r.Start) }

// IsEmpty reports whether the range holds no key group.
func (r KeyGroupRange) IsEmpty() bool { return r.End < r.Start }

// Contains models contains: Start ≤ keyGroup ≤ End.
func (r KeyGroupRange) Contains(keyGroup int) bool {
	if mutant.On(mutant.RangeEndExclusive) {
		return r.Start <= keyGroup && keyGroup < r.End
	}
	return r.Start <= keyGroup && keyGroup <= r.End
}

// Intersection models getIntersection: [max(starts), min(ends)], or EmptyKeyGroupRange when that
// is empty. Intersection with the empty range is empty.
func (r KeyGroupRange) Intersection(other KeyGroupRange) KeyGroupRange {
	s, e := max(r.Start, other.Start), min(r.End, other.End)
	if s > e || r.IsEmpty() || other.IsEmpty() {
		return EmptyKeyGroupRange
	}
	return KeyGroupRange{Start: s, End: e}
}

// KeyGroupID models getKeyGroupId(idx): Start + idx. Flink's check allows idx == size (one past
// the end); so does this, returning an error only for idx < 0 or idx > size.
func (r KeyGroupRange) KeyGroupID(idx int) (int, error) {
	if idx < 0 || idx > r.NumberOfKeyGroups() {
		return 0, fmt.Errorf("%w: index %d outside %v", ErrKeyGroupOutOfRange, idx, r)
	}
	return r.Start + idx, nil
}

// All iterates Start, Start+1, …, End.
func (r KeyGroupRange) All() iter.Seq[int] {
	return func(yield func(int) bool) {
		for kg := r.Start; kg <= r.End; kg++ {
			if !yield(kg) {
				return
			}
		}
	}
}

// String is Flink's KeyGroupRange.toString, e.g. "KeyGroupRange{startKeyGroup=0, endKeyGroup=42}"
// (the 1.10.1 shared-state registry builds keys from it).
func (r KeyGroupRange) String() string {
	return "KeyGroupRange{startKeyGroup=" + strconv.Itoa(r.Start) + ", endKeyGroup=" + strconv.Itoa(r.End) + "}"
}

// KeyGroupRangeOffsets models org.apache.flink.runtime.state.KeyGroupRangeOffsets: a range and
// one stream offset per key group in it (Offsets[i] belongs to key group Range.Start+i).
type KeyGroupRangeOffsets struct {
	Range   KeyGroupRange `json:"range"`
	Offsets []int64       `json:"offsets"`
}

// NewKeyGroupRangeOffsets checks, as Flink's constructor does, that there is exactly one offset
// per key group. The offsets slice is used as given.
func NewKeyGroupRangeOffsets(r KeyGroupRange, offsets []int64) (KeyGroupRangeOffsets, error) {
	if len(offsets) != r.NumberOfKeyGroups() {
		return KeyGroupRangeOffsets{}, fmt.Errorf("%w: %d offsets for %d key groups", ErrInvalidKeyGroupRange, len(offsets), r.NumberOfKeyGroups())
	}
	return KeyGroupRangeOffsets{Range: r, Offsets: offsets}, nil
}

// Offset models getKeyGroupOffset.
func (o KeyGroupRangeOffsets) Offset(keyGroup int) (int64, error) {
	if !o.Range.Contains(keyGroup) {
		return 0, o.outOfRange(keyGroup)
	}
	return o.Offsets[keyGroup-o.Range.Start], nil
}

// SetOffset models setKeyGroupOffset.
func (o KeyGroupRangeOffsets) SetOffset(keyGroup int, offset int64) error {
	if !o.Range.Contains(keyGroup) {
		return o.outOfRange(keyGroup)
	}
	o.Offsets[keyGroup-o.Range.Start] = offset
	return nil
}

func (o KeyGroupRangeOffsets) outOfRange(keyGroup int) error {
	return fmt.Errorf("%w: key group %d is not in %v; unless you have a bug in your code, this is usually caused by a key type with a non-deterministic hashCode or equals", ErrKeyGroupOutOfRange, keyGroup, o.Range)
}

// Intersection models KeyGroupRangeOffsets.getIntersection: the intersected range with the
// matching slice of offsets (an empty range with no offsets when they do not overlap). Flink
// copies the slice; here it is shared with o, capacity cut: treat it as read only.
func (o KeyGroupRangeOffsets) Intersection(r KeyGroupRange) KeyGroupRangeOffsets {
	in := o.Range.Intersection(r)
	if in.IsEmpty() {
		return KeyGroupRangeOffsets{Range: EmptyKeyGroupRange, Offsets: []int64{}}
	}
	from := in.Start - o.Range.Start
	to := from + in.NumberOfKeyGroups()
	return KeyGroupRangeOffsets{Range: in, Offsets: o.Offsets[from:to:to]} // (shared, read only)
}

// KeyGroupBytes gives the bytes of each key group of a key-groups handle whose stream is
// streamSize bytes long and holds the key groups at offsets (KeyGroupRangeOffsets.Offsets, in
// range order): one number per offset, in the same order. It is the byte rule every command
// uses (inspect, locate, diff and plan).
//
// Flink's snapshot strategies write each key group's data at its offset, one after the other;
// a key group without data keeps offset 0 (RocksDB full and canonical savepoints), and
// FullSnapshotRestoreOperation skips it on restore (`if (0L != offset)`, "not empty
// key-group?"). So offset 0 is an empty key group, 0 bytes; any other key group runs from its
// offset to the next larger offset of the handle, the last to the end of the stream. An offset
// that is not positive, or at or past the stream's end, gives 0 bytes.
func KeyGroupBytes(offsets []int64, streamSize int64) []int64 {
	out := make([]int64, len(offsets))
	ends := sortedPositive(offsets)
	j := 0         // ends[j] is the first end larger than the last positive offset seen
	var last int64 // the last positive offset seen
	for i, off := range offsets {
		if off <= 0 {
			continue
		}
		if off < last { // (not written by Flink: its offsets do not decrease)
			var found bool
			if j, found = slices.BinarySearch(ends, off); found {
				j++
			}
		}
		for j < len(ends) && ends[j] <= off {
			j++
		}
		last = off
		end := streamSize
		if j < len(ends) && ends[j] < end && !mutant.On(mutant.PlanBytesToStreamEnd) {
			end = ends[j]
		}
		if end > off {
			out[i] = end - off
		}
	}
	return out
}

// sortedPositive gives the distinct positive offsets in ascending order (offs itself when they
// are positive and increasing already; read only).
func sortedPositive(offs []int64) []int64 {
	n, increasing := 0, true
	for i, o := range offs {
		if o > 0 {
			n++
		}
		if o <= 0 || i > 0 && o <= offs[i-1] {
			increasing = false
		}
	}
	if increasing {
		return offs
	}
	s := make([]int64, 0, n)
	for _, o := range offs {
		if o > 0 {
			s = append(s, o)
		}
	}
	slices.Sort(s)
	return slices.Compact(s)
}
