package sim

import (
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/autoscaler"
)

// KeyType is the type of the job's keys: a Java type (a DataStream job's key), or KeyRow.
type KeyType uint8

const (
	// KeyInt keys are java.lang.Integer.
	KeyInt KeyType = iota + 1
	// KeyLong keys are java.lang.Long.
	KeyLong
	// KeyString keys are java.lang.String.
	KeyString
	// KeyRow keys are a SQL job's: a BinaryRowData of SQLKeyType (a GROUP BY user_id, region),
	// displayed as the JSON array of its fields (model/sqlkey's form).
	KeyRow
)

var keyTypeNames = map[KeyType]string{KeyInt: "int", KeyLong: "long", KeyString: "string", KeyRow: "row"}

// KeyValues is how key indexes map to key values (see keyOf).
type KeyValues uint8

const (
	// PlainKeys are the simulator's first key values: ints k·7919 − 5000, longs with the high
	// word set, "user-k" strings (every seventh Cyrillic with an emoji), rows [k, "user-k"]
	// (a NULL user id every eleventh key).
	PlainKeys KeyValues = iota
	// ExtremeKeys start with the edge values of the type (MinInt32, MaxInt32, MinInt64, MaxInt64,
	// 0, −1; for strings the empty string, surrogate pairs, U+FFFF, U+10FFFF, "Aa"/"BB", whose
	// String.hashCode collide) and continue with values spread over the whole type: negative and
	// positive ints and longs, strings of several scripts with supplementary characters (UTF-16
	// surrogate pairs count as two code units in String.hashCode); rows start with NULLs, the
	// edge longs and strings of 7 and 8 UTF-8 bytes (the slot's inline limit), then spread
	// longs (a NULL one time in five) with the later strings.
	ExtremeKeys
	// MinHashKeys are the plain keys but for key index 0, the key of the type whose murmur hash
	// is Integer.MIN_VALUE before the sign rule (rarekeys.go; rendered "min-hash").
	MinHashKeys
)

func (k KeyType) String() string { return keyTypeNames[k] }

// KeyDist is the distribution keys are drawn from.
type KeyDist uint8

const (
	// Uniform draws keys uniformly from NumKeys.
	Uniform KeyDist = iota + 1
	// Zipf draws keys with a Zipf(1.2) skew.
	Zipf
	// HotKey sends half the records to one key.
	HotKey
	// Sequential walks the key space in order.
	Sequential
)

var keyDistNames = map[KeyDist]string{Uniform: "uniform", Zipf: "zipf", HotKey: "hot", Sequential: "sequential"}

func (d KeyDist) String() string { return keyDistNames[d] }

