// Package atomicfile writes a file so that a reader, or the file system after a crash, sees
// either the old file or the complete new one, never a part of it. Every file the simulate
// command writes under --out goes through it. It imports only the standard library.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Mode is the permission a written file gets, whatever the process's umask.
const Mode os.FileMode = 0o644

// beforeRename, when set (by the package's tests), runs after the temporary file is written
// and synced and before it is renamed into place; an error it returns fails the write.
var beforeRename func(tmp string) error

// WriteFile writes data to path atomically: to a temporary file in path's directory (named
// ".BASE.tmp-*", so a directory listing shows it as hidden), which is synced to disk, given
// Mode, closed and renamed over path; then the directory is synced so the rename itself is
// durable (where the file system supports syncing a directory: an error there is ignored, as
// the new file is already in place). On any error before the rename, the temporary file is
// removed and whatever was at path is left as it was. Errors read "writing PATH: ..." and name
// PATH or its directory, never the temporary file: "it is a directory", "directory DIR does not
// exist", "DIR is not a directory", or the system's reason ("permission denied").
func WriteFile(path string, data []byte) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if base == "" {
		return fmt.Errorf("writing %q: not a file name", path)
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("writing %s: it is a directory", path)
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, createError(filepath.Dir(path), err))
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			err = fmt.Errorf("writing %s: %w", path, withoutPaths(err))
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Chmod(Mode); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if beforeRename != nil {
		if err = beforeRename(tmp.Name()); err != nil {
			return err
		}
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	syncDir(dir)
	return nil
}

// syncDir makes a rename in dir durable, where the file system supports syncing a directory.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	d.Close()
}

// createError says why a file cannot be created in dir: the directory (or a part of it) that
// does not exist or is not a directory, else the system's reason without the temporary name.
func createError(dir string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &reason{"directory " + dir + " does not exist", err}
	case errors.Is(err, syscall.ENOTDIR):
		for d := dir; ; d = filepath.Dir(d) {
			if fi, serr := os.Stat(d); serr == nil && !fi.IsDir() {
				return &reason{d + " is not a directory", err}
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return withoutPaths(err)
}

// withoutPaths is err without the file names an *fs.PathError or *os.LinkError adds (they name
// the temporary file): the system's reason alone.
func withoutPaths(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}

// reason is an error in words of its own that still matches the system's error (errors.Is).
type reason struct {
	msg string
	err error
}

func (r *reason) Error() string { return r.msg }
func (r *reason) Unwrap() error { return r.err }
