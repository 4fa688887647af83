package objstore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/restoresim/restoresim/internal/fakes3"
	"github.com/restoresim/restoresim/internal/realmeta"
	"github.com/restoresim/restoresim/model/savepoint"
	"github.com/restoresim/restoresim/objstore"
)

// realFiles are real Flink _metadata files of different writers and format versions.
var realFiles = []string{
	"kafka-enum1.metadata", // Flink 1.14 source with coordinator state, format version 3
	"new-stateful-broadcast-udf-migration-itcase-flink1.16-rocksdb-savepoint-native.metadata", // incremental handles
	"type-serializer-snapshot-migration-itcase-flink1.16-rocksdb-savepoint-native.metadata",
}

func readReal(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(realmeta.Sub(t, "real"), name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rendered is what inspect and plan show of a savepoint: the inspection tree and summary, and
// the plan at parallelism 2 as text and JSON, with the savepoint's path and pointer replaced
// by placeholders (they are the only things that name where it was read from).
func rendered(t *testing.T, sp *savepoint.Savepoint) string {
	t.Helper()
	var b bytes.Buffer
	if err := sp.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(savepoint.Summarize(sp.File))
	if err != nil {
		t.Fatal(err)
	}
	b.Write(js)
	for _, p := range []int{2, 1000} {
		pl, err := savepoint.PlanRestore(sp, savepoint.Options{Parallelism: p})
		if err != nil {
			t.Fatal(err)
		}
		if err := pl.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		js, err := json.Marshal(pl)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(js)
	}
	return strings.NewReplacer(sp.Path, "PATH", sp.Pointer, "POINTER").Replace(b.String())
}

// TestOpenS3SameAsLocal: a real savepoint read by s3:// URL from the in-process server gives
// exactly what the same file gives from a local directory, by directory and by file.
func TestOpenS3SameAsLocal(t *testing.T) {
	bothWays(t, func(t *testing.T) {
		s := fakes3.Start(t)
		s.CreateBucket("ckpts")
		ctx := context.Background()
		for _, name := range realFiles {
			b := readReal(t, name)
			dir := filepath.Join(t.TempDir(), "chk-7")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "_metadata"), b, 0o644); err != nil {
				t.Fatal(err)
			}
			key := "flink/" + strings.TrimSuffix(name, ".metadata") + "/chk-7"
			s.Put("ckpts", key+"/_metadata", b)
			local, err := objstore.Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			want := rendered(t, local)
			for _, u := range []string{s.URL("ckpts", key), s.URL("ckpts", key+"/"), s.URL("ckpts", key+"/_metadata")} {
				sp, err := objstore.Open(ctx, u)
				if err != nil {
					t.Fatalf("%s: %v", u, err)
				}
				if got := rendered(t, sp); got != want {
					t.Errorf("%s: inspect and plan differ from the local file's", u)
				}
				label, _, _ := strings.Cut(u, "?")
				if sp.Pointer != "s3://ckpts/"+key || sp.Path != strings.TrimSuffix(strings.TrimSuffix(label, "/"), "/_metadata")+"/_metadata" {
					t.Errorf("%s: pointer %q, path %q", u, sp.Pointer, sp.Path)
				}
			}
		}
	})
}