// Job is the simulated Flink job: a source vertex reading splits, keyed by the record key into a
// keyed vertex. The keyed vertex's chain is [sink, keyed] (Flink lists chains tail-first; the
// keyed operator is the chain head and owns the keyed state).
type Job struct {
	KeyType KeyType
	KeyDist KeyDist
	NumKeys int
	// KeyValues picks the key values (rendered as a fourth part of keys=, "extreme" or
	// "min-hash").
	KeyValues KeyValues
	// Splits is the number of source splits (Kafka partitions); their read offsets are the
	// source's operator state.
	Splits int
	// UnionOffsets keeps the source offsets in UNION list state (the legacy Kafka consumer) instead
	// of SPLIT_DISTRIBUTE list state (the Source API's readers).
	UnionOffsets bool
	// StateNames spreads the source's offsets over that many named list states (split s in state
	// s mod StateNames, see sourceStateOf): states of even index have the offsets mode, those of
	// odd index the other one, so three or more give several SPLIT_DISTRIBUTE and UNION names in
	// one operator, whose order (Java HashMap order, SPEC §E.4) drives the round robin. 0 or 1:
	// one state ("splits" or "offsets").
	StateNames int
	// Sparse: the operators register their states lazily, so a subtask that has nothing to store
	// (a source subtask without splits of a state, a keyed subtask that saw no key) writes no
	// handle for it, and a subtask whose operators all have nothing acknowledges the checkpoint
	// without state: its operators' snapshots then have no entry for it (Flink's PendingCheckpoint
	// records no subtask state for a task that acknowledged none).
	Sparse bool
	// Unaligned takes the job's checkpoints unaligned (execution.checkpointing.unaligned): a process
	// step leaves records in flight on the keyBy edge from the source to the keyed vertex, the
	// barrier overtakes them, and a checkpoint writes them as the keyed subtasks' input-channel
	// state (see inflight.go). Savepoints stay aligned. Flink 1.10.1 has no unaligned checkpoints:
	// there the option takes aligned ones.
	Unaligned bool
	// KeyGroupProbe, when positive, is a parallelism above 21,845 (whose default max parallelism
	// is the 32,768 bound) at which the world checks the model's key-group arithmetic against the
	// oracle's at every fresh start without running that many subtasks: the default max
	// parallelism, and the key-group ranges and owners of a few subtasks (probe.go).
	KeyGroupProbe int
	// Broadcast adds a BROADCAST map state ("rules") to the keyed operator.
	Broadcast bool
	// RawKeyed adds raw keyed state (per-key counts, like timers) to the keyed operator.
	RawKeyed bool
	// Incremental snapshots keyed state RocksDB-style (shared files reused across checkpoints);
	// otherwise every checkpoint writes full key-groups snapshots (heap backend).
	Incremental bool
	// Sink adds a stateless operator chained after the keyed operator.
	Sink bool
	// TaskManagers is the number of TaskManagers the subtasks' slots are spread over.
	TaskManagers int
	// LocalRecovery keeps a local copy of every subtask's checkpointed state on its TaskManager.
	LocalRecovery bool

	Source VertexConfig
	// Keyed is the keyed vertex; its zero value (parallelism 0) means the job has none.
	Keyed VertexConfig
	// Stages are further job vertices downstream of the source, the keyed vertex or an earlier
	// stage (vertex indexes 2, 3, …): a DAG of up to six vertices in all.
	Stages []Stage
}

// EdgeKind is the partitioner of the edge into a stage (Flink's StreamPartitioner).
type EdgeKind uint8

const (
	// EdgeForward is ForwardPartitioner: subtask i sends to subtask i (POINTWISE); Flink requires
	// equal parallelism on both ends, so a forward stage always runs at its input's parallelism.
	// The stage is not chained to its input (disableChaining), so it is a vertex of its own.
	EdgeForward EdgeKind = iota + 1
	// EdgeRebalance is RebalancePartitioner: round robin to every subtask (ALL_TO_ALL).
	EdgeRebalance
	// EdgeHash is KeyGroupStreamPartitioner (keyBy): by key group (ALL_TO_ALL).
	EdgeHash
	// EdgeBroadcast is BroadcastPartitioner: every record to every subtask (ALL_TO_ALL).
	EdgeBroadcast
)

var edgeNames = map[EdgeKind]string{EdgeForward: "forward", EdgeRebalance: "rebalance", EdgeHash: "hash", EdgeBroadcast: "broadcast"}

func (e EdgeKind) String() string { return edgeNames[e] }

// Pattern is the edge's distribution pattern in the job graph.
func (e EdgeKind) Pattern() model.DistributionPattern {
	if e == EdgeForward {
		return model.Pointwise
	}
	return model.AllToAll
}

// MaxStages bounds Job.Stages: with the source and the keyed vertex, six vertices.
const MaxStages = 4

// MaxStateNames bounds Job.StateNames.
const MaxStateNames = 6

// MaxChain bounds a stage's chain length.
const MaxChain = 3

// Stage is a job vertex after the source and the keyed vertex: a chain of Chain operators
// (1..MaxChain) reading the output of vertex Input (0 source, 1 keyed, 2+k stage k, always an
// earlier one) over an edge of kind Edge, through a PIPELINED_BOUNDED result partition (Flink's
// streaming default) or, with Blocking, a BLOCKING one. Blocking partitions separate pipelined
// regions, so a failure behind one restarts only its region (SPEC §J.1). The chain head's uid is
// Config.UID, the k-th chained operator's Config.UID + "-k" (k ≥ 2).
//
// A stateless stage's snapshot is an operator state per operator with no subtask entries, at the
// vertex's parallelism and max parallelism. A Keyed stage is keyed by a derived key (the record's
// key index modulo DerivedKeys, a java.lang.Integer) and its head keeps a managed keyed value
// state per derived key, the sum of the values (snapshotted like the keyed vertex's, full or
// incremental); its chained operators are stateless. A keyed stage reads a vertex of the stateful
// region (the source, the keyed vertex or another keyed stage) over a pipelined hash edge, so it
// always restarts with that region: a keyed stage behind a blocking edge would restore its state
// while its upstream kept running.
type Stage struct {
	Input    int
	Edge     EdgeKind
	Blocking bool
	Chain    int
	Keyed    bool
	Config   VertexConfig
}

