package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file holds what every command uses to read its input files ("-" is stdin everywhere) and
// to quote input back in a one-line error.

// stdinName is how a file argument names stdin.
const stdinName = "-"

// openInput opens the file at path, or stdin for "-". A directory is refused.
func openInput(e *env, path string) (io.ReadCloser, error) {
	if path == stdinName {
		return io.NopCloser(e.stdin), nil
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

// openMetadata opens the metadata file that arg names (a _metadata file, or a checkpoint
// directory holding one, see resolveMetadataPath), or stdin for "-", and returns the path that
// names it in the output ("-" for stdin).
func openMetadata(e *env, arg string) (string, io.ReadCloser, error) {
	if arg == stdinName {
		return arg, &headReader{r: e.stdin}, nil
	}
	path, err := resolveMetadataPath(arg)
	if err != nil {
		return "", nil, err
	}
	fh, err := os.Open(path)
	if err != nil {
		return "", nil, err
	}
	return path, fh, nil
}

// headReader reads stdin for openMetadata and keeps its first 8 bytes (magic number and format
// version), which a refused file's plan reports.
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

func (h *headReader) Close() error { return nil }

// stdinFormatVersion is the format version of metadata read from stdin by openMetadata (ok
// false for a file, which can be read again).
func stdinFormatVersion(r io.Reader) (int32, bool) {
	h, ok := r.(*headReader)
	if !ok || len(h.head) < 8 {
		return 0, false
	}
	return int32(binary.BigEndian.Uint32(h.head[4:8])), true
}

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

// excerpt quotes s as %q does, but at most max characters of it: a longer s is cut, followed
// by "…" and its length, so an error line never echoes a whole file or a binary blob.
func excerpt(s string, max int) string {
	n, cut := 0, len(s)
	for i := 0; i < len(s); n++ {
		if n == max {
			cut = i
			break
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	if cut == len(s) {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(s[:cut]), len(s))
}

// maxErrorLine bounds the message of a one-line error (runes): longer ones are cut.
const maxErrorLine = 1000

// oneLine makes msg safe for a one-line error on a terminal: newlines become "; ", other control
// characters but tab and invalid UTF-8 are escaped (\x00), and a message longer than maxErrorLine is cut.
func oneLine(msg string) string {
	msg = strings.ReplaceAll(strings.TrimRight(msg, "\n"), "\n", "; ")
	var b strings.Builder
	n := 0
	for i := 0; i < len(msg); n++ {
		if n == maxErrorLine {
			fmt.Fprintf(&b, "… (%d more bytes)", len(msg)-i)
			break
		}
		r, size := utf8.DecodeRuneInString(msg[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, msg[i])
		case unicode.IsControl(r) && r != '\t':
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(msg[i : i+size])
		}
		i += size
	}
	return b.String()
}
