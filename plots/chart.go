package plots

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/restoresim/restoresim/internal/atomicfile"
)

// Format is an output image format.
type Format int

// The image formats a Chart can be encoded to. The zero Format is invalid.
const (
	PNG Format = iota + 1
	SVG
)

// String is "png" or "svg".
func (f Format) String() string {
	switch f {
	case PNG:
		return "png"
	case SVG:
		return "svg"
	}
	return "Format(" + strconv.Itoa(int(f)) + ")"
}

// ErrUnknownFormat matches (errors.Is) the error of FormatOf for a path whose extension is not
// .png or .svg.
var ErrUnknownFormat = errors.New("unknown image format")

// FormatOf picks the format from a path's extension: .png or .svg, in any letter case.
func FormatOf(path string) (Format, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png":
		return PNG, nil
	case ".svg":
		return SVG, nil
	}
	return 0, fmt.Errorf("%w: %q (the file name must end in .png or .svg)", ErrUnknownFormat, path)
}

// Chart is a finished figure, ready to be encoded. Build one with SkewLines, SkewHeatMap,
// LoadBars or MovedChart.
type Chart struct {
	width, height vg.Length
	draw          func(c draw.Canvas)
}

// Size of every chart: 8 × 4.5 inches (768 × 432 pixels in PNG at 96 dpi).
const (
	chartWidth  = 8 * vg.Inch
	chartHeight = 4.5 * vg.Inch
	pngDPI      = 96
)

// EncodeOptions tunes Encode.
type EncodeOptions struct {
	// EmbedFonts embeds the fonts (Liberation, built in) in an SVG so that it renders the same
	// everywhere; it makes the file larger. Ignored for PNG.
	EmbedFonts bool
}

// Encode draws the chart in the given format and writes it to w. It needs no network and no
// installed fonts.
func (c *Chart) Encode(w io.Writer, f Format, opts EncodeOptions) (err error) {
	defer func() {
		// gonum/plot reports some problems by panicking; none may escape as a crash.
		if r := recover(); r != nil {
			err = fmt.Errorf("plots: drawing the chart failed: %v", r)
		}
	}()
	switch f {
	case PNG:
		cv := vgimg.NewWith(vgimg.UseWH(c.width, c.height), vgimg.UseDPI(pngDPI))
		c.draw(draw.New(cv))
		_, err = vgimg.PngCanvas{Canvas: cv}.WriteTo(w)
	case SVG:
		cv := vgsvg.NewWith(vgsvg.UseWH(c.width, c.height), vgsvg.EmbedFonts(opts.EmbedFonts))
		c.draw(draw.New(cv))
		_, err = cv.WriteTo(w)
	default:
		err = fmt.Errorf("%w: %v", ErrUnknownFormat, f)
	}
	return err
}

// WriteFile encodes the chart in the format named by path's extension (.png or .svg) and
// writes it atomically: the image is drawn in memory, written to a temporary file in the same
// directory, synced, and renamed over path (see internal/atomicfile). On any error the temporary
// file is removed and an existing file at path is left as it was.
func (c *Chart) WriteFile(path string, opts EncodeOptions) error {
	f, err := FormatOf(path)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := c.Encode(&buf, f, opts); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, buf.Bytes())
}

// SkewSeries is one curve of a skew chart: the Skew of each parallelism, in increasing
// parallelism order, for one max parallelism (or for Flink's default max parallelism of each
// parallelism, in which case the points' MaxParallelism varies).
type SkewSeries struct {
	Label  string // e.g. "M=128" or "default M"
	Points []Skew
	// MaxParallelism is the M of every point, or 0 when it varies (Flink's default M of each
	// parallelism).
	MaxParallelism int
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.X.Tick.Marker = shortTicks{}
	p.Y.Tick.Marker = shortTicks{}
	p.Add(plotter.NewGrid())
	return p
}

// shortTicks are gonum's default ticks labelled with the shortest exact decimal (gonum's own
// labels can repeat, e.g. 1.05 and 1.1 both as "1.1", or pad, e.g. "25.00").
type shortTicks struct{}

