package plots

import (
	"bytes"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gonum.org/v1/plot/vg"

	"github.com/restoresim/restoresim/internal/realmeta"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/savepoint"
)

func TestByteUnit(t *testing.T) {
	for _, tc := range []struct {
		max  int64
		unit string
		text string
	}{
		{0, "B", "0 B"},
		{70, "B", "70 B"},
		{1023, "B", "1023 B"},
		{1024, "KiB", "1.0 KiB"},
		{54453, "KiB", "53.2 KiB"},
		{1<<20 - 1, "KiB", "1024.0 KiB"},
		{1 << 20, "MiB", "1.0 MiB"},
		{5<<20 + 1<<19, "MiB", "5.5 MiB"},
		{3 << 30, "GiB", "3.0 GiB"},
		{5 << 40, "GiB", "5120.0 GiB"},
	} {
		if u, _ := ByteUnit(tc.max); u != tc.unit {
			t.Errorf("ByteUnit(%d) = %s, want %s", tc.max, u, tc.unit)
		}
		if got := FormatBytes(tc.max); got != tc.text {
			t.Errorf("FormatBytes(%d) = %q, want %q", tc.max, got, tc.text)
		}
	}
}

func TestTickStep(t *testing.T) {
	for _, tc := range []struct{ n, labels, want int }{
		{1, 1, 1},
		{1, 0, 1}, // no room: still one label
		{4, 4, 1},
		{5, 4, 2},
		{10, 5, 2},
		{11, 5, 5},
		{300, 20, 20}, // 0, 20, …, 280: 15 labels
		{300, 14, 50},
		{300, 5, 100},
		{32768, 20, 2000},
	} {
		if got := TickStep(tc.n, tc.labels); got != tc.want {
			t.Errorf("TickStep(%d, %d) = %d, want %d", tc.n, tc.labels, got, tc.want)
		}
	}
}

// inches writes a rectangle in inches, two decimals.
func inches(r vg.Rectangle) string {
	in := func(l vg.Length) float64 { return float64(l / vg.Inch) }
	return fmt.Sprintf("%.2f,%.2f-%.2f,%.2f", in(r.Min.X), in(r.Min.Y), in(r.Max.X), in(r.Max.Y))
}

