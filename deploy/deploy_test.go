package deploy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// root is the module root, relative to this package's directory (where go test runs).
const root = ".."

func read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// deployFiles lists the files docs/kubernetes.md must show: the Dockerfile and every manifest.
func deployFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"deploy/Dockerfile"}
	ms, err := filepath.Glob(filepath.Join(root, "deploy", "k8s", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		files = append(files, "deploy/k8s/"+filepath.Base(m))
	}
	return files
}

// docBlock is one fenced code block of a Markdown file.
type docBlock struct {
	lang string // the fence's info string: yaml, Dockerfile, sh, ...
	file string // the deploy/... file the line before the block links to, if any
	text string // the block's content, each line ending in \n
	line int    // the line number of the opening fence
}

// fileLink is the line before a block that shows a file: "[`deploy/x`](../deploy/x):", possibly
// inside a parenthesis.
var fileLink = regexp.MustCompile("\\[`(deploy/[^`]+)`\\]\\(\\.\\./(deploy/[^)]+)\\)\\)?:$")

func docBlocks(t *testing.T, doc string) []docBlock {
	t.Helper()
	lines := strings.SplitAfter(string(read(t, doc)), "\n")
	var blocks []docBlock
	prev := ""
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSuffix(lines[i], "\n")
		lang, ok := strings.CutPrefix(l, "```")
		if !ok {
			if strings.TrimSpace(l) != "" {
				prev = l
			}
			continue
		}
		b := docBlock{lang: lang, line: i + 1}
		if m := fileLink.FindStringSubmatch(prev); m != nil {
			if m[1] != m[2] {
				t.Errorf("%s:%d: link text %s and target %s differ", doc, i, m[1], m[2])
			}
			b.file = m[1]
		}
		for i++; i < len(lines) && strings.TrimSuffix(lines[i], "\n") != "```"; i++ {
			b.text += lines[i]
		}
		if i == len(lines) {
			t.Fatalf("%s:%d: code block not closed", doc, b.line)
		}
		blocks = append(blocks, b)
		prev = ""
	}
	return blocks
}

// TestDocShowsFilesVerbatim checks that docs/kubernetes.md shows every file of deploy/ once,
// byte for byte, each in a block right after a line linking to it, and that every Dockerfile or
// YAML block of the doc is such a file (so no copy in the doc can drift from the real one).
func TestDocShowsFilesVerbatim(t *testing.T) {
	const doc = "docs/kubernetes.md"
	shown := map[string]int{}
	for _, b := range docBlocks(t, doc) {
		if b.file == "" {
			if b.lang == "yaml" || b.lang == "Dockerfile" {
				t.Errorf("%s:%d: a %s block that shows no file of deploy/ (put the link line before it)", doc, b.line, b.lang)
			}
			continue
		}
		shown[b.file]++
		want := string(read(t, b.file))
		if b.text != want {
			t.Errorf("%s:%d: the block differs from %s; the doc must show the file verbatim:\n--- doc\n%s--- file\n%s", doc, b.line, b.file, b.text, want)
		}
		wantLang := "yaml"
		if path.Base(b.file) == "Dockerfile" {
			wantLang = "Dockerfile"
		}
		if b.lang != wantLang {
			t.Errorf("%s:%d: %s shown as %q, want ```%s", doc, b.line, b.file, b.lang, wantLang)
		}
	}
	files := deployFiles(t)
	for _, f := range files {
		if shown[f] != 1 {
			t.Errorf("%s shows %s %d times, want once", doc, f, shown[f])
		}
	}
	for f := range shown {
		if !slices.Contains(files, f) {
			t.Errorf("%s shows %s, which does not exist", doc, f)
		}
	}
}

// decodeStrict decodes a manifest as the API server does in strict field validation: YAML to
// JSON, then case-sensitive JSON decoding in which an unknown field (a misspelt one included), a
// duplicate key or a wrong type is an error. (encoding/json, and so sigs.k8s.io/yaml's
// UnmarshalStrict, match field names case-insensitively and would accept "completionmode".)
func decodeStrict(data []byte, obj any) error {
	j, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return err
	}
	strict, err := kjson.UnmarshalStrict(j, obj)
	if err != nil {
		return err
	}
	return errors.Join(strict...)
}

