package savepoint

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/restoresim/restoresim/model/metadata"
)

// Change is a size in snapshot A and in snapshot B: the growth B−A in bytes and in percent of
// A (null when A is 0).
type Change struct {
	A       int64    `json:"a"`
	B       int64    `json:"b"`
	Delta   int64    `json:"delta"`
	Percent *float64 `json:"percent"`
}

func change(a, b int64) Change {
	c := Change{A: a, B: b, Delta: b - a}
	if a != 0 {
		p := float64(b-a) * 100 / float64(a)
		c.Percent = &p
	}
	return c
}

// String gives "A -> B bytes (+D, +P%)".
func (c Change) String() string {
	pct := "new"
	switch {
	case c.A == 0 && c.B == 0:
		return "0 bytes"
	case c.Percent != nil:
		pct = fmt.Sprintf("%+.1f%%", *c.Percent)
	}
	return fmt.Sprintf("%d -> %d bytes (%+d, %s)", c.A, c.B, c.Delta, pct)
}

// IndexedChange is a Change of one subtask or key group.
type IndexedChange struct {
	Index int `json:"index"`
	Change
}

// OperatorRef names an operator present in one snapshot only.
type OperatorRef struct {
	OperatorID  string `json:"operator_id"`
	Name        string `json:"name,omitempty"`
	UID         string `json:"uid,omitempty"`
	Parallelism int32  `json:"parallelism"`
	StateBytes  int64  `json:"state_bytes"`
}

// OperatorDiff compares one operator present in both snapshots.
type OperatorDiff struct {
	OperatorID      string `json:"operator_id"`
	Name            string `json:"name,omitempty"`
	UID             string `json:"uid,omitempty"`
	ParallelismA    int32  `json:"parallelism_a"`
	ParallelismB    int32  `json:"parallelism_b"`
	MaxParallelismA int32  `json:"max_parallelism_a"`
	MaxParallelismB int32  `json:"max_parallelism_b"`
	Bytes           Change `json:"bytes"`
	// Subtasks compares state bytes by subtask index (every index of either snapshot).
	Subtasks []IndexedChange `json:"subtasks"`
	// KeyGroups lists the key groups whose bytes changed, by key group, when both snapshots
	// have the same max parallelism and per-key-group offsets for every keyed handle (empty
	// otherwise; KeyGroupsCompared says whether they were compared).
	KeyGroups         []IndexedChange `json:"key_groups"`
	KeyGroupsCompared bool            `json:"key_groups_compared"`
}

// SnapshotDiff compares two snapshots of one job (Diff).
type SnapshotDiff struct {
	A             string         `json:"a"`
	B             string         `json:"b"`
	CheckpointIDA int64          `json:"checkpoint_id_a"`
	CheckpointIDB int64          `json:"checkpoint_id_b"`
	Bytes         Change         `json:"bytes"`
	Added         []OperatorRef  `json:"added"`
	Removed       []OperatorRef  `json:"removed"`
	Operators     []OperatorDiff `json:"operators"`
}

// Diff compares snapshot a with snapshot b: operators added (in b only) and removed (in a
// only), and for the operators of both their parallelism and bytes per operator, subtask and
// key group. Operators are ordered by operator ID.
func Diff(a, b *Savepoint) SnapshotDiff {
	sa, sb := Summarize(a.File), Summarize(b.File)
	d := SnapshotDiff{A: a.Path, B: b.Path, CheckpointIDA: a.File.CheckpointID, CheckpointIDB: b.File.CheckpointID,
		Bytes: change(sa.StateBytes, sb.StateBytes), Added: []OperatorRef{}, Removed: []OperatorRef{}, Operators: []OperatorDiff{}}
	index := func(s Summary) map[string]int {
		m := map[string]int{}
		for i := range s.Operators {
			m[s.Operators[i].OperatorID] = i
		}
		return m
	}
	ia, ib := index(sa), index(sb)
	ref := func(o OperatorSummary) OperatorRef {
		return OperatorRef{OperatorID: o.OperatorID, Name: o.Name, UID: o.UID, Parallelism: o.Parallelism, StateBytes: o.StateBytes}
	}
	for _, o := range sa.Operators {
		if _, ok := ib[o.OperatorID]; !ok {
			d.Removed = append(d.Removed, ref(o))
		}
	}
	for _, o := range sb.Operators {
		j, ok := ia[o.OperatorID]
		if !ok {
			d.Added = append(d.Added, ref(o))
			continue
		}
		oa := sa.Operators[j]
		od := OperatorDiff{OperatorID: o.OperatorID, Name: firstNonEmpty(o.Name, oa.Name), UID: firstNonEmpty(o.UID, oa.UID),
			ParallelismA: oa.Parallelism, ParallelismB: o.Parallelism, MaxParallelismA: oa.MaxParallelism, MaxParallelismB: o.MaxParallelism,
			Bytes: change(oa.StateBytes, o.StateBytes), Subtasks: []IndexedChange{}, KeyGroups: []IndexedChange{}}
		by := map[int]*IndexedChange{}
		for _, s := range oa.Subtasks {
			by[int(s.Index)] = &IndexedChange{Index: int(s.Index), Change: Change{A: by0(by, int(s.Index)).A + s.StateBytes}}
		}
		for _, s := range o.Subtasks {
			c := by0(by, int(s.Index))
			c.B += s.StateBytes
			by[int(s.Index)] = &IndexedChange{Index: int(s.Index), Change: c}
		}
		for _, c := range by {
			od.Subtasks = append(od.Subtasks, IndexedChange{Index: c.Index, Change: change(c.A, c.B)})
		}
		sort.Slice(od.Subtasks, func(i, j int) bool { return od.Subtasks[i].Index < od.Subtasks[j].Index })
		ka, oka := keyGroupSizes(&a.File.Operators[j])
		kb, okb := keyGroupSizes(&b.File.Operators[ib[o.OperatorID]])
		if oka && okb && oa.MaxParallelism == o.MaxParallelism && (len(ka) > 0 || len(kb) > 0) {
			od.KeyGroupsCompared = true
			for kg := 0; kg < int(o.MaxParallelism); kg++ {
				if ka[kg] != kb[kg] {
					od.KeyGroups = append(od.KeyGroups, IndexedChange{Index: kg, Change: change(ka[kg], kb[kg])})
				}
			}
		}
		d.Operators = append(d.Operators, od)
	}
	sort.Slice(d.Added, func(i, j int) bool { return d.Added[i].OperatorID < d.Added[j].OperatorID })
	sort.Slice(d.Removed, func(i, j int) bool { return d.Removed[i].OperatorID < d.Removed[j].OperatorID })
	sort.Slice(d.Operators, func(i, j int) bool { return d.Operators[i].OperatorID < d.Operators[j].OperatorID })
	return d
}