// TestOpenLatestS3: --latest over a bucket prefix picks chk-12 over chk-9 and chk-2 (a string
// comparison would pick chk-9) and skips chk-13 and chk-20, which hold no _metadata; locally
// the same layout gives the same choice.
func TestOpenLatestS3(t *testing.T) {
	bothWays(t, func(t *testing.T) {
		s := fakes3.Start(t)
		s.CreateBucket("ckpts")
		root := t.TempDir()
		put := func(key string, b []byte) {
			s.Put("ckpts", "job/"+key, b)
			p := filepath.Join(root, filepath.FromSlash(key))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		put("chk-2/_metadata", readReal(t, realFiles[1]))
		put("chk-9/_metadata", readReal(t, realFiles[2]))
		want := readReal(t, realFiles[0])
		put("chk-12/_metadata", want)
		put("chk-13/0b4c9a3e-op-state", []byte("a checkpoint in progress: state, no _metadata yet"))
		put("chk-20/_metadata.inprogress", []byte("x"))
		put("shared/0d1f-sst", []byte("shared state"))
		put("taskowned/x", []byte("task-owned state"))
		ctx := context.Background()
		for _, loc := range []string{s.URL("ckpts", "job"), s.URL("ckpts", "job/"), root} {
			sp, err := objstore.OpenLatest(ctx, loc)
			if err != nil {
				t.Fatalf("%s: %v", loc, err)
			}
			label, _, _ := strings.Cut(loc, "?")
			if sp.Path != strings.TrimSuffix(label, "/")+"/chk-12/_metadata" || !strings.HasSuffix(sp.Pointer, "/job/chk-12") && !strings.HasSuffix(sp.Pointer, "/chk-12") {
				t.Errorf("%s: path %q, pointer %q; want chk-12", loc, sp.Path, sp.Pointer)
			}
			local, err := objstore.Open(ctx, filepath.Join(root, "chk-12"))
			if err != nil {
				t.Fatal(err)
			}
			if rendered(t, sp) != rendered(t, local) {
				t.Errorf("%s: the latest is not chk-12's file", loc)
			}
		}
		// Nothing completed under the prefix: one line naming it.
		s.Put("ckpts", "job2/chk-3/x", []byte("x"))
		_, err := objstore.OpenLatest(ctx, s.URL("ckpts", "job2"))
		var nc *savepoint.NoCompletedCheckpointError
		if !errors.As(err, &nc) || err.Error() != "s3://ckpts/job2: no chk-N directory with a _metadata file (chk-3 has none)" {
			t.Errorf("none completed: %v", err)
		}
	})
}

// TestOpenErrors: what is missing or unreachable is one line naming the URL as given (without
// its query), never a panic.
func TestOpenErrors(t *testing.T) {
	bothWays(t, func(t *testing.T) {
		s := fakes3.Start(t)
		s.CreateBucket("ckpts")
		s.Put("ckpts", "job/chk-1/_metadata", readReal(t, realFiles[0]))
		ctx := context.Background()
		for _, tc := range []struct {
			name, loc, want string
			latest          bool
			is              error
		}{
			{name: "missing object", loc: s.URL("ckpts", "job/chk-2"), want: "s3://ckpts/job/chk-2: no such file or directory", is: fs.ErrNotExist},
			{name: "missing _metadata object", loc: s.URL("ckpts", "job/chk-1/_metadata.bak"), want: "s3://ckpts/job/chk-1/_metadata.bak: no such file or directory", is: fs.ErrNotExist},
			{name: "missing prefix", loc: s.URL("ckpts", "nojob"), latest: true, want: "s3://ckpts/nojob: no such file or directory", is: fs.ErrNotExist},
			{name: "missing bucket", loc: s.URL("nobucket", "job/chk-1"), want: `s3://nobucket/job/chk-1: bucket "nobucket" does not exist`},
			{name: "missing bucket, latest", loc: s.URL("nobucket", "job"), latest: true, want: `s3://nobucket/job: bucket "nobucket" does not exist`},
			{name: "unknown scheme", loc: "hdfs://namenode:8020/flink/chk-1", want: `hdfs://namenode:8020/flink/chk-1: unsupported URL scheme "hdfs" (want s3://, gs://, azblob:// or a local path)`, is: objstore.ErrUnsupportedScheme},
			{name: "no bucket", loc: "s3:///flink/chk-1", want: "s3:///flink/chk-1: no bucket in the URL (want s3://BUCKET/PATH)"},
			{name: "unknown parameter", loc: "s3://ckpts/job?colour=blue", want: `s3://ckpts/job: cannot open the bucket: open bucket s3://ckpts?colour=blue: unknown query parameter "colour"`},
		} {
			open := objstore.Open
			if tc.latest {
				open = objstore.OpenLatest
			}
			sp, err := open(ctx, tc.loc)
			t.Logf("%s: %v", tc.name, err)
			if err == nil || sp != nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") || (tc.is != nil && !errors.Is(err, tc.is)) {
				t.Errorf("%s: %v, %v; want one line starting %q matching %v", tc.name, sp, err, tc.want, tc.is)
			}
		}
	})
}

