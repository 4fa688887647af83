package model

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/restoresim/restoresim/model/internal/mutant"
)

// This file models how Flink redistributes the in-flight channel state of an unaligned
// checkpoint (InputChannelStateHandle, ResultSubpartitionStateHandle) when a job is restored:
// StateAssignmentOperation.reDistributeInputChannelStates and reDistributeResultSubpartitionStates,
// TaskStateAssignment's input and output mappings (getInputMapping, getOutputMapping, the
// upstream and downstream assignments) and the InflightDataRescalingDescriptor of every new
// subtask (TaskStateAssignment.getSubtaskState → createRescalingDescriptor), over the job edges
// of AssignmentInput (JobVertex.Inputs). The version rules of SPEC-VERSIONS.md §2.2, §2.4, §2.5
// and §2.6 are marked where they apply (see channelRules).

// Partitioner names a stream partitioner of a job edge, for the SubtaskStateMappers it gives
// the edge (StreamingJobGraphGenerator sets JobEdge's mappers from the partitioner's
// getUpstreamSubtaskStateMapper and getDownstreamSubtaskStateMapper). The zero value is invalid.
type Partitioner uint8

const (
	// ForwardPartitioner is FORWARD (ForwardPartitioner): pointwise, UNSUPPORTED both ways.
	ForwardPartitioner Partitioner = iota + 1
	// RebalancePartitioner is REBALANCE (RebalancePartitioner, rebalance()): ARBITRARY / ROUND_ROBIN.
	RebalancePartitioner
	// RescalePartitioner is RESCALE (RescalePartitioner, rescale()): pointwise, UNSUPPORTED both ways.
	RescalePartitioner
	// ShufflePartitioner is SHUFFLE (ShufflePartitioner, shuffle()): ARBITRARY / ROUND_ROBIN.
	ShufflePartitioner
	// HashPartitioner is HASH (KeyGroupStreamPartitioner, keyBy): ARBITRARY / RANGE.
	HashPartitioner
	// GlobalPartitioner is GLOBAL (GlobalPartitioner, global()): ARBITRARY / FIRST.
	GlobalPartitioner
	// BroadcastPartitioner is BROADCAST (BroadcastPartitioner, broadcast()): UNSUPPORTED both ways.
	BroadcastPartitioner
	// CustomPartitioner is CUSTOM (CustomPartitionerWrapper, partitionCustom): ARBITRARY / FULL.
	CustomPartitioner
)

var partitionerNames = [...]string{
	ForwardPartitioner: "FORWARD", RebalancePartitioner: "REBALANCE", RescalePartitioner: "RESCALE",
	ShufflePartitioner: "SHUFFLE", HashPartitioner: "HASH", GlobalPartitioner: "GLOBAL",
	BroadcastPartitioner: "BROADCAST", CustomPartitioner: "CUSTOM",
}

// Partitioners lists every Partitioner in a fixed order.
func Partitioners() []Partitioner {
	return []Partitioner{ForwardPartitioner, RebalancePartitioner, RescalePartitioner, ShufflePartitioner,
		HashPartitioner, GlobalPartitioner, BroadcastPartitioner, CustomPartitioner}
}

// String gives the partitioner's toString, e.g. "HASH".
func (p Partitioner) String() string {
	if p >= ForwardPartitioner && p <= CustomPartitioner {
		return partitionerNames[p]
	}
	return "Partitioner(" + strconv.Itoa(int(p)) + ")"
}

// ErrUnknownPartitioner is returned by ParsePartitioner.
var ErrUnknownPartitioner = errors.New("unknown partitioner (want FORWARD, REBALANCE, RESCALE, SHUFFLE, HASH, GLOBAL, BROADCAST or CUSTOM)")

// ParsePartitioner parses a partitioner's name as String gives it.
func ParsePartitioner(s string) (Partitioner, error) {
	for _, p := range Partitioners() {
		if partitionerNames[p] == s {
			return p, nil
		}
	}
	return 0, fmt.Errorf("%w: %q", ErrUnknownPartitioner, s)
}

