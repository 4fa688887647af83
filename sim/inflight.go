package sim

import (
	"fmt"
	"maps"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/sim/oracle"
)

// In-flight data of unaligned checkpoints (Job.Unaligned, FLIP-76). A process step of an
// unaligned job leaves the last oracle.InFlightPerSplit(n) records it reads from each split in
// flight on the keyBy edge from the source to the keyed vertex: read by the source (its offsets
// are past them) but not yet processed by their keyed subtask. A checkpoint's barrier overtakes
// them, so the checkpoint writes them as channel state of the keyed subtask (its input operator,
// the chain head): one InputChannelStateHandle per input channel (InputChannelInfo(gate 0,
// channel = the source subtask)) with the records' positions in one file per subtask, as
// ChannelStateCheckpointWriter writes all of a subtask's channels into one stream. They are in
// the checkpoint and nowhere else: not in the keyed state, and the source does not read them
// again. After the checkpoint the running job processes them (at the next process step, ahead of
// new records). Savepoints are aligned: the barrier waits, the records are processed before the
// snapshot. A restore hands each new keyed subtask the handles the model assigns; the subtask
// reads them back and processes their records before any new input (SequentialChannelStateReader
// recovers the input channels before the task runs), filtering the records of an old subtask the
// rescaling descriptor calls ambiguous to the key groups it owns. As read in release-1.18:
// DemultiplexingRecordDeserializer.create gives each virtual channel (old subtask, old channel) a
// RecordFilter when rescalingDescriptor.isAmbiguous(gate, oldSubtask), else RecordFilter.all();
// RecordFilter.test keeps a record only if partitioner.selectChannel(record) == subtaskIndex, the
// partitioner being a copy of the gate's (KeyGroupStreamPartitioner: the key's key group at the
// vertex's max parallelism, set up with the new parallelism as numberOfChannels,
// RescalingStreamTaskNetworkInput.RecordFilterFactory). The old subtask of an input-channel
// handle's buffers is the handle's subtask index (the old downstream subtask).
//
// The newest in-flight record of each split (when two or more of it are in flight) is still in
// the source subtask's output buffer, not sent: the checkpoint writes it as the source's
// result-subpartition state (one ResultSubpartitionStateHandle per subpartition, i.e. per keyed
// subtask), and a restored source subtask re-sends the buffers it is handed to the restored keyed
// subtasks before new records (resendOutFlight). Only this edge carries in-flight data; the edges
// into stages do not.

// inflightRecord is one record in flight on the keyBy edge, as a channel-state file holds it.
type inflightRecord struct {
	Split  int
	Offset int64
	Key    string
	Value  int64
}

// inflightRecordSize is a record's size in a channel-state file (what the handles report).
const inflightRecordSize = 24

// unaligned reports whether the running job takes unaligned checkpoints: an unaligned job with a
// keyed vertex, on a version that has them (1.11 on, so not 1.10.1).
func (w *World) unaligned() bool {
	return w.job.Unaligned && w.job.HasKeyed() && w.plan.Version != model.Flink1101
}

// resetInFlight empties the channels of the keyed vertex's running subtasks (a new job or a
// restore: the old tasks' buffers are gone) and tells the oracle nothing is in flight.
func (w *World) resetInFlight() {
	w.inflight, w.outflight = nil, nil
	w.processed = nil
	if w.unaligned() { // (each subtask's channels made when a record first goes there: inFlightTo)
		w.inflight = make([][][]inflightRecord, len(w.keyed))
		w.outflight = make([][][]inflightRecord, len(w.src))
	}
}

// inFlightTo is row[k], the records of one subtask's channels, made (n channels) when missing.
func inFlightTo(rows [][][]inflightRecord, k, n int) [][]inflightRecord {
	if rows[k] == nil {
		rows[k] = make([][]inflightRecord, n)
	}
	return rows[k]
}

// drainInFlight lets every keyed subtask process the records in flight to it, channel by channel
// in order (nothing is left in flight).
func (w *World) drainInFlight() {
	for j, chans := range w.inflight {
		for i, recs := range chans {
			for _, r := range recs {
				w.deliver(w.keyed[j], r.Key, hashOfKey(w.keyed[j].keyType, r.Key), r.Value)
			}
			chans[i] = recs[:0]
		}
	}
	for _, parts := range w.outflight { // then what the senders still hold (sent later)
		for j, recs := range parts {
			for _, r := range recs {
				w.deliver(w.keyed[j], r.Key, hashOfKey(w.keyed[j].keyType, r.Key), r.Value)
			}
			parts[j] = recs[:0]
		}
	}
	w.processed = nil
}

