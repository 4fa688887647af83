package sim

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
)

// Operator IDs of the simulated job. Each operator's generated ID is derived from its uid, as
// Flink does for operators with uid(...).
const sinkUID = "sink"

func (w *World) jobDir() string { return fmt.Sprintf("file:/ckpt/job-%d", w.epoch) }

// snapshot writes every subtask's state for checkpoint (or savepoint) id into the storage and
// returns the checkpoint metadata. A savepoint is canonical and self-contained: keyed state is
// written as full key-groups handles even with the incremental backend.
func (w *World) snapshot(id int64, savepoint bool) model.CheckpointMetadata {
	dir := fmt.Sprintf("%s/chk-%d", w.jobDir(), id)
	if savepoint {
		dir = fmt.Sprintf("file:/savepoints/savepoint-%d-%d", w.epoch, id)
	}
	md := model.CheckpointMetadata{CheckpointID: id}

	// Source: the offsets as SPLIT_DISTRIBUTE or UNION list states (Job.sourceState), every state
	// in every subtask's handle — or, sparse, only those with elements, and no handle (no entry)
	// for a subtask without any.
	srcState := model.OperatorState{
		OperatorID: model.OperatorIDFromUID(w.job.Source.UID), Parallelism: len(w.src), MaxParallelism: w.srcMaxPar,
		Subtasks: make([]*model.OperatorSubtaskState, len(w.src)),
	}
	n := w.job.numSourceStates()
	subs := make([]model.OperatorSubtaskState, len(w.src)) // (one allocation for the operator's subtasks)
	handles := make([]model.OperatorStateHandle, len(w.src))
	splits := 0
	for _, t := range w.src {
		splits += len(t.offsets)
	}
	// The subtasks' named states and their offsets, each subtask's a capped part of one array.
	stateSlab := make([]model.NamedOperatorState, 0, len(w.src)*n)
	offsetSlab := make([]int64, splits)
	for i, t := range w.src {
		var lists map[string]opList // (nil: no split)
		if len(t.offsets) > 0 {
			lists = make(map[string]opList, n)
		}
		for _, s := range sortedInts(t.offsets) {
			name, _ := w.job.sourceState(s % n)
			l := lists[name]
			l.Elems = append(l.Elems, splitOffset{Split: s, Offset: t.offsets[s]})
			lists[name] = l
		}
		first := len(stateSlab)
		for k := range n {
			name, mode := w.job.sourceState(k)
			list := lists[name].Elems
			if len(list) == 0 && w.job.Sparse {
				continue
			}
			offs := offsetSlab[:len(list):len(list)]
			offsetSlab = offsetSlab[len(list):]
			stateSlab = append(stateSlab, model.NamedOperatorState{Name: name, Mode: mode, Offsets: offs})
		}
		states := stateSlab[first:len(stateSlab):len(stateSlab)]
		var out []model.ChannelStateHandle // unaligned: the records not sent yet
		if !savepoint {
			out = w.snapshotOutFlight(dir, i)
		}
		if len(states) == 0 && len(out) == 0 {
			continue // sparse: nothing to store, no entry
		}
		st := &subs[i]
		st.ResultSubpartitionState = out
		if len(states) > 0 {
			slices.SortFunc(states, func(a, b model.NamedOperatorState) int { return strings.Compare(a.Name, b.Name) })
			elems := 0 // the stream holds the lists in name order, each element at its stream position
			for _, ns := range states {
				if l, ok := lists[ns.Name]; ok { // (an empty list has no entry: nothing is read from it)
					l.Start = elems
					lists[ns.Name] = l
				}
				for k := range ns.Offsets {
					ns.Offsets[k] = entryOffset(elems)
					elems++
				}
			}
			handles[i] = model.OperatorStateHandle{Delegate: w.fs.put(dir+"/op-source-"+strconv.Itoa(i), listsFile(lists), entryOffset(elems)), States: states}
			st.ManagedOperatorState = handles[i : i+1 : i+1]
		}
		srcState.Subtasks[i] = st
	}
	md.Operators = append(md.Operators, srcState)

	if w.job.HasKeyed() {
		// Keyed operator: managed keyed (full or incremental), raw keyed, broadcast map.
		keyedState := model.OperatorState{
			OperatorID: model.OperatorIDFromUID(w.job.Keyed.UID), Parallelism: len(w.keyed), MaxParallelism: w.maxPar,
			Subtasks: make([]*model.OperatorSubtaskState, len(w.keyed)),
		}
		subs := make([]model.OperatorSubtaskState, len(w.keyed))
		keyedHandles := make([]model.KeyedStateHandle, 2*len(w.keyed)) // (managed, raw) per subtask
		var rules []rulesHandle                                        // (the broadcast handles)
		if w.job.Broadcast {
			rules = make([]rulesHandle, len(w.keyed))
		}
		for i, t := range w.keyed {
			st := &subs[i]
			if keys := len(t.values) > 0; keys || !w.job.Sparse { // sparse: no keyed handle without keys
				keyedHandles[2*i] = w.snapshotKeyed(t, id, dir, "keyed-"+strconv.Itoa(i), w.maxPar, savepoint)
				st.ManagedKeyedState = keyedHandles[2*i : 2*i+1 : 2*i+1]
				if w.job.RawKeyed {
					keyedHandles[2*i+1] = t.snapshotKeyGroups(w.fs, dir+"/keyed-raw-"+strconv.Itoa(i), w.maxPar, true)
					st.RawKeyedState = keyedHandles[2*i+1 : 2*i+2 : 2*i+2]
				}
			}
			if !savepoint {
				st.InputChannelState = w.snapshotInFlight(dir, i)
			}
			if w.job.Broadcast && (w.applied > 0 || !w.job.Sparse) { // sparse: no handle before the first update
				if w.rulesFile == nil || !maps.Equal(w.rulesFile[stateRules], t.rules) {
					w.rulesFile = mapsFile{stateRules: maps.Clone(t.rules)} // (files are read only: equal copies are shared)
				}
				h := w.fs.put(dir+"/op-keyed-"+strconv.Itoa(i), w.rulesFile, entryOffset(len(t.rules)))
				r := &rules[i]
				r.offsets[0] = streamHeader
				r.states[0] = model.NamedOperatorState{Name: stateRules, Mode: model.Broadcast, Offsets: r.offsets[:]}
				r.handle[0] = model.OperatorStateHandle{Delegate: h, States: r.states[:]}
				st.ManagedOperatorState = r.handle[:]
			}
			if st.HasState() || !w.job.Sparse { // a task without state acknowledges none: no entry
				keyedState.Subtasks[i] = st
			}
		}
		md.Operators = append(md.Operators, keyedState)
	}

	// Sink: stateless, but present in the metadata with empty subtask states, as Flink writes it
	// (an entry for each subtask whose task acknowledged state: all, unless sparse).
	if w.job.Sink {
		sinkState := model.OperatorState{
			OperatorID: model.OperatorIDFromUID(sinkUID), Parallelism: len(w.keyed), MaxParallelism: w.maxPar,
			Subtasks: make([]*model.OperatorSubtaskState, len(w.keyed)),
		}
		subs := make([]model.OperatorSubtaskState, len(w.keyed))
		for i := range sinkState.Subtasks {
			if md.Operators[len(md.Operators)-1].Subtasks[i] != nil {
				sinkState.Subtasks[i] = &subs[i]
			}
		}
		md.Operators = append(md.Operators, sinkState)
	}
	// Stages: stateless tasks acknowledge a checkpoint without state. Flink 1.18's
	// PendingCheckpoint still creates each operator's state (no subtask entries, at the vertex's
	// parallelism and max parallelism); 1.10.1's records nothing for them.
	// A keyed stage's task acknowledges state: its head's keyed state, and an empty entry per
	// subtask for each chained operator (as for the sink).
	for k, st := range w.job.Stages {
		if !st.Keyed && !w.writesStatelessStates() {
			continue
		}
		for u, uid := range w.job.StageUIDs(k) {
			os := model.OperatorState{OperatorID: model.OperatorIDFromUID(uid), Parallelism: st.Config.Parallelism, MaxParallelism: w.stageMax[k]}
			if st.Keyed {
				os.Subtasks = make([]*model.OperatorSubtaskState, st.Config.Parallelism)
				for i, t := range w.stageKeyed[k] {
					if w.job.Sparse && len(t.values) == 0 {
						continue // the task has no state: no entry for any of its operators
					}
					os.Subtasks[i] = &model.OperatorSubtaskState{}
					if u == 0 {
						os.Subtasks[i].ManagedKeyedState = []model.KeyedStateHandle{w.snapshotKeyed(t, id, dir, fmt.Sprintf("%s-keyed-%d", VertexName(2+k), i), w.stageMax[k], savepoint)}
					}
				}
			}
			md.Operators = append(md.Operators, os)
		}
	}
	if !w.writesStatelessStates() {
		// 1.10.1's PendingCheckpoint creates an operator's state only when a subtask acknowledges
		// state for it: an operator without any entry is not in the snapshot.
		md.Operators = slices.DeleteFunc(md.Operators, func(os model.OperatorState) bool {
			return !slices.ContainsFunc(os.Subtasks, func(st *model.OperatorSubtaskState) bool { return st != nil })
		})
	}
	props := checkpointProperties(savepoint)
	md.Properties = &props
	if err := writeMetadata(w.fs, dir+"/"+model.MetadataFileName, md, savepoint, w.operatorNames()); err != nil {
		panic("sim: internal error: writing metadata: " + err.Error())
	}
	return md
}