// Set parses s as ParsePartitioner does (flag.Value).
func (p *Partitioner) Set(s string) error {
	v, err := ParsePartitioner(s)
	if err == nil {
		*p = v
	}
	return err
}

// Mappers gives the partitioner's getUpstreamSubtaskStateMapper and
// getDownstreamSubtaskStateMapper (Flink 1.18 to master): StreamPartitioner's default upstream
// mapper is ARBITRARY; the pointwise and broadcast partitioners override both with UNSUPPORTED.
func (p Partitioner) Mappers() (upstream, downstream SubtaskStateMapper) {
	switch p {
	case ForwardPartitioner, RescalePartitioner, BroadcastPartitioner:
		return UnsupportedMapper, UnsupportedMapper
	case RebalancePartitioner, ShufflePartitioner:
		return ArbitraryMapper, RoundRobinMapper
	case HashPartitioner:
		return ArbitraryMapper, RangeMapper
	case GlobalPartitioner:
		return ArbitraryMapper, FirstMapper
	case CustomPartitioner:
		return ArbitraryMapper, FullMapper
	}
	return 0, 0
}

// JobEdge models the parts of a jobgraph.JobEdge (and its IntermediateDataSet) the restore of
// channel state reads: one input gate of the consuming vertex, fed by one result partition of
// the producing vertex.
type JobEdge struct {
	// Upstream is the producing vertex: its index in AssignmentInput.Vertices.
	Upstream int `json:"upstream"`
	// Partition is the index of this edge's IntermediateDataSet among the upstream vertex's
	// produced data sets (its result partition index, ResultSubpartitionInfo.partitionIdx). The
	// edges leaving one vertex must number its partitions 0..n−1.
	Partition int `json:"partition"`
	// UpstreamMapper and DownstreamMapper are JobEdge.getUpstreamSubtaskStateMapper and
	// getDownstreamSubtaskStateMapper; the zero value is JobEdge's default, ROUND_ROBIN.
	UpstreamMapper   SubtaskStateMapper `json:"upstream_mapper,omitempty"`
	DownstreamMapper SubtaskStateMapper `json:"downstream_mapper,omitempty"`
}

// EdgeFor is the edge a partitioner gives between result partition partition of vertex
// upstream and the consuming vertex.
func EdgeFor(p Partitioner, upstream, partition int) JobEdge {
	up, down := p.Mappers()
	return JobEdge{Upstream: upstream, Partition: partition, UpstreamMapper: up, DownstreamMapper: down}
}

func (e JobEdge) upstreamMapper() SubtaskStateMapper {
	if e.UpstreamMapper == 0 {
		return RoundRobinMapper
	}
	return e.UpstreamMapper
}

func (e JobEdge) downstreamMapper() SubtaskStateMapper {
	if e.DownstreamMapper == 0 {
		return RoundRobinMapper
	}
	return e.DownstreamMapper
}

// MappingType models InflightDataGateOrPartitionRescalingDescriptor.MappingType. The zero value
// is invalid.
type MappingType uint8

const (
	// IdentityMapping is IDENTITY: no scaling, or a new subtask reading no old subtask.
	IdentityMapping MappingType = iota + 1
	// RescalingMapping is RESCALING: the task demultiplexes virtual channels.
	RescalingMapping
)

// String gives Flink's enum name.
func (t MappingType) String() string {
	switch t {
	case IdentityMapping:
		return "IDENTITY"
	case RescalingMapping:
		return "RESCALING"
	}
	return "MappingType(" + strconv.Itoa(int(t)) + ")"
}

