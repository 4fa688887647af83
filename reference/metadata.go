package reference

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/restoresim/restoresim/model"
)

// ErrFlinkRefused reports that Flink's own code refused a request (for a _metadata file: its
// reader or its writer threw). The error's text carries Flink's exception class and message.
var ErrFlinkRefused = errors.New("refused by Flink's code")

// MetadataAnswer is Flink's answer to a metadata round trip.
type MetadataAnswer struct {
	// Bytes is the file Flink wrote back (Checkpoints.storeCheckpointMetadata).
	Bytes []byte
	// Version is the format version Flink read, WrittenVersion the one it wrote.
	Version, WrittenVersion int32
	// CheckpointID and Operators are CheckpointMetadata.getCheckpointId and the number of
	// operator states Flink read.
	CheckpointID int64
	Operators    int
}

// MetadataRoundTrip has Flink read a _metadata file with its own
// Checkpoints.loadCheckpointMetadata and write it back with Checkpoints.storeCheckpointMetadata
// in the format version it writes by default (4 on 1.18–1.20, 5 on 2.0, 6 on 2.1 and later), and
// returns Flink's bytes. A refusal is a *Refusal (one line, with Flink's exception class and
// message).
func (j *JVM) MetadataRoundTrip(b []byte) ([]byte, error) {
	a, err := j.MetadataRoundTripAs(b, 0)
	if err != nil {
		return nil, err
	}
	return a.Bytes, nil
}

// MetadataRoundTripAs is MetadataRoundTrip writing with Flink's serializer of a given format
// version (MetadataSerializers.getSerializer; 0 = Flink's default), with the whole answer.
func (j *JVM) MetadataRoundTripAs(b []byte, writeVersion int32) (*MetadataAnswer, error) {
	req, err := json.Marshal(struct {
		Op           string `json:"op"`
		Bytes        string `json:"bytes"`
		WriteVersion int32  `json:"write_version,omitempty"`
	}{"metadata_roundtrip", base64.StdEncoding.EncodeToString(b), writeVersion})
	if err != nil {
		return nil, err
	}
	l, err := j.call(req)
	if err != nil {
		return nil, err
	}
	var ans struct {
		Bytes          *string      `json:"bytes"`
		Version        int32        `json:"version"`
		WrittenVersion int32        `json:"written_version"`
		CheckpointID   int64        `json:"checkpoint_id"`
		Operators      int          `json:"operators"`
		Error          *driverError `json:"error"`
	}
	if err := json.Unmarshal(l, &ans); err != nil {
		return nil, fmt.Errorf("%w (Flink %s): unreadable answer to a metadata round trip: %.200s", ErrJVM, j.Version, l)
	}
	if ans.Error != nil {
		return nil, ans.Error.err(j)
	}
	if ans.Bytes == nil {
		return nil, fmt.Errorf("%w (Flink %s): no bytes in the answer to a metadata round trip: %.200s", ErrJVM, j.Version, l)
	}
	out, err := base64.StdEncoding.DecodeString(*ans.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%w (Flink %s): bad base64 in a metadata round trip: %v", ErrJVM, j.Version, err)
	}
	return &MetadataAnswer{Bytes: out, Version: ans.Version, WrittenVersion: ans.WrittenVersion,
		CheckpointID: ans.CheckpointID, Operators: ans.Operators}, nil
}

// driverError is the driver's {"error":{...}} answer.
type driverError struct {
	Stage   string `json:"stage"`
	Class   string `json:"class"`
	Message string `json:"message"`
	At      string `json:"at"`
}

// err is the answer as an error: a *Refusal for Flink's exceptions, an ErrJVM when the driver
// itself could not take the request.
func (e *driverError) err(j *JVM) error {
	msg := strings.Join(strings.Fields(e.Message), " ")
	if e.Stage == "driver" {
		return fmt.Errorf("%w (Flink %s): the driver refused the request: %s: %s", ErrJVM, j.Version, e.Class, msg)
	}
	return &Refusal{Version: j.Version, Stage: e.Stage, Class: e.Class, Message: msg, At: e.At}
}

// Refusal is an exception Flink's code threw on a request; errors.Is(r, ErrFlinkRefused) holds.
type Refusal struct {
	Version model.FlinkVersion
	// Stage is where it was thrown: "read" or "write" for a metadata file.
	Stage string
	// Class and Message are the exception's; At is the top stack frame (class.method).
	Class, Message, At string
}

// Error is one line: "refused by Flink's code (2.3, read): java.io.IOException: … (at …)".
func (r *Refusal) Error() string {
	return fmt.Sprintf("%v (%s, %s): %s: %s (at %s)", ErrFlinkRefused, r.Version, r.Stage, r.Class, r.Message, r.At)
}

// Unwrap gives ErrFlinkRefused.
func (r *Refusal) Unwrap() error { return ErrFlinkRefused }

// Validated is Flink's answer to LoadAndValidate: the checkpoint Flink built.
type Validated struct {
	CheckpointID int64 `json:"checkpoint_id"`
	// ExternalPointer is the checkpoint directory the driver wrote the file into, as Flink
	// resolved it (it names the checkpoint in Flink's messages).
	ExternalPointer string `json:"external_pointer"`
	// Operators are the operator states Flink kept, in metadata order.
	Operators []model.OperatorID `json:"operators"`
}

