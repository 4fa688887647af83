package oracle

import (
	"slices"
	"testing"
)

func ids(ss []Snapshot) []int64 {
	var out []int64
	for _, s := range ss {
		out = append(out, s.ID)
	}
	return out
}

func TestStoreCounter(t *testing.T) {
	for _, modern := range []bool{true, false} {
		s := NewStore(modern, 1)
		for want := int64(1); want <= 3; want++ {
			if got := s.Trigger(); got != want {
				t.Errorf("modern=%t: Trigger() = %d, want %d", modern, got, want)
			}
		}
		s = NewStore(modern, 1) // a new job restored from snapshot 7
		s.Restore(7, false)
		if got := s.Trigger(); got != 8 {
			t.Errorf("modern=%t: after restoring 7, Trigger() = %d, want 8", modern, got)
		}
		s.Recover(3) // a JobManager failover keeps the counter
		if got := s.Next(); got != 9 {
			t.Errorf("modern=%t: after a JobManager failover, Next() = %d, want 9", modern, got)
		}
	}
}

func TestStoreRetention1101(t *testing.T) {
	s := NewStore(false, 2)
	s.CompleteCheckpoint(1)
	s.CompleteCheckpoint(2)
	if removed := s.CompleteSavepoint(3); !slices.Equal(ids(removed), []int64{1}) || !removed[0].Discard {
		t.Errorf("savepoint 3 dropped %+v, want checkpoint 1, discarded", removed)
	}
	if got := s.Retained(); !slices.Equal(got, []int64{2, 3}) {
		t.Errorf("retained %v, want [2 3] (1.10.1 adds savepoints)", got)
	}
	s.Recover(1) // lowered num-retained applies from the next checkpoint on
	if got := s.Retained(); !slices.Equal(got, []int64{2, 3}) {
		t.Errorf("after recovery retained %v, want [2 3]", got)
	}
	removed := s.CompleteCheckpoint(4)
	if !slices.Equal(ids(removed), []int64{2, 3}) || !removed[0].Discard || removed[1].Discard {
		t.Errorf("checkpoint 4 dropped %+v, want 2 (discarded) and savepoint 3 (kept)", removed)
	}
	if got := s.Retained(); !slices.Equal(got, []int64{4}) {
		t.Errorf("retained %v, want [4]", got)
	}
	s = NewStore(false, 1)
	s.Restore(5, true) // 1.10.1 knows no claim: savepoint properties
	if removed := s.CompleteCheckpoint(6); len(removed) != 1 || removed[0].Discard {
		t.Errorf("checkpoint 6 dropped %+v, want restored 5, not discarded", removed)
	}
}

func TestStoreRetentionModern(t *testing.T) {
	s := NewStore(true, 1)
	s.CompleteCheckpoint(1)
	if removed := s.CompleteCheckpoint(2); !slices.Equal(ids(removed), []int64{1}) || !removed[0].Discard {
		t.Errorf("checkpoint 2 dropped %+v, want checkpoint 1, discarded", removed)
	}
	if removed := s.CompleteSavepoint(3); removed != nil || !slices.Equal(s.Retained(), []int64{2}) {
		t.Errorf("savepoint 3 dropped %+v, retained %v; want nothing, [2] (savepoints stay out of the store)", removed, s.Retained())
	}

	// SPEC §H.4: with capacity 1, after restoring savepoint s and completing checkpoint s+1, the
	// savepoint is dropped (and, unclaimed, kept on storage).
	s = NewStore(true, 1)
	s.Restore(5, false)
	if removed := s.CompleteCheckpoint(6); !slices.Equal(ids(removed), []int64{5}) || removed[0].Discard {
		t.Errorf("checkpoint 6 dropped %+v, want restored 5, not discarded", removed)
	}

	// A savepoint-like snapshot goes first even when it is not the oldest removable one's turn:
	// capacity 2, restored 3 (NO_CLAIM), then 4, 5: 3 goes, 4 and 5 stay.
	s = NewStore(true, 2)
	s.Restore(3, false)
	s.CompleteCheckpoint(4)
	if removed := s.CompleteCheckpoint(5); !slices.Equal(ids(removed), []int64{3}) || !slices.Equal(s.Retained(), []int64{4, 5}) {
		t.Errorf("checkpoint 5 dropped %v, retained %v; want [3], [4 5]", ids(removed), s.Retained())
	}

	// Claimed: the job's own checkpoint properties, subsumed like one (its files wait until unused).
	s = NewStore(true, 2)
	s.Restore(3, true)
	s.CompleteCheckpoint(4)
	if removed := s.CompleteCheckpoint(5); !slices.Equal(ids(removed), []int64{3}) || removed[0].SavepointLike || removed[0].Discard {
		t.Errorf("checkpoint 5 dropped %+v, want claimed 3 (a checkpoint, not discarded at once)", removed)
	}

	// A lowered capacity after a JobManager failover drops several at once, the newest kept.
	s = NewStore(true, 3)
	for id := int64(1); id <= 3; id++ {
		s.CompleteCheckpoint(id)
	}
	s.Recover(1)
	if removed := s.CompleteCheckpoint(4); !slices.Equal(ids(removed), []int64{1, 2, 3}) || !slices.Equal(s.Retained(), []int64{4}) {
		t.Errorf("checkpoint 4 dropped %v, retained %v; want [1 2 3], [4]", ids(removed), s.Retained())
	}
	if s := NewStore(true, 0); s.capacity != 1 {
		t.Errorf("num-retained 0: capacity %d, want Flink's fallback 1", s.capacity)
	}
}
