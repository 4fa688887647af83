package model

import (
	"bufio"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// streamHashVectors are hash codes printed by jdkPathHashSource (OpenJDK 17's java.net.URI
// behind a transcription of Flink's Path(String)), so that -short and machines without a JDK
// still check the common shapes; TestStreamHandleHashCodeAgainstJDK checks many more.
var streamHashVectors = []struct {
	h    StreamHandle
	want int32
}{
	{StreamHandle{Path: "file:///ckpt/chk-7/b-0", Size: 100}, 1166342230},
	{StreamHandle{Path: "file:/ckpt/chk-7/b-0"}, 1166342230},
	{StreamHandle{Path: "/ckpt/chk-7/b-0"}, 767176658},
	{StreamHandle{Path: "hdfs://namenode:8020/flink/chk-1/op"}, -2116084916},
	{StreamHandle{Path: "s3://my_bucket/chk-1/op"}, -1673500152},
	{StreamHandle{Path: "s3://my-bucket/a b/%x/é"}, 1577720486},
	{StreamHandle{Path: "abfss://container@account.dfs.core.windows.net/chk/x"}, 1448220426},
	{StreamHandle{Path: "b-0", InMemory: true, Size: 7}, 2964251},
}

func TestStreamHandleHashCodeVectors(t *testing.T) {
	for _, v := range streamHashVectors {
		if got := v.h.hashCode(); got != v.want {
			t.Errorf("%+v: hashCode %d, want %d (from the JDK)", v.h, got, v.want)
		}
	}
}

// TestStreamHandleHashCodeAgainstJDK compares flinkPathHashCode with java.net.URI.hashCode of
// the URI Flink's Path(String) builds, and NormalizeFlinkPath with its Path.toString (jdkPathHashSource transcribes that constructor and lets
// the JDK quote, parse, normalise and hash), over random paths of many shapes: schemes in both
// cases, no authority or an empty one, host names, IPv4 and IPv6 hosts, ports, user info,
// registry-based authorities (an underscore), characters the URI constructor quotes (space,
// '%', '#', '?', non-ASCII spaces and controls), other non-ASCII, "." and ".." segments, runs
// of slashes, and strings Path refuses. Skipped with -short or without a JDK on PATH.
func TestStreamHandleHashCodeAgainstJDK(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs a Java program")
	}
	javac, err1 := exec.LookPath("javac")
	java, err2 := exec.LookPath("java")
	if err1 != nil || err2 != nil {
		t.Skip("no JDK on PATH")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "PathHash.java"), []byte(jdkPathHashSource), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(javac, "-d", dir, filepath.Join(dir, "PathHash.java")).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	rng := rand.New(rand.NewPCG(20261201, 0))
	var paths []string
	for _, v := range streamHashVectors {
		if !v.h.InMemory {
			paths = append(paths, v.h.Path)
		}
	}
	for range 3000 {
		paths = append(paths, randomFlinkPath(rng))
	}
	var in strings.Builder
	for _, p := range paths {
		in.WriteString(p + "\n")
	}
	cmd := exec.Command(java, "-Dfile.encoding=UTF-8", "-cp", dir, "PathHash")
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("java: %v", err)
	}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	i, bad, refused := 0, 0, 0
	for sc.Scan() {
		if i >= len(paths) {
			t.Fatalf("the JDK answered more lines than %d paths", len(paths))
		}
		p, line := paths[i], sc.Text()
		i++
		u, err := flinkPathURI(p)
		if line == "ERR" {
			refused++
			if err == nil {
				bad++
				t.Errorf("%q: Flink's Path refuses it, the model builds %+v", p, u)
			}
			continue
		}
		hash, str, _ := strings.Cut(line, "\t")
		want, perr := strconv.ParseInt(hash, 10, 32)
		if perr != nil {
			t.Fatalf("line %d: %q", i, line)
		}
		if got, err := NormalizeFlinkPath(p); err == nil && got != str {
			bad++
			t.Errorf("%q: NormalizeFlinkPath gives %q, Path.toString %q", p, got, str)
		}
		switch {
		case err != nil:
			bad++
			t.Errorf("%q: the model refuses it (%v), the JDK hashes it to %d", p, err, want)
		case u.hashCode() != int32(want):
			bad++
			t.Errorf("%q: hashCode %d, the JDK's %d (model URI %+v)", p, u.hashCode(), want, u)
		}
		if bad > 20 {
			t.Fatal("too many differences")
		}
	}
	if i != len(paths) {
		t.Fatalf("the JDK answered %d of %d paths", i, len(paths))
	}
	if refused == 0 || refused > len(paths)/2 {
		t.Errorf("%d of %d paths refused: the generator lost its shapes", refused, len(paths))
	}
}

