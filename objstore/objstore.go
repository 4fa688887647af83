// Package objstore opens a Flink checkpoint or savepoint where it lives: on the local file
// system, or in an object store by URL — s3://bucket/key (Amazon S3 and S3-compatible stores),
// gs://bucket/key (Google Cloud Storage), azblob://container/key (Azure Blob Storage) — through
// gocloud.dev/blob. It is the I/O side of model/savepoint, whose Storage.Open and
// Storage.OpenLatest resolve the pointer as Flink does over the io/fs.FS a bucket gives.
//
// Credentials and settings come from the standard environment, as gocloud.dev's URL openers
// read it: for s3:// the AWS SDK's chain (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
// AWS_SESSION_TOKEN, AWS_PROFILE, AWS_REGION, ~/.aws, the instance or container role); for
// gs:// Google's Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud's
// application-default login, the metadata server); for azblob:// AZURE_STORAGE_ACCOUNT with
// AZURE_STORAGE_KEY, AZURE_STORAGE_SAS_TOKEN or AZURE_STORAGE_CONNECTION_STRING, else Azure's
// default credential (AZURE_CLIENT_ID, AZURE_TENANT_ID, …). The URL's query parameters go to the
// driver: s3:// takes region, endpoint, use_path_style (or s3ForcePathStyle), disable_https,
// anonymous, profile, …; azblob:// takes domain, protocol, localemu, storage_account. They
// select the store and are not part of the checkpoint's name: s3://b/ckpt?region=eu-west-1
// names the pointer s3://b/ckpt.
//
// Unlike the model, this package does I/O: it is a library package beside model, not in it.
// The object stores' drivers are not linked into it: gocloud.dev and the cloud SDKs cost a
// process 14 ms of start-up (their package initialisation and size: three times a whole
// `simulate` start-up without them), which every command of the tool paid, reading a bucket or
// not. A bucket is opened through OpenBucket: by default in a helper process, the
// simulate-objstore command (cmd/simulate-objstore, which links the drivers: package
// objstore/cloud), serving the bucket's files to this process (HelperBucket); a program that
// links objstore/cloud can set OpenBucket to cloud.OpenBucket and read buckets in process.
// objstore/cloud is the only package of the module that imports gocloud.dev
// (internal/lint checks that).
package objstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/restoresim/restoresim/model/savepoint"
)

// Schemes are the URL schemes Open reads, besides local paths and "file:" URIs.
var Schemes = []string{"s3", "gs", "azblob"}

// ErrUnsupportedScheme is the error (wrapped) for a URL whose scheme Open does not read.
var ErrUnsupportedScheme = errors.New("unsupported URL scheme")

// Open opens the checkpoint or savepoint at loc, as savepoint.Open does: loc is a _metadata file
// or a checkpoint directory holding one, given as a local path (relative to the working
// directory or absolute), a "file:" URI, or a URL of an object store (see the package comment).
// Savepoint.Path names the metadata file from loc as given (without the URL's query);
// Savepoint.Pointer is Flink's name of the checkpoint directory ("s3://b/ckpt/chk-7").
//
// Every error is one line naming loc: a path or object that does not exist (matching
// io/fs.ErrNotExist), a bucket that does not exist or cannot be reached with the credentials at
// hand, a URL whose scheme is not one of Schemes (matching ErrUnsupportedScheme), an empty loc
// (ErrEmptyPath).
func Open(ctx context.Context, loc string) (*savepoint.Savepoint, error) {
	return open(ctx, loc, savepoint.Storage.Open)
}

// OpenLatest opens the newest completed checkpoint under root, a checkpoint root (the
// directory or URL prefix holding a job's chk-N directories), as savepoint.Storage.OpenLatest
// picks it: the highest N whose chk-N holds a _metadata file. root is given as loc is to Open;
// none completed is a *savepoint.NoCompletedCheckpointError.
func OpenLatest(ctx context.Context, root string) (*savepoint.Savepoint, error) {
	return open(ctx, root, savepoint.Storage.OpenLatest)
}

// ErrEmptyPath is the error of an empty location: not the working directory.
var ErrEmptyPath = errors.New("an empty path (want a _metadata file, a checkpoint directory or a URL)")