// Ticks implements plot.Ticker.
func (shortTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i, t := range ts {
		if t.Label != "" {
			ts[i].Label = strconv.FormatFloat(math.Round(t.Value*1e9)/1e9, 'f', -1, 64)
		}
	}
	return ts
}

func plotChart(p *plot.Plot) *Chart {
	return &Chart{width: chartWidth, height: chartHeight, draw: p.Draw}
}

// SkewLines draws max/mean key groups per subtask against parallelism, one line per series,
// with a legend. logX puts the parallelism axis on a log scale.
func SkewLines(series []SkewSeries, logX bool) (*Chart, error) {
	if err := checkSeries(series); err != nil {
		return nil, err
	}
	xl := "parallelism p"
	if logX {
		xl += " (log scale)"
	}
	p := newPlot("Key-group skew: max / mean key groups per subtask", xl, "max / mean key groups per subtask")
	hi := 1.0
	for i, s := range series {
		xys := make(plotter.XYs, len(s.Points))
		for j, pt := range s.Points {
			xys[j] = plotter.XY{X: float64(pt.Parallelism), Y: pt.MaxOverMean}
			hi = max(hi, pt.MaxOverMean)
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, err
		}
		l.Color = plotutil.Color(i)
		l.Dashes = plotutil.Dashes(i / 7)
		l.Width = vg.Points(1)
		p.Add(l)
		if len(xys) <= 40 { // few points: mark them, a single one would not show at all
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				return nil, err
			}
			sc.Color = l.Color
			sc.Shape = draw.CircleGlyph{}
			sc.Radius = vg.Points(2)
			p.Add(sc)
			p.Legend.Add(s.Label, l, sc)
			continue
		}
		p.Legend.Add(s.Label, l)
	}
	p.Legend.Top, p.Legend.Left = true, true
	p.Y.Min = 1
	p.Y.Max = hi + 0.2*(hi-1) + 0.02 // room for the legend above the curves
	if logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
		p.X.Min = max(p.X.Min, 1)
		if p.X.Max <= p.X.Min { // one parallelism: give the log axis a decade
			p.X.Max = p.X.Min * 10
		}
	}
	return plotChart(p), nil
}

func checkSeries(series []SkewSeries) error {
	if len(series) == 0 {
		return errors.New("plots: nothing to draw (no series)")
	}
	for _, s := range series {
		if len(s.Points) == 0 {
			return fmt.Errorf("plots: series %q has no points", s.Label)
		}
	}
	return nil
}

// maxHeatMapCells bounds the grid of SkewHeatMap (about 100 MB of glyph boxes at most).
const maxHeatMapCells = 1 << 22

// skewGrid is a plotter.GridXYZ: columns are parallelisms, rows are series.
type skewGrid struct {
	xs []float64
	z  [][]float64 // z[row][col], NaN where the pair does not exist (p > M)
}

func (g skewGrid) Dims() (c, r int)   { return len(g.xs), len(g.z) }
func (g skewGrid) Z(c, r int) float64 { return g.z[r][c] }
func (g skewGrid) X(c int) float64    { return g.xs[c] }
func (g skewGrid) Y(r int) float64    { return float64(r) }