// randomFlinkPath draws a path string from pieces that exercise Path(String) and URI.
func randomFlinkPath(rng *rand.Rand) string {
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	var b strings.Builder
	scheme := pick("", "", "file", "FILE", "hdfs", "s3", "s3a", "gs", "abfss", "x+y.z-1")
	if scheme != "" {
		b.WriteString(scheme + ":")
	}
	if rng.IntN(3) > 0 {
		b.WriteString("//")
		b.WriteString(pick("", "namenode", "NameNode:8020", "host.example.com", "10.0.0.1", "10.0.0.1:99",
			"256.1.1.1", "1.2.3", "my_bucket", "bucket-1", "a-", "-a", "x.1", "x.y1", "u@h", "u:p@h:1",
			"u%20@h", "c@acc.dfs.core.windows.net", "[::1]", "[::1]:8020", "[fe80::1]", "[bad", "h:",
			"h:99999999999", "h:12x", "é.example", "a b", "h#x", "h%2"))
	}
	segs := rng.IntN(5)
	for range segs {
		b.WriteString(pick("/", "/", "//", `\`))
		b.WriteString(pick("chk-7", "a b", "%", "%41", "x#y", "q?r", "é", "😀", "\u00a0", "\u0085", ".", "..",
			"shared", "~t", "a;b=c", "[x]", "C:", "{}", "^", "`", "|", "\"", "<>"))
	}
	if rng.IntN(8) == 0 {
		b.WriteString("/")
	}
	if rng.IntN(20) == 0 {
		return pick("", "x:", "s3:bucket", "C:/d/f", "a/b", "../x", "./y", "//", "///x")
	}
	return b.String()
}

// jdkPathHashSource prints, for each line of stdin (a path), the hashCode and (after a tab)
// Path.toString of the java.net.URI that Flink's org.apache.flink.core.fs.Path(String) builds,
// or ERR when the constructor throws. The constructor (checkPathArg, hasWindowsDrive, the scheme
// and authority split, normalizePath, new URI(...).normalize()) is transcribed from
// flink-core's Path.java of release-1.18; quoting, parsing and hashing are the JDK's.
const jdkPathHashSource = `
import java.io.*;
import java.net.*;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

public class PathHash {
    static final Pattern WINDOWS_ROOT_DIR_REGEX = Pattern.compile("/\\p{Alpha}+:/");

    static boolean hasWindowsDrive(String path, boolean slashed) {
        final int start = slashed ? 1 : 0;
        return path.length() >= start + 2
                && (!slashed || path.charAt(0) == '/')
                && path.charAt(start + 1) == ':'
                && ((path.charAt(start) >= 'A' && path.charAt(start) <= 'Z')
                        || (path.charAt(start) >= 'a' && path.charAt(start) <= 'z'));
    }

    static String normalizePath(String path) {
        path = path.replace("\\", "/");
        path = path.replaceAll("/+", "/");
        if (path.endsWith("/") && !path.equals("/") && !WINDOWS_ROOT_DIR_REGEX.matcher(path).matches()) {
            path = path.substring(0, path.length() - 1);
        }
        return path;
    }

    static URI flinkPath(String pathString) throws URISyntaxException {
        if (pathString.length() == 0) {
            throw new IllegalArgumentException("empty");
        }
        if (hasWindowsDrive(pathString, false)) {
            pathString = "/" + pathString;
        }
        String scheme = null;
        String authority = null;
        int start = 0;
        final int colon = pathString.indexOf(':');
        final int slash = pathString.indexOf('/');
        if ((colon != -1) && ((slash == -1) || (colon < slash))) {
            scheme = pathString.substring(0, colon);
            start = colon + 1;
        }
        if (pathString.startsWith("//", start) && (pathString.length() - start > 2)) {
            final int nextSlash = pathString.indexOf('/', start + 2);
            final int authEnd = nextSlash > 0 ? nextSlash : pathString.length();
            authority = pathString.substring(start + 2, authEnd);
            start = authEnd;
        }
        final String path = pathString.substring(start, pathString.length());
        return new URI(scheme, authority, normalizePath(path), null, null).normalize();
    }

    // Path.toString.
    static String pathToString(URI uri) {
        final StringBuilder buffer = new StringBuilder();
        if (uri.getScheme() != null) {
            buffer.append(uri.getScheme());
            buffer.append(":");
        }
        if (uri.getAuthority() != null) {
            buffer.append("//");
            buffer.append(uri.getAuthority());
        }
        if (uri.getPath() != null) {
            String path = uri.getPath();
            if (path.indexOf('/') == 0 && hasWindowsDrive(path, true) && uri.getScheme() == null && uri.getAuthority() == null) {
                path = path.substring(1);
            }
            buffer.append(path);
        }
        return buffer.toString();
    }

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(new BufferedOutputStream(System.out), false, "UTF-8");
        String line;
        while ((line = in.readLine()) != null) {
            String p = line;
            try {
                URI u = flinkPath(p);
                out.println(u.hashCode() + "\t" + pathToString(u));
            } catch (Exception e) {
                out.println("ERR");
            }
        }
        out.flush();
    }
}
`