// manifests decodes every file of deploy/k8s strictly as the Kubernetes object its apiVersion
// and kind name.
func manifests(t *testing.T) (pvcs []*corev1.PersistentVolumeClaim, jobs []*batchv1.Job) {
	t.Helper()
	for _, f := range deployFiles(t) {
		if !strings.HasPrefix(f, "deploy/k8s/") {
			continue
		}
		data := read(t, f)
		if bytes.Contains(data, []byte("\n---")) {
			t.Errorf("%s: one object per file", f)
		}
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal(data, &tm); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var obj any
		switch tm.APIVersion + " " + tm.Kind {
		case "v1 PersistentVolumeClaim":
			pvc := new(corev1.PersistentVolumeClaim)
			pvcs, obj = append(pvcs, pvc), pvc
		case "batch/v1 Job":
			job := new(batchv1.Job)
			jobs, obj = append(jobs, job), job
		default:
			t.Fatalf("%s: unexpected apiVersion %q kind %q", f, tm.APIVersion, tm.Kind)
		}
		if err := decodeStrict(data, obj); err != nil {
			t.Fatalf("%s: not a valid %s: %v", f, tm.Kind, err)
		}
	}
	return pvcs, jobs
}

// TestStrictDecodingCatchesTypos makes sure the decoding above is strict: a field in the wrong
// case, an unknown field, a duplicate key and a wrong type in the sweep Job are errors.
func TestStrictDecodingCatchesTypos(t *testing.T) {
	data := read(t, "deploy/k8s/sweep-job.yaml")
	var job batchv1.Job
	if err := decodeStrict(data, &job); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ old, new, want string }{
		{"completionMode:", "completionmode:", "completionmode"},
		{"  parallelism: 8\n", "  parallelism: 8\n  paralelism: 8\n", "paralelism"},
		{"  parallelism: 8\n", "  parallelism: 8\n  parallelism: 4\n", "parallelism"},
		{"  parallelism: 8\n", "  parallelism: eight\n", "parallelism"},
		{"restartPolicy: Never", "restartpolicy: Never", "restartpolicy"},
	} {
		bad := strings.Replace(string(data), c.old, c.new, 1)
		if bad == string(data) {
			t.Fatalf("sweep-job.yaml has no %q", c.old)
		}
		var job batchv1.Job
		if err := decodeStrict([]byte(bad), &job); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q -> %q: %v, want an error naming %s", c.old, c.new, err, c.want)
		}
	}
}

// theJobs returns the sweep (the Indexed Job) and the merge Job.
func theJobs(t *testing.T) (pvc *corev1.PersistentVolumeClaim, sweep, merge *batchv1.Job) {
	t.Helper()
	pvcs, jobs := manifests(t)
	if len(pvcs) != 1 || len(jobs) != 2 {
		t.Fatalf("%d PVCs and %d Jobs in deploy/k8s, want 1 and 2 (sweep and summarize)", len(pvcs), len(jobs))
	}
	for _, j := range jobs {
		if j.Spec.CompletionMode != nil && *j.Spec.CompletionMode == batchv1.IndexedCompletion {
			sweep = j
		} else {
			merge = j
		}
	}
	if sweep == nil || merge == nil {
		t.Fatal("want one Indexed Job (the sweep) and one other (the summarize Job)")
	}
	return pvcs[0], sweep, merge
}

// script returns the shell script a Job's only container runs with /bin/sh -c.
func script(t *testing.T, j *batchv1.Job) string {
	t.Helper()
	cs := j.Spec.Template.Spec.Containers
	if len(cs) != 1 {
		t.Fatalf("job %s: %d containers, want 1", j.Name, len(cs))
	}
	c := cs[0]
	if !slices.Equal(c.Command, []string{"/bin/sh", "-c"}) || len(c.Args) != 1 {
		t.Fatalf("job %s: command %q args %q, want /bin/sh -c SCRIPT", j.Name, c.Command, c.Args)
	}
	return c.Args[0]
}