// SkewHeatMap draws a (max parallelism × parallelism) heat map of max/mean key groups per
// subtask: one row per series (bottom to top), one column per parallelism that occurs in any
// series, colours from 1 (balanced, blue) to 2 (red), blank where the parallelism exceeds the
// max parallelism. A colour bar is drawn on the right.
func SkewHeatMap(series []SkewSeries) (*Chart, error) {
	if err := checkSeries(series); err != nil {
		return nil, err
	}
	var ps []int
	seen := map[int]bool{}
	for _, s := range series {
		for _, pt := range s.Points {
			if !seen[pt.Parallelism] {
				seen[pt.Parallelism] = true
				ps = append(ps, pt.Parallelism)
			}
		}
	}
	slices.Sort(ps)
	if len(ps)*len(series) > maxHeatMapCells {
		return nil, fmt.Errorf("plots: heat map of %d × %d cells is too large (at most %d)", len(series), len(ps), maxHeatMapCells)
	}
	col := make(map[int]int, len(ps))
	g := skewGrid{xs: make([]float64, len(ps))}
	for i, p := range ps {
		col[p] = i
		g.xs[i] = float64(p)
	}
	for _, s := range series {
		row := make([]float64, len(ps))
		for i := range row {
			row[i] = math.NaN()
		}
		for _, pt := range s.Points {
			row[col[pt.Parallelism]] = pt.MaxOverMean
		}
		g.z = append(g.z, row)
	}
	pal := moreland.SmoothBlueRed()
	pal.SetMin(1)
	pal.SetMax(2)
	hm := plotter.NewHeatMap(g, pal.Palette(255))
	hm.Min, hm.Max = 1, 2
	hm.NaN = nil // blank: the pair does not exist
	hm.Rasterized = evenlySpaced(g.xs) && len(ps)*len(series) > 4096

	p := newPlot("Key-group skew (max / mean key groups per subtask; blank: p > M)", "parallelism p", "max parallelism M")
	p.Add(hm)
	ticks := make([]plot.Tick, 0, len(series))
	every := (len(series) + 19) / 20 // at most about 20 labels
	for i, s := range series {
		if i%every == 0 {
			ticks = append(ticks, plot.Tick{Value: float64(i), Label: strings.TrimPrefix(s.Label, "M=")})
		}
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)

	bar := plot.New()
	bar.Title.Text = "max / mean"
	bar.Add(&plotter.ColorBar{ColorMap: pal, Vertical: true})
	bar.HideX()
	bar.Y.Padding = 0
	drawFn := func(c draw.Canvas) {
		c.SetColor(color.White)
		c.Fill(c.Rectangle.Path())
		const barWidth = 1.1 * vg.Inch
		p.Draw(cropX(c, 0, -barWidth))
		bc := cropX(c, c.Size().X-barWidth, 0)
		bc.Min.Y += 0.55 * vg.Inch // align roughly with the heat map's data area
		bar.Draw(bc)
	}
	return &Chart{width: chartWidth, height: chartHeight, draw: drawFn}, nil
}

// cropX narrows a canvas: left is added to Min.X, right (≤ 0) to Max.X.
func cropX(c draw.Canvas, left, right vg.Length) draw.Canvas {
	return draw.Crop(c, left, right, 0, 0)
}

func evenlySpaced(xs []float64) bool {
	for i := 2; i < len(xs); i++ {
		if xs[i]-xs[i-1] != xs[1]-xs[0] {
			return false
		}
	}
	return true
}

// LoadBars draws a key sample's load per subtask relative to the mean (1 = a fair share):
// key groups, records and distinct keys, so that key-group skew (the layout) and key skew (hot
// keys) can be told apart. Up to 64 subtasks it draws grouped bars, above that step lines.
func LoadBars(l Load) (*Chart, error) {
	if l.Parallelism == 0 || len(l.Subtasks) != l.Parallelism {
		return nil, errors.New("plots: the load has no subtasks")
	}
	title := fmt.Sprintf("Load per subtask: M=%d, p=%d (%d records, %d distinct keys)", l.MaxParallelism, l.Parallelism, l.Records, l.DistinctKeys)
	p := newPlot(title, "subtask", "relative to the mean (1 = fair share)")
	kgMean := float64(l.MaxParallelism) / float64(l.Parallelism)
	recMean := float64(l.Records) / float64(l.Parallelism)
	keyMean := float64(l.DistinctKeys) / float64(l.Parallelism)
	rel := func(v, mean float64) float64 {
		if mean == 0 {
			return 0
		}
		return v / mean
	}
	measures := []struct {
		name string
		v    func(s SubtaskLoad) float64
	}{
		{"key groups", func(s SubtaskLoad) float64 { return rel(float64(s.KeyGroups), kgMean) }},
		{"records", func(s SubtaskLoad) float64 { return rel(float64(s.Records), recMean) }},
		{"distinct keys", func(s SubtaskLoad) float64 { return rel(float64(s.DistinctKeys), keyMean) }},
	}
	const plotWidth = 6.8 * vg.Inch // roughly the data area of an 8-inch chart
	slot := plotWidth / vg.Length(l.Parallelism)
	for i, m := range measures {
		if l.Parallelism <= 64 {
			vals := make(plotter.Values, l.Parallelism)
			for j, s := range l.Subtasks {
				vals[j] = m.v(s)
			}
			w := max(slot/4, vg.Points(0.5))
			b, err := plotter.NewBarChart(vals, w)
			if err != nil {
				return nil, err
			}
			b.Color = plotutil.Color(i)
			b.LineStyle.Width = 0
			b.Offset = vg.Length(i-1) * w
			p.Add(b)
			p.Legend.Add(m.name, b)
			continue
		}
		xys := make(plotter.XYs, l.Parallelism)
		for j, s := range l.Subtasks {
			xys[j] = plotter.XY{X: float64(j), Y: m.v(s)}
		}
		ln, err := plotter.NewLine(xys)
		if err != nil {
			return nil, err
		}
		ln.StepStyle = plotter.MidStep
		ln.Color = plotutil.Color(i)
		ln.Width = vg.Points(1)
		p.Add(ln)
		p.Legend.Add(m.name, ln)
	}
	one, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: 1}, {X: float64(l.Parallelism) - 0.5, Y: 1}})
	if err != nil {
		return nil, err
	}
	one.Color = color.Gray{Y: 0x60}
	one.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(one)
	p.Legend.Top = true
	p.Y.Min = 0
	p.Y.Max *= 1.25 // room for the legend
	if l.Parallelism <= 32 {
		names := make([]string, l.Parallelism)
		for i := range names {
			names[i] = strconv.Itoa(i)
		}
		p.NominalX(names...)
	}
	return plotChart(p), nil
}

