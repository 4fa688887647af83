package savepoint

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
)

// Savepoint is an opened checkpoint or savepoint.
type Savepoint struct {
	// Path names the metadata file as the caller named the checkpoint (the label given to
	// Open, joined with "_metadata" for a directory).
	Path string
	// Pointer is the checkpoint directory as Flink names it in its messages: qualified with
	// the file scheme, e.g. "file:/ckpt/job/chk-7" (SPEC §I).
	Pointer string
	// FormatVersion is the metadata format version the file declares.
	FormatVersion int32
	// File is the decoded metadata; nil when the format version is one no modelled Flink
	// reads (see Open).
	File *metadata.File
	// Unreadable is the reader's error when File is nil (it matches
	// metadata.ErrUnsupportedVersion).
	Unreadable error
	// modeled is the file as a ModeledFile served it (nil: none did).
	modeled ModeledFile
}

// ModelFor is File.ModelFor(v): the conversion the file system that served the file has of it
// (a ModeledFile; shared, read only), else a new one. File must not be nil.
func (sp *Savepoint) ModelFor(v model.FlinkVersion) model.CheckpointMetadata {
	if sp.modeled != nil {
		if md, ok := sp.modeled.ModelFor(v); ok {
			return md
		}
	}
	return sp.File.ModelFor(v)
}

// Open opens the checkpoint at pointer — a _metadata file or a checkpoint directory holding
// one — on fsys, which serves the file scheme from its root: pointer is an absolute path or a
// "file:" URI, and "/a/b" is the name "a/b" in fsys (os.DirFS("/") is the local file system).
// label names the checkpoint in the errors and in Savepoint.Path (the path as the user gave
// it; pointer when empty).
//
// A pointer that names nothing, or a directory without a _metadata file, is an error wrapping
// the model's *model.CheckpointNotFoundError. A file whose format version no modelled Flink reads
// (format version 1, Flink 1.2's) gives both a Savepoint without File (PlanRestore plans it as
// a refusal) and an error matching metadata.ErrUnsupportedVersion; any other damage gives an
// error that names the byte offset and the field.
func Open(fsys fs.FS, pointer, label string) (*Savepoint, error) {
	return Storage{FS: fsys, Scheme: "file"}.Open(pointer, label)
}

// Storage is a file system that holds checkpoints, as Flink's FileSystem of one URI scheme and
// authority: FS serves its paths from its root, the path "/a/b" being the name "a/b" in FS.
// Storage{FS: os.DirFS("/"), Scheme: "file"} is the local file system (Flink's LocalFileSystem:
// pointers "/a/b" and "file:/a/b"); Storage{FS: bucket, Scheme: "s3", Authority: "b"} is the
// bucket b of an object store, its pointers "s3://b/a/b" (Flink's S3 file systems).
type Storage struct {
	FS fs.FS
	// Scheme is the URI scheme the storage serves ("file", "s3", "gs", …).
	Scheme string
	// Authority is the URI authority (an object store's bucket or container); empty for "file".
	Authority string
}

// Open is the package's Open on the storage: pointer is a path of its scheme and authority
// ("s3://b/ckpt/chk-7"; for "file" an absolute path or a "file:" URI). Savepoint.Pointer and
// Flink's messages name the checkpoint directory with the storage's scheme and authority.
func (st Storage) Open(pointer, label string) (*Savepoint, error) {
	if label == "" {
		label = pointer
	}
	fsys := st.FS
	loc, err := model.ResolveCheckpointPointer(st.checkpointFS(), pointer)
	if err != nil {
		var nf *model.CheckpointNotFoundError
		switch {
		case errors.As(err, &nf) && nf.Dir != "":
			return nil, &openError{fmt.Sprintf("cannot find meta data file '%s' in directory '%s'; please try to load the checkpoint/savepoint directly from the metadata file instead of the directory", model.MetadataFileName, label), err}
		case errors.As(err, &nf):
			return nil, &openError{label + ": no such file or directory", err}
		}
		return nil, err
	}
	name := label
	if loc.Metadata.Path != qualified(pointer) {
		// The pointer named a directory: Flink reads its _metadata file.
		name = joinLabel(label, model.MetadataFileName)
	}
	fname, ok := st.fsName(loc.Metadata.Path)
	if !ok {
		return nil, fmt.Errorf("%s: %w", name, model.ErrUnsupportedFileSystemScheme)
	}
	if fi, err := fs.Stat(fsys, fname); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("%s is a directory, not a metadata file", name)
	}
	fh, err := fsys.Open(fname)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	sp := &Savepoint{Path: name, Pointer: loc.ExternalPointer}
	if d, ok := fh.(DecodedFile); ok {
		if f := d.Decoded(); f != nil {
			sp.File, sp.FormatVersion = f, f.Version
			sp.modeled, _ = d.(ModeledFile)
			return sp, nil
		}
	}
	f, err := metadata.ReadFrom(fh, metadata.DefaultMaxFileSize)
	switch {
	case errors.Is(err, metadata.ErrUnsupportedVersion):
		if b, rerr := readHead(fsys, fname, 8); rerr == nil && len(b) == 8 {
			sp.FormatVersion = int32(uint32(b[4])<<24 | uint32(b[5])<<16 | uint32(b[6])<<8 | uint32(b[7]))
		}
		sp.Unreadable = err
		return sp, fmt.Errorf("%s: %w", name, err)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	sp.File, sp.FormatVersion = f, f.Version
	return sp, nil
}

