package plots

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/restoresim/restoresim/model/savepoint"
)

// PlanChart is what the chart of a restore plan (`simulate plan --out`) shows, as plain data:
// one panel per task (vertex) of the new job whose subtasks read state, each subtask its own
// bar of the bytes its restore downloads (SubtaskPlan.BytesRead), stacked by the operators of
// the task's chain. Tasks of different parallelisms are never merged into one bar. Build one
// with NewPlanChart, draw it with Chart.
type PlanChart struct {
	// Title is "REFUSED: <check>" for a plan Flink refuses (the check of the first refusal,
	// RestorePlan.Check), else "Bytes read per new subtask".
	Title string
	// Subtitle names the file, the Flink version and the target, and what the bars are.
	Subtitle string
	// Panels are the tasks that read state, in the order of the plan's vertices.
	Panels []PlanPanel
	// Legend names the operators of the panels that stack more than one (a panel of one
	// operator is named by its title): "<task>: <operator>", in the colour of the operator's
	// place in its panel's stack.
	Legend []LegendEntry
	// Lines are said below the panels: one per refused operator (its check and what would
	// work), what is dropped, the tasks not drawn because they read nothing.
	Lines []string
}

// LegendEntry is one entry of a plan chart's legend: its label and colour (planColor(Color)).
type LegendEntry struct {
	Label string
	Color int
}

// PlanPanel is one task (vertex) of a restore plan's chart.
type PlanPanel struct {
	// Name names the task: the job file's vertex name, or (no job file) the operator's label.
	Name string
	// Title is Name followed by the parallelism and, unless it is the default, where it came
	// from, e.g. "Source: kafka -> map · p=2 (job)".
	Title string
	// Parallelism is the task's, and the number of bars.
	Parallelism int
	// Operators are the chain's operators that take state, head first (the bottom of each
	// stack, colour planColor(0)); each has one value per subtask.
	Operators []PanelOperator
}

// PanelOperator is one operator of a panel: its label and the bytes each new subtask's
// restore reads for it.
type PanelOperator struct {
	Label     string
	BytesRead []int64
}

// maxPlanPanels bounds the panels of one chart; the rest are counted in a line.
const maxPlanPanels = 48

// maxPlanLines bounds the refused-operator lines of one chart; the rest are counted.
const maxPlanLines = 8

