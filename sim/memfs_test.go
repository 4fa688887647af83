package sim

import (
	"math/rand/v2"
	"strconv"
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

// TestMemFSChurn deletes and creates again the files of one large directory one by one (a
// directory's list of files is compacted as it fills with deleted ones).
func TestMemFSChurn(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	fs := newMemFS(model.Flink118)
	want := map[string]bool{}
	for op := range 5000 {
		p := "shared/b/" + strconv.Itoa(r.IntN(300))
		if r.IntN(3) == 0 {
			fs.put(p, nil, 1)
			want[p] = true
		} else {
			fs.remove(p)
			delete(want, p)
		}
		if fs.isDir("shared/b") != (len(want) > 0) || len(fs.files) != len(want) {
			t.Fatalf("op %d: isDir %v with %d files, want %d", op, fs.isDir("shared/b"), len(fs.files), len(want))
		}
		if d := fs.dirs["shared/b"]; d != nil && len(d.files) > 4*d.n+64 {
			t.Fatalf("op %d: the directory lists %d paths for %d files", op, len(d.files), d.n)
		}
	}
	fs.removeAll("shared")
	if len(fs.files) != 0 || len(fs.dirs) != 0 {
		t.Fatalf("after removeAll: %d files, %d directories", len(fs.files), len(fs.dirs))
	}
}
