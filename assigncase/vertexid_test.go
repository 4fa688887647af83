package assigncase

import (
	"slices"
	"strings"
	"testing"

	"github.com/restoresim/restoresim/model"
)

// TestRefusalsNameTheJobVertexID: where Flink's message names the vertex by its JobVertexID
// (checkParallelismPreconditions; master's checkMaxParallelismAgreement), the model's refusal
// names the same id, so that its operators are Flink's. Cases found by the differential (shrunk):
// 1.18 seed 1 case 2, master seed 5 case 4.
func TestRefusalsNameTheJobVertexID(t *testing.T) {
	for _, tc := range []struct {
		v    model.FlinkVersion
		c    string
		want []string
		msg  string
	}{
		{model.Flink118, `{"checkpoint_id":77,"operators":[{"max_parallelism":128,"operator_id":"a9735a3cfbe36cef0a01a12c84a00001","parallelism":2,"subtasks":[{}]}],"vertices":[{"max_parallelism_configured":false,"name":"v0","operators":[{"id":"a9735a3cfbe36cef0a01a12c84a00001"}],"parallelism":130}]}`,
			[]string{"a9735a3cfbe36cef0a01a12c84a00001"}, "The state for task a9735a3cfbe36cef0a01a12c84a00001 can not be restored."},
		{model.FlinkMaster, `{"checkpoint_id": 29, "operators": [{"max_parallelism": 12, "operator_id": "768c75272baccad602ea52ec1c600003", "parallelism": 3, "subtasks": [{"managed_keyed_state": [{"delegate": {"path": "file:/ckpt/768c75/keyed-16", "size": 32}, "key_groups": {"offsets": [8, 0, 13, 23], "range": {"end": 11, "start": 8}}, "type": "KeyGroupsStateHandle"}]}]}], "vertices": [{"max_parallelism_configured": false, "name": "v2", "operators": [{"id": "768c75272baccad602ea52ec1c600003"}, {"id": "8da2ce90b96fb0fdc9cb1c749c700004"}], "parallelism": 3}]}`,
			[]string{"8da2ce90b96fb0fdc9cb1c749c700004", "768c75272baccad602ea52ec1c600003"}, "The state for the execution job vertex 8da2ce90b96fb0fdc9cb1c749c700004 can not be restored."},
	} {
		c, err := DecodeCase([]byte(tc.c))
		if err != nil {
			t.Fatal(err)
		}
		a, err := c.Answer(tc.v)
		if err != nil || a.Error == nil || a.Error.Operators == nil {
			t.Fatalf("%s: %v %v, want a refusal", tc.v, a, err)
		}
		if !slices.Equal(*a.Error.Operators, tc.want) || !strings.HasPrefix(a.Error.Message, tc.msg) {
			t.Errorf("%s: operators %v, message %q; want %v and %q…", tc.v, *a.Error.Operators, a.Error.Message, tc.want, tc.msg)
		}
	}
}
