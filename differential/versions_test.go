package differential

import (
	"os"
	"strings"
	"testing"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/reference"
)

// versions are the versions the package's tests run Flink's code of: every version with sources,
// or those named in $RESTORESIM_REFERENCE_VERSIONS (comma-separated, e.g. "1.18,master").
func versions(t *testing.T) []model.FlinkVersion {
	t.Helper()
	env := os.Getenv("RESTORESIM_REFERENCE_VERSIONS")
	if env == "" {
		return reference.Versions()
	}
	var vs []model.FlinkVersion
	for _, s := range strings.Split(env, ",") {
		v, err := model.ParseFlinkVersion(strings.TrimSpace(s))
		if err != nil {
			t.Fatal(err)
		}
		vs = append(vs, v)
	}
	return vs
}
