package reference

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

//go:embed java
var javaFiles embed.FS

// Jars are the Debian jars (under /usr/share/java) that stand for the libraries Flink shades or
// depends on, with the Debian package of each: what `make reference-deps` installs.
var Jars = []struct{ Jar, Package string }{
	{"guava.jar", "libguava-java"},
	{"netty-buffer.jar", "libnetty-java"},
	{"netty-common.jar", "libnetty-java"},
	{"slf4j-api.jar", "libslf4j-java"},
	{"jsr305.jar", "libjsr305-java"},
	{"commons-math3.jar", "libcommons-math3-java"},
	{"commons-collections3.jar", "libcommons-collections3-java"},
	{"commons-lang3.jar", "libcommons-lang3-java"},
}

// JarDir is where Debian installs Java libraries.
const JarDir = "/usr/share/java"

// ErrNoJava reports that the JDK or the jars the reference needs are missing.
var ErrNoJava = errors.New("no Java")

// classPath returns the jars' class path, or an error naming the missing packages.
func classPath() (string, error) {
	var paths, missing []string
	for _, j := range Jars {
		p := filepath.Join(JarDir, j.Jar)
		if _, err := os.Stat(p); err != nil {
			if !containsString(missing, j.Package) {
				missing = append(missing, j.Package)
			}
			continue
		}
		paths = append(paths, p)
	}
	if len(missing) > 0 {
		return "", fmt.Errorf("%w: the Debian packages %s are not installed (make reference-deps installs them)", ErrNoJava, strings.Join(missing, ", "))
	}
	return strings.Join(paths, string(os.PathListSeparator)), nil
}

func containsString(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// Build is a compiled reference: the driver and the part of Flink it reaches.
type Build struct {
	// Dir is the build's cache directory; Classes holds the class files.
	Dir, Classes string
	// ClassPath is Classes and the jars.
	ClassPath string
	// Branch is the Flink branch built, Key the source's commit or content hash.
	Branch, Key string
	// Stubs is the stub variant used ("v1" for Flink 1.x, "v2" for 2.x).
	Stubs string
	// Compiled lists Flink's own files compiled (relative paths, sorted): the real code that runs.
	Compiled []string
}

// CacheEnv overrides the cache directory of builds.
const CacheEnv = "RESTORESIM_CACHE"

// DefaultCacheDir is $RESTORESIM_CACHE, else restoresim/reference in the user's cache directory.
func DefaultCacheDir() string {
	if d := os.Getenv(CacheEnv); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		d = os.TempDir()
	}
	return filepath.Join(d, "restoresim", "reference")
}

