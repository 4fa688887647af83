package sut

import (
	"errors"
	"fmt"
	"strings"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/reference/mutants"
	"github.com/restoresim/restoresim/sim"
)

// SetOptions configure NewSet: the Flink source tree, or an injected Flink bug applied to each
// version's archive (not both), and the JVMs a version may start.
type SetOptions struct {
	// FlinkSrc is the Flink source tree to compile ("" = each version's archive).
	FlinkSrc string
	// Mutant names an injected Flink bug of reference/mutants ("" = none).
	Mutant string
	// Workers bounds the JVMs started for a version.
	Workers int
}

// NewSet returns the system under test name for each version — nil for the model, which takes
// no FlinkSrc or Mutant — and the function that stops their JVMs. An injected bug is applied
// to a copy of each version's archive (mutants.Tree, cached).
func NewSet(name string, vs []model.FlinkVersion, opt SetOptions) (map[model.FlinkVersion]sim.Assigner, func(), error) {
	if name == Model {
		if opt.FlinkSrc != "" || opt.Mutant != "" {
			return nil, nil, errors.New("--flink-src and --flink-mutant need --sut flink or both")
		}
		return nil, func() {}, nil
	}
	if opt.FlinkSrc != "" && opt.Mutant != "" {
		return nil, nil, errors.New("--flink-mutant patches a version's archive: it takes no --flink-src")
	}
	var mutant mutants.Mutant
	if opt.Mutant != "" {
		m, err := mutants.ByName(opt.Mutant)
		if err != nil {
			return nil, nil, fmt.Errorf("--flink-mutant: %v (want one of %s)", err, strings.Join(MutantNames(), ", "))
		}
		mutant = m
	}
	out := map[model.FlinkVersion]sim.Assigner{}
	var refs []*Reference
	stop := func() {
		for _, r := range refs {
			_ = r.Close()
		}
	}
	for _, v := range vs {
		o := Options{FlinkSrc: opt.FlinkSrc, Workers: opt.Workers}
		if mutant.Name != "" {
			dir, err := mutants.Tree(v, mutant, "")
			if err != nil {
				stop()
				return nil, nil, fmt.Errorf("--flink-mutant %s: %v", mutant.Name, err)
			}
			o.FlinkSrc, o.Mutant = dir, mutant.Name
		}
		r, err := New(name, v, o)
		if err != nil {
			stop()
			return nil, nil, fmt.Errorf("--sut %s: %v", name, err)
		}
		refs = append(refs, r)
		out[v] = r
	}
	return out, stop, nil
}

// MutantNames lists the injected Flink bugs, as --flink-mutant takes them.
func MutantNames() []string {
	var out []string
	for _, m := range mutants.All() {
		out = append(out, m.Name)
	}
	return out
}