// MovedChart draws the fraction of key groups that change subtask in a rescale. When every max
// parallelism has a single rescale it draws one bar per max parallelism; otherwise one line per
// max parallelism against the target parallelism.
func MovedChart(rows []Moved) (*Chart, error) {
	if len(rows) == 0 {
		return nil, errors.New("plots: nothing to draw (no rescales)")
	}
	var ms []int
	byM := map[int][]Moved{}
	for _, r := range rows {
		if _, ok := byM[r.MaxParallelism]; !ok {
			ms = append(ms, r.MaxParallelism)
		}
		byM[r.MaxParallelism] = append(byM[r.MaxParallelism], r)
	}
	single := len(ms) == len(rows)
	if single {
		title := "State moved by a rescale"
		if allSame(rows) {
			title = fmt.Sprintf("State moved by rescaling %d → %d", rows[0].From, rows[0].To)
		}
		p := newPlot(title, "max parallelism M", "fraction of key groups that change subtask")
		vals := make(plotter.Values, len(rows))
		names := make([]string, len(rows))
		for i, r := range rows {
			vals[i] = r.Fraction
			names[i] = strconv.Itoa(r.MaxParallelism)
			if !allSame(rows) {
				names[i] += fmt.Sprintf(" (%d→%d)", r.From, r.To)
			}
		}
		b, err := plotter.NewBarChart(vals, min(vg.Points(40), 5*vg.Inch/vg.Length(len(rows))))
		if err != nil {
			return nil, err
		}
		b.Color = plotutil.Color(0)
		b.LineStyle.Width = 0
		p.Add(b)
		p.NominalX(names...)
		p.X.Min, p.X.Max = -0.6, float64(len(rows))-0.4
		p.Y.Min, p.Y.Max = 0, 1.05
		return plotChart(p), nil
	}
	p := newPlot(fmt.Sprintf("State moved by rescaling from %d", rows[0].From), "target parallelism q", "fraction of key groups that change subtask")
	for i, m := range ms {
		xys := make(plotter.XYs, 0, len(byM[m]))
		for _, r := range byM[m] {
			xys = append(xys, plotter.XY{X: float64(r.To), Y: r.Fraction})
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, err
		}
		l.Color = plotutil.Color(i)
		l.Dashes = plotutil.Dashes(i / 7)
		l.Width = vg.Points(1)
		p.Add(l)
		p.Legend.Add("M="+strconv.Itoa(m), l)
	}
	p.Legend.Top = true
	p.Y.Min, p.Y.Max = 0, 1.15
	return plotChart(p), nil
}

func allSame(rows []Moved) bool {
	for _, r := range rows {
		if r.From != rows[0].From || r.To != rows[0].To {
			return false
		}
	}
	return true
}