// NewPlanChart gives what the chart of pl shows. Only tasks whose restore reads at least one
// byte get a panel (the others are named in a line); refused operators get a line each with
// their check, the highest parallelism their checks accept and the fix.
func NewPlanChart(pl *savepoint.RestorePlan) PlanChart {
	pc := PlanChart{Title: "Bytes read per new subtask"}
	if pl.Check != nil {
		pc.Title = "REFUSED: " + string(*pl.Check)
	}
	pc.Subtitle = planSubtitle(pl)
	byID := make(map[string]*savepoint.OperatorPlan, len(pl.Operators))
	for i := range pl.Operators {
		byID[pl.Operators[i].OperatorID] = &pl.Operators[i]
	}
	var quiet []string
	hidden := 0
	for _, v := range pl.Vertices {
		var ops []*savepoint.OperatorPlan
		var read int64
		for k := len(v.Operators) - 1; k >= 0; k-- { // Flink's order is tail first
			o := byID[v.Operators[k]]
			if o == nil || o.Status != "restored" || len(o.Subtasks) != v.Parallelism {
				continue
			}
			ops = append(ops, o)
			read += o.BytesRead
		}
		name, suffix := panelTitle(pl, v, ops)
		if read == 0 {
			if len(ops) > 0 {
				quiet = append(quiet, name+suffix)
			}
			continue
		}
		if len(pc.Panels) == maxPlanPanels {
			hidden++
			continue
		}
		pp := PlanPanel{Name: name, Title: name + suffix, Parallelism: v.Parallelism}
		for k, o := range ops {
			po := PanelOperator{Label: operatorLabel(o), BytesRead: make([]int64, len(o.Subtasks))}
			if len(ops) > 1 {
				pc.Legend = append(pc.Legend, LegendEntry{Label: name + ": " + po.Label, Color: k})
			}
			for s, st := range o.Subtasks {
				po.BytesRead[s] = st.BytesRead
			}
			pp.Operators = append(pp.Operators, po)
		}
		pc.Panels = append(pc.Panels, pp)
	}
	if len(pc.Panels) == 0 && len(pl.Operators) > 0 {
		if pl.Restorable {
			pc.Lines = append(pc.Lines, "nothing to draw: no task's restore reads any state")
		} else {
			pc.Lines = append(pc.Lines, "nothing to draw: no task would read state until the refusals are fixed")
		}
	}
	refused := 0
	for i := range pl.Operators {
		o := &pl.Operators[i]
		if o.Status != "refused" {
			continue
		}
		refused++
		if refused > maxPlanLines {
			continue
		}
		l := "REFUSED " + operatorLabel(o)
		if o.Check != nil {
			l += " (" + string(*o.Check) + ")"
		}
		if o.MaxRestorableParallelism != nil {
			l += fmt.Sprintf(": max restorable parallelism %d", *o.MaxRestorableParallelism)
		} else {
			l += ": no parallelism restores it"
		}
		if o.Fix != "" {
			l += "; fix: " + o.Fix
		}
		pc.Lines = append(pc.Lines, l)
	}
	if refused > maxPlanLines {
		pc.Lines = append(pc.Lines, fmt.Sprintf("… and %d more refused operators (the text and JSON output list them)", refused-maxPlanLines))
	}
	if pl.Error != nil && len(pl.Operators) == 0 {
		pc.Lines = append(pc.Lines, "nothing is planned: "+*pl.Error)
	}
	if pl.DroppedOperators > 0 {
		pc.Lines = append(pc.Lines, fmt.Sprintf("dropped (--allow-non-restored-state): %d %s, %s of state", pl.DroppedOperators,
			nounFor(pl.DroppedOperators, "operator", "operators"), FormatBytes(pl.DroppedStateBytes)))
	}
	if hidden > 0 {
		pc.Lines = append(pc.Lines, fmt.Sprintf("… and %d more tasks that read state, not drawn (the text and JSON output list them)", hidden))
	}
	if len(quiet) > 0 {
		pc.Lines = append(pc.Lines, fmt.Sprintf("not drawn, %s restore reads nothing: %s", nounFor(len(quiet), "its", "their"), strings.Join(quiet, "; ")))
	}
	return pc
}