// MarshalText encodes the type as Flink's enum name.
func (t MappingType) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// GateOrPartitionRescalingDescriptor models
// InflightDataRescalingDescriptor.InflightDataGateOrPartitionRescalingDescriptor: for one input
// gate (or result partition) of a new subtask, the old subtasks whose in-flight data it reads
// and how the connected task's channels were merged.
type GateOrPartitionRescalingDescriptor struct {
	// OldSubtaskIndexes are the old subtasks this new subtask reads on this gate or partition
	// (oldSubtaskIndexes), in Flink's order.
	OldSubtaskIndexes []int `json:"old_subtask_indexes"`
	// RescaledChannelsMappings is the connected vertex's mapping of new to old channels
	// (rescaledChannelsMappings).
	RescaledChannelsMappings RescaleMappings `json:"rescaled_channels_mappings"`
	// AmbiguousSubtaskIndexes are the old subtasks whose data other new subtasks read too, so
	// that records must be filtered (ambiguousSubtaskIndexes), ascending.
	AmbiguousSubtaskIndexes []int       `json:"ambiguous_subtask_indexes"`
	MappingType             MappingType `json:"mapping_type"`
	// NoState marks InflightDataGateOrPartitionRescalingDescriptor.NO_STATE (FLINK-38267: a
	// gate or partition without in-flight data on either side).
	NoState bool `json:"no_state,omitempty"`
}

// IsIdentity models isIdentity.
func (d GateOrPartitionRescalingDescriptor) IsIdentity() bool {
	return d.MappingType == IdentityMapping
}

// String follows Flink's toString.
func (d GateOrPartitionRescalingDescriptor) String() string {
	if d.NoState {
		return "NO_STATE"
	}
	return "InflightDataGateOrPartitionRescalingDescriptor{oldSubtaskIndexes=" + intList(d.OldSubtaskIndexes) +
		", rescaledChannelsMappings=" + d.RescaledChannelsMappings.String() +
		", ambiguousSubtaskIndexes=" + intList(d.AmbiguousSubtaskIndexes) + ", mappingType=" + d.MappingType.String() + "}"
}

// InflightDataRescalingDescriptor models checkpoint.InflightDataRescalingDescriptor: per input
// gate (or result partition) of one new subtask's input (output) operator, how its in-flight
// data was rescaled. A nil *InflightDataRescalingDescriptor is NO_RESCALE.
type InflightDataRescalingDescriptor struct {
	GatesOrPartitions []GateOrPartitionRescalingDescriptor `json:"gates_or_partitions"`
}

// OldSubtaskIndexes models getOldSubtaskIndexes: nil for NO_RESCALE and for a NO_STATE gate
// (FLINK-38483; the 1.20.3 patch release, which throws there instead, is not modelled: the
// model's 1.20 is the release-1.20 branch head, 1.20.5 and later).
func (d *InflightDataRescalingDescriptor) OldSubtaskIndexes(gateOrPartition int) []int {
	if d == nil {
		return nil
	}
	return slices.Clone(d.GatesOrPartitions[gateOrPartition].OldSubtaskIndexes)
}

// ChannelMapping models getChannelMapping: SymmetricIdentityRescaleMappings for NO_RESCALE.
func (d *InflightDataRescalingDescriptor) ChannelMapping(gateOrPartition int) RescaleMappings {
	if d == nil {
		return SymmetricIdentityRescaleMappings
	}
	return d.GatesOrPartitions[gateOrPartition].RescaledChannelsMappings
}

// IsAmbiguous models isAmbiguous: false for NO_RESCALE.
func (d *InflightDataRescalingDescriptor) IsAmbiguous(gateOrPartition, oldSubtask int) bool {
	if d == nil {
		return false
	}
	return slices.Contains(d.GatesOrPartitions[gateOrPartition].AmbiguousSubtaskIndexes, oldSubtask)
}

// String follows Flink's toString ("NO_RESCALE" for nil).
func (d *InflightDataRescalingDescriptor) String() string {
	if d == nil {
		return "NO_RESCALE"
	}
	parts := make([]string, len(d.GatesOrPartitions))
	for i, g := range d.GatesOrPartitions {
		parts[i] = g.String()
	}
	return "InflightDataRescalingDescriptor{gateOrPartitionDescriptors=[" + strings.Join(parts, ", ") + "]}"
}

