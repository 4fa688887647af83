package model

import (
	stdcmp "cmp"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFlinkVersions(t *testing.T) {
	var names []string
	for i, v := range FlinkVersions() {
		names = append(names, v.String())
		p, err := ParseFlinkVersion(v.String())
		if err != nil || p != v || !v.Known() {
			t.Errorf("%v: parse %v %v, known %v", v, p, err, v.Known())
		}
		for j, o := range FlinkVersions() {
			if v.AtLeast(o) != (i >= j) || v.Before(o) != (i < j) || v.Compare(o) != stdcmp.Compare(i, j) {
				t.Errorf("%v vs %v: AtLeast %v Before %v Compare %d", v, o, v.AtLeast(o), v.Before(o), v.Compare(o))
			}
		}
		if v.Released() != (v != FlinkMaster) {
			t.Errorf("%v: released %v", v, v.Released())
		}
	}
	if got := strings.Join(names, " "); got != "1.10.1 1.18 1.19 1.20 2.0 2.1 2.2 2.3 master" {
		t.Errorf("versions %q", got)
	}
	if NewestFlinkRelease != Flink23 || !NewestFlinkRelease.Released() {
		t.Errorf("newest release %v", NewestFlinkRelease)
	}
	var zero FlinkVersion
	if zero != Flink118 {
		t.Errorf("zero value %v, want 1.18", zero)
	}
	for _, s := range []string{"1.17", "2.4", "", "1.18.1", "Master"} {
		if _, err := ParseFlinkVersion(s); !errors.Is(err, ErrUnknownFlinkVersion) {
			t.Errorf("%q: %v", s, err)
		}
	}
	for _, v := range []FlinkVersion{2, 7, 9, 17, 255} {
		if v.Known() || !strings.HasPrefix(v.String(), "FlinkVersion(") {
			t.Errorf("%d: known %v, %q", uint8(v), v.Known(), v)
		}
	}
}

// TestMetadataFormatVersions is the table of SPEC-VERSIONS.md §7.
func TestMetadataFormatVersions(t *testing.T) {
	tests := []struct {
		v                 FlinkVersion
		writes, writesCkp int32
		reads             int32
	}{
		{Flink1101, 2, 2, 2}, {Flink118, 4, 4, 4}, {Flink119, 4, 4, 4}, {Flink120, 4, 4, 4}, {Flink20, 5, 5, 5},
		{Flink21, 6, 6, 6}, {Flink22, 6, 6, 6}, {Flink23, 6, 6, 6}, {FlinkMaster, 6, 7, 7},
	}
	for _, tt := range tests {
		if w, c, r := tt.v.MetadataWriteVersion(true), tt.v.MetadataWriteVersion(false), tt.v.MetadataReadVersion(); w != tt.writes || c != tt.writesCkp || r != tt.reads {
			t.Errorf("%v: writes %d (checkpoints %d), reads up to %d; want %d (%d), %d", tt.v, w, c, r, tt.writes, tt.writesCkp, tt.reads)
		}
		if tt.v.ReadsMetadataVersion(1) || !tt.v.ReadsMetadataVersion(2) || tt.v.ReadsMetadataVersion(tt.reads+1) {
			t.Errorf("%v: reads 1, 2, %d: %v %v %v", tt.v, tt.reads+1, tt.v.ReadsMetadataVersion(1), tt.v.ReadsMetadataVersion(2), tt.v.ReadsMetadataVersion(tt.reads+1))
		}
	}
	for n, want := range map[int32]string{2: "1.10.1", 3: "1.18", 4: "1.18", 5: "2.0", 6: "2.1", 7: "master"} {
		if o, ok := OldestFlinkReading(n); !ok || o.String() != want {
			t.Errorf("oldest reading %d: %v %v, want %s", n, o, ok, want)
		}
	}
	for _, n := range []int32{1, 8} {
		if o, ok := OldestFlinkReading(n); ok {
			t.Errorf("oldest reading %d: %v", n, o)
		}
	}
}

// flink40113 restores states into vertex (operators chained) under v.
func flink40113(v FlinkVersion, vx JobVertex, ops ...OperatorState) (*Assignment, error) {
	return AssignStates(AssignmentInput{Version: v, CheckpointID: 1, Vertices: []JobVertex{vx}, Operators: ops})
}

// TestFLINK40113ExampleA is SPEC-VERSIONS.md §2.1 example A: a keyed operator (max 128) and a
// map with max parallelism 64, checkpointed apart, restored chained at p=1: released versions
// adopt one of the two by HashMap order (the hazard), master refuses.
func TestFLINK40113ExampleA(t *testing.T) {
	k, m := saID(1), saID(2)
	vx := saVertex("v", 1, 128, false, k, m)
	states := []OperatorState{saOperatorState(k, 1, 128, true), {OperatorID: m, Parallelism: 1, MaxParallelism: 64}}
	for _, v := range FlinkVersions() {
		a, err := flink40113(v, vx, states...)
		if v == FlinkMaster {
			var dis *MaxParallelismDisagreementError
			var rf *RefusalError
			if !errors.As(err, &dis) || !errors.As(err, &rf) || rf.Check != CheckMaxParallelismAgreement || !errors.Is(err, ErrMaxParallelismDisagreement) {
				t.Fatalf("master: %v, want the agreement refusal", err)
			}
			if !strings.Contains(err.Error(), "recorded different maximum parallelism in the checkpoint (") || rf.OperatorID != k {
				t.Errorf("master: %v (operator %v)", err, rf.OperatorID)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", v, err)
		}
		va := a.Vertices[0]
		if va.MaxParallelism != 64 && va.MaxParallelism != 128 || va.Hazard == nil {
			t.Errorf("%v: max parallelism %d, hazard %+v", v, va.MaxParallelism, va.Hazard)
		}
	}
}

// TestFLINK40113ExampleB is §2.1 example B [DERIVED]: the keyed operator recorded 512, the new
// job (p=50, default max 128) chains a new stateless map into its vertex; the synthesized state
// of the map carries 128. Released versions accept (512 or 128 by HashMap order; at 128 key
// groups 128–511 are lost: the hazard names the keyed operator); master refuses with "(512 and
// 128)" in some order. A configured max parallelism of 512 (the workaround) restores everywhere.
func TestFLINK40113ExampleB(t *testing.T) {
	k := OperatorIDFromUID("k")
	for i := range 40 {
		m := OperatorIDFromUID(fmt.Sprint("map-", i))
		vx := saVertex("v", 50, 128, false, k, m)
		state := saOperatorState(k, 50, 512, true)
		for _, v := range FlinkVersions() {
			if v == Flink1101 {
				continue
			}
			a, err := flink40113(v, vx, state)
			if v == FlinkMaster {
				var dis *MaxParallelismDisagreementError
				if !errors.As(err, &dis) || !(dis.AMax == 512 && dis.BMax == 128 || dis.AMax == 128 && dis.BMax == 512) {
					t.Fatalf("master: %v", err)
				}
			} else {
				if err != nil {
					t.Fatalf("%v: %v", v, err)
				}
				va := a.Vertices[0]
				switch va.MaxParallelism {
				case 512:
				case 128:
					if va.Hazard == nil || len(va.Hazard.Mismatched) != 1 || va.Hazard.Mismatched[0] != k {
						t.Errorf("%v: adopted 128 without naming the keyed operator: %+v", v, va.Hazard)
					}
				default:
					t.Errorf("%v: max parallelism %d", v, va.MaxParallelism)
				}
			}
			fixed := saVertex("v", 50, 512, true, k, m)
			if _, err := flink40113(v, fixed, state); err != nil {
				t.Errorf("%v, max parallelism configured 512: %v", v, err)
			}
		}
	}
}

// TestFLINK40113BelowParallelism: on master a chain whose keyed state recorded a max parallelism
// below the new parallelism fails the agreement check first; released versions give the old
// "lower than the configured parallelism" message. Both refuse.
func TestFLINK40113BelowParallelism(t *testing.T) {
	k, m := saID(1), saID(2)
	vx := saVertex("v", 5, 128, false, k, m)
	state := saOperatorState(k, 2, 4, true)
	for _, v := range []FlinkVersion{Flink118, Flink23, FlinkMaster} {
		_, err := flink40113(v, vx, state)
		want := ErrMaxParallelismBelowNewParallelism
		if v == FlinkMaster {
			want = ErrMaxParallelismDisagreement
		}
		if !errors.Is(err, want) {
			t.Errorf("%v: %v, want %v", v, err, want)
		}
	}
}

// TestFLINK40113NoKeyedState: master checks only vertices with keyed state.
func TestFLINK40113NoKeyedState(t *testing.T) {
	k, m := saID(1), saID(2)
	vx := saVertex("v", 2, 128, false, k, m)
	if _, err := flink40113(FlinkMaster, vx, saOperatorState(k, 2, 256, false)); err != nil {
		t.Errorf("operator state only: %v", err)
	}
}

// TestFLINK38131 is SPEC-VERSIONS.md §3's example: p=3 → 3 with a broadcast state reported by
// all subtasks: ≤2.1 takes the redistribute path, 2.2+ the identity shortcut; the assignment is
// the same.
func TestFLINK38131(t *testing.T) {
	prev := make([][]OperatorStateHandle, 3)
	for i := range prev {
		prev[i] = []OperatorStateHandle{{Delegate: StreamHandle{Path: fmt.Sprint("b", i), Size: 8},
			States: []NamedOperatorState{{Name: "rules", Mode: Broadcast, Offsets: []int64{0}}}}}
	}
	want, err := RepartitionOperatorState(Flink118, prev, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range FlinkVersions() {
		got, err := RepartitionOperatorState(v, prev, 3)
		if err != nil {
			t.Fatalf("%v: %v", v, err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%v differs from 1.18 (-1.18 +%v):\n%s", v, v, d)
		}
	}
}

// TestVersionsAgree: where SPEC-VERSIONS.md says nothing changed, every version from 1.18 on
// gives 1.18's assignment (rescales of keyed and operator state without a hazard).
func TestVersionsAgree(t *testing.T) {
	a, b := saID(1), saID(2)
	for oldP := 1; oldP <= 6; oldP++ {
		for newP := 1; newP <= 6; newP++ {
			in := AssignmentInput{CheckpointID: 3, Vertices: []JobVertex{saVertex("v", newP, 128, false, a, b)},
				Operators: []OperatorState{saOperatorState(a, oldP, 128, true), saOperatorState(b, oldP, 128, false)}}
			in.Version = Flink118
			want, err := AssignStates(in)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range FlinkVersions() {
				if v == Flink1101 {
					continue
				}
				in.Version = v
				got, err := AssignStates(in)
				if err != nil {
					t.Fatalf("%v: %v", v, err)
				}
				got.Version = Flink118 // the one field that names the version
				if d := cmp.Diff(want, got); d != "" {
					t.Fatalf("%d → %d: %v differs from 1.18:\n%s", oldP, newP, v, d)
				}
			}
		}
	}
}

// TestFLINK39513 is SPEC-VERSIONS.md §2.3's example: the latest checkpoint holds a stateless
// operator X; the job restarts (restoreInitialCheckpointIfPresent) without X and with
// execution.state-recovery.ignore-unclaimed-state true. ≤2.3 refuse ("There is no operator for
// the state X"), master accepts and skips X.
func TestFLINK39513(t *testing.T) {
	a, x := saID(1), saID(2)
	vx := saVertex("v", 2, 128, false, a)
	for _, v := range FlinkVersions() {
		if v == Flink1101 {
			continue
		}
		for _, ignore := range []bool{false, true} {
			c := mustCoordinator(t, v, 1)
			c.IgnoreUnclaimedState = ignore
			cp := &CompletedCheckpoint{CheckpointID: 1, Properties: CheckpointProperties{DiscardSubsumed: true, Sharing: ForwardBackward},
				Operators: []OperatorState{saOperatorState(a, 2, 128, true), {OperatorID: x, Parallelism: 2, MaxParallelism: 128}}}
			if _, err := c.Store.CompleteCheckpoint(cp); err != nil {
				t.Fatal(err)
			}
			res, err := c.RestoreInitialCheckpointIfPresent([]JobVertex{vx})
			if ignore && v == FlinkMaster {
				if err != nil || res.Assignment == nil || !res.Flags.AllowNonRestoredState {
					t.Errorf("%v, ignore-unclaimed-state: %v", v, err)
				}
				continue
			}
			if !errors.Is(err, ErrNoOperatorForState) {
				t.Errorf("%v, ignore-unclaimed-state %v: %v, want no operator for the state", v, ignore, err)
			}
		}
	}
}

func TestRestoreModeNaming(t *testing.T) {
	for _, tt := range []struct {
		v      FlinkVersion
		class  string
		key    string
		legacy bool
	}{
		{Flink1101, "", "", false},
		{Flink118, "org.apache.flink.runtime.jobgraph.RestoreMode", "execution.savepoint-restore-mode", false},
		{Flink119, "org.apache.flink.runtime.jobgraph.RestoreMode", "execution.savepoint-restore-mode", true},
		{Flink120, "org.apache.flink.core.execution.RestoreMode", "execution.state-recovery.claim-mode", true},
		{Flink20, "org.apache.flink.core.execution.RecoveryClaimMode", "execution.state-recovery.claim-mode", true},
		{FlinkMaster, "org.apache.flink.core.execution.RecoveryClaimMode", "execution.state-recovery.claim-mode", true},
	} {
		n := Legacy.NamingIn(tt.v)
		if n.Class != tt.class || n.ConfigKey != tt.key || n.Deprecated != tt.legacy {
			t.Errorf("%v: %+v", tt.v, n)
		}
		if Claim.NamingIn(tt.v).Deprecated || NoClaim.NamingIn(tt.v).Deprecated {
			t.Errorf("%v: CLAIM or NO_CLAIM deprecated", tt.v)
		}
	}
}