// TestManifests checks that the PVC and the two Jobs fit together and with the flags of
// 'simulate sweep' and 'simulate summarize'.
func TestManifests(t *testing.T) {
	pvc, sweep, merge := theJobs(t)
	if !slices.Contains(pvc.Spec.AccessModes, corev1.ReadWriteMany) {
		t.Errorf("pvc %s: access modes %v, want ReadWriteMany (all shard pods write it)", pvc.Name, pvc.Spec.AccessModes)
	}
	if q := pvc.Spec.Resources.Requests[corev1.ResourceStorage]; q.IsZero() {
		t.Errorf("pvc %s: no storage request", pvc.Name)
	}

	image := documentedImage(t)
	for _, j := range []*batchv1.Job{sweep, merge} {
		ps := j.Spec.Template.Spec
		if ps.RestartPolicy != corev1.RestartPolicyNever {
			t.Errorf("job %s: restartPolicy %q, want Never", j.Name, ps.RestartPolicy)
		}
		if len(ps.Volumes) != 1 || ps.Volumes[0].PersistentVolumeClaim == nil || ps.Volumes[0].PersistentVolumeClaim.ClaimName != pvc.Name {
			t.Errorf("job %s: volumes %+v, want one: the PVC %s", j.Name, ps.Volumes, pvc.Name)
			continue
		}
		c := ps.Containers[0]
		if c.Image != image {
			t.Errorf("job %s: image %q, want %q (the one docs/kubernetes.md builds)", j.Name, c.Image, image)
		}
		if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].Name != ps.Volumes[0].Name || c.VolumeMounts[0].MountPath != "/results" {
			t.Errorf("job %s: volume mounts %+v, want %s at /results", j.Name, c.VolumeMounts, ps.Volumes[0].Name)
		}
		if err := exec.Command("sh", "-n", "-c", script(t, j)).Run(); err != nil {
			t.Errorf("job %s: the script is not valid shell: %v", j.Name, err)
		}
	}

	// The Indexed Job: n pods, pod i runs --shard i/n, at most n at a time.
	s := sweep.Spec
	if s.Completions == nil || *s.Completions < 1 || s.Parallelism == nil || *s.Parallelism < 1 || *s.Parallelism > *s.Completions {
		t.Fatalf("sweep job: completions %v parallelism %v, want 1 <= parallelism <= completions", s.Completions, s.Parallelism)
	}
	n := int(*s.Completions)
	sc := script(t, sweep)
	if !strings.Contains(sc, "i=$JOB_COMPLETION_INDEX\n") {
		t.Errorf("sweep job: the script does not take i from $JOB_COMPLETION_INDEX:\n%s", sc)
	}
	if m := regexp.MustCompile(`--shard "\$i/(\d+)"`).FindStringSubmatch(sc); m == nil || m[1] != strconv.Itoa(n) {
		t.Errorf("sweep job: want --shard \"$i/%d\" (as many shards as completions) in:\n%s", n, sc)
	}
	if s.BackoffLimit == nil || *s.BackoffLimit < 1 {
		t.Errorf("sweep job: backoffLimit %v, want retries for pods that die", s.BackoffLimit)
	}
	// Exit 2 (bad usage) fails the Job at once.
	name := sweep.Spec.Template.Spec.Containers[0].Name
	ok := false
	if pfp := s.PodFailurePolicy; pfp != nil {
		for _, r := range pfp.Rules {
			e := r.OnExitCodes
			ok = ok || r.Action == batchv1.PodFailurePolicyActionFailJob && e != nil && e.ContainerName != nil &&
				*e.ContainerName == name && e.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn && slices.Equal(e.Values, []int32{2})
		}
	}
	if !ok {
		t.Errorf("sweep job: podFailurePolicy %+v, want FailJob on exit code 2 of container %s", s.PodFailurePolicy, name)
	}

	// The merge Job: no retries (exit 1 is a verdict) and a check for all n shard files.
	if merge.Spec.BackoffLimit == nil || *merge.Spec.BackoffLimit != 0 {
		t.Errorf("summarize job: backoffLimit %v, want 0", merge.Spec.BackoffLimit)
	}
	if mc := script(t, merge); !strings.Contains(mc, `if [ "$n" -ne `+strconv.Itoa(n)+` ]; then`) {
		t.Errorf("summarize job: the script does not check for %d shard files:\n%s", n, mc)
	}
}