func intList(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// MarshalText encodes the mappings as String gives them.
func (r RescaleMappings) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// ErrIncompatibleSubtaskMappings would match TaskStateAssignment.checkSubtaskMapping's
// IllegalStateException ("Incompatible subtask mappings"); the model's mappings of one gate or
// partition are pure functions of fixed parallelisms, so it cannot occur, and the model does not
// return it.

// channelRules are the version rules of the channel-state path (SPEC-VERSIONS.md §2).
type channelRules struct {
	// perGate (FLINK-38267; 1.20, 2.0 = 2.0.1, 2.1 = 2.1.1, 2.2+): gates and partitions
	// without in-flight data on either side are skipped and get NO_STATE.
	perGate bool
	// byDataSet (FLINK-40269: master, and the heads of release-1.20, release-2.2 and
	// release-2.3, after 1.20.5, 2.2.1 and 2.3.0): the peer's mapping is found by the edge's data
	// set, not by the first edge to the peer.
	byDataSet bool
}

func channelRulesOf(v FlinkVersion) channelRules {
	return channelRules{
		perGate:   v.AtLeast(Flink120),
		byDataSet: v == Flink120 || v.AtLeast(Flink22),
	}
}

// assignJob is the scratch of one AssignStates run shared by the vertices (Flink's
// vertexAssignments and consumerAssignment maps).
type assignJob struct {
	rules channelRules
	works []vertexWork
	// produced[u][p] is the consumer of result partition p of vertex u (IntermediateResult →
	// its consumer's input gate).
	produced [][]edgeEnd
}

// edgeEnd is the consuming end of a result partition: the vertex and its input gate.
type edgeEnd struct{ vertex, gate int }

// subtasksRescaleMapping models TaskStateAssignment.SubtasksRescaleMapping.
type subtasksRescaleMapping struct {
	m         RescaleMappings
	ambiguous bool // mayHaveAmbiguousSubtasks
}

// channelFlags computes TaskStateAssignment's hasInputState / hasOutputState (1.18, 1.19) or
// inputStateGates / outputStatePartitions (FLINK-38267) from the matched states.
func (w *vertexWork) channelFlags() {
	head := w.states[len(w.states)-1]
	tail := w.states[0]
	for _, st := range head.Subtasks {
		if st == nil {
			continue
		}
		for _, h := range st.InputChannelState {
			w.hasInput = true
			if !slices.Contains(w.inputGates, h.GateOrPartition) {
				w.inputGates = append(w.inputGates, h.GateOrPartition)
			}
		}
	}
	for _, st := range tail.Subtasks {
		if st == nil {
			continue
		}
		for _, h := range st.ResultSubpartitionState {
			w.hasOutput = true
			if !slices.Contains(w.outputPartitions, h.GateOrPartition) {
				w.outputPartitions = append(w.outputPartitions, h.GateOrPartition)
			}
		}
	}
}

// hasUpstreamOutputStates models TaskStateAssignment.hasUpstreamOutputStates.
func (w *vertexWork) hasUpstreamOutputStates() bool {
	for _, e := range w.v.Inputs {
		if w.job.works[e.Upstream].hasOutput {
			return true
		}
	}
	return false
}

// hasDownstreamInputStates models TaskStateAssignment.hasDownstreamInputStates.
func (w *vertexWork) hasDownstreamInputStates() bool {
	for _, d := range w.job.produced[w.idx] {
		if w.job.works[d.vertex].hasInput {
			return true
		}
	}
	return false
}

// channelNeighbour reports FLINK-31963's condition: the vertex is repartitioned and assigned
// because an upstream has output or a downstream has input channel state.
func (w *vertexWork) channelNeighbour() bool {
	return w.hasUpstreamOutputStates() || w.hasDownstreamInputStates()
}

// hasInFlightDataForInputGate models TaskStateAssignment.hasInFlightDataForInputGate (FLINK-38267).
func (w *vertexWork) hasInFlightDataForInputGate(g int) bool {
	if slices.Contains(w.inputGates, g) {
		return true
	}
	e := w.v.Inputs[g]
	u := &w.job.works[e.Upstream]
	return u.hasOutput && slices.Contains(u.outputPartitions, e.Partition)
}

// hasInFlightDataForResultPartition models TaskStateAssignment.hasInFlightDataForResultPartition.
func (w *vertexWork) hasInFlightDataForResultPartition(p int) bool {
	if slices.Contains(w.outputPartitions, p) {
		return true
	}
	d := w.job.produced[w.idx][p]
	c := &w.job.works[d.vertex]
	return c.hasInput && slices.Contains(c.inputGates, d.gate)
}

// inputMapping models TaskStateAssignment.getInputMapping(gateIndex): the gate's downstream
// mapper from the input operator's old parallelism to the new one, cached per gate.
func (w *vertexWork) inputMapping(g int) (subtasksRescaleMapping, error) {
	if m, ok := w.inMappings[g]; ok {
		return m, nil
	}
	mapper := w.v.Inputs[g].downstreamMapper()
	head := w.states[len(w.states)-1]
	m, err := mapper.NewToOldSubtasksMapping(head.Parallelism, w.v.Parallelism)
	if err != nil {
		return subtasksRescaleMapping{}, refuse(fmt.Errorf("vertex %s, input gate %d (%v): %w", w.v.Name, g, mapper, err), head.OperatorID, w.v.Name)
	}
	sm := subtasksRescaleMapping{m: m, ambiguous: mapper.IsAmbiguous()}
	if w.inMappings == nil {
		w.inMappings = map[int]subtasksRescaleMapping{}
	}
	w.inMappings[g] = sm
	return sm, nil
}

// outputMapping models TaskStateAssignment.getOutputMapping(partitionIndex): the upstream mapper
// of the consumer's edge, from the output operator's old parallelism to the new one, cached.
func (w *vertexWork) outputMapping(p int) (subtasksRescaleMapping, error) {
	if m, ok := w.outMappings[p]; ok {
		return m, nil
	}
	d := w.job.produced[w.idx][p]
	mapper := w.job.works[d.vertex].v.Inputs[d.gate].upstreamMapper()
	tail := w.states[0]
	m, err := mapper.NewToOldSubtasksMapping(tail.Parallelism, w.v.Parallelism)
	if err != nil {
		return subtasksRescaleMapping{}, refuse(fmt.Errorf("vertex %s, result partition %d (%v): %w", w.v.Name, p, mapper, err), tail.OperatorID, w.v.Name)
	}
	sm := subtasksRescaleMapping{m: m, ambiguous: mapper.IsAmbiguous()}
	if w.outMappings == nil {
		w.outMappings = map[int]subtasksRescaleMapping{}
	}
	w.outMappings[p] = sm
	return sm, nil
}

// connectedMapping gives the peer's mapping for gate (isInput) or partition k of w: the cached
// one (nil when none) or, with recompute, the computed one. Before FLINK-40269 the peer's index
// is the first of its edges to w (getAssignmentIndex: indexOf); with it, the edge's own.
func (w *vertexWork) connectedMapping(isInput bool, k int, recompute bool) (*subtasksRescaleMapping, error) {
	j := w.job
	var peer *vertexWork
	var idx int
	if isInput {
		e := w.v.Inputs[k]
		peer, idx = &j.works[e.Upstream], e.Partition
		if !j.rules.byDataSet {
			for p, d := range j.produced[e.Upstream] {
				if d.vertex == w.idx {
					idx = p
					break
				}
			}
		}
		if m, ok := peer.outMappings[idx]; ok {
			return &m, nil
		}
		if !recompute {
			return nil, nil
		}
		m, err := peer.outputMapping(idx)
		return &m, err
	}
	d := j.produced[w.idx][k]
	peer, idx = &j.works[d.vertex], d.gate
	if !j.rules.byDataSet {
		for g, e := range peer.v.Inputs {
			if e.Upstream == w.idx {
				idx = g
				break
			}
		}
	}
	if m, ok := peer.inMappings[idx]; ok {
		return &m, nil
	}
	if !recompute {
		return nil, nil
	}
	m, err := peer.inputMapping(idx)
	return &m, err
}

// hasChannelHandles models StateAssignmentOperation.hasChannelState: some handle with offsets.
func hasChannelHandles(os *OperatorState, input bool) bool {
	for _, st := range os.Subtasks {
		if st == nil {
			continue
		}
		hs := st.ResultSubpartitionState
		if input {
			hs = st.InputChannelState
		}
		for _, h := range hs {
			if len(h.Offsets) > 0 {
				return true
			}
		}
	}
	return false
}

// checkForUnsupportedTopologyChanges models checkForUnsupportedToplogyChanges: channel state of
// another operator than the chain's input (output) operator is refused, the operators listed in
// the HashMap order of the vertex's states.
func (w *vertexWork) checkForUnsupportedTopologyChanges(v FlinkVersion, input bool) error {
	own := 0
	if input {
		own = len(w.states) - 1
	}
	var unexpected []OperatorID
	for _, k := range w.checkOrder(v) {
		if k != own && hasChannelHandles(w.states[k], input) {
			unexpected = append(unexpected, w.v.Operators[k].ID)
		}
	}
	if len(unexpected) == 0 {
		return nil
	}
	names := make([]string, len(unexpected))
	for i, id := range unexpected {
		names[i] = id.String()
	}
	return refuse(fmt.Errorf("%w (vertex %s): the following operators contain channel state: [%s]",
		ErrChannelStateTopologyChange, w.v.Name, strings.Join(names, ", ")), unexpected[0], w.v.Name)
}

// channelHandlesBySubtask models splitBySubtasks for channel state: one list per old subtask.
func channelHandlesBySubtask(os *OperatorState, input bool) [][]ChannelStateHandle {
	out := make([][]ChannelStateHandle, os.Parallelism)
	for i := range out {
		if st := os.Subtask(i); st != nil {
			if input {
				out[i] = st.InputChannelState
			} else {
				out[i] = st.ResultSubpartitionState
			}
		}
	}
	return out
}

// gateState models getPartitionState: each old subtask's handles of one gate or partition (all
// of them when g < 0: a vertex with one gate or partition does not filter).
func gateState(per [][]ChannelStateHandle, g int) [][]int {
	out := make([][]int, len(per))
	for i, hs := range per {
		for j, h := range hs {
			if g < 0 || h.GateOrPartition == g {
				out[i] = append(out[i], j)
			}
		}
	}
	return out
}

// repartitionByMapping models MappingBasedRepartitioner.repartitionState and addToSubtasks: new
// subtask i appends the handles (sel: indexes into per) of the old subtasks m maps it to, in the
// mapping's order; used marks the handles some new subtask received.
func repartitionByMapping(dst [][]ChannelStateHandle, m RescaleMappings, per [][]ChannelStateHandle, sel [][]int, used [][]bool) {
	for i := range dst {
		for _, o := range m.MappedIndexes(i) {
			for _, j := range sel[o] {
				dst[i] = append(dst[i], per[o][j])
				used[o][j] = true
			}
		}
	}
}

// unused counts the handles no new subtask received.
func unused(used [][]bool) int {
	n := 0
	for _, us := range used {
		for _, u := range us {
			if !u {
				n++
			}
		}
	}
	return n
}

func usedMarks(per [][]ChannelStateHandle) [][]bool {
	out := make([][]bool, len(per))
	for i, hs := range per {
		out[i] = make([]bool, len(hs))
	}
	return out
}

// reDistributeInputChannelStates models StateAssignmentOperation.reDistributeInputChannelStates.
func (w *vertexWork) reDistributeInputChannelStates(v FlinkVersion) error {
	if !w.hasInput && !w.hasUpstreamOutputStates() {
		return nil
	}
	if err := w.checkForUnsupportedTopologyChanges(v, true); err != nil {
		return err
	}
	head := w.states[len(w.states)-1]
	per := channelHandlesBySubtask(head, true)
	p := w.v.Parallelism
	// FLINK-35351 (on release-1.18 after 1.18.1, so in every modelled version): a FULL input
	// edge forces redistribution when some producer's new parallelism differs from this
	// vertex's old one.
	anyFull, anyChanged := false, false
	for _, e := range w.v.Inputs {
		anyFull = anyFull || e.downstreamMapper() == FullMapper
		anyChanged = anyChanged || head.Parallelism != w.job.works[e.Upstream].v.Parallelism
	}
	if head.Parallelism == p && !(anyFull && anyChanged) {
		w.inputChannel = make([][]ChannelStateHandle, p)
		for i := range p {
			w.inputChannel[i] = clip(per[i])
		}
		return nil
	}
	w.inputChannel = make([][]ChannelStateHandle, p)
	if mutant.On(mutant.ChannelDropBuffer) {
		per = dropFirstHandle(per)
	}
	used := usedMarks(per)
	for g := range w.v.Inputs {
		if w.job.rules.perGate && !w.hasInFlightDataForInputGate(g) {
			continue
		}
		m, err := w.inputMapping(g)
		if err != nil {
			return err
		}
		sel := -1
		if len(w.v.Inputs) > 1 {
			sel = g
		}
		repartitionByMapping(w.inputChannel, m.m, per, gateState(per, sel), used)
	}
	w.out.DroppedChannelHandles += unused(used)
	return nil
}

// dropFirstHandle is the channel-drop-buffer mutant: per without the first handle of the first old
// subtask that has one (a copy; per is the checkpoint's).
func dropFirstHandle(per [][]ChannelStateHandle) [][]ChannelStateHandle {
	out := slices.Clone(per)
	for i, hs := range out {
		if len(hs) > 0 {
			out[i] = hs[1:]
			break
		}
	}
	return out
}

// reDistributeResultSubpartitionStates models
// StateAssignmentOperation.reDistributeResultSubpartitionStates.
func (w *vertexWork) reDistributeResultSubpartitionStates(v FlinkVersion) error {
	if !w.hasOutput && !w.hasDownstreamInputStates() {
		return nil
	}
	if err := w.checkForUnsupportedTopologyChanges(v, false); err != nil {
		return err
	}
	tail := w.states[0]
	per := channelHandlesBySubtask(tail, false)
	p := w.v.Parallelism
	outputs := len(w.job.produced[w.idx])
	if tail.Parallelism == p {
		w.resultSubpartition = make([][]ChannelStateHandle, p)
		for i := range p {
			w.resultSubpartition[i] = clip(per[i])
		}
		return nil
	}
	w.resultSubpartition = make([][]ChannelStateHandle, p)
	used := usedMarks(per)
	for part := range outputs {
		if w.job.rules.perGate && !w.hasInFlightDataForResultPartition(part) {
			continue
		}
		sel := -1
		if outputs > 1 {
			sel = part
		}
		m, err := w.outputMapping(part)
		if err != nil {
			return err
		}
		repartitionByMapping(w.resultSubpartition, m.m, per, gateState(per, sel), used)
	}
	w.out.DroppedChannelHandles += unused(used)
	return nil
}

// rescalingDescriptor models TaskStateAssignment.createRescalingDescriptor for new subtask i
// of the vertex's input (isInput) or output operator; nil is NO_RESCALE.
func (w *vertexWork) rescalingDescriptor(i int, isInput bool) (*InflightDataRescalingDescriptor, error) {
	j := w.job
	n := len(j.produced[w.idx])
	own := w.outMappings
	if isInput {
		n = len(w.v.Inputs)
		own = w.inMappings
	}
	rescaled := make([]*subtasksRescaleMapping, n)
	allNil := true
	for k := range n {
		m, err := w.connectedMapping(isInput, k, false)
		if err != nil {
			return nil, err
		}
		rescaled[k] = m
		allNil = allNil && m == nil
	}
	if len(own) == 0 && allNil {
		return nil, nil
	}
	gates := make([]GateOrPartitionRescalingDescriptor, n)
	identity := true
	for k := range n {
		if j.rules.perGate && ((isInput && !w.hasInFlightDataForInputGate(k)) || (!isInput && !w.hasInFlightDataForResultPartition(k))) {
			gates[k] = noStateDescriptor(j.rules)
			continue
		}
		rm := rescaled[k]
		if rm == nil {
			var err error
			if rm, err = w.connectedMapping(isInput, k, true); err != nil {
				return nil, err
			}
		}
		var sm subtasksRescaleMapping
		var err error
		if isInput {
			sm, err = w.inputMapping(k)
		} else {
			sm, err = w.outputMapping(k)
		}
		if err != nil {
			return nil, err
		}
		old := sm.m.MappedIndexes(i)
		d := GateOrPartitionRescalingDescriptor{OldSubtaskIndexes: old, RescaledChannelsMappings: rm.m, MappingType: RescalingMapping}
		if (sm.m.IsIdentity() && rm.m.IsIdentity()) || len(old) == 0 {
			d.MappingType = IdentityMapping
		}
		if sm.ambiguous {
			d.AmbiguousSubtaskIndexes = sm.m.AmbiguousTargets()
		}
		gates[k] = d
		identity = identity && d.IsIdentity()
	}
	if identity {
		return nil, nil
	}
	return &InflightDataRescalingDescriptor{GatesOrPartitions: gates}, nil
}

// noStateDescriptor models InflightDataGateOrPartitionRescalingDescriptor.NO_STATE with
// SYMMETRIC_IDENTITY mappings (FLINK-38483).
func noStateDescriptor(channelRules) GateOrPartitionRescalingDescriptor {
	return GateOrPartitionRescalingDescriptor{RescaledChannelsMappings: SymmetricIdentityRescaleMappings, MappingType: IdentityMapping, NoState: true}
}

// validateEdges rejects edges Flink's job graph could not have: an upstream outside the job or
// the vertex itself, or partitions of one vertex not numbered 0..n−1 once each. It returns the
// consumers of every vertex's result partitions.
func validateEdges(vs []JobVertex) ([][]edgeEnd, error) {
	produced := make([][]edgeEnd, len(vs))
	seen := make([]map[int]bool, len(vs))
	for d := range vs {
		for g, e := range vs[d].Inputs {
			if e.Upstream < 0 || e.Upstream >= len(vs) || e.Upstream == d {
				return nil, fmt.Errorf("%w: vertex %q, input gate %d: upstream vertex %d is not another vertex of the job", ErrInvalidRestoreInput, vs[d].Name, g, e.Upstream)
			}
			if (e.UpstreamMapper != 0 && !e.UpstreamMapper.valid()) || (e.DownstreamMapper != 0 && !e.DownstreamMapper.valid()) {
				return nil, fmt.Errorf("%w: vertex %q, input gate %d: %w", ErrInvalidRestoreInput, vs[d].Name, g, ErrUnknownSubtaskStateMapper)
			}
			if seen[e.Upstream] == nil {
				seen[e.Upstream] = map[int]bool{}
			}
			if e.Partition < 0 || seen[e.Upstream][e.Partition] {
				return nil, fmt.Errorf("%w: vertex %q, input gate %d: result partition %d of vertex %q is negative or consumed twice",
					ErrInvalidRestoreInput, vs[d].Name, g, e.Partition, vs[e.Upstream].Name)
			}
			seen[e.Upstream][e.Partition] = true
		}
	}
	for u := range vs {
		produced[u] = make([]edgeEnd, len(seen[u]))
	}
	for d := range vs {
		for g, e := range vs[d].Inputs {
			if e.Partition >= len(produced[e.Upstream]) {
				return nil, fmt.Errorf("%w: the result partitions of vertex %q are not numbered 0..%d", ErrInvalidRestoreInput, vs[e.Upstream].Name, len(produced[e.Upstream])-1)
			}
			produced[e.Upstream][e.Partition] = edgeEnd{vertex: d, gate: g}
		}
	}
	return produced, nil
}
