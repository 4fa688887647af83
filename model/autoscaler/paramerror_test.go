package autoscaler

import (
	"errors"
	"testing"
)

// Every numeric field out of bounds is a *ParamError naming that field; other errors are not.
func TestValidateParamError(t *testing.T) {
	ok := Params{Release: OperatorMain, MaxParallelism: 128, Current: 4, Input: Hash, Lower: DefaultLower, Upper: DefaultUpper}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		edit func(p *Params)
		want Param
	}{
		{func(p *Params) { p.MaxParallelism = 0 }, ParamMaxParallelism},
		{func(p *Params) { p.Current = 129 }, ParamCurrent},
		{func(p *Params) { p.SourcePartitions = -1 }, ParamSourcePartitions},
		{func(p *Params) { p.SourcePartitions = 3 }, ParamSourcePartitions},
		{func(p *Params) { p.Lower = 0 }, ParamLower},
		{func(p *Params) { p.Upper = MaxTarget + 1 }, ParamUpper},
		{func(p *Params) { p.Lower, p.Upper = 9, 8 }, ParamLower},
		{func(p *Params) { p.Input = 0 }, 0},
	} {
		p := ok
		tc.edit(&p)
		err := p.Validate()
		var pe *ParamError
		if got := errors.As(err, &pe); got != (tc.want != 0) || (got && pe.Param != tc.want) {
			t.Errorf("%+v: Validate() = %v (ParamError %t), want param %d", p, err, got, tc.want)
		}
	}
}
