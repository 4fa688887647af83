package model

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// mappingRows renders m's mapping for (oldP, newP) as golden rows
// mapper,old_parallelism,new_parallelism,new_subtask,old_subtasks,ambiguous.
func mappingRows(t *testing.T, m SubtaskStateMapper, oldP, newP int) [][]string {
	t.Helper()
	r, err := m.NewToOldSubtasksMapping(oldP, newP)
	if err != nil {
		t.Fatalf("%v %d→%d: %v", m, oldP, newP, err)
	}
	var rows [][]string
	for i := range newP {
		var old []string
		for _, o := range r.MappedIndexes(i) {
			old = append(old, strconv.Itoa(o))
		}
		rows = append(rows, []string{m.String(), strconv.Itoa(oldP), strconv.Itoa(newP), strconv.Itoa(i),
			strings.Join(old, " "), strconv.FormatBool(m.IsAmbiguous())})
	}
	return rows
}

// TestGoldenSubtaskStateMappings compares, row for row, every mapping of the golden file
// (SubtaskStateMapper.getNewToOldSubtasksMapping of Flink 1.18 for every old, new ≤ 12).
func TestGoldenSubtaskStateMappings(t *testing.T) {
	rows := readGolden(t, "subtask_state_mappings.csv", "mapper,old_parallelism,new_parallelism,new_subtask,old_subtasks,ambiguous")
	var want [][]string
	for _, m := range SubtaskStateMappers() {
		if m == UnsupportedMapper {
			continue
		}
		for oldP := 1; oldP <= 12; oldP++ {
			for newP := 1; newP <= 12; newP++ {
				want = append(want, mappingRows(t, m, oldP, newP)...)
			}
		}
	}
	if d := cmp.Diff(rows, want); d != "" {
		t.Errorf("model differs from Flink's golden mappings (-flink +model):\n%s", d)
	}
	t.Logf("%d rows", len(rows))
}

// TestSubtaskStateMapperFlinkCases reproduces SubtaskStateMapperTest (flink-runtime,
// src/test/java/org/apache/flink/runtime/io/network/api/writer/SubtaskStateMapperTest.java,
// release-1.18, lines 32–161): the test methods' inputs and expected mappings.
func TestSubtaskStateMapperFlinkCases(t *testing.T) {
	for _, c := range []struct {
		method     string
		m          SubtaskStateMapper
		oldP, newP int
		want       [][]int
	}{
		{"testFirstTaskMappingOnScaleDown", FirstMapper, 3, 2, [][]int{{0, 1, 2}, {}}},
		{"testFirstTaskMappingOnNoScale", FirstMapper, 3, 3, [][]int{{0, 1, 2}, {}, {}}},
		{"testFirstTaskMappingOnScaleUp", FirstMapper, 3, 4, [][]int{{0, 1, 2}, {}, {}, {}}},
		{"testFullTaskMappingOnScaleDown", FullMapper, 3, 2, [][]int{{0, 1, 2}, {0, 1, 2}}},
		{"testFullTaskMappingOnNoScale", FullMapper, 3, 3, [][]int{{0, 1, 2}, {0, 1, 2}, {0, 1, 2}}},
		{"testFullTaskMappingOnScaleUp", FullMapper, 3, 4, [][]int{{0, 1, 2}, {0, 1, 2}, {0, 1, 2}, {0, 1, 2}}},
		{"testRangeSelectorTaskMappingOnScaleDown", RangeMapper, 3, 2, [][]int{{0, 1}, {1, 2}}},
		{"testRangeSelectorTaskMappingOnScaleDown", RangeMapper, 10, 2, [][]int{{0, 1, 2, 3, 4}, {5, 6, 7, 8, 9}}},
		{"testRangeSelectorTaskMappingOnScaleDown", RangeMapper, 10, 1, [][]int{{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}}},
		{"testRangeSelectorTaskMappingOnNoScale", RangeMapper, 3, 3, [][]int{{0}, {1}, {2}}},
		{"testRangeSelectorTaskMappingOnScaleUp", RangeMapper, 3, 4, [][]int{{0}, {0, 1}, {1, 2}, {2}}},
		{"testRangeSelectorTaskMappingOnScaleUp", RangeMapper, 3, 7, [][]int{{0}, {0}, {0, 1}, {1}, {1, 2}, {2}, {2}}},
		{"testRoundRobinTaskMappingOnScaleDown", RoundRobinMapper, 10, 4, [][]int{{0, 4, 8}, {1, 5, 9}, {2, 6}, {3, 7}}},
		{"testRoundRobinTaskMappingOnScaleDown", RoundRobinMapper, 5, 4, [][]int{{0, 4}, {1}, {2}, {3}}},
		{"testRoundRobinTaskMappingOnScaleDown", RoundRobinMapper, 5, 2, [][]int{{0, 2, 4}, {1, 3}}},
		{"testRoundRobinTaskMappingOnScaleDown", RoundRobinMapper, 5, 1, [][]int{{0, 1, 2, 3, 4}}},
		{"testRoundRobinTaskMappingOnNoScale", RoundRobinMapper, 10, 10, [][]int{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {9}}},
		{"testRoundRobinTaskMappingOnNoScale", RoundRobinMapper, 5, 5, [][]int{{0}, {1}, {2}, {3}, {4}}},
		{"testRoundRobinTaskMappingOnNoScale", RoundRobinMapper, 1, 1, [][]int{{0}}},
		{"testRoundRobinTaskMappingOnScaleUp", RoundRobinMapper, 4, 10, [][]int{{0}, {1}, {2}, {3}, {}, {}, {}, {}, {}, {}}},
		{"testRoundRobinTaskMappingOnScaleUp", RoundRobinMapper, 4, 5, [][]int{{0}, {1}, {2}, {3}, {}}},
		{"testRoundRobinTaskMappingOnScaleUp", RoundRobinMapper, 2, 5, [][]int{{0}, {1}, {}, {}, {}}},
		{"testRoundRobinTaskMappingOnScaleUp", RoundRobinMapper, 1, 5, [][]int{{0}, {}, {}, {}, {}}},
	} {
		got, err := c.m.NewToOldSubtasksMapping(c.oldP, c.newP)
		if err != nil {
			t.Errorf("%s %v %d→%d: %v", c.method, c.m, c.oldP, c.newP, err)
			continue
		}
		// Flink's assertEquals compares with mappings(…) (RescaleMappings.of); equals ignores
		// the numbers of sources and targets, which are checked separately here.
		want, err := NewRescaleMappings(c.want, c.oldP)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Equal(want) || got.NumberOfSources() != c.newP || got.NumberOfTargets() != c.oldP {
			t.Errorf("%s %v %d→%d: %v, want %v", c.method, c.m, c.oldP, c.newP, got, want)
		}
		for i, w := range c.want {
			if g := got.MappedIndexes(i); !slices.Equal(g, w) {
				t.Errorf("%s %v %d→%d: new subtask %d reads %v, want %v", c.method, c.m, c.oldP, c.newP, i, g, w)
			}
		}
	}
}

