package objstore

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// HelperName is the command HelperBucket runs: cmd/simulate-objstore.
const HelperName = "simulate-objstore"

// ErrNoHelper is the error (wrapped) of a URL read where the helper command cannot be found.
var ErrNoHelper = errors.New("reading s3://, gs:// and azblob:// URLs needs the " + HelperName +
	" command beside this one or on PATH (go install github.com/restoresim/restoresim/cmd/" + HelperName + "@latest)")

// HelperBucket opens the bucket of u in a helper process, the simulate-objstore command, and
// serves its objects as the helper reads them with gocloud.dev's drivers (objstore/cloud): the
// drivers' weight stays out of every process that reads no bucket. The helper is the file
// $SIMULATE_OBJSTORE when set, else simulate-objstore in the directory of the running
// executable, else on PATH; none is ErrNoHelper. The helper ends when the bucket is closed.
//
// The protocol (cloud.Serve is the helper's side) is lines of tab-separated fields on the
// helper's stdin and stdout, strings quoted as Go quotes them; a reply "err NOTEXIST MSG" is
// an error with message MSG, matching fs.ErrNotExist when NOTEXIST is 1:
//
//	bucket URL          → ok | err
//	open NAME           → file ID INFO | dir ID INFO N READDIR-ERROR, then N lines INFO | err
//	read ID N           → data K, then K bytes (1 ≤ K ≤ N) | eof | err
//	close ID            → ok | err
//	accessible          → ok true|false | err
//
// where INFO is NAME SIZE MODE MODTIME (Unix nanoseconds).
func HelperBucket(ctx context.Context, scheme string, u *url.URL) (Bucket, error) {
	path, err := helperPath()
	if err != nil {
		return nil, ErrNoHelper
	}
	cmd := exec.CommandContext(ctx, path, "serve")
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %v", path, err)
	}
	b := &helperBucket{cmd: cmd, in: bufio.NewWriter(in), inCloser: in, out: bufio.NewReaderSize(out, 64<<10)}
	bu := url.URL{Scheme: scheme, Host: u.Host, RawQuery: u.RawQuery}
	if _, err := b.call("bucket", bu.String()); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

func helperPath() (string, error) {
	if p := os.Getenv("SIMULATE_OBJSTORE"); p != "" {
		return p, nil
	}
	name := HelperName
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	return exec.LookPath(HelperName)
}

// helperBucket is the client side of the protocol (HelperBucket).
type helperBucket struct {
	cmd      *exec.Cmd
	in       *bufio.Writer
	inCloser io.Closer
	out      *bufio.Reader
	broken   error // the helper failed: every later call fails so
}

// call sends one request and reads the reply's first line, returned as its fields after the
// first ("ok", "file", …, which is fields[0]); an "err" reply is returned as an error.
func (b *helperBucket) call(op string, args ...string) ([]string, error) {
	if b.broken != nil {
		return nil, b.broken
	}
	line := op
	for _, a := range args {
		line += "\t" + a
	}
	b.in.WriteString(line + "\n")
	if err := b.in.Flush(); err != nil {
		return nil, b.fail(err)
	}
	f, err := b.line()
	if err != nil {
		return nil, err
	}
	if f[0] == "err" {
		return nil, replyError(f)
	}
	return f, nil
}

