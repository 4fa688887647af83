package savepoint

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
)

// Locate and Diff on the synthetic file (key groups 4..7 of subtask 1, offsets 5 9 12 30 in a
// 50-byte stream).
func TestLocateDiffSynthetic(t *testing.T) {
	sp := openSynthetic(t)
	// A hash whose key group is 6 at max parallelism 8.
	var h int32
	for model.ComputeKeyGroupForKeyHash(h, 8) != 6 {
		h++
	}
	locs, err := Locate(sp.File, h, nil, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(locs) != 1 || len(locs[0].Handles) != 1 || *locs[0].Handles[0].Start != 12 || *locs[0].Handles[0].End != 30 ||
		locs[0].OldSubtask != 1 || *locs[0].NewSubtask != 3 {
		t.Fatalf("locate: %+v", locs)
	}
	other := model.OperatorIDFromUID("other")
	for _, c := range []struct {
		id *model.OperatorID
		p  int
	}{{&other, 0}, {nil, 9}} {
		if _, err := Locate(sp.File, h, c.id, c.p); err == nil {
			t.Errorf("Locate(%v, %d): no error", c.id, c.p)
		}
	}
	d := Diff(sp, sp)
	var b bytes.Buffer
	if err := d.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"chk-3/_metadata (checkpoint 3) -> chk-3/_metadata (checkpoint 3): 50 -> 50 bytes (+0, +0.0%)",
		"operator " + model.OperatorIDFromUID("my-uid").String() + ": parallelism 2, max parallelism 8, 50 -> 50 bytes (+0, +0.0%)", ""}, "\n")
	if diff := cmp.Diff(want, b.String()); diff != "" || !d.Operators[0].KeyGroupsCompared || len(d.Operators[0].KeyGroups) != 0 {
		t.Errorf("diff (-want +got):\n%s", diff)
	}
}

// TestLocateNonParallel: an operator of max parallelism 1 stays at parallelism 1 whatever
// --parallelism (as plan plans it), so Locate answers for it and for the others instead of
// failing; a parallelism above another operator's max parallelism is still an error.
func TestLocateNonParallel(t *testing.T) {
	sp := openSynthetic(t)
	f := *sp.File
	single := f.Operators[0]
	single.ID, single.Parallelism, single.MaxParallelism = model.OperatorIDFromUID("global-agg"), 1, 1
	f.Operators = []metadata.Operator{single, sp.File.Operators[0]}
	var h int32
	for model.ComputeKeyGroupForKeyHash(h, 8) != 6 {
		h++
	}
	locs, err := Locate(&f, h, nil, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(locs) != 2 || !locs[0].NonParallel || locs[0].NewParallelism != 1 || *locs[0].NewSubtask != 0 || locs[0].KeyGroup != 0 ||
		locs[1].NonParallel || locs[1].NewParallelism != 4 || *locs[1].NewSubtask != 3 {
		t.Fatalf("locate: %+v", locs)
	}
	var b bytes.Buffer
	if err := WriteLocationText(&b, "k", locs[:1]); err != nil || !strings.HasSuffix(b.String(), "  new: subtask 0 of 1 (non-parallel: max parallelism 1 keeps it at parallelism 1)\n") {
		t.Errorf("text (%v):\n%s", err, b.String())
	}
	if _, err := Locate(&f, h, nil, 9); err == nil || !strings.Contains(err.Error(), "parallelism 9 is out of bounds for operator "+sp.File.Operators[0].ID.String()) {
		t.Errorf("P=9: %v", err)
	}
	if locs, err := Locate(&f, h, &single.ID, 9); err != nil || len(locs) != 1 || !locs[0].NonParallel {
		t.Errorf("--operator the non-parallel one at P=9: %+v, %v", locs, err)
	}
}