// LoadAndValidate runs Flink's own Checkpoints.loadAndValidateCheckpoint on a _metadata file (the
// driver writes it as the _metadata of a real checkpoint directory) and a new job: vertices is a
// JSON array of vertices as ASSIGN-CASE.md writes them (operators with id and user_defined_id,
// parallelism, max_parallelism, max_parallelism_configured). A refusal is a *Refusal (stage
// "validate"; "build" when Flink refuses the job itself).
func (j *JVM) LoadAndValidate(metadataFile, vertices []byte, allowNonRestoredState bool) (*Validated, error) {
	req, err := json.Marshal(struct {
		Op               string          `json:"op"`
		Bytes            string          `json:"bytes"`
		Vertices         json.RawMessage `json:"vertices"`
		AllowNonRestored bool            `json:"allow_non_restored_state"`
	}{"load_and_validate", base64.StdEncoding.EncodeToString(metadataFile), vertices, allowNonRestoredState})
	if err != nil {
		return nil, err
	}
	l, err := j.call(req)
	if err != nil {
		return nil, err
	}
	var ans struct {
		Validated
		Error *driverError `json:"error"`
	}
	if err := json.Unmarshal(l, &ans); err != nil {
		return nil, fmt.Errorf("%w (Flink %s): unreadable answer to load_and_validate: %.200s", ErrJVM, j.Version, l)
	}
	if ans.Error != nil {
		return nil, ans.Error.err(j)
	}
	return &ans.Validated, nil
}

// Loaded is Flink's answer to LoadCheckpoint.
type Loaded struct {
	// RoundTrip is the metadata round trip's answer; its Bytes are the file sent when Flink
	// wrote it back byte for byte (the driver does not send them back then).
	RoundTrip MetadataAnswer
	// Validated is load_and_validate's answer, nil when Err is set: Flink's refusal (a
	// *Refusal) or the driver's (an ErrJVM), as LoadAndValidate's error. With a refusal whose
	// message names a file: URI, Pointer is the checkpoint directory Flink resolved
	// (Validated.ExternalPointer of the same file loaded by no vertices, allowing non-restored
	// state; "" when that failed too).
	Validated *Validated
	Err       error
	Pointer   string
}

// LoadCheckpoint is MetadataRoundTrip, then LoadAndValidate, in one request that carries the
// file once: Flink reads the file (Checkpoints.loadCheckpointMetadata) and writes it back in its
// default format version, then loads and validates it against the vertices — or, with
// validateWritten and the file written back in its own format version, the bytes Flink wrote. A
// refusal to read or write the file is the error (a *Refusal), as MetadataRoundTrip's; a refusal
// to load and validate is Loaded.Err.
func (j *JVM) LoadCheckpoint(metadataFile, vertices []byte, allowNonRestoredState, validateWritten bool) (*Loaded, error) {
	req, err := json.Marshal(struct {
		Op               string          `json:"op"`
		Bytes            string          `json:"bytes"`
		Vertices         json.RawMessage `json:"vertices"`
		AllowNonRestored bool            `json:"allow_non_restored_state"`
		ValidateWritten  bool            `json:"validate_written"`
	}{"load_checkpoint", base64.StdEncoding.EncodeToString(metadataFile), vertices, allowNonRestoredState, validateWritten})
	if err != nil {
		return nil, err
	}
	l, err := j.call(req)
	if err != nil {
		return nil, err
	}
	var ans struct {
		RoundTrip *struct {
			Same           bool    `json:"same"`
			Bytes          *string `json:"bytes"`
			Version        int32   `json:"version"`
			WrittenVersion int32   `json:"written_version"`
			CheckpointID   int64   `json:"checkpoint_id"`
			Operators      int     `json:"operators"`
		} `json:"roundtrip"`
		Validate *struct {
			Validated
			Error *driverError `json:"error"`
		} `json:"validate"`
		Error *driverError `json:"error"`
	}
	if err := json.Unmarshal(l, &ans); err != nil {
		return nil, fmt.Errorf("%w (Flink %s): unreadable answer to load_checkpoint: %.200s", ErrJVM, j.Version, l)
	}
	if ans.Error != nil {
		return nil, ans.Error.err(j)
	}
	rt, v := ans.RoundTrip, ans.Validate
	if rt == nil || v == nil || (rt.Bytes == nil) != rt.Same {
		return nil, fmt.Errorf("%w (Flink %s): an incomplete answer to load_checkpoint: %.200s", ErrJVM, j.Version, l)
	}
	out := &Loaded{RoundTrip: MetadataAnswer{Bytes: metadataFile, Version: rt.Version, WrittenVersion: rt.WrittenVersion,
		CheckpointID: rt.CheckpointID, Operators: rt.Operators}}
	if !rt.Same {
		if out.RoundTrip.Bytes, err = base64.StdEncoding.DecodeString(*rt.Bytes); err != nil {
			return nil, fmt.Errorf("%w (Flink %s): bad base64 in load_checkpoint: %v", ErrJVM, j.Version, err)
		}
	}
	if v.Error == nil {
		out.Validated = &v.Validated
		return out, nil
	}
	out.Err, out.Pointer = v.Error.err(j), v.ExternalPointer
	return out, nil
}
