package oracle

// Autoscale is one call of the Kubernetes operator autoscaler's JobVertexScaler.scale as the
// oracle sees it: plain values, the operator release and mode by their names.
type Autoscale struct {
	// Release is the operator release: "1.7" … "1.15" or "main".
	Release string
	// Mode is the configured alignment mode ("EVENLY_SPREAD", "MAXIMIZE_UTILISATION", "BALANCED",
	// "OFF"), or "" for the release's default.
	Mode string
	// MaxParallelism is the vertex's max parallelism as the job runs it.
	MaxParallelism int
	// Current is the vertex's parallelism.
	Current int
	// Input is "hash" (some input is a keyBy), "rebalance", "forward" (inputs, none a keyBy) or
	// "source" (no inputs).
	Input string
	// Partitions are a source's partitions as the autoscaler knows them, 0 if unknown.
	Partitions int
	// Lower and Upper are job.autoscaler.vertex.min-parallelism and …max-parallelism.
	Lower, Upper int
	// Target is the computed target, ceil(scaleFactor × current).
	Target int
}

// AutoscaleParallelism is the parallelism the operator release's autoscaler gives the vertex:
// SPEC-VERSIONS.md §8.2 read as a table, with no code shared with the model. The target is first
// held within [min(current, lower), min(M', max(current, upper))], where M' is the max
// parallelism, for a 1.7–1.9 source with known partitions the smaller of it and the partitions.
// Then, where the release aligns the vertex, it looks for a parallelism in a region above the
// target, and falls back as the release does when it finds none.
func AutoscaleParallelism(a Autoscale) int {
	old := a.Release == "1.7" || a.Release == "1.8" || a.Release == "1.9"
	capM := a.MaxParallelism
	if old && a.Input == "source" && a.Partitions > 0 && a.Partitions < capM {
		capM = a.Partitions
	}
	floor := a.Lower
	if a.Current < floor {
		floor = a.Current
	}
	ceiling := a.Upper
	if a.Current > ceiling {
		ceiling = a.Current
	}
	if capM < ceiling {
		ceiling = capM
	}
	t := a.Target
	if t < floor {
		t = floor
	}
	if t > ceiling {
		t = ceiling
	}

	mode := a.Mode
	if mode == "" {
		switch a.Release {
		case "1.11", "1.12", "1.13", "1.14", "1.15":
			mode = "EVENLY_SPREAD"
		case "main":
			mode = "BALANCED"
		}
	}
	// units is N: what the release spreads over the subtasks, 0 when it leaves the vertex alone.
	units := 0
	switch {
	case a.Release == "1.7":
		units = capM
	case old:
		if a.Input == "source" || a.Input == "hash" {
			units = capM
		}
	case mode == "OFF":
	case a.Input == "source":
		units = a.Partitions // 0: partitions unknown, no alignment
	case a.Input == "hash":
		units = a.MaxParallelism
	}
	if units == 0 {
		return t
	}

	// accepted: p spreads the units evenly, or (MAXIMIZE_UTILISATION, BALANCED) gives each
	// subtask fewer units than t would.
	fewer := mode == "MAXIMIZE_UTILISATION" || mode == "BALANCED"
	accepted := func(p int) bool { return units%p == 0 || (fewer && units/p < units/t) }
	firstIn := func(hi int) (int, bool) {
		for p := t; p <= hi; p++ {
			if accepted(p) {
				return p, true
			}
		}
		return 0, false
	}
	// stepDown: the largest p ≤ t giving each subtask more units than t does, or the one above
	// it when p does not divide the units; at least the lower limit.
	stepDown := func() int {
		for p := t; p >= 1; p-- {
			if units/p > units/t {
				if units%p == 0 {
					return max(p, floor)
				}
				return max(p+1, floor)
			}
		}
		return floor
	}

	switch a.Release {
	case "1.7", "1.8", "1.9":
		fewer = false
		if p, ok := firstIn(min(units/2, ceiling)); ok {
			return p
		}
		return t
	case "1.10":
		fewer = false
		hi := units / 2
		if t > units/2 {
			hi = units
		}
		if p, ok := firstIn(min(hi, ceiling)); ok {
			return p
		}
		return stepDown()
	case "1.11", "1.12", "1.13", "1.14":
		if p, ok := firstIn(min(units, ceiling)); ok {
			return p
		}
		return stepDown()
	}
	// 1.15 and main.
	if t == a.Current {
		return t
	}
	hi := min(units, ceiling)
	if t < a.Current {
		hi = min(hi, a.Current)
	}
	if p, ok := firstIn(hi); ok {
		return p
	}
	if a.Release == "main" && mode != "MAXIMIZE_UTILISATION" {
		return t // the built-in modes keep the target
	}
	p := stepDown()
	if (t > a.Current && p <= a.Current) || (t < a.Current && p >= a.Current) {
		return a.Current // blocked: the fallback would not move in the scaling direction
	}
	return p
}
