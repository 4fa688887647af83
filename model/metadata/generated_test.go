package metadata_test

import (
	"bytes"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
	"github.com/restoresim/restoresim/model/metadata/metagen"
	"pgregory.net/rapid"
)

// TestWriteReadIdentity: for every valid File (all versions 2–7, every handle kind), Read of
// Marshal gives the File back, and Marshal of that gives the same bytes.
func TestWriteReadIdentity(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		f := metagen.File(t)
		b, err := metadata.Marshal(f)
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		got, err := metadata.Read(b)
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		if diff := cmp.Diff(f, got, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("write → read changed the file (-want +got):\n%s", diff)
		}
		b2, err := metadata.Marshal(got)
		if err != nil || !bytes.Equal(b, b2) {
			t.Fatalf("re-encoding differs (err %v)", err)
		}
	})
}

// sortStates orders operator states by name so that models can be compared regardless of the
// HashMap order Model applies.
func sortStates(md *model.CheckpointMetadata) {
	for _, op := range md.Operators {
		for _, st := range op.Subtasks {
			if st == nil {
				continue
			}
			for _, hs := range [][]model.OperatorStateHandle{st.ManagedOperatorState, st.RawOperatorState} {
				for _, h := range hs {
					sort.Slice(h.States, func(i, j int) bool { return h.States[i].Name < h.States[j].Name })
				}
			}
		}
	}
}

// TestModelRoundTrip: model → FromModel → Marshal → Read → Model gives the model back (state
// order aside, which Model sets to Flink's HashMap order).
func TestModelRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		md := metagen.Model(t)
		f, err := metadata.FromModel(md)
		if err != nil {
			t.Fatalf("FromModel: %v", err)
		}
		b, err := metadata.Marshal(f)
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		back, err := metadata.Read(b)
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		got := back.Model()
		want := md
		want.Properties = metadata.PropertiesFromModel(nil).Model()
		// The model keeps trailing nil subtasks out; FromModel drops nil entries.
		for i := range want.Operators {
			s := want.Operators[i].Subtasks
			for len(s) > 0 && s[len(s)-1] == nil {
				s = s[:len(s)-1]
			}
			want.Operators[i].Subtasks = s
		}
		sortStates(&want)
		sortStates(&got)
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("model round trip (-want +got):\n%s", diff)
		}
	})
}
