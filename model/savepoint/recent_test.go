package savepoint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restoresim/restoresim/internal/realmeta"
	"github.com/restoresim/restoresim/model"
)

// recentFiles reads shared/flink-metadata/recent/INDEX.md: each file and the Flink version that
// wrote it.
func recentFiles(t *testing.T) (string, map[string]model.FlinkVersion) {
	t.Helper()
	dir := realmeta.Sub(t, "recent")
	b, err := os.ReadFile(filepath.Join(dir, "INDEX.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]model.FlinkVersion{}
	for _, line := range strings.Split(string(b), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 6 || !strings.Contains(cells[1], ".metadata") {
			continue
		}
		name := strings.Trim(strings.TrimSpace(cells[1]), "`")
		v, err := model.ParseFlinkVersion(strings.TrimSpace(cells[4]))
		if err != nil {
			t.Fatalf("INDEX.md: %s: %v", name, err)
		}
		out[name] = v
	}
	if len(out) == 0 {
		t.Fatalf("%s/INDEX.md lists no file", dir)
	}
	return dir, out
}

// TestRecentFilesPlanUnderTheirVersion: every file of recent/ plans under the Flink version that
// wrote it (INDEX.md) and every later one, at parallelism 1 and at its own parallelism; every
// version that cannot read its format refuses it with the metadata-version check, naming the
// oldest release that reads it.
func TestRecentFilesPlanUnderTheirVersion(t *testing.T) {
	dir, files := recentFiles(t)
	for name, writer := range files {
		path := filepath.Join(dir, name)
		sp, err := openLocal(t, path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := writer.MetadataWriteVersion(true); sp.FormatVersion != want {
			t.Errorf("%s: format version %d, Flink %v writes %d", name, sp.FormatVersion, writer, want)
		}
		oldest, _ := model.OldestFlinkReading(sp.FormatVersion)
		own := 1
		for _, op := range sp.File.Operators {
			own = max(own, int(op.Parallelism))
		}
		for _, v := range model.FlinkVersions() {
			for _, p := range []int{1, own} {
				code, pl := planFile(t, path, p, v)
				switch {
				case v.AtLeast(writer):
					if code != 0 {
						t.Errorf("%s under %v at p=%d: refused: %s", name, v, p, *pl.Error)
					}
				case !v.ReadsMetadataVersion(sp.FormatVersion):
					if code != 1 || *pl.Check != model.CheckMetadataVersion || !strings.Contains(*pl.Error, "Flink "+oldest.String()+" is the oldest") {
						t.Errorf("%s under %v: exit %d, %v", name, v, code, pl.Error)
					}
				}
				if pl.Flink != v.String() {
					t.Errorf("%s: plan names Flink %s, ran %v", name, pl.Flink, v)
				}
			}
		}
	}
}

// TestKafkaEnum2Restores: the case. kafka-enum2.metadata (format version 5) is refused
// by 1.18–1.20, naming 2.0, and restored by 2.0 and later, the default of plan included.
func TestKafkaEnum2Restores(t *testing.T) {
	path := filepath.Join(realMetadata(t), "kafka-enum2.metadata")
	for _, v := range model.FlinkVersions() {
		code, pl := planFile(t, path, 2, v)
		if v.AtLeast(model.Flink20) != (code == 0) {
			t.Errorf("%v: exit %d (%v)", v, code, pl.Error)
		}
		if code == 1 && !strings.Contains(*pl.Error, "Flink 2.0 is the oldest modelled release that reads it") {
			t.Errorf("%v: %s", v, *pl.Error)
		}
	}
}