// operatorNames gives the name and uid each operator of the running job stores in a format
// version 5+ file: the uid it was given (none for a stage without uid) and a name after its
// vertex.
func (w *World) operatorNames() metadata.OperatorNames {
	type names struct{ name, uid string }
	m := map[model.OperatorID]names{
		model.OperatorIDFromUID(w.job.Source.UID): {"Source: source", w.job.Source.UID},
		model.OperatorIDFromUID(sinkUID):          {"Sink: sink", sinkUID},
	}
	if w.job.HasKeyed() {
		m[model.OperatorIDFromUID(w.job.Keyed.UID)] = names{"keyed", w.job.Keyed.UID}
	}
	for k := range w.job.Stages {
		for c, uid := range w.job.StageUIDs(k) {
			n := names{name: fmt.Sprintf("%s-%d", VertexName(2+k), c+1)}
			if w.job.Stages[k].Config.UID != "" {
				n.uid = uid
			}
			m[model.OperatorIDFromUID(uid)] = n
		}
	}
	return func(id model.OperatorID) (string, string) {
		n := m[id]
		return n.name, n.uid
	}
}

// snapshotKeyed snapshots a keyed subtask's managed keyed state: incremental (RocksDB-style
// shared files) for a checkpoint of an incremental job, else a full key-groups file named name.
func (w *World) snapshotKeyed(t *keyedTask, id int64, dir, name string, maxPar int, savepoint bool) model.KeyedStateHandle {
	if w.job.Incremental && !savepoint {
		return t.snapshotIncremental(w.fs, dir, id, maxPar, &w.fileSeq)
	}
	return t.snapshotKeyGroups(w.fs, dir+"/"+name, maxPar, false)
}