// DecodedFile is an fs.File that can give its metadata decoded already: a file system keeping
// the files it decoded (a cache) serves them so. Storage.Open takes the decoded file instead of
// reading the bytes; Decoded returns nil when it has none, and Open reads the bytes.
type DecodedFile interface {
	fs.File
	Decoded() *metadata.File
}

// ModeledFile is a DecodedFile that can also give its decoded metadata converted for a Flink
// version, as metadata.File.ModelFor does (a restore that read the file converted it already):
// PlanRestore plans from that conversion, read only. ok is false when it has none.
type ModeledFile interface {
	DecodedFile
	ModelFor(v model.FlinkVersion) (md model.CheckpointMetadata, ok bool)
}

// Read reads a checkpoint's metadata from r, a stream that cannot be resolved or read again
// (stdin, say). name names it in the errors and in Savepoint.Path; its Pointer is empty, so
// Flink's messages name it by its checkpoint ID. As with Open, a format version no modelled Flink reads gives both a
// Savepoint without File (its FormatVersion read from the stream's head) and an error matching
// metadata.ErrUnsupportedVersion.
func Read(r io.Reader, name string) (*Savepoint, error) {
	h := &headReader{r: r}
	f, err := metadata.ReadFrom(h, metadata.DefaultMaxFileSize)
	sp := &Savepoint{Path: name}
	switch {
	case errors.Is(err, metadata.ErrUnsupportedVersion):
		if len(h.head) == 8 {
			sp.FormatVersion = int32(uint32(h.head[4])<<24 | uint32(h.head[5])<<16 | uint32(h.head[6])<<8 | uint32(h.head[7]))
		}
		sp.Unreadable = err
		return sp, fmt.Errorf("%s: %w", name, err)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	sp.File, sp.FormatVersion = f, f.Version
	return sp, nil
}

// headReader keeps the first 8 bytes read through it (magic number and format version).
type headReader struct {
	r    io.Reader
	head []byte
}

func (h *headReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	if k := min(n, 8-len(h.head)); k > 0 {
		h.head = append(h.head, p[:k]...)
	}
	return n, err
}

// openError keeps the model's error beneath a message that names the checkpoint as the user did.
type openError struct {
	msg string
	err error
}

func (e *openError) Error() string { return e.msg }
func (e *openError) Unwrap() error { return e.err }

func readHead(fsys fs.FS, name string, n int) ([]byte, error) {
	fh, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	b := make([]byte, n)
	k, err := io.ReadFull(fh, b)
	return b[:k], err
}

// qualified gives the pointer as Flink qualifies it (a pointer that resolved parses).
func qualified(pointer string) string {
	p, err := model.ParseFlinkPath(pointer)
	if err != nil {
		return ""
	}
	return p.Qualified().String()
}

// joinLabel names the file or directory name inside the directory a label names: a URL label
// ("s3://b/ckpt") gets "/name" (path.Join would fold its "//"), any other is joined with
// path.Join.
func joinLabel(label, name string) string {
	if strings.Contains(label, "://") {
		return strings.TrimSuffix(label, "/") + "/" + name
	}
	return path.Join(label, name)
}

// fsName maps a qualified path of the storage ("file:/a/b", "s3://b/a/b") to its name in the
// file system ("a/b"); ok is false for another scheme or authority.
func (st Storage) fsName(p string) (string, bool) {
	prefix := st.Scheme + ":"
	if st.Authority != "" {
		prefix += "//" + st.Authority
	}
	rest, ok := strings.CutPrefix(p, prefix)
	if !ok || (st.Authority != "" && rest != "" && rest[0] != '/') {
		return "", false
	}
	rest = strings.TrimLeft(rest, "/")
	if rest == "" {
		return ".", true
	}
	return rest, true
}

// CheckpointFS adapts fsys to model.CheckpointFS: it serves the file scheme, "file:/a/b" being
// the name "a/b" in fsys (so os.DirFS("/") serves the local file system). Other schemes give
// model.ErrUnsupportedFileSystemScheme; a missing file, an error matching fs.ErrNotExist.
func CheckpointFS(fsys fs.FS) model.CheckpointFS {
	return Storage{FS: fsys, Scheme: "file"}.checkpointFS()
}

// checkpointFS adapts the storage to model.CheckpointFS, serving its scheme and authority.
func (st Storage) checkpointFS() model.CheckpointFS { return checkpointFS{st} }

type checkpointFS struct{ st Storage }

func (c checkpointFS) Stat(p string) (model.FileInfo, error) {
	name, ok := c.st.fsName(p)
	if !ok {
		return model.FileInfo{}, model.ErrUnsupportedFileSystemScheme
	}
	fi, err := fs.Stat(c.st.FS, name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return model.FileInfo{}, fs.ErrNotExist
		}
		return model.FileInfo{}, err
	}
	return model.FileInfo{IsDir: fi.IsDir(), Len: fi.Size()}, nil
}
