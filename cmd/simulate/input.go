package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/restoresim/restoresim/internal/excerpt"
)

// This file holds what every command uses to read its input files ("-" is stdin everywhere) and
// to quote input back in a one-line error.

// stdinName is how a file argument names stdin.
const stdinName = "-"

// openInput opens the file at path, or stdin for "-". A directory and an empty path are refused.
func openInput(e *env, path string) (io.ReadCloser, error) {
	switch path {
	case stdinName:
		return io.NopCloser(e.stdin), nil
	case "":
		return nil, errEmptyFileName
	}
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such file or directory", path)
		}
		return nil, err
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s is a directory, not a file", path)
	}
	return f, nil
}

// errEmptyFileName is the error of an empty file argument.
var errEmptyFileName = errors.New(`an empty file name ("-" reads stdin)`)

// readInput reads the whole file at path, or stdin for "-", refusing more than limit bytes.
func readInput(e *env, path string, limit int64) ([]byte, error) {
	r, err := openInput(e, path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", inputName(path), err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: more than %d bytes", inputName(path), limit)
	}
	return b, nil
}

// inputName is how messages name an input file: its path, or "stdin".
func inputName(path string) string {
	if path == stdinName {
		return "stdin"
	}
	return path
}

// maxErrorLine bounds the message of a one-line error (runes): longer ones are cut.
const maxErrorLine = excerpt.MaxLine

// pathHelp and latestUsage tell how the savepoint commands read PATH (docs/inspect.md).
const pathHelp = `PATH may be an s3://, gs:// or azblob:// URL as well as a local path (credentials
from the environment: docs/inspect.md). With --latest, PATH is a checkpoint root (the directory
or URL prefix holding chk-N directories) and its newest chk-N that has a _metadata is read.`

const latestUsage = "PATH is a checkpoint root: read its newest chk-N that has a _metadata file"