// driverHash hashes the embedded Java sources: a change of the driver or a stub rebuilds.
func driverHash() string {
	h := sha256.New()
	var names []string
	_ = fs.WalkDir(javaFiles, "java", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, p)
		}
		return nil
	})
	sort.Strings(names)
	for _, n := range names {
		b, _ := javaFiles.ReadFile(n)
		h.Write([]byte(n))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Compile builds (or finds in the cache) the reference for a source. It needs javac and the
// Debian jars; errors are one line.
func Compile(src Source, cacheDir string) (*Build, error) {
	if _, err := exec.LookPath("javac"); err != nil {
		return nil, fmt.Errorf("%w: javac is not on PATH (install a JDK 17, e.g. Debian's openjdk-17-jdk-headless)", ErrNoJava)
	}
	cp, err := classPath()
	if err != nil {
		return nil, err
	}
	key, err := src.key()
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", src.Path, err)
	}
	jv, _ := exec.Command("javac", "-version").CombinedOutput()
	h := sha256.Sum256([]byte(driverHash() + "\n" + string(bytes.TrimSpace(jv)) + "\n" + cp))
	name := src.Branch
	if fi, err := os.Stat(src.Path); err == nil && fi.IsDir() {
		name += "-checkout"
	}
	short := key
	if len(short) > 12 {
		short = short[:12]
	}
	if cacheDir == "" {
		cacheDir = DefaultCacheDir()
	}
	dir := filepath.Join(cacheDir, fmt.Sprintf("%s-%s-%s", name, short, hex.EncodeToString(h[:6])))
	b := &Build{Dir: dir, Classes: filepath.Join(dir, "classes"), Branch: src.Branch, Key: key}
	b.ClassPath = b.Classes + string(os.PathListSeparator) + cp
	if list, err := os.ReadFile(filepath.Join(dir, "compiled.txt")); err == nil {
		b.Compiled = strings.Fields(string(list))
		stubs, _ := os.ReadFile(filepath.Join(dir, "stubs.txt"))
		b.Stubs = strings.TrimSpace(string(stubs))
		return b, nil
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return nil, fmt.Errorf("reference cache: %w", err)
	}
	tmp, err := os.MkdirTemp(cacheDir, ".build-")
	if err != nil {
		return nil, fmt.Errorf("reference cache: %w", err)
	}
	defer os.RemoveAll(tmp)
	flink := filepath.Join(tmp, "flink")
	if err := src.extract(flink); err != nil {
		return nil, fmt.Errorf("extracting %s: %w", src.Path, err)
	}
	b.Stubs = "v1"
	if jobEdge, err := os.ReadFile(filepath.Join(flink, "org", "apache", "flink", "runtime", "jobgraph", "JobEdge.java")); err == nil && bytes.Contains(jobEdge, []byte("int typeNumber")) {
		b.Stubs = "v2"
	}
	own := filepath.Join(tmp, "own")
	if err := fs.WalkDir(javaFiles, "java", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := javaFiles.ReadFile(p)
		if err != nil {
			return err
		}
		return writeFile(filepath.Join(own, filepath.FromSlash(strings.TrimPrefix(p, "java/"))), data)
	}); err != nil {
		return nil, err
	}
	driver := filepath.Join(own, "driver")
	stubs := filepath.Join(own, "stubs")
	classes := filepath.Join(tmp, "classes")
	if err := os.MkdirAll(classes, 0o755); err != nil {
		return nil, err
	}
	var mains []string
	entries, _ := os.ReadDir(filepath.Join(driver, "restoresim", "reference"))
	for _, e := range entries {
		p := filepath.Join(driver, "restoresim", "reference", e.Name())
		if req := requiredFile(p); req != "" {
			if _, err := os.Stat(filepath.Join(flink, filepath.FromSlash(req))); err != nil {
				continue // the sources lack what this driver file drives
			}
		}
		mains = append(mains, p)
	}
	sourcePath := strings.Join([]string{driver, filepath.Join(stubs, "common"), filepath.Join(stubs, b.Stubs), flink}, string(os.PathListSeparator))
	args := append([]string{"-nowarn", "-proc:none", "-implicit:class", "-encoding", "UTF-8", "-d", classes, "-cp", cp, "-sourcepath", sourcePath}, mains...)
	cmd := exec.Command("javac", args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("compiling the reference for %s: %s", src.Branch, firstError(out, err))
	}
	// The real files compiled: every top-level class whose source is Flink's (not a stub or the
	// driver's).
	var compiled []string
	_ = filepath.WalkDir(classes, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".class") || strings.Contains(d.Name(), "$") {
			return nil
		}
		rel, _ := filepath.Rel(classes, p)
		javaRel := strings.TrimSuffix(filepath.ToSlash(rel), ".class") + ".java"
		for _, ownDir := range []string{driver, filepath.Join(stubs, "common"), filepath.Join(stubs, b.Stubs)} {
			if _, err := os.Stat(filepath.Join(ownDir, filepath.FromSlash(javaRel))); err == nil {
				return nil
			}
		}
		if _, err := os.Stat(filepath.Join(flink, filepath.FromSlash(javaRel))); err == nil {
			compiled = append(compiled, javaRel)
		}
		return nil
	})
	sort.Strings(compiled)
	b.Compiled = compiled
	if err := os.WriteFile(filepath.Join(tmp, "compiled.txt"), []byte(strings.Join(compiled, "\n")+"\n"), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(tmp, "stubs.txt"), []byte(b.Stubs+"\n"), 0o644); err != nil {
		return nil, err
	}
	if err := os.RemoveAll(flink); err != nil {
		return nil, err
	}
	if err := os.RemoveAll(own); err != nil {
		return nil, err
	}
	// Publish atomically; a concurrent build of the same key may have won.
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(filepath.Join(dir, "compiled.txt")); statErr != nil {
			return nil, fmt.Errorf("reference cache: %w", err)
		}
	}
	return b, nil
}

// requiresPrefix starts the first line of a driver file that is compiled only when Flink's
// sources hold the file it names (a path under src/main/java), e.g. SqlKey.java, which needs
// flink-table-runtime's writer package: the archive of master does not hold it (master moved it
// to flink-table-type-utils). Driver reaches such a file by reflection.
const requiresPrefix = "// restoresim:requires "

// requiredFile is the file a driver file requires, or "".
func requiredFile(p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	first, _, _ := strings.Cut(string(b), "\n")
	if !strings.HasPrefix(first, requiresPrefix) {
		return ""
	}
	return strings.TrimSpace(strings.TrimPrefix(first, requiresPrefix))
}

// firstError is the first "error:" line of javac's output, with its file relative to the
// scratch tree.
func firstError(out []byte, err error) string {
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, "error:") {
			if i := strings.Index(l, "/flink/"); i >= 0 {
				l = l[i+len("/flink/"):]
			} else if i := strings.Index(l, "/own/"); i >= 0 {
				l = path.Join("reference/java", l[i+len("/own/"):])
			}
			return strings.TrimSpace(l)
		}
	}
	return err.Error()
}
