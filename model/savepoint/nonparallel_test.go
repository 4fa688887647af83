package savepoint

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/restoresim/restoresim/internal/realmeta"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
)

// TestDefaultVerticesNonParallel: without a job, a state of max parallelism 1 gets a task at
// parallelism 1 with max parallelism 1 configured (source non-parallel), the others the default
// parallelism with Flink's default max parallelism, not configured.
func TestDefaultVerticesNonParallel(t *testing.T) {
	f := &metadata.File{Operators: []metadata.Operator{
		{ID: model.OperatorIDFromUID("agg"), Parallelism: 1, MaxParallelism: 1},
		{ID: model.OperatorIDFromUID("map"), Parallelism: 1, MaxParallelism: 128},
		{ID: model.OperatorIDFromUID("two"), Parallelism: 2, MaxParallelism: 2},
	}}
	type got struct {
		p, m       int
		configured bool
		src        ParallelismSource
	}
	want := []got{{1, 1, true, SourceNonParallel}, {3, 128, false, SourceDefault}, {3, 128, false, SourceDefault}}
	for i, v := range DefaultVertices(f, 3) {
		if g := (got{v.Parallelism, v.MaxParallelism, v.MaxParallelismConfigured, v.ParallelismSource}); g != want[i] {
			t.Errorf("operator %d: %+v, want %+v", i, g, want[i])
		}
	}
}

// TestNonParallelRealFiles is issue 28's item 3 over every real file: at --parallelism 3
// without a job no operator whose state recorded max parallelism 1 is refused for its max
// parallelism (each runs at 1, non-parallel, with the note), and every one of Flink's own SQL
// restore-test savepoints (restore-tests.*) restores under Flink 2.3.
func TestNonParallelRealFiles(t *testing.T) {
	var files []string
	for _, sub := range []string{"real", "recent"} {
		got, err := filepath.Glob(filepath.Join(realmeta.Sub(t, sub), "*.metadata"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, got...)
	}
	sql, nonParallel := 0, 0
	for _, path := range files {
		name := filepath.Base(path)
		code, pl := planFile(t, path, 3, model.Flink23)
		if pl.Check != nil && *pl.Check == model.CheckMetadataVersion {
			continue
		}
		if strings.HasPrefix(name, "restore-tests.") {
			sql++
			if code != 0 {
				t.Errorf("%s: exit %d: %s", name, code, *pl.Error)
			}
		}
		for _, o := range pl.Operators {
			if o.MaxParallelism != 1 {
				continue
			}
			nonParallel++
			if o.Status != "restored" || o.Parallelism != 1 || o.ParallelismSource != SourceNonParallel || !strings.Contains(strings.Join(o.Notes, "\n"), NonParallelNote) {
				t.Errorf("%s: operator %s (max parallelism 1): %s at %d (%s), check %v, notes %q", name, o.OperatorID, o.Status, o.Parallelism, o.ParallelismSource, o.Check, o.Notes)
			}
		}
	}
	t.Logf("%d files, %d SQL restore tests, %d operators of max parallelism 1", len(files), sql, nonParallel)
	if sql < 100 || nonParallel < 100 {
		t.Errorf("%d SQL files, %d max-parallelism-1 operators: the real files exercise too little", sql, nonParallel)
	}
}
