package sim

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/restoresim/restoresim/model"
)

// TestMemFSDirectories checks memFS's directory index against the definition it replaces: a
// directory is a path some file lies below (a prefix ending before a '/'), removeAll deletes
// the path and every file below it, removeDirs every file below the directories.
func TestMemFSDirectories(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	parts := []string{"file:", "", "a", "b", "chk-1", "local", "x"}
	randPath := func() string {
		n := 1 + r.IntN(4)
		ps := make([]string, n)
		for i := range ps {
			ps[i] = parts[r.IntN(len(parts))]
		}
		return strings.Join(ps, "/")
	}
	for c := range 200 {
		fs := newMemFS(model.Flink118)
		want := map[string]bool{}
		below := func(dir string) bool {
			prefix := strings.TrimSuffix(dir, "/") + "/"
			for p := range want {
				if strings.HasPrefix(p, prefix) {
					return true
				}
			}
			return false
		}
		for op := range 60 {
			p := randPath()
			switch r.IntN(5) {
			case 0, 1:
				fs.put(p, nil, 1)
				want[p] = true
			case 2:
				fs.remove(p)
				delete(want, p)
			case 3:
				fs.removeAll(p)
				prefix := strings.TrimSuffix(p, "/") + "/"
				for q := range want {
					if q == p || strings.HasPrefix(q, prefix) {
						delete(want, q)
					}
				}
			case 4:
				q := randPath()
				fs.removeDirs(map[string]bool{p: true, q: true})
				for f := range want {
					for d := f; ; {
						i := strings.LastIndexByte(d, '/')
						if i <= 0 {
							break
						}
						if d = d[:i]; d == p || d == q {
							delete(want, f)
							break
						}
					}
				}
			}
			if len(fs.files) != len(want) {
				t.Fatalf("case %d, op %d: %d files, want %d", c, op, len(fs.files), len(want))
			}
			for f := range want {
				if _, ok := fs.files[f]; !ok {
					t.Fatalf("case %d, op %d: %s missing", c, op, f)
				}
			}
			for range 5 {
				d := randPath()
				if got, w := fs.isDir(d), below(d); got != w {
					t.Fatalf("case %d, op %d: isDir(%q) = %v, want %v", c, op, d, got, w)
				}
			}
		}
	}
}