// rulesHandle holds a keyed subtask's broadcast handle and its one state and offset (a
// snapshot makes them for all subtasks at once).
type rulesHandle struct {
	handle  [1]model.OperatorStateHandle
	states  [1]model.NamedOperatorState
	offsets [1]int64
}

// writesStatelessStates reports whether a snapshot lists the operators of stateless tasks.
func (w *World) writesStatelessStates() bool { return w.plan.Version != model.Flink1101 }

// vertices describes the running job's vertices to the model, as the JobGraph would.
func jobVertices(j Job) []model.JobVertex {
	srcMax, srcConf := configuredMaxPar(j.Source)
	keyedMax, keyedConf := 0, false
	if j.HasKeyed() {
		keyedMax, keyedConf = configuredMaxPar(j.Keyed)
	}
	keyedOp := model.JobOperator{ID: model.OperatorIDFromUID(j.Keyed.UID)}
	if j.Keyed.UIDHash != "" {
		id, err := model.ParseOperatorID(j.Keyed.UIDHash)
		if err == nil {
			keyedOp.UserDefinedID = &id
		}
	}
	ops := []model.JobOperator{keyedOp}
	if j.Sink { // chains are listed tail-first: the sink (tail) before the keyed head
		ops = []model.JobOperator{{ID: model.OperatorIDFromUID(sinkUID)}, keyedOp}
	}
	vs := []model.JobVertex{
		{Name: "source", Operators: []model.JobOperator{{ID: model.OperatorIDFromUID(j.Source.UID)}},
			Parallelism: j.Source.Parallelism, MaxParallelism: srcMax, MaxParallelismConfigured: srcConf},
	}
	if j.HasKeyed() {
		// The keyBy edge from the source: KeyGroupStreamPartitioner (ARBITRARY upstream, RANGE
		// downstream), the source's result partition 0 (the only edge given to the model: the
		// channel state the world writes is on this edge alone).
		vs = append(vs, model.JobVertex{Name: "keyed", Operators: ops, Parallelism: j.Keyed.Parallelism, MaxParallelism: keyedMax, MaxParallelismConfigured: keyedConf,
			Inputs: []model.JobEdge{model.EdgeFor(model.HashPartitioner, 0, 0)}})
	}
	for k, st := range j.Stages {
		m, conf := configuredMaxPar(st.Config)
		uids := j.StageUIDs(k)
		ops := make([]model.JobOperator, len(uids))
		for i, uid := range uids { // tail-first: the chain head (uids[0]) last
			ops[len(uids)-1-i] = model.JobOperator{ID: model.OperatorIDFromUID(uid)}
		}
		vs = append(vs, model.JobVertex{Name: VertexName(2 + k), Operators: ops, Parallelism: st.Config.Parallelism,
			MaxParallelism: m, MaxParallelismConfigured: conf})
	}
	return vs
}