func TestLayOutPlan(t *testing.T) {
	in := vg.Inch
	for _, tc := range []struct {
		name      string
		subtasks  []int
		lines     int
		legend    []vg.Length
		cols      int
		height    float64  // inches
		panels    []string // inches, see inches
		legendRow []int    // the legend entries' row (0 = top row)
	}{
		// Height = margins 0.3 + header 0.59 (title 0.3, one subtitle line 0.19, gap 0.1) + the
		// gaps around the lines 0.2 = 1.09, plus panel rows, lines (0.19) and legend rows (0.22).
		// One panel alone: a row of 3.2 → 1.09 + 3.2 + 0.22 = 4.51; the panel from 0.15 + 0.22
		// + 0.2 = 0.57 up to 4.51 − 0.74 = 3.77, full width.
		{name: "one vertex, one subtask", subtasks: []int{1}, legend: []vg.Length{in},
			cols: 1, height: 4.51, panels: []string{"0.15,0.57-7.85,3.77"}, legendRow: []int{0}},
		// Two rows of 2.4, a line, legend entries 0.14 + 0.05 + 1 = 1.19 wide 0.25 apart: five
		// fit in 7.7 (6.95), the sixth would end at 8.39 → 2 rows. 1.09 + 4.8 + 0.19 + 0.44 = 6.52.
		{name: "six vertices", subtasks: []int{1, 4, 3, 2, 2, 1}, lines: 1, legend: []vg.Length{in, in, in, in, in, in, in},
			cols: 3, height: 6.52, legendRow: []int{0, 0, 0, 0, 0, 1, 1},
			panels: []string{ // 3 per row, 7.7 / 3 = 2.57 inches wide
				"0.15,3.38-2.72,5.78", "2.72,3.38-5.28,5.78", "5.28,3.38-7.85,5.78",
				"0.15,0.98-2.72,3.38", "2.72,0.98-5.28,3.38", "5.28,0.98-7.85,3.38"}},
		// The 300-subtask vertex takes a row of its own, full width; the others keep the grid.
		// Three rows: 1.09 + 7.2 + 0.22 = 8.51.
		{name: "a vertex of 300 subtasks", subtasks: []int{2, 300, 1}, legend: []vg.Length{in, in, in},
			cols: 2, height: 8.51, legendRow: []int{0, 0, 0},
			panels: []string{"0.15,5.37-4.00,7.77", "0.15,2.97-7.85,5.37", "0.15,0.57-4.00,2.97"}},
		// 25 subtasks fit half the width (0.8 + 25 × 0.12 = 3.8 ≤ 3.85 inches), 26 do not.
		{name: "the width rule", subtasks: []int{25, 26}, cols: 2, height: 5.89,
			panels: []string{"0.15,2.75-4.00,5.15", "0.15,0.35-7.85,2.75"}},
		{name: "nothing to draw", lines: 9, cols: 1, height: 2.80}, // 1.09 + 9 × 0.19
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := LayOutPlan(tc.subtasks, 1, tc.lines, tc.legend)
			if l.Cols != tc.cols || fmt.Sprintf("%.2f", float64(l.Height/vg.Inch)) != fmt.Sprintf("%.2f", tc.height) {
				t.Errorf("cols %d, height %.2f in; want %d, %.2f", l.Cols, float64(l.Height/vg.Inch), tc.cols, tc.height)
			}
			var got []string
			for _, r := range l.Panels {
				got = append(got, inches(r))
			}
			if diff := cmp.Diff(tc.panels, got); diff != "" {
				t.Errorf("panels (-want +got):\n%s", diff)
			}
			var rows []int
			for _, r := range l.Legend {
				rows = append(rows, int(((l.Legend[0].Max.Y-r.Max.Y)/planLegendRowH).Points()+0.5))
			}
			if diff := cmp.Diff(tc.legendRow, rows); diff != "" {
				t.Errorf("legend rows (-want +got):\n%s", diff)
			}
			checkInsideApart(t, l)
		})
	}
}

// checkInsideApart fails unless every part of l lies inside the canvas and no two overlap.
func checkInsideApart(t *testing.T, l PlanLayout) {
	t.Helper()
	parts := map[string]vg.Rectangle{"header": l.Header, "lines": l.Lines}
	for i, r := range l.Panels {
		parts[fmt.Sprintf("panel %d", i)] = r
	}
	for i, r := range l.Legend {
		parts[fmt.Sprintf("legend %d", i)] = r
	}
	const eps = 1e-9
	for name, r := range parts {
		if r.Min.X < -eps || r.Min.Y < -eps || r.Max.X > l.Width+eps || r.Max.Y > l.Height+eps || r.Min.X > r.Max.X || r.Min.Y > r.Max.Y {
			t.Errorf("%s %s is not inside the %.2f × %.2f in canvas", name, inches(r), float64(l.Width/vg.Inch), float64(l.Height/vg.Inch))
		}
		for other, q := range parts {
			if other <= name {
				continue
			}
			if r.Min.X < q.Max.X-eps && q.Min.X < r.Max.X-eps && r.Min.Y < q.Max.Y-eps && q.Min.Y < r.Max.Y-eps {
				t.Errorf("%s %s overlaps %s %s", name, inches(r), other, inches(q))
			}
		}
	}
}

// Every layout of up to 60 panels of 1 to 400 subtasks, with lines and a long legend, stays
// inside its canvas without overlaps.
func TestLayOutPlanNeverOverlaps(t *testing.T) {
	for n := 0; n <= 60; n += 3 {
		subtasks := make([]int, n)
		legend := make([]vg.Length, n)
		for i := range subtasks {
			subtasks[i] = 1 + (i*37)%400
			legend[i] = vg.Length(1+i%7) * vg.Inch
		}
		checkInsideApart(t, LayOutPlan(subtasks, 2, n%5, legend))
	}
}