// TestRescaleMappingsFlinkCases reproduces RescaleMappingsTest (flink-runtime,
// src/test/java/org/apache/flink/runtime/checkpoint/RescaleMappingsTest.java, release-1.18,
// lines 40–65), with InflightDataRescalingDescriptorUtil.mappings' number of targets (the
// largest target + 1).
func TestRescaleMappingsFlinkCases(t *testing.T) {
	mappings := func(targets ...[]int) RescaleMappings {
		n := 0
		for _, ts := range targets {
			for _, x := range ts {
				n = max(n, x+1)
			}
		}
		r, err := NewRescaleMappings(targets, n)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	to := func(i ...int) []int { return i }

	// testInvert
	mapping := mappings(to(0), to(0), to(), to(2, 3), to(0, 5))
	inverted := mapping.Invert()
	if want := mappings(to(0, 1, 4), to(), to(3), to(3), to(), to(4)); !inverted.Equal(want) {
		t.Errorf("testInvert: %v, want %v", inverted, want)
	}
	if back := inverted.Invert(); !back.Equal(mapping) {
		t.Errorf("testInvert: inverted twice %v, want %v", back, mapping)
	}

	// testNormalization
	mapping = mappings(to(0), to(0), to(), to(2, 3), to(0, 5), to(), to())
	if mapping.NumberOfSources() != 7 || mapping.NumberOfTargets() != 6 || len(mapping.mappings) != 5 {
		t.Errorf("testNormalization: %d sources, %d targets, %d stored; want 7, 6, 5", mapping.NumberOfSources(), mapping.NumberOfTargets(), len(mapping.mappings))
	}

	// testAmbiguousTargets
	mapping = mappings(to(0), to(1, 2), to(), to(2, 3, 4), to(4, 5), to())
	if got := mapping.AmbiguousTargets(); !slices.Equal(got, []int{2, 4}) {
		t.Errorf("testAmbiguousTargets: %v, want [2 4]", got)
	}
}

func TestRescaleMappingsIdentity(t *testing.T) {
	for _, c := range []struct {
		m          SubtaskStateMapper
		oldP, newP int
		identity   bool
	}{
		{RoundRobinMapper, 3, 3, true},
		{RoundRobinMapper, 3, 5, true}, // sources 3, 4 map to nothing
		{RoundRobinMapper, 5, 3, false},
		{ArbitraryMapper, 4, 4, true},
		{FirstMapper, 1, 7, true},
		{FirstMapper, 2, 2, false},
		{FullMapper, 1, 1, true},
		{FullMapper, 1, 2, false},
		{RangeMapper, 6, 6, true},
		{RangeMapper, 6, 7, false},
	} {
		r, err := c.m.NewToOldSubtasksMapping(c.oldP, c.newP)
		if err != nil {
			t.Fatal(err)
		}
		if r.IsIdentity() != c.identity {
			t.Errorf("%v %d→%d: IsIdentity %v, want %v (%v)", c.m, c.oldP, c.newP, r.IsIdentity(), c.identity, r)
		}
		if inv := r.Invert(); inv.NumberOfSources() != c.oldP || inv.NumberOfTargets() != c.newP {
			t.Errorf("%v %d→%d: inverted %d→%d", c.m, c.oldP, c.newP, inv.NumberOfSources(), inv.NumberOfTargets())
		}
	}
	id := IdentityRescaleMappings(3, 2)
	if got := id.MappedIndexes(1); !slices.Equal(got, []int{1}) {
		t.Errorf("identity: source 1 maps to %v", got)
	}
	if got := id.MappedIndexes(2); got != nil {
		t.Errorf("identity 3→2: source 2 maps to %v, want nothing", got)
	}
	if s := id.String(); s != "IdentityRescaleMappings{3->[]}" {
		t.Errorf("String %q", s)
	}
	r, _ := RangeMapper.NewToOldSubtasksMapping(3, 2)
	if s := r.String(); s != "RescaleMappings{mappings=[[0, 1], [1, 2]]}" {
		t.Errorf("String %q", s)
	}
	if !SymmetricIdentityRescaleMappings.IsIdentity() || SymmetricIdentityRescaleMappings.NumberOfTargets() != 1<<31-1 {
		t.Error("SYMMETRIC_IDENTITY")
	}
}

func TestSubtaskStateMapperErrors(t *testing.T) {
	var unsupported *UnsupportedRescaleError
	if _, err := UnsupportedMapper.NewToOldSubtasksMapping(2, 3); !errors.Is(err, ErrUnsupportedRescale) || !errors.As(err, &unsupported) || unsupported.NewParallelism != 3 {
		t.Errorf("UNSUPPORTED: %v", err)
	} else if !strings.HasPrefix(err.Error(), "Cannot rescale the given pointwise partitioner.") || strings.Contains(err.Error(), "\n") {
		t.Errorf("UNSUPPORTED message %q", err)
	}
	for _, c := range [][2]int{{0, 1}, {1, 0}, {-1, 3}, {3, UpperBoundMaxParallelism + 1}} {
		for _, m := range SubtaskStateMappers() {
			if _, err := m.NewToOldSubtasksMapping(c[0], c[1]); !errors.Is(err, ErrParallelismOutOfBounds) {
				t.Errorf("%v %d→%d: %v, want ErrParallelismOutOfBounds", m, c[0], c[1], err)
			}
		}
	}
	if _, err := SubtaskStateMapper(0).NewToOldSubtasksMapping(1, 1); !errors.Is(err, ErrUnknownSubtaskStateMapper) {
		t.Errorf("zero mapper: %v", err)
	}
	for _, m := range SubtaskStateMappers() {
		if p, err := ParseSubtaskStateMapper(m.String()); err != nil || p != m {
			t.Errorf("parse %q: %v, %v", m, p, err)
		}
	}
	for _, s := range []string{"", "round_robin", "ANY", "RANGE "} {
		if _, err := ParseSubtaskStateMapper(s); !errors.Is(err, ErrUnknownSubtaskStateMapper) {
			t.Errorf("parse %q: %v", s, err)
		}
	}
	if _, err := NewRescaleMappings([][]int{{0, 2}}, 2); !errors.Is(err, ErrInvalidRescaleMappings) {
		t.Errorf("target out of range: %v", err)
	}
	// At the largest parallelism both ways, RANGE is the identity.
	r, err := RangeMapper.NewToOldSubtasksMapping(UpperBoundMaxParallelism, UpperBoundMaxParallelism)
	if err != nil || !r.IsIdentity() {
		t.Errorf("RANGE 32768→32768: %v, %v", r.IsIdentity(), err)
	}
}