// documentedImage is the tag docs/kubernetes.md builds the image as.
func documentedImage(t *testing.T) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^docker build -f deploy/Dockerfile -t (\S+) \.$`).FindSubmatch(read(t, "docs/kubernetes.md"))
	if m == nil {
		t.Fatal("docs/kubernetes.md has no 'docker build -f deploy/Dockerfile -t IMAGE .'")
	}
	return string(m[1])
}

// statSources stats every Go source and go.mod/go.sum of the module: the tests below run a
// build of cmd/simulate in a child process, and go test caches a result only as long as the
// files the test itself looked at are unchanged.
func statSources(t *testing.T) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".go") || d.Name() == "go.mod" || d.Name() == "go.sum") {
			_, err = os.Stat(p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestShardsThenSummarize runs the documented flow with local processes: the sweep Job's script
// for every index 0..n-1, then the merge Job's script, with /results in a temporary directory
// and a 'simulate' on PATH that runs cmd/simulate with fewer seeds (2 per shard). The merge
// prints, and exits with, what one unsharded 'simulate sweep' with the same flags does.
func TestShardsThenSummarize(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/simulate and runs it many times")
	}
	_, sweep, merge := theJobs(t)
	n := int(*sweep.Spec.Completions)
	seeds := 2 * n
	statSources(t)

	tmp := t.TempDir()
	real := filepath.Join(tmp, "real", "simulate")
	buildCmd := exec.Command("go", "build", "-o", real, "./cmd/simulate")
	buildCmd.Dir = root
	if out, err := buildCmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/simulate: %v\n%s", err, out)
	}
	// The wrapper logs each command line (one argument a line, a blank line after) and replaces
	// the value of --seeds.
	bin := filepath.Join(tmp, "bin")
	log := filepath.Join(tmp, "argv.log")
	wrapper := fmt.Sprintf(`#!/bin/sh
next=
for a do
  shift
  if [ "$next" = seeds ]; then a=%d; fi
  next=; if [ "$a" = --seeds ]; then next=seeds; fi
  set -- "$@" "$a"