// plan is a hand-made restore plan: vertex "src" (p=1), "keyed -> map" (p=3, two stateful
// operators), "sink" (p=2, reads nothing) and a refused operator.
func testPlan() *savepoint.RestorePlan {
	sub := func(reads ...int64) []savepoint.SubtaskPlan {
		var s []savepoint.SubtaskPlan
		for i, b := range reads {
			s = append(s, savepoint.SubtaskPlan{Index: i, BytesRead: b})
		}
		return s
	}
	id := func(c byte) string { return strings.Repeat(string(c), 32) }
	p, four := 3, 4
	check := model.Check("max-parallelism-below-parallelism")
	msg := "The maximum parallelism (4) of the restored state is lower than the configured parallelism (5)."
	return &savepoint.RestorePlan{Path: "/x/y/_metadata", Flink: "1.18", NewParallelism: &p, Job: true,
		Error: &msg, Check: &check,
		Vertices: []savepoint.VertexPlan{
			{Name: "src", Parallelism: 1, ParallelismSource: savepoint.SourceJob, Operators: []string{id('a')}},
			{Name: "keyed -> map", Parallelism: 3, ParallelismSource: savepoint.SourceDefault, Operators: []string{id('c'), id('b')}}, // tail first
			{Name: "sink", Parallelism: 2, ParallelismSource: savepoint.SourceVertex, Operators: []string{id('d')}},
			{Name: "wide " + id('e'), Parallelism: 5, ParallelismSource: savepoint.SourceJob, Operators: []string{id('e')}},
		},
		Operators: []savepoint.OperatorPlan{
			{OperatorID: id('a'), UID: "source-uid", Status: "restored", BytesRead: 300, CoordinatorStateBytes: 126, Subtasks: sub(300)},
			{OperatorID: id('b'), Name: "keyed", Status: "restored", BytesRead: 3 << 10, Subtasks: sub(1<<10, 2<<10, 0)},
			{OperatorID: id('c'), Status: "restored", BytesRead: 6, Subtasks: sub(1, 2, 3)},
			{OperatorID: id('d'), Status: "restored", Subtasks: sub(0, 0)},
			{OperatorID: id('e'), Status: "refused", Check: &check, MaxRestorableParallelism: &four, Fix: "run it at parallelism 4 or less"},
			{OperatorID: id('f'), Status: "dropped"},
		},
		DroppedOperators: 1, DroppedStateBytes: 2048,
	}
}

func TestNewPlanChart(t *testing.T) {
	want := PlanChart{
		Title:    "REFUSED: max-parallelism-below-parallelism",
		Subtitle: "_metadata, Flink 1.18 restore into the --job: what each new subtask would download once the refused operators are fixed; + 126 B coordinator state on the JobManager",
		Panels: []PlanPanel{
			{Name: "src", Title: "src · p=1 (job)", Parallelism: 1, Operators: []PanelOperator{{Label: "source-uid (aaaaaaaa)", BytesRead: []int64{300}}}},
			// The chain head first: b (keyed) at the bottom of each stack, then c.
			{Name: "keyed -> map", Title: "keyed -> map · p=3", Parallelism: 3, Operators: []PanelOperator{
				{Label: "keyed (bbbbbbbb)", BytesRead: []int64{1 << 10, 2 << 10, 0}}, {Label: "operator cccccccc", BytesRead: []int64{1, 2, 3}}}},
		},
		// Only the panel of two operators needs a legend; colours by the place in the stack.
		Legend: []LegendEntry{{"keyed -> map: keyed (bbbbbbbb)", 0}, {"keyed -> map: operator cccccccc", 1}},
		Lines: []string{
			"REFUSED operator eeeeeeee (max-parallelism-below-parallelism): max restorable parallelism 4; fix: run it at parallelism 4 or less",
			"dropped (--allow-non-restored-state): 1 operator, 2.0 KiB of state",
			"not drawn, its restore reads nothing: sink · p=2 (--vertex)",
		},
	}
	if diff := cmp.Diff(want, NewPlanChart(testPlan())); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	pl := testPlan()
	pl.Check, pl.Error, pl.Restorable = nil, nil, true
	if got := NewPlanChart(pl).Title; got != "Bytes read per new subtask" {
		t.Errorf("restorable plan: title %q", got)
	}
}

