package reference

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/restoresim/restoresim/model"
)

// Environment variables naming where Flink's sources are.
const (
	// ArchivesEnv points at a copy of shared/flink-src (the <branch>.tar.gz archives).
	ArchivesEnv = "RESTORESIM_FLINK_ARCHIVES"
	// SrcEnv points at a Flink source tree (a checkout, or an extracted archive) to use instead of
	// the archives.
	SrcEnv = "RESTORESIM_FLINK_SRC"
)

// ErrNoSources reports that a version has no Flink sources to run.
var ErrNoSources = errors.New("no Flink sources")

// Branch returns the Flink branch whose sources the reference compiles for a model version.
func Branch(v model.FlinkVersion) (string, error) {
	switch v {
	case model.Flink1101:
		return "", fmt.Errorf("%w for Flink 1.10.1: release-1.10 is not in the mirror shared/flink-src comes from, so the reference cannot run it (the model's 1.10.1 rules are read from the source only)", ErrNoSources)
	case model.FlinkMaster:
		return "master", nil
	}
	s := v.String()
	if strings.Count(s, ".") != 1 {
		return "", fmt.Errorf("%w for Flink %s", ErrNoSources, s)
	}
	return "release-" + s, nil
}

// Versions lists the modelled versions the reference can run, oldest first.
func Versions() []model.FlinkVersion {
	var out []model.FlinkVersion
	for _, v := range model.FlinkVersions() {
		if _, err := Branch(v); err == nil {
			out = append(out, v)
		}
	}
	return out
}

// modules are the Flink modules whose src/main/java the restore path compiles from (the modules
// of the shared/flink-src archives).
var modules = []string{
	"flink-annotations", "flink-core", "flink-core-api", "flink-runtime",
	"flink-metrics/flink-metrics-core", "flink-rpc/flink-rpc-core", "flink-streaming-java",
	"flink-table/flink-table-common", "flink-table/flink-table-runtime",
	// master's writer package (FLINK-39458 moved it here); not in the archives.
	"flink-table/flink-table-type-utils",
}

// Source is where a build takes Flink's files from: an archive of shared/flink-src or a
// directory holding a Flink source tree.
type Source struct {
	// Path is the archive (.tar.gz) or the directory.
	Path string
	// Branch names the branch for messages and the cache key ("" for a directory: "checkout").
	Branch string
}

// FindSource resolves the Flink sources for a version: dir when not empty, else $RESTORESIM_FLINK_SRC,
// else <branch>.tar.gz in $RESTORESIM_FLINK_ARCHIVES, else in shared/flink-src beside the module
// root (found upwards from the working directory).
func FindSource(v model.FlinkVersion, dir string) (Source, error) {
	branch, err := Branch(v)
	if err != nil {
		return Source{}, err
	}
	if dir == "" {
		dir = os.Getenv(SrcEnv)
	}
	if dir != "" {
		fi, err := os.Stat(dir)
		if err != nil || !fi.IsDir() {
			return Source{}, fmt.Errorf("%w: --flink-src %s is not a directory", ErrNoSources, dir)
		}
		if _, err := os.Stat(filepath.Join(dir, "flink-runtime", "src", "main", "java")); err != nil {
			return Source{}, fmt.Errorf("%w: %s has no flink-runtime/src/main/java (point --flink-src at the root of a Flink source tree)", ErrNoSources, dir)
		}
		return Source{Path: dir, Branch: branch}, nil
	}
	archives := os.Getenv(ArchivesEnv)
	if archives == "" {
		root, err := moduleRoot()
		if err != nil {
			return Source{}, fmt.Errorf("%w for %s: %v; set %s to a copy of shared/flink-src", ErrNoSources, branch, err, ArchivesEnv)
		}
		archives = filepath.Join(filepath.Dir(root), "shared", "flink-src")
	}
	p := filepath.Join(archives, branch+".tar.gz")
	if _, err := os.Stat(p); err != nil {
		return Source{}, fmt.Errorf("%w for %s: %s not found (set %s to a copy of shared/flink-src, or --flink-src to a Flink checkout)", ErrNoSources, branch, p, ArchivesEnv)
	}
	return Source{Path: p, Branch: branch}, nil
}

func moduleRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for root := wd; ; {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			return root, nil
		}
		parent := filepath.Dir(root)
		if parent == root {
			return "", fmt.Errorf("no go.mod above %s", wd)
		}
		root = parent
	}
}

// shaded matches Flink's shaded imports of libraries that Debian packages unshaded.
var shaded = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`org\.apache\.flink\.shaded\.(guava|netty)[0-9]+\.`) }) // (compiled when first used, not at start-up)

// renameShaded is the one edit made to Flink's files: shaded Guava and Netty imports become the
// unshaded packages of the Debian jars.
func renameShaded(b []byte) []byte {
	return shaded().ReplaceAll(b, nil)
}

