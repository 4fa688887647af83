package mutant

// The catalogue, in its fixed order (the rows of the kill matrix). Adding a mutant is one line
// here and an `if mutant.On(mutant.Name)` hook at the place of the bug, in package model or one
// of its subpackages; TestCatalogueMatchesHooks checks that every entry has a hook.
var (
	RangeFloor                   = add("range-floor", "ComputeKeyGroupRangeForOperatorIndex: the textbook floor formula [⌊i·M/p⌋, ⌊(i+1)·M/p⌋−1] instead of Flink's ceiling")
	KeyGroupPlainHash            = add("keygroup-plain-hash", "ComputeKeyGroupForKeyHash: |hashCode| mod M without murmur")
	SplitInsertionOrder          = add("split-insertion-order", "RepartitionOperatorState: SPLIT_DISTRIBUTE names in insertion order instead of java.util.HashMap order")
	UnionAsSplit                 = add("union-as-split", "RepartitionOperatorState: UNION state split round-robin like list state")
	BroadcastSubtaskZero         = add("broadcast-subtask-zero", "RepartitionOperatorState: BROADCAST state given to new subtask 0 only")
	RoundRobinDropRemainder      = add("roundrobin-drop-remainder", "RepartitionOperatorState: the remainder T mod P_new of SPLIT_DISTRIBUTE partitions dropped")
	MaxParChangeAccepted         = add("maxpar-change-accepted", "LoadAndValidateCheckpoint: a changed configured max parallelism accepted")
	AllowNonRestoredIgnored      = add("allow-non-restored-ignored", "LoadAndValidateCheckpoint: unmatched state silently dropped without allowNonRestoredState")
	RegistryDiscardFirstRelease  = add("registry-discard-first-release", "shared-state registries: a shared file discarded on its first release (1.18: when its creating checkpoint is subsumed; 1.10.1: on the first unregistration)")
	CounterNotReset              = add("counter-not-reset", "Coordinator.RestoreSavepoint: the checkpoint ID counter not reset to the restored ID + 1")
	RangeEndExclusive            = add("range-end-exclusive", "KeyGroupRange.Contains: the end key group treated as exclusive")
	LocalStalePreferred          = add("local-stale-preferred", "PrioritizeTaskRestore: a local copy of another checkpoint preferred over the assigned state")
	UIDIgnored                   = add("uid-ignored", "AssignStates: the operator's user-defined ID (setUidHash) ignored when matching state")
	BlockingAsPipelined          = add("blocking-as-pipelined", "NewFailoverTopology: BLOCKING partitions joined into pipelined regions, so a failure behind one restarts the producer's region too")
	StatelessVertexRepartitioned = add("stateless-vertex-repartitioned", "AssignStates (1.18): a vertex whose matched operator states have no subtask entries (stateless) repartitioned, so its max-parallelism preconditions apply")
	PlanBytesToStreamEnd         = add("plan-bytes-to-stream-end", "savepoint.PlanRestore: a key group's or operator-state entry's bytes run to the end of the handle's stream, not to the next larger offset")
	PlanRefusalEndsPlan          = add("plan-refusal-ends-plan", "savepoint.PlanRestore: the first refusal is charged to every operator not yet judged, so no operator after it is planned")
	JavaStringHashCodePoints     = add("java-string-hash-code-points", "JavaStringHash: String.hashCode over Unicode code points instead of UTF-16 code units, so a character outside the BMP counts once, not as its surrogate pair")
)