// DerivedKeys is the number of derived keys keyed stages are keyed by.
const DerivedKeys = 61

// PartitionType is the stage's input result partition type.
func (s Stage) PartitionType() model.ResultPartitionType {
	if s.Blocking {
		return model.Blocking
	}
	return model.PipelinedBounded
}

// StageUIDs lists stage k's operator uids, chain head first: Config.UID, then Config.UID + "-2",
// "-3". A stage without a uid (Config.UID "", rendered "auto") gets generated operator IDs, as
// Flink gives operators without uid(...); the simulator derives them (as "~auto:…" pseudo-uids)
// from what Flink's StreamGraphHasherV2 hashes — the operator's position in the graph, whether
// it has a chained successor, and the ID of its input — but not with Flink's bytes: like
// Flink's, they stay the same while that part of the graph does, and change when it changes
// (another stage inserted before, a new input, an operator chained after one that had none), so
// a keyed stage's state then no longer finds its operator.
func (j Job) StageUIDs(k int) []string {
	st := j.Stages[k]
	if st.Config.UID != "" {
		out := []string{st.Config.UID}
		for c := 2; c <= st.Chain; c++ {
			out = append(out, fmt.Sprintf("%s-%d", st.Config.UID, c))
		}
		return out
	}
	sig := j.signature(2 + k)
	out := make([]string, st.Chain)
	for c := range out {
		// The c-th operator of the chain: its predecessor in the chain is its input, and whether
		// it has a chained successor counts (Flink hashes the number of chainable outputs).
		h := fnv.New64a()
		fmt.Fprintf(h, "%s#%d/%t", sig, c, c < st.Chain-1)
		out[c] = fmt.Sprintf("~auto:%016x", h.Sum64())
	}
	return out
}

// signature is what a generated operator ID of vertex v depends on: its position in the graph
// and its input's ID, recursively up to an operator with a uid (whose generated ID comes from
// the uid alone; setUidHash does not enter Flink's generated hashes).
func (j Job) signature(v int) string {
	switch v {
	case 0:
		return "source:" + j.Source.UID
	case 1:
		return "keyed:" + j.Keyed.UID
	}
	st := j.Stages[v-2]
	if st.Config.UID != "" {
		return "uid:" + st.Config.UID
	}
	return fmt.Sprintf("%s>@%d", j.signature(st.Input), v)
}

// VertexName names vertex v of a job: source, keyed, v2, v3, ….
func VertexName(v int) string {
	switch v {
	case 0:
		return "source"
	case 1:
		return "keyed"
	}
	return fmt.Sprintf("v%d", v)
}

// NumVertices is the number of vertex indexes: the source, the keyed vertex (present or not) and
// the stages. A job without a keyed vertex (HasKeyed false) leaves index 1 empty.
func (j Job) NumVertices() int { return 2 + len(j.Stages) }

// HasKeyed reports whether the job has its keyed vertex (rendered keyed=none when not: a job of
// the source alone, or of the source and stages reading it).
func (j Job) HasKeyed() bool { return j.Keyed.Parallelism > 0 }

// present lists the indexes of the job's vertices in job-graph order (index 1 only with the keyed
// vertex); the model's assignment lists vertices in this order.
func (j Job) present() []int {
	out := make([]int, 0, j.NumVertices())
	for v := range j.NumVertices() {
		if v != 1 || j.HasKeyed() {
			out = append(out, v)
		}
	}
	return out
}