// key identifies a source: the archive's commit (git archive's pax comment) or, for a directory,
// its git HEAD and the names, sizes and times of its Java files (so edits rebuild).
func (s Source) key() (string, error) {
	fi, err := os.Stat(s.Path)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		f, err := os.Open(s.Path)
		if err != nil {
			return "", err
		}
		defer f.Close()
		gz, err := gzip.NewReader(f)
		if err != nil {
			return "", fmt.Errorf("%s: %w", s.Path, err)
		}
		hdr, err := tar.NewReader(gz).Next()
		if err != nil {
			return "", fmt.Errorf("%s: %w", s.Path, err)
		}
		if c := hdr.PAXRecords["comment"]; len(c) == 40 {
			return c, nil
		}
		// Not a git archive: hash the file.
		h := sha256.New()
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return "", err
		}
		if _, err := io.Copy(h, f); err != nil {
			return "", err
		}
		return hex.EncodeToString(h.Sum(nil)), nil
	}
	h := sha256.New()
	if out, err := exec.Command("git", "-C", s.Path, "rev-parse", "HEAD").Output(); err == nil {
		h.Write(out)
	}
	var lines []string
	for _, m := range modules {
		root := filepath.Join(s.Path, filepath.FromSlash(m), "src", "main", "java")
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".java") {
				return nil
			}
			if info, err := d.Info(); err == nil {
				lines = append(lines, fmt.Sprintf("%s %d %d", p, info.Size(), info.ModTime().UnixNano()))
			}
			return nil
		})
	}
	sort.Strings(lines)
	for _, l := range lines {
		h.Write([]byte(l))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// extract writes the Java files of the source's modules, merged into one tree under dst, with
// the shaded imports renamed.
func (s Source) extract(dst string) error {
	fi, err := os.Stat(s.Path)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		for _, m := range modules {
			root := filepath.Join(s.Path, filepath.FromSlash(m), "src", "main", "java")
			if _, err := os.Stat(root); err != nil {
				continue
			}
			err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if d.IsDir() || !strings.HasSuffix(p, ".java") {
					return nil
				}
				rel, err := filepath.Rel(root, p)
				if err != nil {
					return err
				}
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				return writeFile(filepath.Join(dst, rel), renameShaded(b))
			})
			if err != nil {
				return err
			}
		}
		return nil
	}
	f, err := os.Open(s.Path)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", s.Path, err)
	}
	tr := tar.NewReader(gz)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", s.Path, err)
		}
		if hdr.Typeflag != tar.TypeReg || !strings.HasSuffix(hdr.Name, ".java") {
			continue
		}
		i := strings.Index(hdr.Name, "/src/main/java/")
		if i < 0 || !inModules(hdr.Name[:i]) {
			continue
		}
		rel := hdr.Name[i+len("/src/main/java/"):]
		if strings.Contains(rel, "..") {
			return fmt.Errorf("%s: bad entry %q", s.Path, hdr.Name)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return fmt.Errorf("%s: %w", s.Path, err)
		}
		if err := writeFile(filepath.Join(dst, filepath.FromSlash(rel)), renameShaded(b)); err != nil {
			return err
		}
	}
}

func inModules(prefix string) bool {
	prefix = strings.TrimPrefix(prefix, "./")
	for _, m := range modules {
		if prefix == m || strings.HasSuffix(prefix, "/"+m) {
			return true
		}
	}
	return false
}

func writeFile(p string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, b, 0o644)
}

// ExtractTree writes the Flink source tree of a version's archive (the Java files of the
// modules the reference compiles, at their paths in Flink's repository, unmodified) under dst,
// so that FindSource(v, dst) takes it as a checkout: a scratch copy to patch (package
// reference/mutants). A Source that is a directory already is refused.
func ExtractTree(src Source, dst string) error {
	f, err := os.Open(src.Path)
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.IsDir() {
		return fmt.Errorf("%s is not an archive", src.Path)
	}
	gz, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", src.Path, err)
	}
	tr := tar.NewReader(gz)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", src.Path, err)
		}
		if hdr.Typeflag != tar.TypeReg || !strings.HasSuffix(hdr.Name, ".java") {
			continue
		}
		i := strings.Index(hdr.Name, "/src/main/java/")
		if i < 0 || !inModules(hdr.Name[:i]) {
			continue
		}
		name := strings.TrimPrefix(hdr.Name, "./")
		if strings.Contains(name, "..") {
			return fmt.Errorf("%s: bad entry %q", src.Path, hdr.Name)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return fmt.Errorf("%s: %w", src.Path, err)
		}
		if err := writeFile(filepath.Join(dst, filepath.FromSlash(name)), b); err != nil {
			return err
		}
	}
}