func open(ctx context.Context, loc string, do func(savepoint.Storage, string, string) (*savepoint.Savepoint, error)) (*savepoint.Savepoint, error) {
	if loc == "" {
		return nil, ErrEmptyPath
	}
	scheme, ok := urlScheme(loc)
	switch {
	case !ok:
		abs, err := filepath.Abs(loc)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", loc, err)
		}
		return do(savepoint.Storage{FS: rootFS{os.DirFS("/")}, Scheme: "file"}, filepath.ToSlash(abs), loc)
	case scheme == "file":
		return do(savepoint.Storage{FS: rootFS{os.DirFS("/")}, Scheme: "file"}, loc, loc)
	}
	label, _, _ := strings.Cut(loc, "?")
	u, err := url.Parse(loc)
	if err != nil {
		return nil, fmt.Errorf("%s: not a URL: %v", label, err)
	}
	scheme = strings.ToLower(u.Scheme)
	if !slices.Contains(Schemes, scheme) {
		return nil, fmt.Errorf("%s: %w %q (want %s:// or a local path)", label, ErrUnsupportedScheme, u.Scheme, strings.Join(Schemes, "://, "))
	}
	if u.Host == "" {
		return nil, fmt.Errorf("%s: no bucket in the URL (want %s://BUCKET/PATH)", label, scheme)
	}
	b, err := OpenBucket(ctx, scheme, u)
	if errors.Is(err, ErrNoHelper) {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: cannot open the bucket: %v (%s)", label, err, credentialHint[scheme])
	}
	defer b.Close()
	w := &watchFS{b: b}
	sp, err := do(savepoint.Storage{FS: w, Scheme: scheme, Authority: u.Host}, scheme+"://"+u.Host+u.Path, label)
	if err != nil && w.failed {
		// The store refused a request: say whether the bucket exists and can be listed,
		// rather than passing on the driver's error for the first object it looked at.
		switch ok, aerr := b.IsAccessible(ctx); {
		case aerr != nil:
			return nil, fmt.Errorf("%s: cannot access bucket %q: %v (%s)", label, u.Host, aerr, credentialHint[scheme])
		case !ok:
			return nil, fmt.Errorf("%s: bucket %q does not exist", label, u.Host)
		}
		return nil, fmt.Errorf("%v (%s)", err, credentialHint[scheme])
	}
	return sp, err
}

// watchFS is a bucket's io/fs.FS that notes whether the store failed a request (an error other
// than a missing object: a missing bucket, refused credentials, an unreachable endpoint).
type watchFS struct {
	b      Bucket
	failed bool
}

func (w *watchFS) Open(name string) (fs.File, error) {
	f, err := w.b.Open(name)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		w.failed = true
	}
	return f, err
}

// rootFS is the local file system from its root (os.DirFS("/")), whose errors name a path as
// the user knows it: "/tmp/x", not the FS name "tmp/x".
type rootFS struct{ fsys fs.FS }

func (r rootFS) Open(name string) (fs.File, error) {
	f, err := r.fsys.Open(name)
	return f, absolute(err)
}

func (r rootFS) Stat(name string) (fs.FileInfo, error) {
	fi, err := fs.Stat(r.fsys, name)
	return fi, absolute(err)
}

func (r rootFS) ReadDir(name string) ([]fs.DirEntry, error) {
	es, err := fs.ReadDir(r.fsys, name)
	return es, absolute(err)
}

// absolute puts the leading "/" back on the path of an *fs.PathError of rootFS.
func absolute(err error) error {
	if pe, ok := err.(*fs.PathError); ok && !strings.HasPrefix(pe.Path, "/") {
		return &fs.PathError{Op: pe.Op, Path: "/" + pe.Path, Err: pe.Err}
	}
	return err
}

// credentialHint says where each scheme's credentials come from, for errors.
var credentialHint = map[string]string{
	"s3":     "s3:// reads credentials and region from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_PROFILE, AWS_REGION, ~/.aws or the instance role; ?region=, ?endpoint= and ?use_path_style=true select the store",
	"gs":     "gs:// reads Application Default Credentials: GOOGLE_APPLICATION_CREDENTIALS, 'gcloud auth application-default login' or the metadata server",
	"azblob": "azblob:// reads AZURE_STORAGE_ACCOUNT with AZURE_STORAGE_KEY, AZURE_STORAGE_SAS_TOKEN or AZURE_STORAGE_CONNECTION_STRING, else Azure's default credential (AZURE_CLIENT_ID, AZURE_TENANT_ID, …)",
}

// Bucket is an object store's bucket as open reads it: its objects as an io/fs.FS (as
// gocloud.dev/blob's Bucket serves them), whether it exists and can be listed, and Close.
type Bucket interface {
	fs.FS
	IsAccessible(ctx context.Context) (bool, error)
	Close() error
}

// OpenBucket opens the bucket of u (its scheme, one of Schemes, its host and its query: the
// driver's settings) for Open and OpenLatest. It is HelperBucket unless a program sets it
// (cloud.OpenBucket opens it in process).
var OpenBucket func(ctx context.Context, scheme string, u *url.URL) (Bucket, error) = HelperBucket

// urlScheme gives the scheme of loc when loc is a URL ("scheme://…") or a "file:" URI; ok is
// false for a local path (which may hold a ':' — "C:\x", "a:b" — but never "://" after a
// scheme).
func urlScheme(loc string) (scheme string, ok bool) {
	if strings.HasPrefix(loc, "file:") {
		return "file", true
	}
	i := strings.Index(loc, "://")
	if i <= 0 {
		return "", false
	}
	for k, c := range loc[:i] {
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (k == 0 || !('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return "", false
		}
	}
	return strings.ToLower(loc[:i]), true
}
