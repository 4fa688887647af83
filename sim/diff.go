package sim

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// The (-want +got) diffs of violations. They are this package's own, not go-cmp's: cmp.Diff
// varies its report from one process to the next on purpose (the direction of its search, the
// spaces it indents with), and a failing seed must print the same bytes in every run. Each
// line is "-" (want only) or "+" (got only), a space and the entry; entries that agree are
// left out; at most maxDiffLines lines, then a count of the rest.

// maxDiffLines bounds the lines of a diff: a state of thousands of keys that all differ would
// otherwise make a violation of thousands of lines.
const maxDiffLines = 40

// diffWriter collects a diff's lines up to maxDiffLines and counts the rest.
type diffWriter struct {
	b    strings.Builder
	n    int
	more int
}

func (d *diffWriter) line(sign byte, s string) {
	if d.n == maxDiffLines {
		d.more++
		return
	}
	d.n++
	d.b.WriteByte(sign)
	d.b.WriteByte(' ')
	d.b.WriteString(s)
	d.b.WriteByte('\n')
}

func (d *diffWriter) String() string {
	if d.more > 0 {
		fmt.Fprintf(&d.b, "… and %d more lines\n", d.more)
	}
	return d.b.String()
}

// diffMap is the diff of two maps, by key in ascending order: "-key: value" for a key only in
// want, "+key: value" for one only in got, both for a key whose values differ (values are
// compared as printed with %v). Keys are printed with %#v (strings quoted and escaped). A nil
// map and an empty one differ: "- (empty)" and "+ (nil)", or the other way round.
func diffMap[K cmp.Ordered, V any](want, got map[K]V) string {
	keys := make([]K, 0, len(want)+len(got))
	for k := range want {
		keys = append(keys, k)
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var d diffWriter
	for _, k := range keys {
		w, inWant := want[k]
		g, inGot := got[k]
		ws, gs := fmt.Sprintf("%#v: %v", k, w), fmt.Sprintf("%#v: %v", k, g)
		switch {
		case !inGot:
			d.line('-', ws)
		case !inWant:
			d.line('+', gs)
		case ws != gs:
			d.line('-', ws)
			d.line('+', gs)
		}
	}
	if len(keys) == 0 && (want == nil) != (got == nil) {
		name := func(nil bool) string {
			if nil {
				return "(nil)"
			}
			return "(empty)"
		}
		d.line('-', name(want == nil))
		d.line('+', name(got == nil))
	}
	return d.String()
}

// maxLCSCells bounds the table diffLines fills to align two lists (after their common start
// and end are cut); beyond it the middle parts are listed whole, removed then added.
const maxLCSCells = 1 << 22

// diffLines is the diff of two lists of lines: their longest common subsequence kept (and left
// out), the rest "-" or "+" in list order, the removed lines of a stretch before its added
// ones. Ties between equally long alignments go the same way every time.
func diffLines(want, got []string) string {
	pre := 0
	for pre < len(want) && pre < len(got) && want[pre] == got[pre] {
		pre++
	}
	suf := 0
	for suf < len(want)-pre && suf < len(got)-pre && want[len(want)-1-suf] == got[len(got)-1-suf] {
		suf++
	}
	a, b := want[pre:len(want)-suf], got[pre:len(got)-suf]
	var d diffWriter
	if len(a)*len(b) > maxLCSCells {
		for _, l := range a {
			d.line('-', l)
		}
		for _, l := range b {
			d.line('+', l)
		}
		return d.String()
	}
	// lcs[i][j] is the length of the longest common subsequence of a[i:] and b[j:].
	lcs := make([][]int32, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int32, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var added []string
	flush := func() {
		for _, l := range added {
			d.line('+', l)
		}
		added = added[:0]
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			flush()
			i, j = i+1, j+1
		case j == len(b) || i < len(a) && lcs[i+1][j] >= lcs[i][j+1]:
			d.line('-', a[i])
			i++
		default:
			added = append(added, b[j])
			j++
		}
	}
	flush()
	return d.String()
}
