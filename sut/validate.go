package sut

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/restoresim/restoresim/assigncase"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
	"github.com/restoresim/restoresim/reference"
	"github.com/restoresim/restoresim/sim"
)

// ErrLoadRefused wraps a refusal of Flink's Checkpoints.loadAndValidateCheckpoint that the model
// does not make: the world goes on with it as the restore's error, and the oracle judges it.
var ErrLoadRefused = errors.New("refused by Flink's Checkpoints.loadAndValidateCheckpoint")

// LoadAndValidate implements sim.Validator with Flink's own classes: the _metadata file the world
// stored is read by Flink's Checkpoints.loadCheckpointMetadata and written back by its
// storeCheckpointMetadata ("the metadata written and read"), and Flink's
// Checkpoints.loadAndValidateCheckpoint decides, on those bytes and the new job, which operator
// states are kept, or refuses. The world goes on with Flink's decision: the kept operator states
// (as the file holds them, in Flink's order) or Flink's refusal (the model's error value when the
// model refuses too, so that the oracle can name it; else ErrLoadRefused with Flink's message).
//
// With "both", any difference is a violation: Flink writing the file back other than byte for
// byte (in the file's own format version), other operators kept, a refusal of one side only, or
// other refusal messages (the checkpoint's directory, which Flink's messages name and the driver
// chooses, read as the world's). A file Flink's classes cannot read, or a JVM that fails, is a
// difference too, and the world goes on with the model's answer.
//
// The one exception: the archived master has no MetadataV7Serializer, so the version-7
// checkpoints the model's master writes (model/doc.go) are loaded by the model alone.
func (r *Reference) LoadAndValidate(in model.LoadInput, file []byte) sim.Validated {
	mcp, merr := model.LoadAndValidateCheckpoint(in)
	modelAnswer := sim.Validated{Checkpoint: mcp, Err: merr}
	cannot := func(what string, err error) sim.Validated {
		modelAnswer.Difference = fmt.Sprintf("Flink %s's classes could not %s the _metadata of checkpoint %d: %s", r.v, what, in.Metadata.CheckpointID, oneLine(err.Error()))
		return modelAnswer
	}
	j, err := r.take()
	if err != nil {
		return cannot("load", err)
	}
	defer r.give(j)
	r.loads.Add(1)

	// One request (reference.JVM.LoadCheckpoint) reads the file, writes it back and loads and
	// validates it — the file as Flink wrote it back with "flink", when in its own format
	// version. (A job whose vertices do not convert is asked the round trip alone.)
	vertices, verr := caseVertices(in.Vertices)
	var ld *reference.Loaded
	if verr != nil {
		var rt *reference.MetadataAnswer
		if rt, err = j.MetadataRoundTripAs(file, 0); err == nil {
			ld = &reference.Loaded{RoundTrip: *rt}
		}
	} else {
		ld, err = j.LoadCheckpoint(file, vertices, in.AllowNonRestoredState, r.name == Flink)
	}
	var refusal *reference.Refusal
	if errors.As(err, &refusal) && r.v == model.FlinkMaster && strings.Contains(refusal.Message, "Unrecognized checkpoint version number: 7") {
		return modelAnswer
	}
	if err != nil {
		return cannot("read", err)
	}
	rt := &ld.RoundTrip
	var diffs []string
	if rt.Version == rt.WrittenVersion {
		at := firstDifference(file, rt.Bytes)
		if at >= 0 {
			if asFlink, ok := withUUIDBackendIDs(file); ok && firstDifference(asFlink, rt.Bytes) < 0 {
				at = -1
			}
		}
		if at >= 0 {
			diffs = append(diffs, fmt.Sprintf("Flink writes the file back (format version %d) other than the project wrote it, from byte %d on (Flink %d bytes, the project %d)", rt.Version, at, len(rt.Bytes), len(file)))
		}
		if r.name == Flink {
			// The world goes on with the file as Flink wrote it.
			f, err := metadata.Read(rt.Bytes)
			if err != nil {
				return cannot("read back", err)
			}
			in.Metadata = f.ModelFor(r.v)
		}
	}
	if verr != nil {
		return cannot("validate", verr)
	}
	fv, err := ld.Validated, ld.Err
	refusal = nil
	if err != nil && !errors.As(err, &refusal) {
		return cannot("validate", err)
	}

	var out sim.Validated
	switch {
	case refusal != nil && merr != nil:
		out.Err = merr
		if msg := flinkMessage(refusal.Message, ld.Pointer, in.ExternalPointer); msg != merr.Error() {
			diffs = append(diffs, fmt.Sprintf("the refusals differ: model %q, Flink %q", merr.Error(), msg))
		}
	case refusal != nil:
		msg := flinkMessage(refusal.Message, ld.Pointer, in.ExternalPointer)
		out.Err = fmt.Errorf("%w: %s: %s", ErrLoadRefused, refusal.Class, msg)
		diffs = append(diffs, fmt.Sprintf("Flink refuses (%s: %s), the model keeps %d operator states", refusal.Class, msg, len(mcp.Operators)))
	default:
		out.Checkpoint = kept(in, fv)
		if merr != nil {
			diffs = append(diffs, fmt.Sprintf("the model refuses (%v), Flink keeps %d operator states", merr, len(fv.Operators)))
		} else if a, b := operatorIDs(mcp.Operators), strings.Join(idStrings(fv.Operators), " "); a != b {
			diffs = append(diffs, fmt.Sprintf("the kept operator states differ: model [%s], Flink [%s]", a, b))
		}
	}
	if r.name == Both && len(diffs) > 0 {
		out.Difference = fmt.Sprintf("the model and Flink %s's classes load checkpoint %d differently (%d differences)\n%s",
			r.v, in.Metadata.CheckpointID, len(diffs), strings.Join(diffs, "\n"))
	}
	return out
}