// TestOpenNoCredentials: without credentials each store says so on one line naming the URL,
// before any request leaves the machine (the AWS SDK's instance-metadata lookup is disabled,
// Google's credentials file named does not exist, Azure has no account).
func TestOpenNoCredentials(t *testing.T) {
	bothWays(t, func(t *testing.T) {
		s := fakes3.Start(t)
		s.CreateBucket("ckpts")
		s.Put("ckpts", "job/chk-1/_metadata", readReal(t, realFiles[0]))
		fakes3.Isolate(t) // no AWS credentials from here on
		t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", filepath.Join(t.TempDir(), "no-such-key.json"))
		t.Setenv("STORAGE_EMULATOR_HOST", "")
		t.Setenv("STORAGE_EMULATOR_HOST_GRPC", "")
		for _, k := range []string{"AZURE_STORAGE_ACCOUNT", "AZURE_STORAGE_KEY", "AZURE_STORAGE_SAS_TOKEN", "AZURE_STORAGE_CONNECTION_STRING", "AZURE_STORAGEBLOB_CONNECTIONSTRING"} {
			t.Setenv(k, "")
		}
		ctx := context.Background()
		for _, tc := range []struct{ loc, want, hint string }{
			{s.URL("ckpts", "job/chk-1"), `s3://ckpts/job/chk-1: cannot access bucket "ckpts": `, "AWS_ACCESS_KEY_ID"},
			{"gs://ckpts/job/chk-1", "gs://ckpts/job/chk-1: cannot open the bucket: ", "GOOGLE_APPLICATION_CREDENTIALS"},
			{"azblob://ckpts/job/chk-1", "azblob://ckpts/job/chk-1: cannot open the bucket: ", "AZURE_STORAGE_ACCOUNT"},
		} {
			sp, err := objstore.Open(ctx, tc.loc)
			t.Logf("%v", err)
			if err == nil || sp != nil || !strings.HasPrefix(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.hint) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s: %v, %v; want one line starting %q naming %s", tc.loc, sp, err, tc.want, tc.hint)
			}
		}
	})
}

// TestOpenLocalErrorsNameAbsolutePaths: a local path's error names it as the file system does,
// from the root (issue 28: a symlink loop's message read "stat tmp/x/loop: …", without the
// leading "/").
func TestOpenLocalErrorsNameAbsolutePaths(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "loop-a"), filepath.Join(dir, "loop-b")
	if err := os.Symlink(b, a); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(a, b); err != nil {
		t.Fatal(err)
	}
	for _, open := range []func(context.Context, string) (*savepoint.Savepoint, error){objstore.Open, objstore.OpenLatest} {
		_, err := open(context.Background(), a)
		if err == nil || !strings.Contains(err.Error(), " "+a+": ") || !errors.Is(err, syscall.ELOOP) {
			t.Errorf("%v; want the error to name %s whole and match ELOOP", err, a)
		}
	}
}

// TestOpenEmptyPath: an empty location is an error, not the working directory.
func TestOpenEmptyPath(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, open := range []func(context.Context, string) (*savepoint.Savepoint, error){objstore.Open, objstore.OpenLatest} {
		if _, err := open(context.Background(), ""); err == nil || err.Error() != "an empty path (want a _metadata file, a checkpoint directory or a URL)" {
			t.Errorf("%v, want the empty path refused", err)
		}
	}
}