func nounFor(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// planSubtitle: file, Flink version, target, and what the bars show.
func planSubtitle(pl *savepoint.RestorePlan) string {
	target := "the old parallelisms (--keep-parallelism)"
	switch {
	case pl.Job:
		target = "the --job"
	case pl.NewParallelism != nil:
		target = "p=" + strconv.Itoa(*pl.NewParallelism)
	}
	s := fmt.Sprintf("%s, Flink %s restore into %s", filepath.Base(pl.Path), pl.Flink, target)
	if len(pl.Operators) == 0 {
		return s
	}
	s += ": "
	if pl.Restorable {
		s += "what each new subtask's restore downloads, per task, stacked by operator"
	} else {
		s += "what each new subtask would download once the refused operators are fixed"
		if pl.MaxRestorableParallelism != nil {
			s += fmt.Sprintf(" (the whole restore succeeds up to --parallelism %d)", *pl.MaxRestorableParallelism)
		}
	}
	var coord int64
	for _, o := range pl.Operators {
		if o.Status == "restored" {
			coord += o.CoordinatorStateBytes
		}
	}
	if coord > 0 {
		s += "; + " + FormatBytes(coord) + " coordinator state on the JobManager"
	}
	return s
}

var hex32 = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[0-9a-f]{32}`) }) // (compiled when first used, not at start-up)

// panelTitle names a task: the job file's vertex name, or (one task per operator, no job
// file) the operator's label, 32-hex operator IDs shortened to 8 digits; and the suffix of
// its title: the parallelism and, unless it is --parallelism, its source.
func panelTitle(pl *savepoint.RestorePlan, v savepoint.VertexPlan, ops []*savepoint.OperatorPlan) (name, suffix string) {
	name = v.Name
	if !pl.Job && len(ops) == 1 {
		name = operatorLabel(ops[0])
	}
	name = hex32().ReplaceAllStringFunc(name, func(id string) string { return id[:8] })
	t := fmt.Sprintf(" · p=%d", v.Parallelism)
	if v.ParallelismSource != "" && v.ParallelismSource != savepoint.SourceDefault {
		src := string(v.ParallelismSource)
		switch v.ParallelismSource {
		case savepoint.SourceKeep:
			src = "kept"
		case savepoint.SourceVertex:
			src = "--vertex"
		}
		t += " (" + src + ")"
	}
	return name, t
}

// operatorLabel is an operator's uid, else its name, else "operator" and the first 8 hex
// digits of its ID; a uid or name is followed by those 8 digits.
func operatorLabel(o *savepoint.OperatorPlan) string {
	id := o.OperatorID
	if len(id) > 8 {
		id = id[:8]
	}
	switch {
	case o.UID != "":
		return o.UID + " (" + id + ")"
	case o.Name != "":
		return o.Name + " (" + id + ")"
	}
	return "operator " + id
}

// ByteUnit is the binary unit for an axis whose largest value is maxBytes: B below 1 KiB,
// KiB below 1 MiB, MiB below 1 GiB, else GiB; and its size in bytes.
func ByteUnit(maxBytes int64) (string, float64) {
	switch {
	case maxBytes < 1<<10:
		return "B", 1
	case maxBytes < 1<<20:
		return "KiB", 1 << 10
	case maxBytes < 1<<30:
		return "MiB", 1 << 20
	}
	return "GiB", 1 << 30
}

// FormatBytes writes n in its ByteUnit: "390 B", "53.2 KiB", "1.5 GiB".
func FormatBytes(n int64) string {
	u, d := ByteUnit(n)
	if d == 1 {
		return strconv.FormatInt(n, 10) + " B"
	}
	return strconv.FormatFloat(float64(n)/d, 'f', 1, 64) + " " + u
}

// TickStep is the spacing of the labelled subtask ticks of a panel of n subtasks with room for
// at most maxLabels labels: the smallest of 1, 2, 5, 10, 20, 50, … that labels at most
// maxLabels of 0, step, 2·step, ….
func TickStep(n, maxLabels int) int {
	maxLabels = max(maxLabels, 1)
	for step := 1; ; step *= 10 {
		for _, m := range []int{1, 2, 5} {
			if s := step * m; (n+s-1)/s <= maxLabels {
				return s
			}
		}
	}
}

// The geometry of a plan chart, in inches where not said.
const (
	planWidth       = 8 * vg.Inch
	planMargin      = 0.15 * vg.Inch
	planTitleH      = 0.3 * vg.Inch
	planPanelH      = 2.4 * vg.Inch
	planSolePanelH  = 3.2 * vg.Inch // a single row of panels gets more height
	planAxisWidth   = 0.8 * vg.Inch // a panel's y axis, its labels and padding
	planSlotWidth   = 0.12 * vg.Inch
	planTickLabel   = 0.35 * vg.Inch // room for one subtask label (up to 5 digits)
	planLineH       = 0.19 * vg.Inch
	planLegendRowH  = 0.22 * vg.Inch
	planSwatch      = 0.14 * vg.Inch
	planLegendGap   = 0.25 * vg.Inch
	planGap         = 0.1 * vg.Inch
	planPanelInset  = 0.04 * vg.Inch  // a panel's plot is drawn this far inside its rectangle
	planValueLabel  = 0.45 * vg.Inch  // the bar width from which each bar gets its value above it
	planMaxBar      = 0.9 * vg.Inch   // the widest bar
	planAreaSlot    = 0.012 * vg.Inch // below this width per subtask (about 1 pixel), a panel is a stepped area
	planMaxGridCols = 3
)

// PlanLayout is where the parts of a plan chart go, on a canvas whose origin is the lower
// left corner (y up). Every rectangle lies inside the canvas and none overlaps another.
type PlanLayout struct {
	Width, Height vg.Length
	// Cols is the number of panels per row of the grid (a wide panel takes a row alone).
	Cols   int
	Header vg.Rectangle
	// Panels are the panels' rectangles, in order: rows top down, left to right.
	Panels []vg.Rectangle
	// Lines is the block of text lines below the panels (empty when there are none).
	Lines vg.Rectangle
	// Legend has one rectangle per legend entry (swatch and label), flowed in rows below
	// everything else.
	Legend []vg.Rectangle
}

// LayOutPlan places a plan chart: a header of a title and subtitleLines lines, panels of the
// given numbers of subtasks, text lines, and legend labels of the given widths. The grid has 1 column for one panel, 2 for up to four,
// else 3; a panel whose subtasks need more than a column's width (planAxisWidth plus
// planSlotWidth per subtask) takes a whole row. The canvas is planWidth wide and as tall as
// its content needs.
func LayOutPlan(subtasks []int, subtitleLines, lines int, legendWidths []vg.Length) PlanLayout {
	l := PlanLayout{Width: planWidth, Cols: 1}
	switch n := len(subtasks); {
	case n > 4:
		l.Cols = planMaxGridCols
	case n > 1:
		l.Cols = 2
	}
	inner := planWidth - 2*planMargin
	colW := inner / vg.Length(l.Cols)
	// Rows of panels: [first, last) indexes and whether the row is one wide panel.
	type row struct{ first, last int }
	var rows []row
	open := -1
	for i, n := range subtasks {
		if planAxisWidth+vg.Length(n)*planSlotWidth > colW && l.Cols > 1 {
			if open >= 0 {
				rows = append(rows, row{open, i})
				open = -1
			}
			rows = append(rows, row{i, i + 1})
			continue
		}
		if open < 0 {
			open = i
		}
		if i+1-open == l.Cols {
			rows = append(rows, row{open, i + 1})
			open = -1
		}
	}
	if open >= 0 {
		rows = append(rows, row{open, len(subtasks)})
	}
	panelH := planPanelH
	if len(rows) == 1 {
		panelH = planSolePanelH
	}
	// Legend rows.
	var legendRows [][]vg.Length // per row, entry widths
	var cur []vg.Length
	var curW vg.Length
	for _, w := range legendWidths {
		ew := planSwatch + planGap/2 + w
		if len(cur) > 0 && curW+planLegendGap+ew > inner {
			legendRows = append(legendRows, cur)
			cur, curW = nil, 0
		}
		if len(cur) > 0 {
			curW += planLegendGap
		}
		cur = append(cur, min(ew, inner))
		curW += min(ew, inner)
	}
	if len(cur) > 0 {
		legendRows = append(legendRows, cur)
	}
	bodyH := vg.Length(len(rows)) * panelH
	linesH := vg.Length(lines) * planLineH
	legendH := vg.Length(len(legendRows)) * planLegendRowH
	headerH := planTitleH + vg.Length(subtitleLines)*planLineH + planGap
	l.Height = planMargin + headerH + bodyH + planGap + linesH + planGap + legendH + planMargin
	top := l.Height - planMargin
	l.Header = vg.Rectangle{Min: vg.Point{X: planMargin, Y: top - headerH}, Max: vg.Point{X: planWidth - planMargin, Y: top}}
	y := top - headerH
	l.Panels = make([]vg.Rectangle, len(subtasks))
	for _, r := range rows {
		w := colW
		if r.last-r.first == 1 && planAxisWidth+vg.Length(subtasks[r.first])*planSlotWidth > colW {
			w = inner
		}
		for i := r.first; i < r.last; i++ {
			x := planMargin + vg.Length(i-r.first)*w
			l.Panels[i] = vg.Rectangle{Min: vg.Point{X: x, Y: y - panelH}, Max: vg.Point{X: x + w, Y: y}}
		}
		y -= panelH
	}
	y -= planGap
	l.Lines = vg.Rectangle{Min: vg.Point{X: planMargin, Y: y - linesH}, Max: vg.Point{X: planWidth - planMargin, Y: y}}
	y -= linesH + planGap
	for _, r := range legendRows {
		x := planMargin
		for _, w := range r {
			l.Legend = append(l.Legend, vg.Rectangle{Min: vg.Point{X: x, Y: y - planLegendRowH}, Max: vg.Point{X: x + w, Y: y}})
			x += w + planLegendGap
		}
		y -= planLegendRowH
	}
	return l
}

// planPalette is the operators' colours (Tableau 10); operator i gets planPalette[i mod 10].
var planPalette = []color.Color{
	color.RGBA{0x4e, 0x79, 0xa7, 0xff}, color.RGBA{0xf2, 0x8e, 0x2b, 0xff}, color.RGBA{0xe1, 0x57, 0x59, 0xff},
	color.RGBA{0x76, 0xb7, 0xb2, 0xff}, color.RGBA{0x59, 0xa1, 0x4f, 0xff}, color.RGBA{0xed, 0xc9, 0x48, 0xff},
	color.RGBA{0xb0, 0x7a, 0xa1, 0xff}, color.RGBA{0xff, 0x9d, 0xa7, 0xff}, color.RGBA{0x9c, 0x75, 0x5f, 0xff},
	color.RGBA{0xba, 0xb0, 0xac, 0xff},
}

func planColor(i int) color.Color { return planPalette[i%len(planPalette)] }

func textStyle(size vg.Length, c color.Color) text.Style {
	return text.Style{Color: c, Font: font.From(plot.DefaultFont, size), XAlign: draw.XLeft, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}
}

// textWidth is the width of s in style sty with room to spare for an SVG viewer that
// substitutes a wider font (DejaVu Serif, for one, is some 20% wider than Liberation Serif).
func textWidth(sty text.Style, s string) vg.Length { return sty.Width(s) * 1.25 }

// maxSubtitleLines is the most lines a plan chart's subtitle takes: a long file name, a refused
// plan's largest restorable parallelism and the coordinator state fit whole.
const maxSubtitleLines = 3

// fit shortens s with "…" until its textWidth is at most w.
func fit(sty text.Style, s string, w vg.Length) string {
	if textWidth(sty, s) <= w {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && textWidth(sty, string(r)+"…") > w {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}

// Chart draws pc: the header, the panels (each with its own byte axis in its ByteUnit and
// subtask ticks thinned by TickStep), the lines and the legend below, all inside the canvas
// LayOutPlan sizes.
func (pc PlanChart) Chart() (*Chart, error) {
	legendSty := textStyle(9, color.Black)
	widths := make([]vg.Length, len(pc.Legend))
	for i, e := range pc.Legend {
		widths[i] = textWidth(legendSty, e.Label)
	}
	subtasks := make([]int, len(pc.Panels))
	for i, p := range pc.Panels {
		subtasks[i] = p.Parallelism
	}
	lineSty, subSty := textStyle(9, color.Black), textStyle(9, color.Gray{Y: 0x30})
	textW := planWidth - 2*planMargin
	subtitle := wrap(subSty, pc.Subtitle, textW, maxSubtitleLines)
	var lines []string
	for _, s := range pc.Lines {
		lines = append(lines, wrap(lineSty, s, textW, 2)...)
	}
	lay := LayOutPlan(subtasks, len(subtitle), len(lines), widths)
	plots := make([]*plot.Plot, len(pc.Panels))
	for i, p := range pc.Panels {
		var err error
		if plots[i], err = panelPlot(p, lay.Panels[i].Size().X-2*planPanelInset); err != nil {
			return nil, err
		}
	}
	drawFn := func(c draw.Canvas) {
		c.SetColor(color.White)
		c.Fill(c.Rectangle.Path())
		titleSty := textStyle(13, color.Black)
		if strings.HasPrefix(pc.Title, "REFUSED") {
			titleSty.Color = color.RGBA{0xb0, 0x10, 0x10, 0xff}
		}
		h := lay.Header
		c.FillText(titleSty, vg.Point{X: h.Min.X, Y: h.Max.Y}, fit(titleSty, pc.Title, h.Size().X))
		for i, s := range subtitle {
			c.FillText(subSty, vg.Point{X: h.Min.X, Y: h.Max.Y - planTitleH - vg.Length(i)*planLineH}, s)
		}
		for i, p := range plots {
			r := lay.Panels[i]
			in := vg.Rectangle{Min: vg.Point{X: r.Min.X + planPanelInset, Y: r.Min.Y + planPanelInset},
				Max: vg.Point{X: r.Max.X - planPanelInset, Y: r.Max.Y - planPanelInset}}
			p.Draw(draw.Canvas{Canvas: c.Canvas, Rectangle: in})
		}
		for i, s := range lines {
			c.FillText(lineSty, vg.Point{X: lay.Lines.Min.X, Y: lay.Lines.Max.Y - vg.Length(i)*planLineH}, s)
		}
		for i, r := range lay.Legend {
			mid := (r.Min.Y + r.Max.Y) / 2
			c.SetColor(planColor(pc.Legend[i].Color))
			c.Fill(vg.Rectangle{Min: vg.Point{X: r.Min.X, Y: mid - planSwatch/2}, Max: vg.Point{X: r.Min.X + planSwatch, Y: mid + planSwatch/2}}.Path())
			sty := legendSty
			sty.YAlign = draw.YCenter
			lx := r.Min.X + planSwatch + planGap/2
			c.FillText(sty, vg.Point{X: lx, Y: mid}, fit(sty, pc.Legend[i].Label, r.Max.X-lx))
		}
	}
	return &Chart{width: lay.Width, height: lay.Height, draw: drawFn}, nil
}

// fitTitle is a panel's title, at most w wide: when too wide, the middle of its name gives
// way to "…" (the head and the tail of a name tell tasks apart: "CheckpointingSource1" and
// "…Source2"), the suffix stays, and so does an operator label's " (1f2b5df5)": the cut is in
// the name before it, whose tail would otherwise be cut away.
func fitTitle(sty text.Style, p PlanPanel, w vg.Length) string {
	if textWidth(sty, p.Title) <= w || !strings.HasPrefix(p.Title, p.Name) {
		return fit(sty, p.Title, w)
	}
	name, suffix := p.Name, strings.TrimPrefix(p.Title, p.Name)
	if loc := labelID().FindStringIndex(name); loc != nil && loc[0] > 0 {
		name, suffix = name[:loc[0]], name[loc[0]:]+suffix
	}
	r := []rune(name)
	for cut := 1; cut < len(r); cut++ {
		head := (len(r) - cut + 1) / 2
		t := string(r[:head]) + "…" + string(r[head+cut:]) + suffix
		if textWidth(sty, t) <= w {
			return t
		}
	}
	return fit(sty, "…"+suffix, w)
}

// labelID is the end of an operator label that names the operator's ID (operatorLabel).
var labelID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(` \([0-9a-f]{8}\)$`) }) // (compiled when first used, not at start-up)

// wrap breaks s at spaces into lines at most w wide in style sty, at most maxLines of them
// (the last one shortened with "…" if need be).
func wrap(sty text.Style, s string, w vg.Length, maxLines int) []string {
	var out []string
	line := ""
	for _, word := range strings.Fields(s) {
		if line == "" {
			line = word
			continue
		}
		if textWidth(sty, line+" "+word) <= w {
			line += " " + word
			continue
		}
		out = append(out, line)
		line = word
	}
	out = append(out, line)
	if len(out) > maxLines {
		out = append(out[:maxLines-1], strings.Join(out[maxLines-1:], " "))
	}
	for i := range out {
		out[i] = fit(sty, out[i], w)
	}
	return out
}

// panelPlot is the plot of one panel, width wide.
func panelPlot(p PlanPanel, width vg.Length) (*plot.Plot, error) {
	n := p.Parallelism
	var top int64
	for s := 0; s < n; s++ {
		var sum int64
		for _, o := range p.Operators {
			if len(o.BytesRead) != n {
				return nil, fmt.Errorf("plots: panel %q: an operator has %d subtasks, the task %d", p.Title, len(o.BytesRead), n)
			}
			sum += o.BytesRead[s]
		}
		top = max(top, sum)
	}
	unit, div := ByteUnit(top)
	bars := stackedBars{n: n}
	for k, o := range p.Operators {
		vs := make([]float64, n)
		for s, b := range o.BytesRead {
			vs[s] = float64(b) / div
		}
		bars.layers = append(bars.layers, vs)
		bars.colors = append(bars.colors, planColor(k))
	}
	pp := plot.New()
	pp.Title.TextStyle.Font.Size = 10
	pp.Title.Text = fitTitle(pp.Title.TextStyle, p, width-0.1*vg.Inch)
	pp.X.Label.Text = "new subtask"
	pp.Y.Label.Text = "bytes read (" + unit + ")"
	for _, a := range []*plot.Axis{&pp.X, &pp.Y} {
		a.Label.TextStyle.Font.Size = 9
		a.Tick.Label.Font.Size = 8
	}
	pp.X.Min, pp.X.Max = -0.5, float64(n)-0.5
	dataW := width - planAxisWidth
	head := 1.05
	if dataW/vg.Length(n) >= planValueLabel { // room for each bar's value above it
		head = 1.18
		bars.labels = make([]string, n)
		for s := range bars.labels {
			var sum int64
			for _, o := range p.Operators {
				sum += o.BytesRead[s]
			}
			bars.labels[s] = FormatBytes(sum)
		}
	}
	pp.Y.Min = 0
	pp.Y.Max = math.Max(float64(top)/div*head, 1)
	pp.Y.Tick.Marker = byteTicks{whole: div == 1}
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil // horizontal lines only: the bars are the subtasks
	pp.Add(grid, bars)
	pp.X.Min, pp.X.Max = -0.5, float64(n)-0.5 // Add widened nothing, but say it
	step := TickStep(n, int(dataW/planTickLabel))
	var ticks []plot.Tick
	for s := 0; s < n; s++ {
		switch {
		case s%step == 0:
			ticks = append(ticks, plot.Tick{Value: float64(s), Label: strconv.Itoa(s)})
		case step <= 10 && step > 1 && n <= 200:
			ticks = append(ticks, plot.Tick{Value: float64(s)})
		}
	}
	pp.X.Tick.Marker = plot.ConstantTicks(ticks)
	return pp, nil
}

// byteTicks are gonum's default ticks with the shortest exact labels; whole drops the
// fractional ones (a byte count of 0.5 is not one).
type byteTicks struct{ whole bool }

// Ticks implements plot.Ticker.
func (b byteTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := shortTicks{}.Ticks(lo, hi)
	if !b.whole {
		return ts
	}
	out := ts[:0]
	for _, t := range ts {
		if t.Value == math.Trunc(t.Value) {
			out = append(out, t)
		}
	}
	return out
}

// stackedBars draws one bar per subtask (centred on its index, 0.5 either side less a gap,
// at most planMaxBar wide), the layers stacked bottom up, with labels (if any) above the bars;
// widths are in data units, so a bar never leaves the axis range -0.5 … n-0.5.
type stackedBars struct {
	n      int
	layers [][]float64
	colors []color.Color
	labels []string
}

// Plot implements plot.Plotter.
func (b stackedBars) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	gap := 0.0
	switch {
	case b.n <= 64:
		gap = 0.25
	case b.n <= 160:
		gap = 0.12
	}
	if tx(1)-tx(0) < planAreaSlot {
		b.plotArea(c, tx, ty)
		return
	}
	half := (tx(1) - tx(0)) * vg.Length(1-gap) / 2
	half = min(half, planMaxBar/2)
	lsty := textStyle(7, color.Gray{Y: 0x20})
	lsty.XAlign, lsty.YAlign = draw.XCenter, draw.YBottom
	for s := 0; s < b.n; s++ {
		base := 0.0
		mid := tx(float64(s))
		x0, x1 := mid-half, mid+half
		for l, vs := range b.layers {
			if vs[s] <= 0 {
				continue
			}
			y0, y1 := ty(base), ty(base+vs[s])
			c.FillPolygon(b.colors[l], []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
			base += vs[s]
		}
		if b.labels != nil {
			c.FillText(lsty, vg.Point{X: mid, Y: ty(base) + vg.Points(2)}, b.labels[s])
		}
	}
}

// plotArea draws each layer as one stepped band (bars narrower than planAreaSlot, drawn one
// by one, blur into a pale wash): subtask s spans s-0.5 … s+0.5.
func (b stackedBars) plotArea(c draw.Canvas, tx, ty func(float64) vg.Length) {
	lo := make([]float64, b.n)
	for l, vs := range b.layers {
		pts := make([]vg.Point, 0, 4*b.n)
		for s := 0; s < b.n; s++ {
			hi := lo[s] + max(vs[s], 0)
			pts = append(pts, vg.Point{X: tx(float64(s) - 0.5), Y: ty(hi)}, vg.Point{X: tx(float64(s) + 0.5), Y: ty(hi)})
		}
		for s := b.n - 1; s >= 0; s-- {
			pts = append(pts, vg.Point{X: tx(float64(s) + 0.5), Y: ty(lo[s])}, vg.Point{X: tx(float64(s) - 0.5), Y: ty(lo[s])})
			lo[s] += max(vs[s], 0)
		}
		c.FillPolygon(b.colors[l], pts)
	}
}

// DataRange implements plot.DataRanger.
func (b stackedBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	for s := 0; s < b.n; s++ {
		sum := 0.0
		for _, vs := range b.layers {
			sum += vs[s]
		}
		ymax = math.Max(ymax, sum)
	}
	return -0.5, float64(b.n) - 0.5, 0, ymax
}
