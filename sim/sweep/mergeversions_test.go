package sweep

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/sim"
)

// versionShards runs seeds 0..n-1 of a cross-version sweep and returns its text summary and
// its --format json lines split into shards by seed mod of.
func versionShards(t *testing.T, vs []model.FlinkVersion, n, steps, of int) (string, []string) {
	t.Helper()
	cfg := Config{Seeds: n, Steps: steps, Workers: 2}
	s := NewVersionsSummary(vs)
	shards := make([]string, of)
	RunVersions(cfg, vs, func(outs []sim.Outcome) bool {
		c := Compare(outs)
		s.Add(c)
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		shards[c.Seed%uint64(of)] += string(b) + "\n"
		return true
	})
	var w bytes.Buffer
	s.WriteText(&w, steps)
	return w.String(), shards
}

// TestMergeVersionShards: the shards of 'sweep --flink A,B --format json' merge into the text
// of the unsharded cross-version sweep, in any order (issue 28: summarize refused them with
// `json: unknown field "records"`).
func TestMergeVersionShards(t *testing.T) {
	vs := []model.FlinkVersion{model.Flink23, model.FlinkMaster}
	want, shards := versionShards(t, vs, 24, 8, 3)
	if !strings.Contains(want, "# flink master\n") {
		t.Fatalf("unexpected summary:\n%s", want)
	}
	for _, order := range [][]int{{0, 1, 2}, {2, 0, 1}} {
		m := NewMerger()
		for _, i := range order {
			if err := m.ReadShard(string(rune('a'+i)), strings.NewReader(shards[i])); err != nil {
				t.Fatal(err)
			}
		}
		if !m.CrossVersion() {
			t.Fatal("CrossVersion() = false")
		}
		s, steps, err := m.VersionsSummary()
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		s.WriteText(&got, steps)
		if got.String() != want {
			t.Errorf("order %v: merged summary differs:\n%s\nwant:\n%s", order, got.String(), want)
		}
	}

	_, other := versionShards(t, []model.FlinkVersion{model.Flink23, model.Flink118}, 2, 8, 1)
	_, longer := versionShards(t, vs, 2, 9, 1)
	first := strings.SplitAfter(shards[0], "\n")[0]
	for _, tc := range []struct {
		name   string
		shards []string
		want   string
	}{
		{"single after cross", []string{shards[0], rec(1, "2.3", 8) + "\n"},
			`^b:1: a single-version record \(sweep --flink V\) among the cross-version records of a:1 \(sweep --flink 2\.3,master\): the shards of one sweep share --flink$`},
		{"cross after single", []string{rec(1, "2.3", 8) + "\n", shards[0]},
			`^b:1: a cross-version record \(sweep --flink 2\.3,master\) among the single-version records of a:1 \(sweep --flink 2\.3\): the shards of one sweep share --flink$`},
		{"other versions", []string{shards[1], other[0]},
			`^b:1: seed 0 has flink 2\.3,1\.18, but seed 1 \(a:1\) has flink 2\.3,master: the shards of one sweep share --flink$`},
		{"other steps", []string{shards[1], longer[0]},
			`^b:1: seed 0 has steps 9, but seed 1 \(a:1\) has steps 8: the shards of one sweep share --steps$`},
		{"overlap", []string{shards[0], first}, `^seed 0 is in both a and b: overlapping shards`},
		{"one version", []string{`{"seed":1,"records":[` + rec(1, "2.3", 8) + `],"differences":[]}` + "\n"},
			`^a:1: not a seed record of 'simulate sweep --flink A,B --format json': 1 record, want one per version \(at least 2\)$`},
		{"record of another seed", []string{strings.Replace(first, `{"seed":0,"flink"`, `{"seed":7,"flink"`, 1)},
			`^a:1: not a seed record of 'simulate sweep --flink A,B --format json': seed 0 holds a record of seed 7$`},
		{"unknown field", []string{strings.Replace(first, `"differences"`, `"diffs"`, 1)},
			`^a:1: not a seed record of 'simulate sweep --flink A,B --format json': json: unknown field "diffs"$`},
	} {
		m := NewMerger()
		var err error
		for i, s := range tc.shards {
			if err = m.ReadShard(string(rune('a'+i)), strings.NewReader(s)); err != nil {
				break
			}
		}
		if err == nil {
			_, _, err = m.VersionsSummary()
		}
		if err == nil || !regexp.MustCompile(tc.want).MatchString(err.Error()) {
			t.Errorf("%s: error %v, want %s", tc.name, err, tc.want)
		}
	}
}
