// Package mutants holds injected Flink bugs: small patches (the *.patch files beside this
// file, unified diffs against Flink's source tree) of the kinds Flink's JIRA has seen, applied
// by Apply to a scratch copy of Flink's sources (Prepare: a version's archive extracted to a
// temporary directory), never to the archives. With --flink-src pointing at such a copy,
// 'simulate sweep --sut flink' runs the mutated Flink; the kill matrix (docs/properties.md,
// 'make flink-mutants') is what it finds.
package mutants

import (
	"bufio"
	"embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/reference"
)

//go:embed *.patch
var patches embed.FS

// Mutant is one injected bug.
type Mutant struct {
	// Name is the patch file's name without ".patch".
	Name string
	// Patch is the unified diff.
	Patch string
}

// All lists the mutants by name.
func All() []Mutant {
	entries, err := patches.ReadDir(".")
	if err != nil {
		panic("mutants: internal error: " + err.Error())
	}
	var out []Mutant
	for _, e := range entries {
		b, err := patches.ReadFile(e.Name())
		if err != nil {
			panic("mutants: internal error: " + err.Error())
		}
		out = append(out, Mutant{Name: strings.TrimSuffix(e.Name(), ".patch"), Patch: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ByName finds a mutant.
func ByName(name string) (Mutant, error) {
	for _, m := range All() {
		if m.Name == name {
			return m, nil
		}
	}
	return Mutant{}, fmt.Errorf("no Flink mutant %q", name)
}

// ErrPatch reports a patch that does not apply.
var ErrPatch = errors.New("patch does not apply")

// hunk is one hunk of a file's diff: the lines it expects (context and removed) and the lines
// it leaves (context and added).
type hunk struct{ old, new []string }

type filePatch struct {
	path  string
	hunks []hunk
}

// parse reads a unified diff (the "+++ b/path" names the file; "@@" starts a hunk; line numbers
// are not used: each hunk's old lines must occur exactly once in the file).
func parse(patch string) ([]filePatch, error) {
	var out []filePatch
	var cur *filePatch
	var h *hunk
	sc := bufio.NewScanner(strings.NewReader(patch))
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "--- "):
			h = nil
		case strings.HasPrefix(l, "+++ "):
			p := strings.TrimPrefix(strings.Fields(strings.TrimPrefix(l, "+++ "))[0], "b/")
			out = append(out, filePatch{path: p})
			cur, h = &out[len(out)-1], nil
		case strings.HasPrefix(l, "@@"):
			if cur == nil {
				return nil, fmt.Errorf("%w: a hunk before a file name", ErrPatch)
			}
			cur.hunks = append(cur.hunks, hunk{})
			h = &cur.hunks[len(cur.hunks)-1]
		case h == nil:
		case strings.HasPrefix(l, "-"):
			h.old = append(h.old, l[1:])
		case strings.HasPrefix(l, "+"):
			h.new = append(h.new, l[1:])
		case strings.HasPrefix(l, " ") || l == "":
			c := strings.TrimPrefix(l, " ")
			h.old, h.new = append(h.old, c), append(h.new, c)
		case strings.HasPrefix(l, `\`): // "\ No newline at end of file"
		default:
			return nil, fmt.Errorf("%w: unexpected line %q", ErrPatch, l)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no file in the patch", ErrPatch)
	}
	return out, nil
}

// Apply applies m's patch to the Flink source tree at root, in place.
func Apply(root string, m Mutant) error {
	fps, err := parse(m.Patch)
	if err != nil {
		return fmt.Errorf("mutant %s: %w", m.Name, err)
	}
	for _, fp := range fps {
		p := filepath.Join(root, filepath.FromSlash(fp.path))
		b, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("mutant %s: %w", m.Name, err)
		}
		text := string(b)
		for k, h := range fp.hunks {
			old, new := strings.Join(h.old, "\n")+"\n", strings.Join(h.new, "\n")+"\n"
			if n := strings.Count(text, old); n != 1 {
				return fmt.Errorf("mutant %s: %w: hunk %d of %s matches %d places, want 1", m.Name, ErrPatch, k+1, fp.path, n)
			}
			text = strings.Replace(text, old, new, 1)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return fmt.Errorf("mutant %s: %w", m.Name, err)
		}
	}
	return nil
}

// Prepare writes version v's Flink sources (its archive, reference.FindSource) under dir and
// applies m: dir is then a Flink source tree for --flink-src.
func Prepare(v model.FlinkVersion, m Mutant, dir string) error {
	src, err := reference.FindSource(v, "")
	if err != nil {
		return err
	}
	if err := reference.ExtractTree(src, dir); err != nil {
		return err
	}
	return Apply(dir, m)
}

// Tree is the Flink source tree of version v with m applied, prepared once under the
// reference's cache directory (cacheDir "" = reference.DefaultCacheDir()) and reused, so that
// the reference's build of it is cached too.
func Tree(v model.FlinkVersion, m Mutant, cacheDir string) (string, error) {
	if cacheDir == "" {
		cacheDir = reference.DefaultCacheDir()
	}
	branch, err := reference.Branch(v)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cacheDir, "mutants", branch+"-"+m.Name)
	done := filepath.Join(dir, ".prepared")
	if b, err := os.ReadFile(done); err == nil && string(b) == m.Patch {
		return dir, nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	tmp := dir + ".tmp"
	_ = os.RemoveAll(tmp)
	if err := Prepare(v, m, tmp); err != nil {
		_ = os.RemoveAll(tmp)
		return "", err
	}
	if err := os.WriteFile(filepath.Join(tmp, ".prepared"), []byte(m.Patch), 0o644); err != nil {
		return "", err
	}
	return dir, os.Rename(tmp, dir)
}