// deliver processes a record on keyed subtask t: its key's sum and count.
func (w *World) deliver(t *keyedTask, key string, hash int32, value int64) {
	t.add(w.maxPar, key, hash, value)
}

// add adds a record's value to key's state (sum and count) and marks its key group (of maxPar)
// changed.
func (t *keyedTask) add(maxPar int, key string, hash int32, value int64) {
	e := t.values[key]
	if e == nil {
		e = &entry{hash: hash}
		t.values[key] = e
	}
	e.sum += value
	e.count++
	if t.dirty == nil {
		t.dirty = map[int]bool{}
	}
	t.dirty[model.ComputeKeyGroupForKeyHash(hash, maxPar)] = true
}

// snapshotInFlight writes keyed subtask j's in-flight records into dir and returns its
// input-channel handles, one per channel holding records (none when nothing is in flight).
func (w *World) snapshotInFlight(dir string, j int) []model.ChannelStateHandle {
	if w.inflight == nil {
		return nil
	}
	return w.writeChannelState(fmt.Sprintf("%s/channel-keyed-%d", dir, j), j, w.inflight[j])
}

// snapshotOutFlight writes the records source subtask i has not sent yet into dir and returns its
// result-subpartition handles (ResultSubpartitionInfo(partition 0, subpartition = the keyed
// subtask)), one per subpartition holding records.
func (w *World) snapshotOutFlight(dir string, i int) []model.ChannelStateHandle {
	if w.outflight == nil {
		return nil
	}
	return w.writeChannelState(fmt.Sprintf("%s/channel-source-%d", dir, i), i, w.outflight[i])
}

// writeChannelState writes subtask's channels into one file at path (ChannelStateCheckpointWriter
// writes all of a subtask's channels into one stream) and returns a handle per channel holding
// records, with the offsets of its buffers (one record each).
func (w *World) writeChannelState(path string, subtask int, chans [][]inflightRecord) []model.ChannelStateHandle {
	var recs []inflightRecord
	var hs []model.ChannelStateHandle
	for i, ch := range chans {
		if len(ch) == 0 {
			continue
		}
		offs := make([]int64, len(ch))
		for k := range ch {
			offs[k] = int64(len(recs)+k) * inflightRecordSize
		}
		recs = append(recs, ch...)
		hs = append(hs, model.ChannelStateHandle{SubtaskIndex: subtask, Channel: i, Offsets: offs, StateSize: int64(len(ch)) * inflightRecordSize})
	}
	if len(hs) == 0 {
		return nil
	}
	h := w.fs.put(path, recs, int64(len(recs))*inflightRecordSize)
	for k := range hs {
		hs[k].Delegate = h
	}
	return hs
}

// readInFlight reads the records of input-channel handles, buffer by buffer through their
// offsets (each handle's own records only).
func readInFlight(fs *memFS, hs []model.ChannelStateHandle) ([][]inflightRecord, error) {
	out := make([][]inflightRecord, len(hs))
	for k, h := range hs {
		c, err := fs.read(h.Delegate)
		if err != nil {
			return nil, err
		}
		recs, ok := c.([]inflightRecord)
		if !ok {
			return nil, fmt.Errorf("state file %s is not a channel-state file", h.Delegate.Path)
		}
		for _, off := range h.Offsets {
			i := off / inflightRecordSize
			if off < 0 || off%inflightRecordSize != 0 || i >= int64(len(recs)) {
				return nil, fmt.Errorf("buffer offset %d outside %s", off, h.Delegate.Path)
			}
			out[k] = append(out[k], recs[i])
		}
	}
	return out, nil
}

// replayInFlight processes on keyed subtask i the in-flight records of the
// input-channel handles it was handed, before any new input: the records of an old subtask the
// rescaling descriptor d calls ambiguous are filtered to those the partitioner routes to i
// (RecordFilter); the others are all processed. Each processed record is logged for the oracle.
func (w *World) replayInFlight(i int, hs []model.ChannelStateHandle, d *model.InflightDataRescalingDescriptor) error {
	bufs, err := readInFlight(w.fs, hs)
	if err != nil {
		return err
	}
	for k, h := range hs {
		w.replayRecords(i, bufs[k], d.IsAmbiguous(0, h.SubtaskIndex))
	}
	return nil
}

