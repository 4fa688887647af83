package objstore_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/restoresim/restoresim/objstore"
	"github.com/restoresim/restoresim/objstore/cloud"
)

// TestMain opens buckets in process (cloud.OpenBucket) unless a test says otherwise (bothWays).
func TestMain(m *testing.M) {
	objstore.OpenBucket = cloud.OpenBucket
	code := m.Run()
	if helper.dir != "" {
		os.RemoveAll(helper.dir)
	}
	os.Exit(code)
}

// helper is the simulate-objstore command, built once for the tests that run it.
var helper struct {
	once     sync.Once
	dir, bin string
	err      error
}

// helperBin builds cmd/simulate-objstore (once) and returns its path.
func helperBin(t *testing.T) string {
	t.Helper()
	helper.once.Do(func() {
		if helper.dir, helper.err = os.MkdirTemp("", "objstore-helper"); helper.err != nil {
			return
		}
		helper.bin = filepath.Join(helper.dir, objstore.HelperName)
		out, err := exec.Command("go", "build", "-o", helper.bin, "github.com/restoresim/restoresim/cmd/simulate-objstore").CombinedOutput()
		if err != nil {
			helper.err = errors.New(err.Error() + "\n" + string(out))
		}
	})
	if helper.err != nil {
		t.Fatalf("building %s: %v", objstore.HelperName, helper.err)
	}
	return helper.bin
}

// bothWays runs f with buckets opened in process (cloud.OpenBucket) and through the helper
// command (objstore.HelperBucket): both must give the same savepoints and the same errors.
func bothWays(t *testing.T, f func(t *testing.T)) {
	t.Run("in-process", func(t *testing.T) { f(t) })
	t.Run("helper", func(t *testing.T) {
		if testing.Short() {
			t.Skip("builds the simulate-objstore command")
		}
		t.Setenv("SIMULATE_OBJSTORE", helperBin(t))
		objstore.OpenBucket = objstore.HelperBucket
		defer func() { objstore.OpenBucket = cloud.OpenBucket }()
		f(t)
	})
}

// TestNoHelper: without the helper command, a URL is one line saying what to install; a local
// path needs no helper.
func TestNoHelper(t *testing.T) {
	objstore.OpenBucket = objstore.HelperBucket
	defer func() { objstore.OpenBucket = cloud.OpenBucket }()
	t.Setenv("SIMULATE_OBJSTORE", "")
	t.Setenv("PATH", t.TempDir())
	_, err := objstore.Open(context.Background(), "s3://ckpts/job/chk-1?region=eu-west-1")
	if !errors.Is(err, objstore.ErrNoHelper) || !strings.HasPrefix(err.Error(), "s3://ckpts/job/chk-1: reading s3://, gs:// and azblob:// URLs needs the simulate-objstore command") {
		t.Errorf("%v, want ErrNoHelper naming the URL", err)
	}
	if _, err := objstore.Open(context.Background(), filepath.Join(t.TempDir(), "chk-1")); errors.Is(err, objstore.ErrNoHelper) {
		t.Errorf("a local path: %v", err)
	}
}
