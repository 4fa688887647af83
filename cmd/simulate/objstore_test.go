package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restoresim/restoresim/internal/fakes3"
	"github.com/restoresim/restoresim/objstore"
	"github.com/restoresim/restoresim/objstore/cloud"
)

// s3Fixture puts real files into a fake S3 bucket "ckpts" and into a local directory with the
// same layout (key → file), and returns the server and the local root.
func s3Fixture(t *testing.T, files map[string]string) (*fakes3.Server, string) {
	t.Helper()
	real := realMetadata(t)
	s := fakes3.Start(t)
	s.CreateBucket("ckpts")
	root := t.TempDir()
	for key, name := range files {
		var b []byte
		if strings.HasSuffix(name, ".metadata") {
			var err error
			if b, err = os.ReadFile(filepath.Join(real, name)); err != nil {
				t.Fatal(err)
			}
		} else {
			b = []byte(name) // not a metadata file: its content is its name
		}
		s.Put("ckpts", key, b)
		p := filepath.Join(root, filepath.FromSlash(key))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return s, root
}

// TestSavepointURLSameAsLocal: every command that reads a savepoint prints exactly the same
// for an s3:// URL on the in-process server as for the local directory holding the same files,
// but for the name of the checkpoint (the path as given, and Flink's pointer in refusals).
func TestSavepointURLSameAsLocal(t *testing.T) {
	s, root := s3Fixture(t, map[string]string{
		"job/chk-1/_metadata": "kafka-enum1.metadata",
		"sp/_metadata":        "type-serializer-snapshot-migration-itcase-flink1.16-rocksdb-savepoint-native.metadata",
	})
	norm := func(out, local, url string) string {
		label, _, _ := strings.Cut(url, "?")
		return strings.NewReplacer("file:"+local, "POINTER", local, "PATH", "s3://ckpts/"+strings.TrimPrefix(label, "s3://ckpts/"), "PATH").Replace(out)
	}
	for _, tc := range []struct {
		key  string
		args []string
		code int
	}{
		{"job/chk-1", []string{"inspect", "@"}, 0},
		{"job/chk-1", []string{"inspect", "@", "--format", "json"}, 0},
		{"job/chk-1/_metadata", []string{"inspect", "@"}, 0},
		{"job/chk-1", []string{"plan", "@", "--parallelism", "2"}, 0},
		{"job/chk-1", []string{"plan", "@", "--parallelism", "200", "--format", "json"}, 1},
		{"sp", []string{"plan", "@", "--parallelism", "4", "--vertex", "20ba6b65f97481d5570070de90e4e791=4", "--format", "json"}, 1},
		{"sp", []string{"plan", "@", "--keep-parallelism"}, 0},
		{"sp", []string{"locate", "42", "@", "--key-type", "int", "--parallelism", "1"}, 0},
		{"job/chk-1", []string{"moved", "--from-savepoint", "@", "--to", "2,5"}, 0},
		{"job/chk-1", []string{"diff", "@", "@"}, 0},
	} {
		local, url := filepath.Join(root, filepath.FromSlash(tc.key)), s.URL("ckpts", tc.key)
		with := func(p string) []string {
			args := append([]string(nil), tc.args...)
			for i, a := range args {
				if a == "@" {
					args[i] = p
				}
			}
			return args
		}
		lcode, lout, lerr := runCLI(t, "", with(local)...)
		ucode, uout, uerr := runCLI(t, "", with(url)...)
		if lcode != tc.code || ucode != tc.code || lerr != "" || uerr != "" {
			t.Errorf("%v: exit %d (local), %d (s3), want %d; stderr %q, %q", tc.args, lcode, ucode, tc.code, lerr, uerr)
		}
		if norm(lout, local, url) != norm(uout, local, url) || lout == "" {
			t.Errorf("%v: the s3:// URL prints something else than the local path:\nlocal:\n%s\ns3:\n%s", tc.args, lout, uout)
		}
	}
	// The name shows the URL without its query, and refusals name Flink's s3:// pointer.
	_, out, _ := runCLI(t, "", "inspect", s.URL("ckpts", "job/chk-1"))
	if !strings.HasPrefix(out, "s3://ckpts/job/chk-1/_metadata: format version 4") {
		t.Errorf("inspect names the checkpoint %q", strings.SplitN(out, "\n", 2)[0])
	}
	code, out, _ := runCLI(t, "", "plan", s.URL("ckpts", "sp"), "--parallelism", "4", "--vertex", "20ba6b65f97481d5570070de90e4e791=4")
	if code != 1 || !strings.Contains(out, "s3://ckpts/sp/_metadata: format version 4") {
		t.Errorf("refused plan (exit %d) does not name s3://ckpts/sp:\n%s", code, out)
	}
}

// TestLatestFlag: --latest picks chk-12 over chk-9 and chk-2 (by number) and skips chk-13,
// which has no _metadata, in a bucket and in a local directory alike; none completed is one
// line and exit 2.
func TestLatestFlag(t *testing.T) {
	s, root := s3Fixture(t, map[string]string{
		"job/chk-2/_metadata":  "kafka-enum1.metadata",
		"job/chk-9/_metadata":  "target.test-classes.stateful-scala-udf-migration-itcase-flink1.8-rocksdb-savepoint.metadata",
		"job/chk-12/_metadata": "type-serializer-snapshot-migration-itcase-flink1.16-rocksdb-savepoint-native.metadata",
		"job/chk-13/0b4c-op":   "state of a checkpoint in progress",
		"job/shared/0d1f-sst":  "shared state",
		"job2/chk-3/x":         "x",
	})
	chk12 := filepath.Join(root, "job", "chk-12")
	for _, loc := range []string{s.URL("ckpts", "job"), filepath.Join(root, "job")} {
		label, _, _ := strings.Cut(loc, "?")
		for _, args := range [][]string{
			{"inspect", "@"},
			{"plan", "@", "--keep-parallelism"},
			{"locate", "7", "@", "--key-type", "int", "--parallelism", "1"},
		} {
			with := func(p string, more ...string) []string {
				out := append([]string(nil), args...)
				for i, a := range out {
					if a == "@" {
						out[i] = p
					}
				}
				return append(out, more...)
			}
			code, got, errs := runCLI(t, "", with(loc, "--latest")...)
			_, want, _ := runCLI(t, "", with(chk12)...)
			if code != 0 || errs != "" {
				t.Errorf("%v --latest: exit %d, %s", with(loc), code, errs)
			}
			if strings.ReplaceAll(got, label+"/chk-12", "CHK") != strings.ReplaceAll(want, chk12, "CHK") || want == "" {
				t.Errorf("%v --latest does not read chk-12:\n%s\nwant:\n%s", with(loc), got, want)
			}
			if args[0] == "inspect" && !strings.HasPrefix(got, label+"/chk-12/_metadata: format version 4 (Flink 1.16–1.20), checkpoint 2,") {
				t.Errorf("%v --latest: %q", with(loc), strings.SplitN(got, "\n", 2)[0])
			}
		}
	}
	code, out, errs := runCLI(t, "", "inspect", s.URL("ckpts", "job2"), "--latest")
	wantUsageError(t, "simulate inspect: s3://ckpts/job2: no chk-N directory with a _metadata file (chk-3 has none)", code, out, errs)
	code, out, errs = runCLI(t, "", "plan", filepath.Join(root, "job", "shared"), "--latest", "--parallelism", "2")
	wantUsageError(t, "shared: no chk-N directory with a _metadata file (none at all)", code, out, errs)
	code, out, errs = runCLI(t, "", "inspect", "-", "--latest")
	wantUsageError(t, "simulate inspect: --latest lists a checkpoint root: it cannot read stdin", code, out, errs)
}

// TestSavepointURLErrors: a missing object, bucket or credentials and an unknown scheme are one
// line naming the URL, exit 2, for each command that reads a savepoint.
func TestSavepointURLErrors(t *testing.T) {
	s, _ := s3Fixture(t, map[string]string{"job/chk-1/_metadata": "kafka-enum1.metadata"})
	for _, tc := range []struct{ loc, want string }{
		{s.URL("ckpts", "job/chk-7"), ": s3://ckpts/job/chk-7: no such file or directory"},
		{s.URL("nobucket", "job/chk-1"), `: s3://nobucket/job/chk-1: bucket "nobucket" does not exist`},
		{"hdfs://nn:8020/flink/chk-1", `: hdfs://nn:8020/flink/chk-1: unsupported URL scheme "hdfs"`},
	} {
		for _, args := range [][]string{
			{"inspect", tc.loc}, {"plan", tc.loc, "--parallelism", "2"}, {"locate", "1", tc.loc, "--key-type", "int"},
			{"diff", tc.loc, s.URL("ckpts", "job/chk-1")}, {"moved", "--from-savepoint", tc.loc, "--to", "2"},
		} {
			code, out, errs := runCLI(t, "", args...)
			wantUsageError(t, "simulate "+args[0]+tc.want, code, out, errs)
		}
	}
	fakes3.Isolate(t) // no credentials
	code, out, errs := runCLI(t, "", "inspect", s.URL("ckpts", "job/chk-1"))
	wantUsageError(t, `simulate inspect: s3://ckpts/job/chk-1: cannot access bucket "ckpts": `, code, out, errs)
}

// The tests read buckets in process: the simulate binary runs simulate-objstore for them
// (objstore.HelperBucket, whose protocol objstore's tests check both ways).
func init() { objstore.OpenBucket = cloud.OpenBucket }