// failoverTopology is the running job's graph as the scheduler sees it: the source feeds the
// keyed vertex over a pipelined keyBy edge; each stage reads its input over its own edge. Its
// vertices are the job's present ones (Job.graphIndex).
func failoverTopology(j Job) *model.FailoverTopology { return new(topologyCache).of(j) }

// failoverGraph is job j's graph as the failover topology takes it.
func failoverGraph(j Job) ([]model.FailoverVertex, []model.FailoverEdge) {
	var vs []model.FailoverVertex
	for _, v := range j.present() {
		vs = append(vs, model.FailoverVertex{Name: VertexName(v), Parallelism: j.Parallelism(v)})
	}
	var es []model.FailoverEdge
	if j.HasKeyed() {
		es = append(es, model.FailoverEdge{Producer: 0, Consumer: 1, Type: model.PipelinedBounded, Pattern: model.AllToAll})
	}
	for k, st := range j.Stages {
		es = append(es, model.FailoverEdge{Producer: j.graphIndex(st.Input), Consumer: j.graphIndex(2 + k), Type: st.PartitionType(), Pattern: st.Edge.Pattern()})
	}
	return vs, es
}

// topologyCache holds the failover topology of the last job graph asked for: a job fails over
// many times between restarts, and a topology is read only.
type topologyCache struct {
	vertices []model.FailoverVertex
	edges    []model.FailoverEdge
	topo     *model.FailoverTopology
}

// of is failoverTopology(j), built again only when j's vertices or edges differ from the last.
func (c *topologyCache) of(j Job) *model.FailoverTopology {
	vs, es := failoverGraph(j)
	if c.topo == nil || !slices.Equal(vs, c.vertices) || !slices.Equal(es, c.edges) {
		t, err := model.NewFailoverTopology(vs, es)
		if err != nil {
			panic("sim: internal error: " + err.Error())
		}
		*c = topologyCache{vertices: vs, edges: es, topo: t}
	}
	return c.topo
}
