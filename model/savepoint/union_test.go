package savepoint

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
)

// plan notes UNION state when every new subtask reading all of it makes the restore read
// UnionAmplificationThreshold times the operator's state bytes or more: here 100 UNION bytes
// in a 110-byte handle, so from P = 11 (1,100 bytes read, 10x) and not at P = 10 (9.1x).
func TestUnionAmplificationNote(t *testing.T) {
	md := model.CheckpointMetadata{CheckpointID: 5, Operators: []model.OperatorState{{
		OperatorID: model.OperatorIDFromUID("src"), Parallelism: 1, MaxParallelism: 128,
		Subtasks: []*model.OperatorSubtaskState{{
			ManagedOperatorState: []model.OperatorStateHandle{{
				Delegate: model.StreamHandle{Path: "op", Size: 110, InMemory: true},
				States: []model.NamedOperatorState{
					{Name: "offsets", Mode: model.Union, Offsets: []int64{10, 60}},
					{Name: "split", Mode: model.SplitDistribute, Offsets: []int64{0}},
				}}},
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
	sp, err := Open(fstest.MapFS{"sp/_metadata": {Data: b}}, "/sp", "sp")
	if err != nil {
		t.Fatal(err)
	}
	if u := unionBytes(&md.Operators[0]); u != 100 {
		t.Fatalf("unionBytes %d, want 100", u)
	}
	for _, c := range []struct {
		p    int
		want string
	}{
		{10, ""},
		{11, "UNION state read amplification 10.0x: each of the 11 new subtasks reads all 100 bytes of UNION state, 1100 bytes read for 110 state bytes (noted from 10x)"},
	} {
		pl, err := PlanRestore(sp, Options{Parallelism: c.p})
		if err != nil {
			t.Fatal(err)
		}
		if n := pl.Operators[0].StateBytes; n != 110 {
			t.Errorf("P=%d: %d state bytes, want 110", c.p, n)
		}
		// Every subtask reads the 10-byte header and both UNION entries; the SPLIT entry at
		// offset 0 counts no bytes.
		for _, st := range pl.Operators[0].Subtasks {
			if st.BytesRead != 110 {
				t.Errorf("P=%d: subtask %d reads %d bytes, want 110", c.p, st.Index, st.BytesRead)
			}
		}
		var b strings.Builder
		if err := pl.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("  UNION state: each of the %d subtasks reads all 100 bytes of UNION entries, 100 x %d = %d bytes\n", c.p, c.p, 100*c.p); !strings.Contains(b.String(), want) {
			t.Errorf("P=%d: text lacks %q", c.p, want)
		}
		var got string
		for _, n := range pl.Operators[0].Notes {
			if strings.HasPrefix(n, "UNION") {
				got = n
			}
		}
		if got != c.want {
			t.Errorf("P=%d: note %q, want %q", c.p, got, c.want)
		}
	}
}
