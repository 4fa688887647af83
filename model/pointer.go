package model

import (
	"errors"
	"io/fs"
	"strconv"
	"strings"
)

// Resolving a checkpoint/savepoint pointer on a file system (SPEC §I), as
// AbstractFsCheckpointStorageAccess.resolveCheckpointPointer does in both versions.

// Layout constants of file-system checkpoint storage (AbstractFsCheckpointStorageAccess).
const (
	// MetadataFileName is METADATA_FILE_NAME, the metadata file of a checkpoint or savepoint.
	MetadataFileName = "_metadata"
	// CheckpointDirPrefix is CHECKPOINT_DIR_PREFIX: checkpoint n lives in "chk-n".
	CheckpointDirPrefix = "chk-"
	// CheckpointSharedStateDir is CHECKPOINT_SHARED_STATE_DIR, where shared files go.
	CheckpointSharedStateDir = "shared"
	// CheckpointTaskOwnedStateDir is CHECKPOINT_TASK_OWNED_STATE_DIR.
	CheckpointTaskOwnedStateDir = "taskowned"
)

// CheckpointDirID is the checkpoint ID n of a directory named "chk-n", the name
// AbstractFsCheckpointStorageAccess.createCheckpointDirectory gives checkpoint n
// (CHECKPOINT_DIR_PREFIX + the ID as Long.toString writes it). ok is false for every other name:
// "chk-0" (IDs start at 1), a sign, leading zeros, an ID beyond int64.
func CheckpointDirID(name string) (id int64, ok bool) {
	digits, found := strings.CutPrefix(name, CheckpointDirPrefix)
	if !found || digits == "" || digits[0] < '1' || digits[0] > '9' {
		return 0, false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

// FileInfo is what CheckpointFS.Stat reports (Flink's FileStatus).
type FileInfo struct {
	IsDir bool
	// Len is the file length in bytes (unused for directories).
	Len int64
}

// ErrUnsupportedFileSystemScheme is what a CheckpointFS returns (wrapped or not) for a path whose
// scheme it does not serve, as FileSystem.get throws UnsupportedFileSystemSchemeException.
var ErrUnsupportedFileSystemScheme = errors.New("could not find a file system implementation for scheme")

// CheckpointFS is the file system pointer resolution reads: Flink's FileSystem.getFileStatus.
// The simulator implements it over its virtual storage.
//
// Stat gets a qualified, normalised path as built by ResolveCheckpointPointer — e.g.
// "file:/ckpt/job/chk-7" or "hdfs://nn:8020/ckpt/chk-7" — and reports the file or directory
// there. For a path that does not exist it returns an error matching io/fs.ErrNotExist
// (FileNotFoundException); for a scheme it does not serve, one matching
// ErrUnsupportedFileSystemScheme. Any other error is passed on as an I/O failure.
type CheckpointFS interface {
	Stat(path string) (FileInfo, error)
}

// CheckpointLocation models FsCompletedCheckpointStorageLocation: where a resolved checkpoint or
// savepoint lives.
type CheckpointLocation struct {
	// ExternalPointer is the checkpoint directory, qualified and normalised: the same for a
	// pointer to "…/chk-7/_metadata", "…/chk-7" and "…/chk-7/".
	ExternalPointer string
	// Metadata is the metadata file handle (FileStateHandle: path and length).
	Metadata StreamHandle
}

// ErrEmptyCheckpointPointer is the IllegalArgumentException "empty checkpoint pointer". (Flink's
// null check, a NullPointerException, has no Go counterpart: a string is never null.)
var ErrEmptyCheckpointPointer = errors.New("empty checkpoint pointer")

// ErrCheckpointPointer matches (errors.Is) every IOException of pointer resolution:
// *InvalidCheckpointPointerError, *CheckpointFileSystemError and *CheckpointNotFoundError.
var ErrCheckpointPointer = errors.New("cannot resolve checkpoint/savepoint pointer")

// InvalidCheckpointPointerError is the IOException "Checkpoint/savepoint path '…' is not a valid
// file URI": the pointer does not parse as a Flink Path (see ParseFlinkPath for the rule).
type InvalidCheckpointPointerError struct {
	Pointer string
	Reason  string
}

// Error gives Flink's message and why the path does not parse.
func (e *InvalidCheckpointPointerError) Error() string {
	return "Checkpoint/savepoint path '" + e.Pointer + "' is not a valid file URI. " +
		"Either the pointer path is invalid, or the checkpoint was created by a different state backend. (" + e.Reason + ")"
}

// Is reports whether target is ErrCheckpointPointer.
func (e *InvalidCheckpointPointerError) Is(target error) bool { return target == ErrCheckpointPointer }

// CheckpointFileSystemError is the IOException of an unavailable file system ("Cannot access
// file system for checkpoint/savepoint path '…'.") or of any other failing Stat.
type CheckpointFileSystemError struct {
	Pointer string
	Err     error
}

// Error gives Flink's message for an unavailable file system, else the failing Stat's error.
func (e *CheckpointFileSystemError) Error() string {
	if errors.Is(e.Err, ErrUnsupportedFileSystemScheme) {
		return "Cannot access file system for checkpoint/savepoint path '" + e.Pointer + "'.: " + e.Err.Error()
	}
	return "I/O error resolving checkpoint/savepoint path '" + e.Pointer + "': " + e.Err.Error()
}

// Is reports whether target is ErrCheckpointPointer.
func (e *CheckpointFileSystemError) Is(target error) bool { return target == ErrCheckpointPointer }

// Unwrap gives the file system's error.
func (e *CheckpointFileSystemError) Unwrap() error { return e.Err }

// CheckpointNotFoundError is the FileNotFoundException (an IOException) of pointer resolution:
// nothing exists at the pointer, or the pointer names a directory without a _metadata file.
// It matches ErrCheckpointPointer and io/fs.ErrNotExist.
type CheckpointNotFoundError struct {
	Pointer string
	// Scheme is the file system's scheme, e.g. "file".
	Scheme string
	// Dir is set when the directory exists but holds no metadata file.
	Dir string
}

// Error gives Flink's FileNotFoundException message for the missing path or metadata file.
func (e *CheckpointNotFoundError) Error() string {
	if e.Dir != "" {
		return "Cannot find meta data file '" + MetadataFileName + "' in directory '" + e.Dir +
			"'. Please try to load the checkpoint/savepoint directly from the metadata file instead of the directory."
	}
	return "Cannot find checkpoint or savepoint file/directory '" + e.Pointer + "' on file system '" + e.Scheme + "'."
}

// Is reports whether target is ErrCheckpointPointer or io/fs.ErrNotExist.
func (e *CheckpointNotFoundError) Is(target error) bool {
	return target == ErrCheckpointPointer || target == fs.ErrNotExist
}

// FlinkPath is a parsed, normalised org.apache.flink.core.fs.Path.
type FlinkPath struct {
	// Scheme is empty when the pointer had none.
	Scheme string
	// Authority is empty when there is none.
	Authority string
	// Path is the normalised path: single slashes, no trailing slash (except the root), "." and
	// ".." segments resolved. It is absolute (starts with "/") or relative.
	Path string
}

// String is Path.toString: "scheme:" when there is a scheme, "//authority" when there is one,
// then the path.
func (p FlinkPath) String() string {
	var b strings.Builder
	if p.Scheme != "" {
		b.WriteString(p.Scheme)
		b.WriteByte(':')
	}
	if p.Authority != "" {
		b.WriteString("//")
		b.WriteString(p.Authority)
	}
	b.WriteString(p.Path)
	return b.String()
}

// Qualified models Path.makeQualified(fs) for a file system whose URI has no authority and whose
// working directory is the root: a relative path becomes absolute under "/", a missing scheme
// becomes "file".
func (p FlinkPath) Qualified() FlinkPath {
	if !strings.HasPrefix(p.Path, "/") {
		p.Path = normalisePathSegments("/" + p.Path)
	}
	if p.Scheme == "" {
		p.Scheme = "file"
	}
	return p
}

// Parent models Path.getParent: the path without its last segment (the root's parent is the
// root).
func (p FlinkPath) Parent() FlinkPath {
	i := strings.LastIndexByte(p.Path, '/')
	switch {
	case i < 0:
		p.Path = ""
	case i == 0:
		p.Path = "/"
	default:
		p.Path = p.Path[:i]
	}
	return p
}

// Child models new Path(parent, child) for a plain child name.
func (p FlinkPath) Child(name string) FlinkPath {
	if strings.HasSuffix(p.Path, "/") {
		p.Path += name
	} else {
		p.Path += "/" + name
	}
	return p
}

// ParseFlinkPath models the Flink Path(String) constructor, which is what decides whether a
// pointer "is a valid file URI". The string is trimmed; then:
//
//   - a single letter followed by ':' is a Windows drive ("C:/x" is the path "/C:/x");
//   - otherwise text before a ':' that comes before any '/' is the scheme, which must be an
//     RFC 2396 scheme (a letter, then letters, digits, '+', '-', '.');
//   - "//" after the scheme starts an authority that runs to the next '/';
//   - with a scheme, the remaining path must be empty (only after an authority) or start with '/'
//     (java.net.URI: "Relative path in absolute URI"; "Expected scheme-specific part").
//
// Query and fragment are not supported by Flink's Path, so '#' and '?' are plain path
// characters: "this-is_not/a#filepath.at.all" is a valid relative path (and resolving it fails
// because nothing exists there, which is also an IOException in Flink).
func ParseFlinkPath(s string) (FlinkPath, error) {
	return parseFlinkPath(strings.TrimSpace(s))
}

// parseFlinkPath is ParseFlinkPath without the trimming (Path(String) itself does not trim).
func parseFlinkPath(s string) (FlinkPath, error) {
	if s == "" {
		return FlinkPath{}, errors.New("can not create a Path from an empty string")
	}
	if len(s) >= 2 && s[1] == ':' && isASCIILetter(s[0]) {
		s = "/" + s
	}
	var p FlinkPath
	start := 0
	colon, slash := strings.IndexByte(s, ':'), strings.IndexByte(s, '/')
	hasScheme := colon != -1 && (slash == -1 || colon < slash)
	if hasScheme {
		p.Scheme = s[:colon]
		start = colon + 1
		if !validScheme(p.Scheme) {
			return FlinkPath{}, errors.New("illegal URI scheme " + `"` + p.Scheme + `"`)
		}
	}
	hasAuthority := false
	if strings.HasPrefix(s[start:], "//") && len(s)-start > 2 {
		next := strings.IndexByte(s[start+2:], '/')
		end := len(s)
		if next >= 0 {
			end = start + 2 + next
		}
		p.Authority = s[start+2 : end]
		hasAuthority = true
		start = end
	}
	path := s[start:]
	if hasScheme {
		if path == "" && !hasAuthority {
			return FlinkPath{}, errors.New("expected scheme-specific part after the scheme")
		}
		if path != "" && !strings.HasPrefix(path, "/") {
			return FlinkPath{}, errors.New("relative path in absolute URI")
		}
	}
	p.Path = normalisePathSegments(path)
	return p, nil
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func validScheme(s string) bool {
	if s == "" || !isASCIILetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !isASCIILetter(c) && !('0' <= c && c <= '9') && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

// normalisePathSegments models Path.normalizePath followed by URI.normalize: backslashes become
// slashes, runs of slashes collapse, a trailing slash goes (except for the root), and "." and
// ".." segments are resolved (a ".." that would climb above the start of a relative path is
// kept, as URI.normalize keeps it).
func normalisePathSegments(path string) string {
	path = strings.ReplaceAll(path, `\`, "/")
	abs := strings.HasPrefix(path, "/")
	var out []string
	for _, seg := range strings.Split(path, "/") {
		switch seg {
		case "", ".":
		case "..":
			if len(out) > 0 && out[len(out)-1] != ".." {
				out = out[:len(out)-1]
			} else if !abs {
				out = append(out, "..")
			}
		default:
			out = append(out, seg)
		}
	}
	joined := strings.Join(out, "/")
	if abs {
		return "/" + joined
	}
	return joined
}

// ResolveCheckpointPointer models AbstractFsCheckpointStorageAccess.resolveCheckpointPointer
// (SPEC §I):
//
//  1. "" → ErrEmptyCheckpointPointer;
//  2. not a valid Flink path (ParseFlinkPath) → *InvalidCheckpointPointerError;
//  3. the path is qualified (scheme "file" when none, relative paths under "/") and stat'ed:
//     unsupported scheme or another failure → *CheckpointFileSystemError; nothing there →
//     *CheckpointNotFoundError;
//  4. a directory must hold a "_metadata" file (else *CheckpointNotFoundError with Dir set);
//     it is the checkpoint directory;
//  5. any existing file is taken as the metadata file, whatever its name; its parent is the
//     checkpoint directory.
//
// The location's ExternalPointer is the qualified checkpoint directory.
func ResolveCheckpointPointer(fsys CheckpointFS, pointer string) (CheckpointLocation, error) {
	if pointer == "" {
		return CheckpointLocation{}, ErrEmptyCheckpointPointer
	}
	p, err := ParseFlinkPath(pointer)
	if err != nil {
		return CheckpointLocation{}, &InvalidCheckpointPointerError{Pointer: pointer, Reason: err.Error()}
	}
	q := p.Qualified()
	st, err := fsys.Stat(q.String())
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return CheckpointLocation{}, &CheckpointNotFoundError{Pointer: pointer, Scheme: q.Scheme}
		}
		return CheckpointLocation{}, &CheckpointFileSystemError{Pointer: pointer, Err: err}
	}
	dir, meta := q, q
	if st.IsDir {
		meta = q.Child(MetadataFileName)
		st, err = fsys.Stat(meta.String())
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return CheckpointLocation{}, &CheckpointNotFoundError{Pointer: pointer, Scheme: q.Scheme, Dir: q.String()}
			}
			return CheckpointLocation{}, &CheckpointFileSystemError{Pointer: pointer, Err: err}
		}
	} else {
		dir = q.Parent()
	}
	return CheckpointLocation{
		ExternalPointer: dir.String(),
		Metadata:        StreamHandle{Path: meta.String(), Size: st.Len},
	}, nil
}