// svgTexts is the text of an SVG's <text> elements.
func svgTexts(t *testing.T, c *Chart) []string {
	t.Helper()
	var buf bytes.Buffer
	if err := c.Encode(&buf, SVG, EncodeOptions{}); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile(`<text[^>]*>([^<]*)</text>`).FindAllStringSubmatch(buf.String(), -1) {
		out = append(out, html.UnescapeString(m[1]))
	}
	return out
}

func planOf(t *testing.T, name string, opts savepoint.Options) *savepoint.RestorePlan {
	t.Helper()
	path := filepath.Join(realmeta.Sub(t, "real"), name)
	sp, err := savepoint.Open(os.DirFS("/"), strings.TrimPrefix(path, "/"), name)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := savepoint.PlanRestore(sp, opts)
	if err != nil {
		t.Fatal(err)
	}
	return pl
}

// A refused plan is titled REFUSED: and its check, in the drawn SVG too.
func TestPlanChartRefused(t *testing.T) {
	const file = "new-stateful-udf-migration-itcase-flink1.18-rocksdb-savepoint-native.metadata"
	pl := planOf(t, file, savepoint.Options{Flink: model.Flink118, Parallelism: 5})
	pc := NewPlanChart(pl)
	if pc.Title != "REFUSED: max-parallelism-below-parallelism" || len(pc.Panels) != 0 {
		t.Errorf("title %q, %d panels; want REFUSED: max-parallelism-below-parallelism, none", pc.Title, len(pc.Panels))
	}
	c, err := pc.Chart()
	if err != nil {
		t.Fatal(err)
	}
	texts := svgTexts(t, c)
	if len(texts) == 0 || texts[0] != "REFUSED: max-parallelism-below-parallelism" {
		t.Errorf("SVG texts start %q", texts[:min(len(texts), 3)])
	}
	for _, s := range texts {
		if strings.Contains(s, "no state") {
			t.Errorf("SVG text %q", s)
		}
	}
}

