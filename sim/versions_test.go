package sim

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
)

// TestMetadataFormatPerVersion: a simulation of each Flink version writes its checkpoints and
// savepoints in that version's _metadata format (SPEC-VERSIONS.md §7; 1.10.1's simulation keeps
// version 4), with operator names and uids from version 5 on, and reads them back.
func TestMetadataFormatPerVersion(t *testing.T) {
	for _, v := range model.FlinkVersions() {
		seen := map[int32]int{}
		for seed := uint64(0); seed < 20; seed++ {
			p := Generate(seed, v, 40)
			w := newWorld(p)
			for i, s := range p.Steps {
				w.step(i, s)
			}
			for path, f := range w.fs.files {
				w.fs.load(f)
				b, ok := f.content.([]byte)
				if !ok || !strings.HasSuffix(path, "/"+model.MetadataFileName) || len(b) < 8 {
					continue
				}
				mf, err := metadata.Read(b)
				if err != nil {
					continue // storage faults truncate files
				}
				savepoint := strings.Contains(path, "/savepoints/")
				if want := writeFormat(v, savepoint); mf.Version != want {
					t.Errorf("%v seed %d: %s has format version %d, want %d", v, seed, path, mf.Version, want)
				}
				seen[mf.Version]++
				for _, op := range mf.Operators {
					if (mf.Version >= 5) != (op.Name != "") {
						t.Errorf("%v seed %d: %s: operator %v named %q", v, seed, path, op.ID, op.Name)
					}
				}
				if _, err := w.fs.ReadMetadata(model.CheckpointLocation{Metadata: model.StreamHandle{Path: path}}); err != nil {
					t.Errorf("%v seed %d: %s: %v", v, seed, path, err)
				}
			}
		}
		if len(seen) == 0 {
			t.Errorf("%v: no metadata file written", v)
		}
		t.Logf("%v: files per format version %v", v, seen)
	}
}

// TestOlderReleaseRefusesNewerFormat: a simulated storage of an older release refuses a file
// in a newer format with Flink's message.
func TestOlderReleaseRefusesNewerFormat(t *testing.T) {
	fs := newMemFS(model.Flink23)
	md := model.CheckpointMetadata{CheckpointID: 1, Operators: []model.OperatorState{{OperatorID: model.OperatorIDFromUID("a"), Parallelism: 1, MaxParallelism: 128}}}
	if err := writeMetadata(fs, "file:/c/_metadata", md, true, nil); err != nil {
		t.Fatal(err)
	}
	loc := model.CheckpointLocation{Metadata: model.StreamHandle{Path: "file:/c/_metadata"}}
	for _, v := range model.FlinkVersions() {
		fs.version = v
		_, err := fs.ReadMetadata(loc)
		switch {
		case v == model.Flink1101 || v.AtLeast(model.Flink21):
			if err != nil {
				t.Errorf("%v: %v", v, err)
			}
		case err == nil || !strings.Contains(err.Error(), "Unrecognized checkpoint version number: 6"):
			t.Errorf("%v: %v, want the refusal of format version 6", v, err)
		}
	}
}

// TestReleasesAgree: where SPEC-VERSIONS.md says nothing differs, the releases agree. Every
// modelled release from 1.18 to 2.3 gives each seed the same trace and the same violations
// (the generator does not depend on the version either), up to the reader's message for a
// truncated _metadata file, whose offsets depend on the format version.
func TestReleasesAgree(t *testing.T) {
	seeds := uint64(20)
	if testing.Short() {
		seeds = 5
	}
	for seed := range seeds {
		want := Run(Generate(seed, model.Flink118, 40))
		for _, v := range model.FlinkVersions() {
			if v == model.Flink1101 || v == model.Flink118 || !v.Released() {
				continue
			}
			p := Generate(seed, v, 40)
			if p.Job.String() != want.Plan.Job.String() || len(p.Steps) != len(want.Plan.Steps) {
				t.Fatalf("seed %d: %v generates another plan than 1.18", seed, v)
			}
			got := Run(p)
			wt, gt := normalizeMetadataErrors(want.Trace), normalizeMetadataErrors(got.Trace)
			if v.AtLeast(model.Flink119) {
				// FLINK-33341 (1.19): a restore after a rescale reads keyed state from every
				// local copy whose key-group range a JobManager handle has, not only from one
				// copy that matches the only handle (docs/versions.md), so more states can come
				// from local copies; the rest of the trace is the same.
				wt, gt = normalizeLocalCopies(wt), normalizeLocalCopies(gt)
			}
			if d := cmp.Diff(wt, gt); d != "" {
				t.Fatalf("seed %d: %v's trace differs from 1.18's (-1.18 +%v):\n%s", seed, v, v, d)
			}
			if d := cmp.Diff(want.Violations, got.Violations); d != "" {
				t.Fatalf("seed %d: %v's violations differ from 1.18's:\n%s", seed, v, d)
			}
		}
	}
}

var metadataError = regexp.MustCompile(`\(metadata: offset .*?\); `)

// normalizeMetadataErrors drops the reader's detail from loud failures to read a damaged
// _metadata file.
var localCopies = regexp.MustCompile(`\(\d+ states from local copies\) `)

// normalizeLocalCopies leaves out how many states a restore read from local copies.
func normalizeLocalCopies(trace []string) []string {
	out := make([]string, len(trace))
	for i, l := range trace {
		out[i] = localCopies.ReplaceAllString(l, "")
	}
	return out
}

func normalizeMetadataErrors(trace []string) []string {
	out := make([]string, len(trace))
	for i, l := range trace {
		out[i] = metadataError.ReplaceAllString(l, "(metadata: …); ")
	}
	return out
}