done
printf '%%s\n' "$@" >> %q
echo >> %q
exec %q "$@"
`, seeds, log, log, real)
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "simulate"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(tmp, "results")
	if err := os.Mkdir(results, 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(script string, env ...string) (stdout string, code int) {
		t.Helper()
		cmd := exec.Command("/bin/sh", "-c", strings.ReplaceAll(script, "/results", results))
		cmd.Env = append(os.Environ(), append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		// Nothing on stderr but a sweep's progress lines (a slow machine may take more than
		// their interval).
		if !regexp.MustCompile(`^(sweep: \d+ of \d+ seeds [^\n]*\n)*$`).MatchString(errb.String()) {
			t.Errorf("stderr of %q: %s", script, errb.String())
		}
		return out.String(), code
	}

	for i := range n {
		if _, code := run(script(t, sweep), "JOB_COMPLETION_INDEX="+strconv.Itoa(i)); code != 0 {
			t.Fatalf("shard %d: exit %d, want 0 (a failing seed is a result, not a pod failure)", i, code)
		}
		f, err := os.Open(filepath.Join(results, fmt.Sprintf("shard-%d.jsonl", i)))
		if err != nil {
			t.Fatal(err)
		}
		var got []uint64
		for sc := bufio.NewScanner(f); sc.Scan(); {
			var rec struct{ Seed uint64 }
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				t.Fatalf("shard-%d.jsonl: %v", i, err)
			}
			got = append(got, rec.Seed)
		}
		f.Close()
		if want := []uint64{uint64(i), uint64(i + n)}; !slices.Equal(got, want) {
			t.Errorf("shard %d ran seeds %v, want %v", i, got, want)
		}
	}
	entries, _ := os.ReadDir(results)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("%s left in /results", e.Name())
		}
	}

	gotOut, gotCode := run(script(t, merge))

	// The command line of the shard sweeps, without the sharding and output flags, is the
	// unsharded sweep.
	logged, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(logged), "\n\n")
	argv := strings.Split(first, "\n")
	if len(argv) == 0 || argv[0] != "sweep" {
		t.Fatalf("the sweep Job ran simulate %q", argv)
	}
	var unsharded []string
	for i := 0; i < len(argv); i++ {
		switch argv[i] {
		case "--shard", "--format", "--out", "--workers":
			i++
		default:
			unsharded = append(unsharded, argv[i])
		}
	}
	wantOut, wantCode := run("simulate " + shellQuote(unsharded))
	if gotOut != wantOut || gotCode != wantCode {
		t.Errorf("summarize of %d shards: exit %d, printed:\n%s\nsimulate %s: exit %d, printed:\n%s",
			n, gotCode, gotOut, strings.Join(unsharded, " "), wantCode, wantOut)
	}
	if !strings.Contains(wantOut, strconv.Itoa(seeds)) {
		t.Errorf("the unsharded sweep did not run %d seeds:\n%s", seeds, wantOut)
	}
}

func shellQuote(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

// instruction is one Dockerfile instruction: its keyword (upper case) and the rest of the line,
// continuation lines joined.
type instruction struct {
	cmd, args string
}

func parseDockerfile(t *testing.T, text string) []instruction {
	t.Helper()
	var out []instruction
	var cur string
	for _, l := range strings.Split(text, "\n") {
		if t := strings.TrimSpace(l); cur == "" && (t == "" || strings.HasPrefix(t, "#")) {
			continue
		}
		if s, ok := strings.CutSuffix(l, "\\"); ok {
			cur += s + " "
			continue
		}
		cur += l
		kw, rest, _ := strings.Cut(strings.TrimSpace(cur), " ")
		out = append(out, instruction{strings.ToUpper(kw), strings.TrimSpace(rest)})
		cur = ""
	}
	if cur != "" {
		t.Fatal("Dockerfile ends in a continuation line")
	}
	return out
}

// TestDockerfile checks that deploy/Dockerfile builds the command the README installs
// (go install ./cmd/simulate, a binary named simulate) with a Go new enough for go.mod, copies
// it into an image with a shell (the Jobs run /bin/sh -c), and makes it the entrypoint.
func TestDockerfile(t *testing.T) {
	ins := parseDockerfile(t, string(read(t, "deploy/Dockerfile")))
	type stage struct {
		from, name string
		body       []instruction
	}
	var stages []*stage
	for _, in := range ins {
		if in.cmd == "FROM" {
			f := strings.Fields(in.args)
			s := &stage{from: f[0]}
			if len(f) == 3 && strings.EqualFold(f[1], "AS") {
				s.name = f[2]
			} else if len(f) != 1 {
				t.Fatalf("FROM %s", in.args)
			}
			stages = append(stages, s)
			continue
		}
		if len(stages) == 0 {
			t.Fatalf("%s before FROM", in.cmd)
		}
		stages[len(stages)-1].body = append(stages[len(stages)-1].body, in)
	}
	if len(stages) != 2 || stages[0].name == "" {
		t.Fatalf("%d stages, want a named build stage and the image", len(stages))
	}
	buildStage, image := stages[0], stages[1]

	// The build stage: the golang image, at least the go.mod version, the whole module, go build.
	goVersion := regexp.MustCompile(`(?m)^go (\d+)\.(\d+)`).FindSubmatch(read(t, "go.mod"))
	imgVersion := regexp.MustCompile(`^golang:(\d+)\.(\d+)`).FindStringSubmatch(buildStage.from)
	if goVersion == nil || imgVersion == nil {
		t.Fatalf("build stage FROM %s, want golang:X.Y (go.mod: %q)", buildStage.from, goVersion)
	}
	atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
	if atoi(imgVersion[1]) < atoi(string(goVersion[1])) || atoi(imgVersion[1]) == atoi(string(goVersion[1])) && atoi(imgVersion[2]) < atoi(string(goVersion[2])) {
		t.Errorf("build stage FROM %s is older than go.mod's go %s.%s", buildStage.from, goVersion[1], goVersion[2])
	}
	if !slices.Contains(buildStage.body, instruction{"COPY", ". ."}) {
		t.Errorf("build stage: no COPY . . (the module)")
	}
	var out, pkg string
	for _, in := range buildStage.body {
		if in.cmd != "RUN" || !strings.Contains(in.args, "go build") {
			continue
		}
		f := strings.Fields(in.args)
		for i, a := range f {
			if a == "-o" && i+1 < len(f) {
				out = f[i+1]
			}
		}
		pkg = f[len(f)-1]
	}
	if out == "" || pkg == "" {
		t.Fatal("build stage: no RUN ... go build -o OUT PACKAGE")
	}
	bp, err := build.ImportDir(filepath.Join(root, filepath.FromSlash(pkg)), 0)
	if err != nil || bp.Name != "main" {
		t.Fatalf("go build %s: not a command (%v)", pkg, err)
	}
	if readme := string(read(t, "README.md")); !strings.Contains(readme, "go install "+pkg) {
		t.Errorf("the Dockerfile builds %s, which the README does not install (no 'go install %s')", pkg, pkg)
	}

	// The image: a shell, the binary under the name go install gives it, as the entrypoint.
	if !regexp.MustCompile(`^(busybox|alpine|debian|ubuntu)[:@]`).MatchString(image.from) {
		t.Errorf("image FROM %s: want an image with /bin/sh (the Jobs run /bin/sh -c)", image.from)
	}
	var dst string
	var entry []string
	for _, in := range image.body {
		switch in.cmd {
		case "COPY":
			if f := strings.Fields(in.args); len(f) == 3 && f[0] == "--from="+buildStage.name && f[1] == out {
				dst = f[2]
			}
		case "ENTRYPOINT":
			if err := json.Unmarshal([]byte(in.args), &entry); err != nil {
				t.Errorf("ENTRYPOINT %s: want the exec form [\"...\"]: %v", in.args, err)
			}
		}
	}
	if dst == "" {
		t.Fatalf("image: no COPY --from=%s %s DST", buildStage.name, out)
	}
	// simulate reads buckets through simulate-objstore, which it looks for beside itself.
	helper := path.Join(path.Dir(dst), "simulate-objstore")
	if !slices.ContainsFunc(image.body, func(in instruction) bool {
		f := strings.Fields(in.args)
		return in.cmd == "COPY" && len(f) == 3 && f[0] == "--from="+buildStage.name && f[2] == helper
	}) || !slices.ContainsFunc(buildStage.body, func(in instruction) bool {
		return in.cmd == "RUN" && strings.Contains(in.args, "go build") && strings.HasSuffix(in.args, " ./cmd/simulate-objstore")
	}) {
		t.Errorf("image: no %s built from ./cmd/simulate-objstore (s3://, gs:// and azblob:// URLs need it)", helper)
	}
	if path.Base(dst) != path.Base(pkg) || path.Dir(dst) != "/usr/local/bin" {
		t.Errorf("image: binary at %s, want /usr/local/bin/%s (on PATH, named as go install names it)", dst, path.Base(pkg))
	}
	if len(entry) != 1 || entry[0] != dst {
		t.Errorf("ENTRYPOINT %q, want [%q]", entry, dst)
	}
}