// kept is the checkpoint Flink built: the file's operator states Flink kept, in its order, with
// what the model's LoadAndValidateCheckpoint gives every checkpoint (master states, properties,
// the external pointer).
func kept(in model.LoadInput, fv *reference.Validated) *model.CompletedCheckpoint {
	byID := make(map[model.OperatorID]int, len(in.Metadata.Operators))
	for i := range in.Metadata.Operators {
		byID[in.Metadata.Operators[i].OperatorID] = i
	}
	cp := &model.CompletedCheckpoint{CheckpointID: fv.CheckpointID, MasterStates: in.Metadata.MasterStates,
		Properties: in.Properties, ExternalPointer: in.ExternalPointer}
	for _, id := range fv.Operators {
		if i, ok := byID[id]; ok {
			cp.Operators = append(cp.Operators, in.Metadata.Operators[i])
		}
	}
	return cp
}

// flinkMessage is Flink's refusal message with the checkpoint directory the driver wrote the
// file into (flinkPointer, reference.Loaded.Pointer) replaced by the world's.
func flinkMessage(msg, flinkPointer, pointer string) string {
	if !strings.Contains(msg, "file:") || flinkPointer == "" {
		return msg
	}
	return strings.ReplaceAll(msg, flinkPointer, pointer)
}

// caseVertices is the new job's vertices as the driver's load_and_validate takes them (JSON, as
// ASSIGN-CASE.md writes them).
func caseVertices(vs []model.JobVertex) ([]byte, error) {
	c, err := assigncase.FromInput(model.AssignmentInput{Vertices: vs})
	if err != nil {
		return nil, err
	}
	return json.Marshal(c.Vertices)
}

func operatorIDs(ops []model.OperatorState) string {
	ids := make([]string, len(ops))
	for i := range ops {
		ids[i] = ops[i].OperatorID.String()
	}
	return strings.Join(ids, " ")
}

func idStrings(ids []model.OperatorID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.String()
	}
	return out
}

// firstDifference is the first offset at which a and b differ (the shorter one's length when one
// is a prefix of the other), or -1 when they are equal.
func firstDifference(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return n
	}
	return -1
}

// withUUIDBackendIDs is a _metadata file with each incremental handle's backend identifier as
// Flink's reader makes it: an identifier that is not a UUID becomes the name-based UUID of its
// bytes (MetadataV2V3SerializerBase, for files from before FLINK-6964), and Flink writes that
// back. The simulated backends have names, so the project's file is compared with Flink's after
// the same conversion (assigncase.BackendUUID, as the assignment's cases do). ok is false when
// no identifier changes or the file does not read.
func withUUIDBackendIDs(file []byte) ([]byte, bool) {
	f, err := metadata.Read(file)
	if err != nil {
		return nil, false
	}
	changed := false
	for i := range f.Operators {
		for k := range f.Operators[i].Subtasks {
			st := &f.Operators[i].Subtasks[k]
			for _, h := range []metadata.KeyedHandle{st.ManagedKeyedState, st.RawKeyedState} {
				if inc, isInc := h.(*metadata.IncrementalHandle); isInc {
					if u := assigncase.BackendUUID(inc.BackendID); u != inc.BackendID {
						inc.BackendID, changed = u, true
					}
				}
			}
		}
	}
	if !changed {
		return nil, false
	}
	b, err := metadata.Marshal(f)
	return b, err == nil
}
