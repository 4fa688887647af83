package plots

import (
	"bytes"
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/restoresim/restoresim/model/savepoint"
)

// OperatorBytes is the state bytes each new subtask of one operator receives in a restore
// (index = subtask), with the operator's legend label.
type OperatorBytes struct {
	Label    string
	Subtasks []int64
}

// RestorePlanBytes is the state bytes each new subtask receives in a restore plan, per
// operator that receives any (metadata order), labelled by the operator's uid, else its name,
// else the first 8 hex digits of its ID.
func RestorePlanBytes(pl *savepoint.RestorePlan) []OperatorBytes {
	var ops []OperatorBytes
	for _, o := range pl.Operators {
		if o.StateBytes == 0 {
			continue
		}
		ob := OperatorBytes{Label: o.OperatorID[:8]}
		if o.UID != "" {
			ob.Label = o.UID
		} else if o.Name != "" {
			ob.Label = o.Name
		}
		for _, s := range o.Subtasks {
			ob.Subtasks = append(ob.Subtasks, s.StateBytes)
		}
		ops = append(ops, ob)
	}
	return ops
}

// RestoreBytesImage draws the state bytes each new subtask receives, stacked per operator (the
// legend names the first 12), under title (" (no state)" is added when ops is empty), and
// encodes it as an 8 × 4.5 inch image in format f. Operators with fewer subtasks than the
// widest are padded with zeros.
func RestoreBytesImage(title string, ops []OperatorBytes, f Format) ([]byte, error) {
	width := 0
	vals := make([]plotter.Values, len(ops))
	for i, o := range ops {
		vals[i] = make(plotter.Values, len(o.Subtasks))
		for j, b := range o.Subtasks {
			vals[i][j] = float64(b)
		}
		width = max(width, len(o.Subtasks))
	}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "new subtask"
	p.Y.Label.Text = "state bytes received"
	p.Add(plotter.NewGrid())
	if len(ops) == 0 {
		p.Title.Text += " (no state)"
		width = 1
	}
	for i := range vals {
		for len(vals[i]) < width {
			vals[i] = append(vals[i], 0)
		}
	}
	const plotWidth = 6.8 * vg.Inch
	barW := max(min(plotWidth/vg.Length(width)*0.7, vg.Points(40)), vg.Points(0.5))
	var below *plotter.BarChart
	for i := range ops {
		b, err := plotter.NewBarChart(vals[i], barW)
		if err != nil {
			return nil, err
		}
		b.Color = plotutil.Color(i)
		b.LineStyle.Width = 0
		if below != nil {
			b.StackOn(below)
		}
		below = b
		p.Add(b)
		if i < 12 {
			p.Legend.Add(ops[i].Label, b)
		}
	}
	p.Legend.Top = true
	p.Y.Min = 0
	if p.Y.Max <= 0 {
		p.Y.Max = 1
	}
	p.Y.Max *= 1.3 // room for the legend
	if width <= 32 {
		names := make([]string, width)
		for i := range names {
			names[i] = fmt.Sprint(i)
		}
		p.NominalX(names...)
	}
	var buf bytes.Buffer
	wt, err := p.WriterTo(chartWidth, chartHeight, f.String())
	if err != nil {
		return nil, err
	}
	if _, err := wt.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
