package sim

import (
	"fmt"
	"maps"
	"path"
	"strconv"

	"github.com/restoresim/restoresim/model"
)

// KnownAdoptionHazard names the max-parallelism adoption hazard of SPEC §F.1, the known issue
// FLINK-40113 of every released version: an operator without state (e.g. one newly chained)
// takes part in the adoption with the vertex's pre-adoption max parallelism, so keyed state can
// be cut with the wrong key-group count. Read from Flink's code, not verified by running Flink.
// Flink master refuses such a restore of keyed state instead (SPEC-VERSIONS.md §2.1); a vertex
// without keyed state still adopts in HashMap order there.
const KnownAdoptionHazard = "FLINK-40113"

// hashOfKey recomputes a key's hashCode from its display form (a row key's through
// model/sqlkey, which reads the JSON array keyOf wrote).
func hashOfKey(t KeyType, s string) int32 {
	switch t {
	case KeyRow:
		h, _, err := SQLKeyType.Hash(s)
		if err != nil {
			panic(fmt.Sprintf("sim: internal error: row key %q: %v", s, err))
		}
		return h
	case KeyLong:
		v, _ := strconv.ParseInt(s, 10, 64)
		return model.JavaLongHash(v)
	case KeyString:
		return model.JavaStringHash(s)
	default:
		v, _ := strconv.ParseInt(s, 10, 32)
		return model.JavaIntHash(int32(v))
	}
}

// rowKeyHashes remembers hashOfKey of the row keys restored (a row key's hash decodes its JSON;
// the other key types' hashes cost less than a lookup): a restore rehashes every key it reads.
type rowKeyHashes map[string]int32

// of is hashOfKey(t, s), remembered for row keys.
func (c *rowKeyHashes) of(t KeyType, s string) int32 {
	if t != KeyRow {
		return hashOfKey(t, s)
	}
	h, ok := (*c)[s]
	if !ok {
		h = hashOfKey(t, s)
		if *c == nil {
			*c = rowKeyHashes{}
		}
		(*c)[s] = h
	}
	return h
}