func by0(m map[int]*IndexedChange, i int) Change {
	if c := m[i]; c != nil {
		return c.Change
	}
	return Change{}
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// keyGroupSizes gives an operator's keyed bytes per key group (metadata.KeyGroupsHandle's
// KeyGroupBytes); ok is false when a keyed handle has no per-key-group offsets (incremental and
// changelog handles).
func keyGroupSizes(op *metadata.Operator) (map[int]int64, bool) {
	m := map[int]int64{}
	for i := range op.Subtasks {
		for _, h := range []metadata.KeyedHandle{op.Subtasks[i].ManagedKeyedState, op.Subtasks[i].RawKeyedState} {
			if h == nil {
				continue
			}
			g, ok := h.(*metadata.KeyGroupsHandle)
			if !ok {
				return nil, false
			}
			for k, n := range g.KeyGroupBytes() {
				m[int(g.StartKeyGroup)+k] += n
			}
		}
	}
	return m, true
}

// WriteText writes the comparison: totals, operators removed and added, then each common
// operator with its parallelism, bytes, changed subtasks and the key groups that grew or
// shrank most (at most 5).
func (d *SnapshotDiff) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (checkpoint %d) -> %s (checkpoint %d): %s\n", d.A, d.CheckpointIDA, d.B, d.CheckpointIDB, d.Bytes)
	name := func(id, n, uid string) string {
		if n != "" {
			id += fmt.Sprintf(" %q", n)
		}
		if uid != "" {
			id += fmt.Sprintf(" uid %q", uid)
		}
		return id
	}
	for _, o := range d.Removed {
		fmt.Fprintf(&b, "removed operator %s: parallelism %d, %d state bytes\n", name(o.OperatorID, o.Name, o.UID), o.Parallelism, o.StateBytes)
	}
	for _, o := range d.Added {
		fmt.Fprintf(&b, "added operator %s: parallelism %d, %d state bytes\n", name(o.OperatorID, o.Name, o.UID), o.Parallelism, o.StateBytes)
	}
	for _, o := range d.Operators {
		fmt.Fprintf(&b, "operator %s: parallelism %d", name(o.OperatorID, o.Name, o.UID), o.ParallelismA)
		if o.ParallelismB != o.ParallelismA {
			fmt.Fprintf(&b, " -> %d", o.ParallelismB)
		}
		fmt.Fprintf(&b, ", max parallelism %d", o.MaxParallelismA)
		if o.MaxParallelismB != o.MaxParallelismA {
			fmt.Fprintf(&b, " -> %d", o.MaxParallelismB)
		}
		fmt.Fprintf(&b, ", %s\n", o.Bytes)
		for _, s := range o.Subtasks {
			if s.Delta != 0 {
				fmt.Fprintf(&b, "  subtask %d: %s\n", s.Index, s.Change)
			}
		}
		if o.KeyGroupsCompared && len(o.KeyGroups) > 0 {
			top := append([]IndexedChange(nil), o.KeyGroups...)
			sort.SliceStable(top, func(i, j int) bool { return abs64(top[i].Delta) > abs64(top[j].Delta) })
			fmt.Fprintf(&b, "  %d key groups changed; largest:", len(o.KeyGroups))
			for _, k := range top[:min(5, len(top))] {
				fmt.Fprintf(&b, " %d (%+d)", k.Index, k.Delta)
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
