package metadata

import (
	"errors"
	"fmt"
)

// Sentinel errors wrapped by *FormatError (test with errors.Is).
var (
	// ErrTruncated: the data ends inside a field.
	ErrTruncated = errors.New("unexpected end of data")
	// ErrBadMagic: the file does not start with Magic (Flink: "Unexpected magic number").
	ErrBadMagic = errors.New("not a Flink metadata file (unexpected magic number)")
	// ErrUnsupportedVersion: a format version this package does not read.
	ErrUnsupportedVersion = errors.New("unsupported format version")
	// ErrNegative: a count, length or size that must not be negative is.
	ErrNegative = errors.New("negative count")
	// ErrTooLarge: a count or length cannot fit in the bytes that are left.
	ErrTooLarge = errors.New("count exceeds the remaining bytes")
	// ErrUnknownTag: a handle tag, mode, scope or channel type that is not legal here.
	ErrUnknownTag = errors.New("unknown tag")
	// ErrInvalid: a value Flink's reader refuses (bad key-group range, subtask index out of
	// range, bad modified UTF-8, …).
	ErrInvalid = errors.New("invalid value")
	// ErrTrailingBytes: bytes follow the end of the metadata.
	ErrTrailingBytes = errors.New("trailing bytes after the end of the metadata")
	// ErrTooDeep: handles nest deeper than MaxDepth.
	ErrTooDeep = errors.New("handles nested too deeply")
	// ErrJavaSerialization: the Java-serialized CheckpointProperties are malformed or of an
	// unexpected shape.
	ErrJavaSerialization = errors.New("bad Java serialization of CheckpointProperties")
	// ErrFileTooLarge: ReadFrom met more bytes than its limit.
	ErrFileTooLarge = errors.New("metadata file too large")
)

// FormatError reports where and why a metadata file could not be read: the byte offset of the
// field, the field's path (e.g. "operator[2].subtask[0].managed_keyed_state[0].numKeyGroups")
// and the reason.
type FormatError struct {
	Offset int64
	Field  string
	Err    error
}

// Error gives one line: "metadata: offset 0x1d9 (473): <field>: <reason>".
func (e *FormatError) Error() string {
	return fmt.Sprintf("metadata: offset %#x (%d): %s: %v", e.Offset, e.Offset, e.Field, e.Err)
}

// Unwrap returns the reason, which wraps one of the sentinel errors.
func (e *FormatError) Unwrap() error { return e.Err }

// WriteError reports why Write could not encode a File.
type WriteError struct {
	Field string
	Err   error
}

// Error gives one line: "metadata: write <field>: <reason>".
func (e *WriteError) Error() string { return fmt.Sprintf("metadata: write %s: %v", e.Field, e.Err) }

// Unwrap returns the reason.
func (e *WriteError) Unwrap() error { return e.Err }

// ErrNotWritable: a File holds something its version cannot express (see WriteError).
var ErrNotWritable = errors.New("not representable in this format version")