// graphIndex is vertex v's position in the job graph (see present).
func (j Job) graphIndex(v int) int {
	if v >= 2 && !j.HasKeyed() {
		return v - 1
	}
	return v
}

// vertexConfig gives vertex v's configuration.
func (j Job) vertexConfig(v int) VertexConfig {
	switch v {
	case 0:
		return j.Source
	case 1:
		return j.Keyed
	}
	return j.Stages[v-2].Config
}

// Parallelism gives vertex v's parallelism.
func (j Job) Parallelism(v int) int {
	switch v {
	case 0:
		return j.Source.Parallelism
	case 1:
		return j.Keyed.Parallelism
	}
	return j.Stages[v-2].Config.Parallelism
}

// String renders a stage as its job-line value: INPUT/EDGE/PARTITION/cCHAIN[/keyed]/VERTEX.
func (s Stage) String() string {
	part := "pipelined"
	if s.Blocking {
		part = "blocking"
	}
	state := ""
	if s.Keyed {
		state = "/keyed"
	}
	return fmt.Sprintf("%s/%s/%s/c%d%s/%s", VertexName(s.Input), s.Edge, part, s.Chain, state, s.Config)
}

// stagesString renders stages as " v2=… v3=…" (empty without stages).
func stagesString(stages []Stage) string {
	var b strings.Builder
	for k, s := range stages {
		fmt.Fprintf(&b, " %s=%s", VertexName(2+k), s)
	}
	return b.String()
}

// VertexConfig is what a restart may change about a vertex.
type VertexConfig struct {
	Parallelism int
	// MaxParallelism 0 means Flink's default for the parallelism (not configured).
	MaxParallelism int
	// UID of the stateful operator: its generated operator ID is derived from it.
	UID string
	// UIDHash, when set, is the operator's user-defined ID (setUidHash), as 32 hex digits.
	UIDHash string
}

// StepKind is what a schedule step does.
type StepKind uint8

const (
	// Process reads N records per source subtask and routes them.
	Process StepKind = iota + 1
	// BroadcastUpdate applies N rule updates to every keyed subtask.
	BroadcastUpdate
	// Checkpoint triggers a checkpoint; Abort makes it fail (declined) instead of completing.
	Checkpoint
	// Savepoint takes a (canonical) savepoint while the job runs.
	Savepoint
	// Fail fails one subtask; the job restores from the latest checkpoint (region or global).
	Fail
	// Restart stops the job with a savepoint and restores it with the changes in Restart.
	Restart
	// Retain changes state.checkpoints.num-retained.
	Retain
	// TMRestart restarts TaskManager TM's process: its tasks fail, its local copies survive.
	TMRestart
	// TMLoss loses TaskManager TM: its tasks fail and its local copies are gone.
	TMLoss
	// JMFailover fails the JobManager over: a new one recovers the retained checkpoints from
	// storage and restores the job from the latest.
	JMFailover
	// Fault damages the storage of the latest retained checkpoint (FaultKind).
	Fault
	// Resume cancels the job and submits it again from the latest retained checkpoint's
	// directory (like `flink run -s …/chk-N`), as NO_CLAIM (or CLAIM with Claim).
	Resume
	// Rollback cancels the job and submits it again from an older savepoint (the N-th oldest not
	// handed over in CLAIM mode, counting modulo their number): canonical savepoints are
	// self-contained, so it must be restorable after every checkpoint around it was discarded.
	Rollback
	// Rescale is the adaptive scheduler's (and reactive mode's) in-place rescale
	// (SPEC-VERSIONS.md §8.1): the same job, on the same JobManager, restores its latest completed
	// checkpoint at new parallelisms (Step.Parallelism), without a savepoint; the store, the
	// shared-state registry and the checkpoint ID counter carry on, so incremental shared files are
	// shared across the rescale.
	Rescale
	// Autoscale is the Kubernetes operator autoscaler scaling one vertex (Step.Vertex): the
	// autoscaler of an operator release (Step.Autoscaler) aligns a computed target, and the job
	// is rescaled in place to the parallelism it picks, as Rescale does (SPEC-VERSIONS.md §8.2).
	Autoscale
)

// FaultKind is what a Fault step damages.
type FaultKind uint8