// applyAssignment rebuilds the running job's subtasks from the model's assignment, reading
// every handle a subtask received from the storage, as the tasks' state backends would: per state
// kind, the alternatives the model prioritizes (a TaskManager's local copy first, when approved;
// the JobManager's state last) are tried in order until one reads. failover is true when the job
// (not a new one) restarts in place.
func (w *World) applyAssignment(a *model.Assignment, failover bool) error {
	srcV := a.Vertices[0]
	for _, v := range a.Vertices {
		// The releases' hazard (Hazard: a vertex with keyed state whose states disagree, which
		// master refuses) is a finding when it cuts keyed state with a foreign key-group count.
		// Without keyed state every version adopts in HashMap order harmlessly: the oracle then
		// allows any of the states' values (oracle.Expectation.AnyMax).
		if v.Hazard != nil && len(v.Hazard.Mismatched) > 0 {
			w.known = KnownAdoptionHazard
		}
	}
	w.usedLocal = 0
	// Source subtasks: the offsets list state (files are read afresh by every restore).
	w.lastSourceRead = sourceRead{}
	w.handleReads = map[*model.NamedOperatorState]handleRead{}
	defer func() { w.lastSourceRead, w.handleReads = sourceRead{}, nil }()
	w.srcMaxPar = srcV.MaxParallelism
	w.src = make([]*sourceTask, w.job.Source.Parallelism)
	srcID := model.OperatorIDFromUID(w.job.Source.UID)
	for i := range w.src {
		t, err := w.restoreSource(i, srcID, srcV.Subtasks[i])
		if err != nil {
			return err
		}
		w.src[i] = t
	}

	// Keyed subtasks: keyed state (full or incremental, trimmed to the new range), raw keyed
	// state and the broadcast map.
	w.maxPar = 0
	var keyedV model.VertexAssignment
	if w.job.HasKeyed() {
		keyedV = a.Vertices[1]
		w.maxPar = keyedV.MaxParallelism
	}
	keyedID := model.OperatorIDFromUID(w.job.Keyed.UID)
	w.keyed = w.newKeyedTasks(w.job.Keyed.Parallelism, w.maxPar)
	w.applied = 0
	w.resetInFlight()
	w.replayed = nil
	keyedIn := make([]*model.InflightDataRescalingDescriptor, len(w.keyed))
	for i, t := range w.keyed {
		p, ok := w.alternatives(1, i, keyedV.Subtasks[i], keyedID)
		if !ok {
			continue
		}
		for _, kind := range []struct {
			alts [][]model.KeyedStateHandle
			raw  bool
		}{{p.ManagedKeyed, false}, {p.RawKeyed, true}} {
			err := w.tryAlternatives(len(kind.alts), func(k int) error {
				return w.restoreKeyed(t, kind.alts[k], kind.raw, failover)
			})
			if err != nil {
				return fmt.Errorf("keyed subtask %d: %w", i, err)
			}
		}
		if t.rules != nil {
			err := w.tryAlternatives(len(p.ManagedOperator), func(k int) error {
				rules, err := w.readBroadcast(p.ManagedOperator[k])
				if err != nil {
					return err
				}
				t.rules = rules
				return nil
			})
			if err != nil {
				return fmt.Errorf("keyed subtask %d: %w", i, err)
			}
			if _, ok := t.rules[appliedRule]; !ok {
				t.rules[appliedRule] = 0
			}
		}
		// In-flight data (after the keyed state it adds to): the JobManager's handles only, as
		// Flink keeps no local copy of channel state.
		if st := operatorState(keyedV.Subtasks[i], keyedID); st != nil {
			keyedIn[i] = st.InputRescalingDescriptor
		}
		err := w.tryAlternatives(len(p.InputChannel), func(k int) error {
			return w.replayInFlight(i, p.InputChannel[k], keyedIn[i])
		})
		if err != nil {
			return fmt.Errorf("keyed subtask %d: %w", i, err)
		}
	}
	// The sources' unsent buffers (result-subpartition state), re-sent to the restored keyed
	// subtasks before new records.
	if w.job.HasKeyed() {
		for i := range w.src {
			p, ok := w.alternatives(0, i, srcV.Subtasks[i], srcID)
			if !ok {
				continue
			}
			var out *model.InflightDataRescalingDescriptor
			if st := operatorState(srcV.Subtasks[i], srcID); st != nil {
				out = st.OutputRescalingDescriptor
			}
			err := w.tryAlternatives(len(p.ResultSubpartition), func(k int) error {
				return w.resendOutFlight(p.ResultSubpartition[k], out, keyedIn)
			})
			if err != nil {
				return fmt.Errorf("source subtask %d: %w", i, err)
			}
		}
	}
	if w.job.Broadcast && len(w.keyed) > 0 {
		w.applied = int(w.keyed[0].rules[appliedRule])
	}
	// Stages take the max parallelism the model settled on; keyed stages read their head's keyed
	// state like the keyed vertex.
	w.stageMax = make([]int, len(w.job.Stages))
	w.stageKeyed = make([][]*keyedTask, len(w.job.Stages))
	w.stageFold = make([]foldCache, len(w.job.Stages))
	for k, st := range w.job.Stages {
		va := a.Vertices[w.job.graphIndex(2+k)]
		w.stageMax[k] = va.MaxParallelism
		if !st.Keyed {
			continue
		}
		w.stageKeyed[k] = w.newStageTasks(k, w.stageMax[k])
		head := model.OperatorIDFromUID(w.job.StageUIDs(k)[0])
		for i, t := range w.stageKeyed[k] {
			p, ok := w.alternatives(2+k, i, va.Subtasks[i], head)
			if !ok {
				continue
			}
			err := w.tryAlternatives(len(p.ManagedKeyed), func(n int) error {
				return w.restoreKeyed(t, p.ManagedKeyed[n], false, failover)
			})
			if err != nil {
				return fmt.Errorf("%s subtask %d: %w", VertexName(2+k), i, err)
			}
		}
	}
	return nil
}

