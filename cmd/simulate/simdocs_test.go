package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The subset of the Kubernetes API that docs/kubernetes.md uses. Decoding with KnownFields
// catches a misspelt field name, which Kubernetes would silently drop (or reject).
type (
	k8sMeta struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Metadata   struct {
			Name string `yaml:"name"`
		} `yaml:"metadata"`
	}
	k8sPVC struct {
		k8sMeta `yaml:",inline"`
		Spec    struct {
			AccessModes []string `yaml:"accessModes"`
			Resources   struct {
				Requests map[string]string `yaml:"requests"`
			} `yaml:"resources"`
		} `yaml:"spec"`
	}
	k8sJob struct {
		k8sMeta `yaml:",inline"`
		Spec    struct {
			CompletionMode   string `yaml:"completionMode"`
			Completions      *int   `yaml:"completions"`
			Parallelism      *int   `yaml:"parallelism"`
			BackoffLimit     *int   `yaml:"backoffLimit"`
			PodFailurePolicy *struct {
				Rules []struct {
					Action      string `yaml:"action"`
					OnExitCodes struct {
						ContainerName string `yaml:"containerName"`
						Operator      string `yaml:"operator"`
						Values        []int  `yaml:"values"`
					} `yaml:"onExitCodes"`
				} `yaml:"rules"`
			} `yaml:"podFailurePolicy"`
			Template struct {
				Spec struct {
					RestartPolicy string         `yaml:"restartPolicy"`
					Containers    []k8sContainer `yaml:"containers"`
					Volumes       []struct {
						Name                  string `yaml:"name"`
						PersistentVolumeClaim struct {
							ClaimName string `yaml:"claimName"`
						} `yaml:"persistentVolumeClaim"`
					} `yaml:"volumes"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	k8sContainer struct {
		Name      string   `yaml:"name"`
		Image     string   `yaml:"image"`
		Command   []string `yaml:"command"`
		Args      []string `yaml:"args"`
		Resources struct {
			Requests map[string]string `yaml:"requests"`
			Limits   map[string]string `yaml:"limits"`
		} `yaml:"resources"`
		VolumeMounts []struct {
			Name      string `yaml:"name"`
			MountPath string `yaml:"mountPath"`
		} `yaml:"volumeMounts"`
	}
)

var yamlBlock = regexp.MustCompile("(?s)```yaml\n(.*?)```")

func decodeStrict(t *testing.T, text string, v any) {
	t.Helper()
	d := yaml.NewDecoder(strings.NewReader(text))
	d.KnownFields(true)
	if err := d.Decode(v); err != nil {
		t.Fatalf("docs/kubernetes.md: %v in:\n%s", err, text)
	}
}

// TestKubernetesDoc parses the manifests of docs/kubernetes.md and checks that they fit
// together: an Indexed Job with as many completions as shards, each shard's sweep command valid
// for 'simulate sweep', volumes that exist, and a merge Job expecting that many shard files.
func TestKubernetesDoc(t *testing.T) {
	data, err := os.ReadFile("../../docs/kubernetes.md")
	if err != nil {
		t.Fatal(err)
	}
	var pvcName string
	var jobs []k8sJob
	for _, m := range yamlBlock.FindAllStringSubmatch(string(data), -1) {
		var meta k8sMeta
		if err := yaml.Unmarshal([]byte(m[1]), &meta); err != nil {
			t.Fatalf("docs/kubernetes.md: %v in:\n%s", err, m[1])
		}
		switch meta.Kind {
		case "PersistentVolumeClaim":
			var pvc k8sPVC
			decodeStrict(t, m[1], &pvc)
			pvcName = pvc.Metadata.Name
		case "Job":
			var j k8sJob
			decodeStrict(t, m[1], &j)
			if j.APIVersion != "batch/v1" {
				t.Errorf("job %s: apiVersion %q, want batch/v1", j.Metadata.Name, j.APIVersion)
			}
			jobs = append(jobs, j)
		default:
			t.Errorf("unexpected kind %q", meta.Kind)
		}
	}
	if len(jobs) != 2 || pvcName == "" {
		t.Fatalf("%d jobs and PVC %q, want the sweep and the summarize job and a PVC", len(jobs), pvcName)
	}
	sweep, merge := jobs[0], jobs[1]
	for _, j := range jobs {
		ps := j.Spec.Template.Spec
		if ps.RestartPolicy != "Never" || len(ps.Containers) != 1 || len(ps.Volumes) != 1 {
			t.Errorf("job %s: restartPolicy %q, %d containers, %d volumes; want Never, 1, 1", j.Metadata.Name, ps.RestartPolicy, len(ps.Containers), len(ps.Volumes))
			continue
		}
		if ps.Volumes[0].PersistentVolumeClaim.ClaimName != pvcName {
			t.Errorf("job %s: claim %q, want the PVC %q", j.Metadata.Name, ps.Volumes[0].PersistentVolumeClaim.ClaimName, pvcName)
		}
		for _, vm := range ps.Containers[0].VolumeMounts {
			if vm.Name != ps.Volumes[0].Name || vm.MountPath != "/results" {
				t.Errorf("job %s: volume mount %+v, want %s at /results", j.Metadata.Name, vm, ps.Volumes[0].Name)
			}
		}
	}

	if sweep.Spec.CompletionMode != "Indexed" || sweep.Spec.Completions == nil {
		t.Fatalf("sweep job: completionMode %q, completions %v; want Indexed with completions", sweep.Spec.CompletionMode, sweep.Spec.Completions)
	}
	n := *sweep.Spec.Completions
	c := sweep.Spec.Template.Spec.Containers[0]
	if pfp := sweep.Spec.PodFailurePolicy; pfp == nil || len(pfp.Rules) != 1 || pfp.Rules[0].OnExitCodes.ContainerName != c.Name {
		t.Errorf("sweep job: podFailurePolicy %+v, want one rule for container %q", pfp, c.Name)
	}
	script := strings.Join(c.Args, "\n")
	m := regexp.MustCompile(`--shard "\$i/(\d+)"`).FindStringSubmatch(script)
	if m == nil || m[1] != strconv.Itoa(n) {
		t.Errorf("sweep job: --shard in %q, want \"$i/%d\" (as many shards as completions)", script, n)
	}
	if !strings.Contains(merge.Spec.Template.Spec.Containers[0].Args[0], `-ne `+strconv.Itoa(n)+` ]; then`) {
		t.Errorf("summarize job does not check for %d shard files:\n%s", n, merge.Spec.Template.Spec.Containers[0].Args[0])
	}

	// The shard's sweep command is valid: run it, smaller, for shard 3.
	line := regexp.MustCompile(`(?s)simulate sweep (.*?)>`).FindStringSubmatch(script)
	if line == nil {
		t.Fatalf("no 'simulate sweep' command in %q", script)
	}
	out := t.TempDir()
	var args []string
	for _, f := range strings.Fields(strings.ReplaceAll(line[1], "\\\n", " ")) {
		f = strings.Trim(strings.ReplaceAll(f, "$i", "3"), `"`)
		f = strings.ReplaceAll(f, "/results", out)
		args = append(args, f)
	}
	for i := range args {
		if args[i] == "--seeds" {
			args[i+1] = strconv.Itoa(2 * n) // two seeds per shard
		}
	}
	var stdout, stderr bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr}
	code := commands["sweep"].run(e, args)
	if code > 1 || stderr.Len() > 0 {
		t.Fatalf("sweep %q: exit %d, stderr %q", args, code, stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("sweep %q printed %d lines, want 2 (one per seed):\n%s", args, len(lines), stdout.String())
	}
	for i, l := range lines {
		rec, err := parseRecord([]byte(l))
		if err != nil || rec.Seed != uint64(3+i*n) {
			t.Errorf("line %d %q: %v; want seed %d", i, l, err, 3+i*n)
		}
	}
	if fi, err := os.Stat(filepath.Join(out, "failures")); err != nil || !fi.IsDir() {
		t.Errorf("--out directory: %v", err)
	}
}
