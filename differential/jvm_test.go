package differential

import (
	"os"
	"sync"
	"testing"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/reference"
)

var (
	jvmsMu sync.Mutex
	jvms   = map[model.FlinkVersion]*reference.JVM{}
)

// jvm returns the reference JVM of a version, started once for the package's tests. Without
// Java or Flink's sources the test is skipped with one line naming what is missing; with CI set
// it fails (CI must run Flink's code).
func jvm(t *testing.T, v model.FlinkVersion) *reference.JVM {
	t.Helper()
	jvmsMu.Lock()
	defer jvmsMu.Unlock()
	if j := jvms[v]; j != nil {
		return j
	}
	j, err := reference.Start(v, reference.Options{})
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	jvms[v] = j
	return j
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, j := range jvms {
		j.Close()
	}
	os.Exit(code)
}