const (
	// DeleteStateFile deletes one state file (a shared file when there is one) the checkpoint uses.
	DeleteStateFile FaultKind = iota + 1
	// TruncateMetadata cuts the checkpoint's _metadata file short (a torn write).
	TruncateMetadata
	// DeleteMetadata deletes the checkpoint's _metadata file.
	DeleteMetadata
)

var faultNames = map[FaultKind]string{DeleteStateFile: "delete-file", TruncateMetadata: "truncate-metadata", DeleteMetadata: "delete-metadata"}

func (f FaultKind) String() string { return faultNames[f] }

var stepNames = map[StepKind]string{Process: "process", BroadcastUpdate: "broadcast", Checkpoint: "checkpoint",
	Savepoint: "savepoint", Fail: "fail", Restart: "restart", Retain: "retain", TMRestart: "tm-restart",
	TMLoss: "tm-loss", JMFailover: "jm-failover", Fault: "fault", Resume: "resume", Rollback: "rollback", Rescale: "rescale",
	Autoscale: "autoscale"}

func (k StepKind) String() string { return stepNames[k] }

// Step is one schedule step, plain data.
type Step struct {
	Kind StepKind
	// N is the record count (Process, BroadcastUpdate), num-retained (Retain) or which savepoint
	// (Rollback).
	N int
	// Abort: the checkpoint is declined.
	Abort bool
	// Vertex and Subtask name the failing subtask (Fail): 0 source, 1 keyed, 2+k stage k.
	// Vertex also names the vertex an Autoscale step scales.
	Vertex, Subtask int
	// TM names the TaskManager (TMRestart, TMLoss).
	TM int
	// Fault is what a Fault step damages.
	Fault FaultKind
	// Mode is a Resume's restore mode (NO_CLAIM, CLAIM or LEGACY).
	Mode model.RestoreMode
	// Restart changes (Restart only).
	Change Change
	// Parallelism is a Rescale's new parallelism per vertex index (0 source, 1 keyed, 2+k stage
	// k); 0, or an index past the end, leaves a vertex's parallelism as it is.
	Parallelism []int
	// Autoscaler is an Autoscale step's autoscaler call.
	Autoscaler AutoscalerCall
}

// AutoscalerCall is what the operator autoscaler is given for one vertex, besides what the
// running job says (its max parallelism, its parallelism, its input kind): the operator
// release and its configured alignment mode, the computed target ceil(scaleFactor × current),
// the limits job.autoscaler.vertex.min-parallelism and …max-parallelism, and for the source
// the partitions it reads, as the autoscaler knows them (0: unknown).
type AutoscalerCall struct {
	Release      autoscaler.Release
	Mode         autoscaler.Mode // autoscaler.ModeUnset: the release's default
	Target       int
	Lower, Upper int
	Partitions   int
}

// Change is what a stop-with-savepoint-and-restart changes.
type Change struct {
	Source, Keyed VertexConfig
	// Stages are the new job's stages (all of them: a stage not listed is removed).
	Stages []Stage
	// DropSink removes the stateless sink operator; AddSink adds one.
	DropSink, AddSink bool
	// AllowNonRestoredState is the restore flag.
	AllowNonRestoredState bool
	// Mode is the restore mode (default NO_CLAIM).
	Mode model.RestoreMode
}

// Plan is a whole simulation: the job and its schedule. It is plain data: it can be rendered as
// scenario text and parsed back.
type Plan struct {
	Seed    uint64
	Version model.FlinkVersion
	Job     Job
	Steps   []Step
	// SUT is the system under test every restore's assignment comes from; nil is the model.
	// It is no part of the scenario text: a replay names it again.
	SUT Assigner
}

