package savepoint

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/restoresim/restoresim/model"
)

// NoCompletedCheckpointError is OpenLatest's error for a checkpoint root none of whose "chk-n"
// directories holds a _metadata file. It matches io/fs.ErrNotExist.
type NoCompletedCheckpointError struct {
	// Root names the checkpoint root as the caller did.
	Root string
	// Without are the chk-n directories found without a _metadata file, newest first.
	Without []string
}

// Error names the root and what was found there.
func (e *NoCompletedCheckpointError) Error() string {
	msg := e.Root + ": no chk-N directory with a " + model.MetadataFileName + " file"
	switch n := len(e.Without); {
	case n == 0:
		return msg + " (none at all)"
	case n == 1:
		return msg + " (" + e.Without[0] + " has none)"
	default:
		return fmt.Sprintf("%s (%d have none, newest %s)", msg, n, e.Without[0])
	}
}

// Is reports whether target is io/fs.ErrNotExist.
func (e *NoCompletedCheckpointError) Is(target error) bool { return target == fs.ErrNotExist }

// OpenLatest opens the newest completed checkpoint under root, a checkpoint root: the
// directory holding a job's "chk-n" checkpoint directories (Flink's
// <checkpoint dir>/<job id>, beside "shared" and "taskowned"). The newest is the chk-n with the
// highest n (numeric: chk-12 is newer than chk-9; names model.CheckpointDirID does not read
// are ignored) that holds a _metadata file: a directory without one is a checkpoint still in
// progress, or one that failed or was discarded halfway. This is how Flink's end-to-end tests
// find the latest completed checkpoint of a job (test-scripts/common.sh,
// find_latest_completed_checkpoint: the chk-[1-9]*/_metadata files in version order); a
// running Flink takes the latest from its completed-checkpoint store instead
// (model.CompletedCheckpointStore), which a directory listing cannot see. Flink's
// TestUtils.getMostRecentCompletedCheckpoint compares the paths as strings, which takes chk-9
// over chk-12; OpenLatest does not.
//
// root is a pointer as in Open (a path of the storage's scheme), label names it in errors and
// in Savepoint.Path (joined with chk-n/_metadata). The chosen checkpoint is opened with Open. A
// root that does not exist is an error matching io/fs.ErrNotExist; a root that is a file, an
// error saying so; a root without a completed checkpoint, a *NoCompletedCheckpointError.
func (st Storage) OpenLatest(root, label string) (*Savepoint, error) {
	if label == "" {
		label = root
	}
	p, err := model.ParseFlinkPath(root)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label, &model.InvalidCheckpointPointerError{Pointer: root, Reason: err.Error()})
	}
	q := p.Qualified()
	name, ok := st.fsName(q.String())
	if !ok {
		return nil, fmt.Errorf("%s: %w", label, model.ErrUnsupportedFileSystemScheme)
	}
	fi, err := fs.Stat(st.FS, name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, &openError{label + ": no such file or directory", err}
	case err != nil:
		return nil, fmt.Errorf("%s: %w", label, err)
	case !fi.IsDir():
		return nil, fmt.Errorf("%s is a file, not a checkpoint root (the directory holding chk-N directories)", label)
	}
	entries, err := fs.ReadDir(st.FS, name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	type dir struct {
		name string
		id   int64
	}
	var dirs []dir
	for _, e := range entries {
		if id, ok := model.CheckpointDirID(e.Name()); ok && e.IsDir() {
			dirs = append(dirs, dir{e.Name(), id})
		}
	}
	slices.SortFunc(dirs, func(a, b dir) int { return cmp.Compare(b.id, a.id) })
	var without []string
	for _, d := range dirs {
		meta := d.name + "/" + model.MetadataFileName
		if name != "." {
			meta = name + "/" + meta
		}
		fi, err := fs.Stat(st.FS, meta)
		switch {
		case errors.Is(err, fs.ErrNotExist) || err == nil && fi.IsDir():
			without = append(without, d.name)
			continue
		case err != nil:
			return nil, fmt.Errorf("%s: %w", joinLabel(label, d.name), err)
		}
		return st.Open(q.Child(d.name).String(), joinLabel(label, d.name))
	}
	return nil, &NoCompletedCheckpointError{Root: label, Without: without}
}