// restoreSource builds source subtask i from its restore object: the offsets list state of the
// source (operator srcID), read from the first alternative that reads (local copies first);
// empty without state.
func (w *World) restoreSource(i int, srcID model.OperatorID, restore *model.TaskRestore) (*sourceTask, error) {
	p, ok := w.alternatives(0, i, restore, srcID)
	if !ok {
		return &sourceTask{offsets: map[int]int64{}}, nil
	}
	var t *sourceTask
	err := w.tryAlternatives(len(p.ManagedOperator), func(k int) error {
		t = &sourceTask{offsets: map[int]int64{}}
		return w.readSource(t, i, p.ManagedOperator[k])
	})
	if err != nil {
		return nil, fmt.Errorf("source subtask %d: %w", i, err)
	}
	if t == nil { // (no alternative: nothing to read)
		t = &sourceTask{offsets: map[int]int64{}}
	}
	return t, nil
}

// tryAlternatives calls read for alternatives 0..n-1 until one succeeds; the last alternative is
// the JobManager's state, earlier ones are local copies. With no alternative there is nothing to
// read.
func (w *World) tryAlternatives(n int, read func(k int) error) error {
	var err error
	for k := range n {
		if err = read(k); err == nil {
			if k < n-1 {
				w.usedLocal++
			}
			return nil
		}
	}
	return err
}

// readSource reads the source's offsets list state into t (subtask i).
func (w *World) readSource(t *sourceTask, i int, handles []model.OperatorStateHandle) error {
	elems, union, err := w.sourceElements(handles)
	if err != nil {
		return err
	}
	t.unionReceived = union // (shared by the subtasks reading the same list: read only)
	for _, e := range elems {
		switch e.mode {
		case model.Union:
			if e.Split%w.job.Source.Parallelism == i {
				t.offsets[e.Split] = e.Offset
			}
		default:
			t.offsets[e.Split] = e.Offset
		}
	}
	return nil
}

// sourceElement is one list element a source subtask reads, with the mode of its state.
type sourceElement struct {
	mode model.DistributionMode
	splitOffset
}

// sourceRead is the last handle list sourceElements read: source subtasks receiving equal UNION
// state share one list (model.AssignStates), so each restore reads it once, not once per subtask.
type sourceRead struct {
	handles []model.OperatorStateHandle
	elems   []sourceElement
	union   []splitOffset // the UNION elements of elems, in order (nil: none)
	err     error
}

// sourceElements reads the elements of the states of handles, in order, from the storage, and
// lists the UNION ones apart.
func (w *World) sourceElements(handles []model.OperatorStateHandle) (elems []sourceElement, union []splitOffset, err error) {
	if m := &w.lastSourceRead; len(handles) > 0 && len(m.handles) == len(handles) && &m.handles[0] == &handles[0] {
		return m.elems, m.union, m.err
	}
	elems, err = readSourceElements(w.fs, handles, w.handleReads)
	for _, e := range elems {
		if e.mode == model.Union {
			union = append(union, e.splitOffset)
		}
	}
	w.lastSourceRead = sourceRead{handles: handles, elems: elems, union: union, err: err}
	return elems, union, err
}

// handleRead is the elements read of one handle (its states and delegate), during one restore.
type handleRead struct {
	delegate model.StreamHandle
	n        int // the handle's states
	elems    []sourceElement
}

// readSourceElements reads the elements of the states of handles, in order, from the storage.
// cache, when not nil, holds what a handle read during the restore (by its states: the
// assignment hands new subtasks the old handles, each subtask of a UNION state all of them, in
// orders that differ), so that each handle's file is read once a restore.
func readSourceElements(fs *memFS, handles []model.OperatorStateHandle, cache map[*model.NamedOperatorState]handleRead) ([]sourceElement, error) {
	var elems []sourceElement
	for _, h := range handles {
		var key *model.NamedOperatorState
		if cache != nil && len(h.States) > 0 {
			key = &h.States[0]
			if r, ok := cache[key]; ok && r.n == len(h.States) && r.delegate == h.Delegate {
				elems = append(elems, r.elems...)
				continue
			}
		}
		first := len(elems)
		c, err := fs.read(h.Delegate)
		if err != nil {
			return nil, err
		}
		f, ok := c.(listsFile)
		if !ok {
			return nil, fmt.Errorf("state file %s is not an operator-state file", h.Delegate.Path)
		}
		for _, ns := range h.States {
			l := f[ns.Name]
			list, start := l.Elems, int64(l.Start)
			for _, pos := range ns.Offsets {
				k, ok := entryIndex(pos)
				if !ok || k < start || k-start >= int64(len(list)) {
					return nil, fmt.Errorf("offset %d of %q outside %s", pos, ns.Name, h.Delegate.Path)
				}
				elems = append(elems, sourceElement{mode: ns.Mode, splitOffset: list[k-start]})
			}
		}
		if key != nil {
			cache[key] = handleRead{h.Delegate, len(h.States), elems[first:len(elems):len(elems)]}
		}
	}
	return elems, nil
}