// line reads one reply line as fields.
func (b *helperBucket) line() ([]string, error) {
	s, err := b.out.ReadString('\n')
	if err != nil {
		return nil, b.fail(err)
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\t"), nil
}

func (b *helperBucket) fail(err error) error {
	if b.broken == nil {
		b.broken = fmt.Errorf("%s: %v", HelperName, err)
	}
	return b.broken
}

// replyError is the error of an "err NOTEXIST MSG" reply.
func replyError(f []string) error {
	if len(f) != 3 {
		return fmt.Errorf("%s: bad reply %q", HelperName, strings.Join(f, "\t"))
	}
	msg, err := strconv.Unquote(f[2])
	if err != nil {
		msg = f[2]
	}
	return &remoteError{msg: msg, notExist: f[1] == "1"}
}

// remoteError is an error the helper reported: its message, and whether it matched
// fs.ErrNotExist there.
type remoteError struct {
	msg      string
	notExist bool
}

func (e *remoteError) Error() string        { return e.msg }
func (e *remoteError) Is(target error) bool { return e.notExist && target == fs.ErrNotExist }

func (b *helperBucket) Open(name string) (fs.File, error) {
	f, err := b.call("open", strconv.Quote(name))
	if err != nil {
		return nil, err
	}
	bad := func() (fs.File, error) {
		return nil, b.fail(fmt.Errorf("bad reply %q", strings.Join(f, "\t")))
	}
	if len(f) < 6 {
		return bad()
	}
	id := f[1]
	info, ok := parseInfo(f[2:6])
	if !ok {
		return bad()
	}
	file := &helperFile{b: b, id: id, info: info}
	if f[0] == "file" && len(f) == 6 {
		return file, nil
	}
	if f[0] != "dir" || len(f) != 8 {
		return bad()
	}
	file.dir = true
	n, err1 := strconv.Atoi(f[6])
	direrr, err2 := strconv.Unquote(f[7])
	if err1 != nil || err2 != nil || n < 0 {
		return bad()
	}
	if direrr != "" {
		file.dirErr = errors.New(direrr)
	}
	for range n {
		e, err := b.line()
		if err != nil {
			return nil, err
		}
		info, ok := parseInfo(e)
		if !ok {
			return nil, b.fail(fmt.Errorf("bad directory entry %q", strings.Join(e, "\t")))
		}
		file.entries = append(file.entries, fs.FileInfoToDirEntry(info))
	}
	return file, nil
}

func (b *helperBucket) IsAccessible(ctx context.Context) (bool, error) {
	f, err := b.call("accessible")
	if err != nil {
		return false, err
	}
	if len(f) != 2 {
		return false, b.fail(fmt.Errorf("bad reply %q", strings.Join(f, "\t")))
	}
	return f[1] == "true", nil
}

// Close ends the helper: it stops at the end of its input.
func (b *helperBucket) Close() error {
	b.inCloser.Close()
	return b.cmd.Wait()
}

// helperFile is a file or directory the helper holds open.
type helperFile struct {
	b       *helperBucket
	id      string
	info    fileInfo
	dir     bool
	entries []fs.DirEntry
	dirErr  error
	buf     []byte // data read from the helper and not yet returned
	eof     bool
}

func (f *helperFile) Stat() (fs.FileInfo, error) { return f.info, nil }

// readChunk is how many bytes a file's Read asks the helper for at least.
const readChunk = 256 << 10

func (f *helperFile) Read(p []byte) (int, error) {
	if f.dir {
		return 0, &fs.PathError{Op: "read", Path: f.info.name, Err: errors.New("is a directory")}
	}
	for len(f.buf) == 0 {
		if f.eof {
			return 0, io.EOF
		}
		r, err := f.b.call("read", f.id, strconv.Itoa(max(len(p), readChunk)))
		if err != nil {
			return 0, err
		}
		switch {
		case r[0] == "eof":
			f.eof = true
		case r[0] == "data" && len(r) == 2:
			k, err := strconv.Atoi(r[1])
			if err != nil || k <= 0 {
				return 0, f.b.fail(fmt.Errorf("bad reply %q", strings.Join(r, "\t")))
			}
			if cap(f.buf) < k {
				f.buf = make([]byte, k)
			}
			f.buf = f.buf[:k]
			if _, err := io.ReadFull(f.b.out, f.buf); err != nil {
				return 0, f.b.fail(err)
			}
		default:
			return 0, f.b.fail(fmt.Errorf("bad reply %q", strings.Join(r, "\t")))
		}
	}
	n := copy(p, f.buf)
	f.buf = f.buf[n:]
	return n, nil
}

// ReadDir reads the directory's entries, as fs.ReadDirFile does.
func (f *helperFile) ReadDir(n int) ([]fs.DirEntry, error) {
	if !f.dir {
		return nil, &fs.PathError{Op: "readdir", Path: f.info.name, Err: errors.New("not a directory")}
	}
	if f.dirErr != nil {
		return nil, f.dirErr
	}
	if n <= 0 {
		es := f.entries
		f.entries = nil
		return es, nil
	}
	if len(f.entries) == 0 {
		return nil, io.EOF
	}
	k := min(n, len(f.entries))
	es := f.entries[:k]
	f.entries = f.entries[k:]
	return es, nil
}

func (f *helperFile) Close() error {
	_, err := f.b.call("close", f.id)
	return err
}

// fileInfo is an fs.FileInfo the helper sent.
type fileInfo struct {
	name    string
	size    int64
	mode    fs.FileMode
	modTime time.Time
}

func (i fileInfo) Name() string       { return i.name }
func (i fileInfo) Size() int64        { return i.size }
func (i fileInfo) Mode() fs.FileMode  { return i.mode }
func (i fileInfo) ModTime() time.Time { return i.modTime }
func (i fileInfo) IsDir() bool        { return i.mode.IsDir() }
func (i fileInfo) Sys() any           { return nil }

// FormatInfo is the INFO fields of the helper protocol for fi (HelperBucket).
func FormatInfo(fi fs.FileInfo) string {
	return fmt.Sprintf("%s\t%d\t%d\t%d", strconv.Quote(fi.Name()), fi.Size(), uint32(fi.Mode()), fi.ModTime().UnixNano())
}

func parseInfo(f []string) (fileInfo, bool) {
	if len(f) != 4 {
		return fileInfo{}, false
	}
	name, err0 := strconv.Unquote(f[0])
	size, err1 := strconv.ParseInt(f[1], 10, 64)
	mode, err2 := strconv.ParseUint(f[2], 10, 32)
	ns, err3 := strconv.ParseInt(f[3], 10, 64)
	if err0 != nil || err1 != nil || err2 != nil || err3 != nil {
		return fileInfo{}, false
	}
	return fileInfo{name: name, size: size, mode: fs.FileMode(mode), modTime: time.Unix(0, ns)}, true
}