// Per-vertex grouping on a job of vertices of different parallelisms over a real savepoint:
// each vertex its own panel with its own number of bars, a chain of two stateful operators
// stacked in one panel, every value the plan's bytes read.
func TestPlanChartJobVertices(t *testing.T) {
	ptr := func(p int) *int { return &p }
	hex := func(s string) *string { return &s }
	jf := savepoint.JobFile{Vertices: []savepoint.JobFileVertex{
		{Name: "Source: numbers", Parallelism: ptr(1), Operators: []savepoint.JobFileOperator{{ID: hex("1f2b5df5a66154aca61fcb26193792be")}}},
		{Name: "keyed A -> map", Parallelism: ptr(4), Operators: []savepoint.JobFileOperator{
			{ID: hex("d5c8b168c6cbfe8c507a10f88b325243")}, {ID: hex("41e91aae0bee218c44306cf7d21940ad")}}},
		{Name: "keyed B", Parallelism: ptr(3), Operators: []savepoint.JobFileOperator{{ID: hex("dab25811652d3d4983a30c6e4afacb1c")}}},
		{Name: "keyed C", Parallelism: ptr(2), Operators: []savepoint.JobFileOperator{{ID: hex("4b818c7923a927796d24b727201ba34d")}}},
		{Name: "stateless", Parallelism: ptr(2), Operators: []savepoint.JobFileOperator{
			{ID: hex("06d8049845c382d79d17d43c9ef349f7")}, {ID: hex("330bf7ad4176e7c36829a4bf9459db07")}}},
		{Name: "Sink: print", Parallelism: ptr(1), Operators: []savepoint.JobFileOperator{{ID: hex("69f32d314b97c6f7f9ed7873983167f2")}}},
	}}
	job, err := jf.Validate(0)
	if err != nil {
		t.Fatal(err)
	}
	const file = "new-stateful-udf-migration-itcase-flink1.18-rocksdb-savepoint-native.metadata"
	pl := planOf(t, file, savepoint.Options{Flink: model.Flink118, Job: job})
	if !pl.Restorable {
		t.Fatalf("refused: %v", pl.Refusal)
	}
	pc := NewPlanChart(pl)
	type panel struct {
		Title     string
		Bars      int
		Operators []string
	}
	var got []panel
	for _, p := range pc.Panels {
		q := panel{Title: p.Title, Bars: p.Parallelism}
		for _, o := range p.Operators {
			q.Operators = append(q.Operators, o.Label)
			if len(o.BytesRead) != p.Parallelism {
				t.Errorf("%s: %s has %d values, want %d", p.Title, o.Label, len(o.BytesRead), p.Parallelism)
			}
		}
		got = append(got, q)
	}
	want := []panel{
		{"Source: numbers · p=1 (job)", 1, []string{"operator 1f2b5df5"}},
		{"keyed A -> map · p=4 (job)", 4, []string{"operator d5c8b168", "operator 41e91aae"}},
		{"keyed B · p=3 (job)", 3, []string{"operator dab25811"}},
		{"keyed C · p=2 (job)", 2, []string{"operator 4b818c79"}},
		{"Sink: print · p=1 (job)", 1, []string{"operator 69f32d31"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("panels (-want +got):\n%s", diff)
	}
	// Every drawn value is the plan's bytes read of that operator and subtask, and every byte
	// the plan reads is drawn.
	var drawn, planned int64
	for _, p := range pc.Panels {
		for _, o := range p.Operators {
			for _, b := range o.BytesRead {
				drawn += b
			}
		}
	}
	for _, o := range pl.Operators {
		planned += o.BytesRead
	}
	if drawn != planned || drawn == 0 {
		t.Errorf("drawn %d bytes, the plan reads %d", drawn, planned)
	}
	if want := "not drawn, its restore reads nothing: stateless · p=2 (job)"; len(pc.Lines) != 1 || pc.Lines[0] != want {
		t.Errorf("lines %q, want [%q]", pc.Lines, want)
	}
	c, err := pc.Chart()
	if err != nil {
		t.Fatal(err)
	}
	texts := strings.Join(svgTexts(t, c), "\n")
	if diff := cmp.Diff([]LegendEntry{{"keyed A -> map: operator d5c8b168", 0}, {"keyed A -> map: operator 41e91aae", 1}}, pc.Legend); diff != "" {
		t.Errorf("legend (-want +got):\n%s", diff)
	}
	for _, s := range []string{"keyed A -> map · p=4 (job)", "bytes read (KiB)", "bytes read (B)", "keyed A -> map: operator 41e91aae"} {
		if !strings.Contains(texts, s) {
			t.Errorf("the SVG has no text %q", s)
		}
	}
}

// A panel's axes: the x range is exactly the bars' (-0.5 … n−0.5, so the first and last bar are
// whole), subtask labels thinned by TickStep, the byte axis in the unit of its largest stack.
func TestPanelPlotAxes(t *testing.T) {
	for _, tc := range []struct {
		n      int
		width  vg.Length
		read   int64 // bytes read by every subtask
		labels string
		yLabel string
	}{
		{1, 7.62 * vg.Inch, 70, "0", "bytes read (B)"},
		{4, 2.49 * vg.Inch, 54453, "0 1 2 3", "bytes read (KiB)"},
		// (2.49 − 0.8) / 0.35 → room for 4 labels: step 5 labels 0 5 10.
		{12, 2.49 * vg.Inch, 3 << 20, "0 5 10", "bytes read (MiB)"},
		// (7.62 − 0.8) / 0.35 → 19 labels: step 20.
		{300, 7.62 * vg.Inch, 1 << 30, "0 20 40 60 80 100 120 140 160 180 200 220 240 260 280", "bytes read (GiB)"},
	} {
		reads := make([]int64, tc.n)
		for i := range reads {
			reads[i] = tc.read
		}
		p, err := panelPlot(PlanPanel{Title: "t", Parallelism: tc.n, Operators: []PanelOperator{{BytesRead: reads}}}, tc.width)
		if err != nil {
			t.Fatal(err)
		}
		if p.X.Min != -0.5 || p.X.Max != float64(tc.n)-0.5 {
			t.Errorf("n=%d: x range %v..%v", tc.n, p.X.Min, p.X.Max)
		}
		var labels []string
		for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		if got := strings.Join(labels, " "); got != tc.labels || p.Y.Label.Text != tc.yLabel {
			t.Errorf("n=%d: x labels %q, y label %q; want %q, %q", tc.n, got, p.Y.Label.Text, tc.labels, tc.yLabel)
		}
	}
}

// A panel title too wide keeps its suffix (the parallelism), the operator ID of its label and
// the head and tail of the name before it.
func TestFitTitle(t *testing.T) {
	sty := textStyle(10, nil)
	p := PlanPanel{Name: "operator-with-a-rather-long-uid-12 (44cac633)"}
	p.Title = p.Name + " · p=7 (kept)"
	w := 2.2 * vg.Inch
	got := fitTitle(sty, p, w)
	if textWidth(sty, got) > w || !strings.HasPrefix(got, "op") || !strings.HasSuffix(got, "2 (44cac633) · p=7 (kept)") || !strings.Contains(got, "…") {
		t.Errorf("fitTitle = %q (%.2f in of %.2f)", got, float64(textWidth(sty, got)/vg.Inch), float64(w/vg.Inch))
	}
	if got := fitTitle(sty, p, 10*vg.Inch); got != p.Title {
		t.Errorf("fitTitle with room = %q", got)
	}
}

// The subtitle of a refused plan is drawn whole, its last clause included (issue 28: a long
// file name cut it to "… + 1…"), and every line fits.
func TestPlanSubtitleWhole(t *testing.T) {
	pl := testPlan()
	pl.Path = "/x/new-stateful-broadcast-udf-migration-itcase-flink2.1-hashmap-savepoint-native-with-a-longer-name.metadata"
	pl.MaxRestorableParallelism = new(int)
	*pl.MaxRestorableParallelism = 4
	pc := NewPlanChart(pl)
	if !strings.HasSuffix(pc.Subtitle, "(the whole restore succeeds up to --parallelism 4); + 126 B coordinator state on the JobManager") {
		t.Fatalf("subtitle %q", pc.Subtitle)
	}
	c, err := pc.Chart()
	if err != nil {
		t.Fatal(err)
	}
	texts := svgTexts(t, c)
	var sub []string
	for _, s := range texts[1:] {
		if strings.HasPrefix(s, "src") { // the first panel
			break
		}
		sub = append(sub, s)
	}
	if got := strings.Join(sub, " "); got != pc.Subtitle {
		t.Errorf("subtitle drawn as %q, want it whole: %q", sub, pc.Subtitle)
	}
}

// Panel titles too wide for their panel still tell the tasks apart by their names, not only by
// the operator IDs (issue 28: "CheckpointingSource1 (69f32d31)" and "CheckpointingSource2
// (1f2b5df5)" were both drawn as "Checkpointin… (…)").
func TestPlanPanelTitlesDistinct(t *testing.T) {
	dir, err := realmeta.Find("recent")
	if err != nil {
		t.Skip(err)
	}
	const name = "new-stateful-broadcast-udf-migration-itcase-flink2.1-hashmap-savepoint.metadata"
	sp, err := savepoint.Open(os.DirFS("/"), strings.TrimPrefix(filepath.Join(dir, name), "/"), name)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := savepoint.PlanRestore(sp, savepoint.Options{Flink: model.Flink23, Parallelism: 4})
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewPlanChart(pl).Chart()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	id := regexp.MustCompile(` \([0-9a-f]{8}\)`)
	n := 0
	for _, s := range svgTexts(t, c) {
		if !strings.HasSuffix(s, " · p=4") || strings.HasPrefix(s, "not drawn") {
			continue
		}
		n++
		if !id.MatchString(s) {
			t.Errorf("title %q lost its operator ID", s)
		}
		label := id.ReplaceAllString(s, "")
		if other, dup := seen[label]; dup {
			t.Errorf("titles %q and %q differ only in their operator IDs", other, s)
		}
		seen[label] = s
	}
	if n != 6 {
		t.Errorf("%d panel titles, want 6: %v", n, seen)
	}
}
