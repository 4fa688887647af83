package mutants

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/reference"
)

// TestApply: every mutant applies to a scratch copy of release-1.18's sources, changes one to
// five lines, and does not apply twice (its hunks no longer match).
func TestApply(t *testing.T) {
	if len(All()) < 8 {
		t.Fatalf("%d mutants, want at least 8", len(All()))
	}
	src, err := reference.FindSource(model.Flink118, "")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	dir := t.TempDir()
	if err := reference.ExtractTree(src, dir); err != nil {
		t.Fatal(err)
	}
	for _, m := range All() {
		changed := 0
		for _, l := range strings.Split(m.Patch, "\n") {
			if (strings.HasPrefix(l, "+") || strings.HasPrefix(l, "-")) && !strings.HasPrefix(l, "+++") && !strings.HasPrefix(l, "---") {
				changed++
			}
		}
		if changed < 1 || changed > 10 {
			t.Errorf("%s: %d changed lines, want 1-5 lines changed (up to 10 +/- lines)", m.Name, changed)
		}
		fps, err := parse(m.Patch)
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		before, _ := os.ReadFile(filepath.Join(dir, fps[0].path))
		if err := Apply(dir, m); err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		after, _ := os.ReadFile(filepath.Join(dir, fps[0].path))
		if string(before) == string(after) {
			t.Errorf("%s: the file did not change", m.Name)
		}
		if err := Apply(dir, m); !errors.Is(err, ErrPatch) {
			t.Errorf("%s applied twice: %v, want ErrPatch", m.Name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, fps[0].path), before, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestParse: a hunk names its file, keeps context on both sides.
func TestParse(t *testing.T) {
	fps, err := parse("--- a/x/Y.java\n+++ b/x/Y.java\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n d\n")
	if err != nil || len(fps) != 1 || fps[0].path != "x/Y.java" || strings.Join(fps[0].hunks[0].old, ",") != "a,b,d" || strings.Join(fps[0].hunks[0].new, ",") != "a,c,d" {
		t.Fatalf("parse: %+v, %v", fps, err)
	}
	if _, err := parse("no patch"); !errors.Is(err, ErrPatch) {
		t.Errorf("parse(no patch): %v", err)
	}
}