// readBroadcast reads broadcast map state: every received copy is put into one map.
func (w *World) readBroadcast(handles []model.OperatorStateHandle) (map[string]int64, error) {
	var rules map[string]int64
	for _, h := range handles {
		c, err := w.fs.read(h.Delegate)
		if err != nil {
			return nil, err
		}
		f, _ := c.(mapsFile)
		for _, ns := range h.States {
			if ns.Mode != model.Broadcast {
				continue
			}
			if rules == nil { // (the first copy: the map is a copy of it)
				rules = maps.Clone(f[ns.Name])
				continue
			}
			for k, v := range f[ns.Name] {
				rules[k] = v
			}
		}
	}
	if rules == nil {
		rules = map[string]int64{}
	}
	return rules, nil
}

// restoreKeyed reads the keyed handles a subtask received. Key-groups handles are read key group
// by key group through their offsets (nothing is dropped: a foreign key group shows up as a
// misplaced key). Incremental handles are read whole and each keeps only the key groups the
// model's RocksDB restore plan says it contributes (RocksDB's deleteRange / copy of the rescaling
// restore).
func (w *World) restoreKeyed(t *keyedTask, handles []model.KeyedStateHandle, raw, failover bool) error {
	var entries []kv
	var incr []model.KeyedStateHandle
	for _, h := range handles {
		switch h := h.(type) {
		case *model.KeyGroupsStateHandle:
			es, err := readKeyGroups(w.fs, h)
			if err != nil {
				return err
			}
			entries = append(entries, es...)
		case *model.IncrementalKeyedStateHandle:
			incr = append(incr, h)
		case nil:
		default:
			return fmt.Errorf("unexpected keyed state handle %T", h)
		}
	}
	if len(incr) > 0 {
		plan, err := model.RocksDBRestore(w.plan.Version, incr, t.kgs)
		if err != nil {
			return err
		}
		for i, h := range incr {
			es, err := readIncremental(w.fs, h.(*model.IncrementalKeyedStateHandle))
			if err != nil {
				return err
			}
			for _, e := range es {
				if plan.Contributions[i].Contains(e.KeyGroup) {
					entries = append(entries, e)
				}
			}
		}
		// Restored without rescaling, the backend reopens the same DB and keeps its shared files.
		if h := incr[0].(*model.IncrementalKeyedStateHandle); failover && plan.Mode == model.RocksDBRestoreWithoutRescaling {
			t.chain = t.chain[:0]
			for _, f := range h.Shared { // the uploaded files, also when restored from a local copy
				t.chain = append(t.chain, model.SharedFile{LocalPath: path.Base(f.Handle.Path), Handle: f.Handle})
			}
			t.backendID = h.BackendID
		}
	}
	t.restores++
	if len(t.values) == 0 { // (a new subtask: room for the keys it reads)
		t.values = make(map[string]*entry, len(entries))
	}
	var fresh []entry // (the new keys' entries, one allocation for those left)
	for i, e := range entries {
		x := t.values[e.Key]
		if x == nil {
			if len(fresh) == 0 {
				fresh = make([]entry, len(entries)-i)
			}
			x, fresh = &fresh[0], fresh[1:]
			x.hash = w.keyHashes.of(t.keyType, e.Key)
			t.values[e.Key] = x
		} else if x.stamp == t.restores {
			return fmt.Errorf("key %q (key group %d) restored twice on subtask %d", e.Key, e.KeyGroup, t.index)
		}
		x.stamp = t.restores
		if raw {
			x.count = e.Value
		} else {
			x.sum = e.Value
		}
	}
	return nil
}