// String renders the job in scenario syntax.
func (j Job) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "job keys=%s/%s/%d", j.KeyType, j.KeyDist, j.NumKeys)
	switch j.KeyValues {
	case ExtremeKeys:
		b.WriteString("/extreme")
	case MinHashKeys:
		b.WriteString("/min-hash")
	}
	fmt.Fprintf(&b, " splits=%d offsets=%s", j.Splits, map[bool]string{false: "split", true: "union"}[j.UnionOffsets])
	if j.StateNames > 1 {
		fmt.Fprintf(&b, " names=%d", j.StateNames)
	}
	if j.Sparse {
		b.WriteString(" sparse=true")
	}
	if j.Unaligned {
		b.WriteString(" unaligned=true")
	}
	if j.KeyGroupProbe > 0 {
		fmt.Fprintf(&b, " key-group-probe=%d", j.KeyGroupProbe)
	}
	fmt.Fprintf(&b, " broadcast=%t raw-keyed=%t backend=%s sink=%t", j.Broadcast, j.RawKeyed, map[bool]string{false: "full", true: "incremental"}[j.Incremental], j.Sink)
	fmt.Fprintf(&b, " tms=%d local-recovery=%t", j.TaskManagers, j.LocalRecovery)
	fmt.Fprintf(&b, " source=%s keyed=%s", j.Source, keyedString(j.Keyed))
	b.WriteString(stagesString(j.Stages))
	return b.String()
}

// keyedString renders the keyed vertex's configuration, "none" for a job without one.
func keyedString(v VertexConfig) string {
	if v.Parallelism == 0 {
		return "none"
	}
	return v.String()
}

func (v VertexConfig) String() string {
	s := fmt.Sprintf("p%d", v.Parallelism)
	if v.MaxParallelism > 0 {
		s += fmt.Sprintf("/m%d", v.MaxParallelism)
	}
	if v.UID == "" {
		return s + "/auto" // (stages only: generated operator IDs)
	}
	s += "/uid:" + v.UID
	if v.UIDHash != "" {
		s += "/hash:" + v.UIDHash
	}
	return s
}

// String renders a step in scenario syntax.
func (s Step) String() string {
	switch s.Kind {
	case Process, BroadcastUpdate:
		return fmt.Sprintf("%s n=%d", s.Kind, s.N)
	case Retain:
		return fmt.Sprintf("retain n=%d", s.N)
	case Checkpoint:
		if s.Abort {
			return "checkpoint abort"
		}
		return "checkpoint"
	case Savepoint:
		return "savepoint"
	case Fail:
		return fmt.Sprintf("fail vertex=%d subtask=%d", s.Vertex, s.Subtask)
	case TMRestart, TMLoss:
		return fmt.Sprintf("%s tm=%d", s.Kind, s.TM)
	case JMFailover:
		return "jm-failover"
	case Fault:
		return "fault kind=" + s.Fault.String()
	case Rollback:
		return fmt.Sprintf("rollback n=%d", s.N)
	case Resume:
		return "resume" + modeString(s.Mode)
	case Rescale:
		out := "rescale"
		for v, p := range s.Parallelism {
			if p > 0 {
				out += fmt.Sprintf(" %s=%d", VertexName(v), p)
			}
		}
		return out
	case Autoscale:
		a := s.Autoscaler
		out := fmt.Sprintf("autoscale vertex=%s operator=%s target=%d", VertexName(s.Vertex), a.Release, a.Target)
		if a.Mode != autoscaler.ModeUnset {
			out += " mode=" + a.Mode.String()
		}
		if a.Lower != autoscaler.DefaultLower {
			out += fmt.Sprintf(" min=%d", a.Lower)
		}
		if a.Upper != autoscaler.DefaultUpper {
			out += fmt.Sprintf(" max=%d", a.Upper)
		}
		if a.Partitions > 0 {
			out += fmt.Sprintf(" partitions=%d", a.Partitions)
		}
		return out
	case Restart:
		c := s.Change
		out := fmt.Sprintf("restart source=%s keyed=%s", c.Source, keyedString(c.Keyed)) + stagesString(c.Stages)
		if c.DropSink {
			out += " drop-sink"
		}
		if c.AddSink {
			out += " add-sink"
		}
		if c.AllowNonRestoredState {
			out += " allow-non-restored"
		}
		return out + modeString(c.Mode)
	}
	return fmt.Sprintf("step(%d)", s.Kind)
}

// modeString renders a restore mode as a step's flag: "" for NO_CLAIM, " claim", " legacy".
func modeString(m model.RestoreMode) string {
	switch m {
	case model.Claim:
		return " claim"
	case model.Legacy:
		return " legacy"
	}
	return ""
}
