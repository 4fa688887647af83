// Package cloud links the object stores' drivers (gocloud.dev/blob with its s3://, gs:// and
// azblob:// drivers) for package objstore: OpenBucket opens a bucket in process, and Serve is
// the helper process's side of objstore.HelperBucket (the simulate-objstore command). It is the
// only package of the module that imports gocloud.dev and the cloud SDKs (internal/lint checks
// that): they cost every process that links them 14 ms of start-up.
package cloud

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"strconv"
	"strings"

	"gocloud.dev/blob"
	_ "gocloud.dev/blob/azureblob" // registers azblob://
	_ "gocloud.dev/blob/gcsblob"   // registers gs://
	_ "gocloud.dev/blob/s3blob"    // registers s3://
	"gocloud.dev/gcp"

	"github.com/restoresim/restoresim/objstore"
)

// OpenBucket opens the bucket of u (its scheme, host and query) with gocloud.dev's URL
// openers, in process (objstore.OpenBucket's signature).
func OpenBucket(ctx context.Context, scheme string, u *url.URL) (objstore.Bucket, error) {
	if scheme == "gs" && os.Getenv("STORAGE_EMULATOR_HOST") == "" && os.Getenv("STORAGE_EMULATOR_HOST_GRPC") == "" {
		// gcsblob's opener prints a warning on stdout and goes on without credentials when
		// it finds none; look them up first (as it does) and stop with an error instead.
		if _, err := gcp.DefaultCredentials(ctx); err != nil {
			return nil, err
		}
	}
	bu := url.URL{Scheme: scheme, Host: u.Host, RawQuery: u.RawQuery}
	b, err := blob.OpenBucket(ctx, bu.String())
	if err != nil {
		return nil, err
	}
	b.SetIOFSCallback(func() (context.Context, *blob.ReaderOptions) { return ctx, nil })
	return b, nil
}

// Serve is the helper's side of objstore.HelperBucket's protocol: requests on in, replies on
// out, until in ends. The first request opens the bucket (OpenBucket).
func Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	r := bufio.NewReader(in)
	w := bufio.NewWriterSize(out, 64<<10)
	s := server{ctx: ctx, w: w, files: map[string]*open{}}
	defer s.closeAll()
	for {
		line, err := r.ReadString('\n')
		if err == io.EOF && line == "" {
			return nil
		}
		if err != nil && err != io.EOF {
			return err
		}
		if err := s.do(strings.Split(strings.TrimSuffix(line, "\n"), "\t")); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
}

type server struct {
	ctx    context.Context
	w      *bufio.Writer
	bucket objstore.Bucket
	files  map[string]*open
	next   int
	buf    []byte
}

// open is a file the client holds open, and the error its last read ended with.
type open struct {
	f   fs.File
	err error
}

func (s *server) closeAll() {
	for _, o := range s.files {
		o.f.Close()
	}
	if s.bucket != nil {
		s.bucket.Close()
	}
}

func (s *server) errReply(err error) {
	ne := "0"
	if errors.Is(err, fs.ErrNotExist) {
		ne = "1"
	}
	fmt.Fprintf(s.w, "err\t%s\t%s\n", ne, strconv.Quote(err.Error()))
}

// do answers one request; an error ends the helper (a request it cannot parse).
func (s *server) do(f []string) error {
	arg := func(i int) (string, error) {
		if i >= len(f) {
			return "", fmt.Errorf("%s: bad request %q", objstore.HelperName, strings.Join(f, "\t"))
		}
		return f[i], nil
	}
	if f[0] != "bucket" && s.bucket == nil {
		return fmt.Errorf("%s: %q before a bucket is open", objstore.HelperName, f[0])
	}
	switch f[0] {
	case "bucket":
		a, err := arg(1)
		if err != nil {
			return err
		}
		u, err := url.Parse(a)
		if err != nil {
			s.errReply(err)
			return nil
		}
		b, err := OpenBucket(s.ctx, u.Scheme, u)
		if err != nil {
			s.errReply(err)
			return nil
		}
		s.bucket = b
		s.w.WriteString("ok\n")
	case "open":
		a, err := arg(1)
		if err != nil {
			return err
		}
		name, err := strconv.Unquote(a)
		if err != nil {
			return fmt.Errorf("%s: bad name %q", objstore.HelperName, a)
		}
		s.open(name)
	case "read":
		id, err := arg(1)
		if err != nil {
			return err
		}
		a, err := arg(2)
		if err != nil {
			return err
		}
		n, err := strconv.Atoi(a)
		if err != nil || n <= 0 {
			return fmt.Errorf("%s: bad read size %q", objstore.HelperName, a)
		}
		s.read(id, n)
	case "close":
		id, err := arg(1)
		if err != nil {
			return err
		}
		o := s.files[id]
		if o == nil {
			s.errReply(fs.ErrClosed)
			return nil
		}
		delete(s.files, id)
		if err := o.f.Close(); err != nil {
			s.errReply(err)
			return nil
		}
		s.w.WriteString("ok\n")
	case "accessible":
		ok, err := s.bucket.IsAccessible(s.ctx)
		if err != nil {
			s.errReply(err)
			return nil
		}
		fmt.Fprintf(s.w, "ok\t%t\n", ok)
	default:
		return fmt.Errorf("%s: unknown request %q", objstore.HelperName, f[0])
	}
	return nil
}

// open opens name in the bucket and replies with what the client's file needs: its FileInfo,
// and a directory's entries.
func (s *server) open(name string) {
	file, err := s.bucket.Open(name)
	if err != nil {
		s.errReply(err)
		return
	}
	fi, err := file.Stat()
	if err != nil {
		file.Close()
		s.errReply(err)
		return
	}
	s.next++
	id := strconv.Itoa(s.next)
	s.files[id] = &open{f: file}
	if !fi.IsDir() {
		fmt.Fprintf(s.w, "file\t%s\t%s\n", id, objstore.FormatInfo(fi))
		return
	}
	var entries []fs.DirEntry
	var direrr string
	if d, ok := file.(fs.ReadDirFile); ok {
		es, err := d.ReadDir(-1)
		if err != nil {
			direrr = err.Error()
		}
		entries = es
	} else {
		direrr = (&fs.PathError{Op: "readdir", Path: name, Err: errors.New("not implemented")}).Error()
	}
	infos := make([]string, 0, len(entries))
	for _, e := range entries {
		ei, err := e.Info()
		if err != nil {
			direrr = err.Error()
			infos = infos[:0]
			break
		}
		infos = append(infos, objstore.FormatInfo(ei))
	}
	fmt.Fprintf(s.w, "dir\t%s\t%s\t%d\t%s\n", id, objstore.FormatInfo(fi), len(infos), strconv.Quote(direrr))
	for _, i := range infos {
		s.w.WriteString(i + "\n")
	}
}

// read replies with up to n bytes of file id.
func (s *server) read(id string, n int) {
	o := s.files[id]
	if o == nil {
		s.errReply(fs.ErrClosed)
		return
	}
	if cap(s.buf) < n {
		s.buf = make([]byte, n)
	}
	buf := s.buf[:n]
	k := 0
	for k == 0 && o.err == nil {
		k, o.err = o.f.Read(buf)
	}
	switch {
	case k > 0:
		fmt.Fprintf(s.w, "data\t%d\n", k)
		s.w.Write(buf[:k])
	case o.err == io.EOF:
		s.w.WriteString("eof\n")
	default:
		s.errReply(o.err)
	}
}