// replayRecords processes recovered records on keyed subtask i, logged for the oracle; when
// ambiguous (a RecordFilter) only those the partitioner routes to i.
func (w *World) replayRecords(i int, recs []inflightRecord, ambiguous bool) {
	t := w.keyed[i]
	for _, r := range recs {
		hash := hashOfKey(t.keyType, r.Key)
		if ambiguous && model.AssignKeyToParallelOperator(hash, w.maxPar, len(w.keyed)) != i {
			continue
		}
		w.deliver(t, r.Key, hash, r.Value)
		w.replayed = append(w.replayed, oracle.Replayed{InFlightRecord: oracle.InFlightRecord{Split: r.Split, Offset: r.Offset, Key: r.Key}, Subtask: i})
	}
}

// operatorState is the state of operator id in a restore object (nil when it has none; its
// InputRescalingDescriptor and OutputRescalingDescriptor are nil for NO_RESCALE).
func operatorState(restore *model.TaskRestore, id model.OperatorID) *model.OperatorSubtaskState {
	if restore == nil {
		return nil
	}
	for i := range restore.Operators {
		if restore.Operators[i].OperatorID == id {
			return &restore.Operators[i].State
		}
	}
	return nil
}

// checkInFlight checks, after a restore of snapshot f whose keyed state was restored, that the
// keyed subtasks processed every record in flight at f's barrier exactly once, on its key's
// owner (InvInFlight). keyed is false when the keyed state was dropped (allowNonRestoredState):
// its channel state goes with it, so nothing may be replayed.
func (w *World) checkInFlight(step int, f snapshotFacts, keyed bool) {
	var want []oracle.InFlightRecord
	if keyed && w.job.HasKeyed() {
		for _, s := range sortedInts(f.processed) {
			for o := f.processed[s]; o < f.offsets[s]; o++ {
				r := recordAt(w.plan.Seed, &w.job, s, o)
				name, _ := keyOf(w.job.KeyType, w.job.KeyValues, r.key)
				want = append(want, oracle.InFlightRecord{Split: s, Offset: o, Key: name})
			}
		}
	}
	if len(want) == 0 && len(w.replayed) == 0 {
		return
	}
	for _, p := range oracle.CheckReplay(oracleKeyType(w.job.KeyType), w.maxPar, len(w.keyed), want, w.replayed, 3) {
		w.violate(step, InvInFlight, fmt.Sprintf("checkpoint %d: %s", f.id, p), "")
	}
}

// processedAt is the oracle's processed frontier at a barrier: nil when nothing is in flight.
func (w *World) processedAt() map[int]int64 {
	if w.processed == nil {
		return nil
	}
	return maps.Clone(w.processed)
}

// describeInFlight is the trace's note of the in-flight records a snapshot holds as channel
// state (" in-flight=N"), empty when it holds none.
func describeInFlight(md model.CheckpointMetadata) string {
	n := 0
	for _, os := range md.Operators {
		for _, st := range os.Subtasks {
			if st == nil {
				continue
			}
			for _, h := range st.InputChannelState {
				n += len(h.Offsets)
			}
			for _, h := range st.ResultSubpartitionState {
				n += len(h.Offsets)
			}
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" in-flight=%d", n)
}

// resendOutFlight is a restored source subtask sending the buffers of the result-subpartition
// handles it was handed, before new records: the buffers of old subpartition j go to every new
// subpartition the output rescaling descriptor maps j to (ResultSubpartitionRecoveredStateHandler
// .getMappedSubpartitions: the inverted channel mapping; NO_RESCALE keeps j), each preceded by a
// SubtaskConnectionDescriptor(j, old upstream subtask), so the keyed subtask receiving them
// filters them as the records of its old subtask j: with a RecordFilter when its input descriptor
// calls j ambiguous (the same rule as its own input-channel state, replayInFlight). Called once the
// keyed subtasks are restored.
func (w *World) resendOutFlight(hs []model.ChannelStateHandle, out *model.InflightDataRescalingDescriptor, keyedIn []*model.InflightDataRescalingDescriptor) error {
	bufs, err := readInFlight(w.fs, hs)
	if err != nil {
		return err
	}
	var oldToNew model.RescaleMappings
	if out != nil {
		oldToNew = out.ChannelMapping(0).Invert()
	}
	for k, h := range hs {
		targets := []int{h.Channel}
		if out != nil {
			targets = oldToNew.MappedIndexes(h.Channel)
		}
		for _, j := range targets {
			if j < 0 || j >= len(w.keyed) {
				return fmt.Errorf("result-subpartition state of old subpartition %d mapped to subpartition %d of %d", h.Channel, j, len(w.keyed))
			}
			w.replayRecords(j, bufs[k], keyedIn[j].IsAmbiguous(0, h.Channel))
		}
	}
	return nil
}
