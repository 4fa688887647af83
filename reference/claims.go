package reference

import (
	"fmt"
	"strings"
)

// ClaimKind is the kind of a claim the project makes about Flink.
type ClaimKind string

// The kinds of claims, in the order of the table.
const (
	// ClaimKnownIssue: a known-issue label the simulator reports as a finding (sim.Known*).
	ClaimKnownIssue ClaimKind = "known issue"
	// ClaimVersionRow: a row of docs/versions.md (keyed "§<section> <JIRA>").
	ClaimVersionRow ClaimKind = "versions.md row"
	// ClaimCheck: a refusal check name of model.Checks.
	ClaimCheck ClaimKind = "refusal check"
	// ClaimSpecRule: a section of SPEC.md the model implements.
	ClaimSpecRule ClaimKind = "SPEC rule"
)

// Claim is one thing the project says about Flink, labelled verified by running Flink's code
// (Runs say how, each one checked by TestClaims) or read from the source only (Why says why it
// cannot run).
type Claim struct {
	Kind ClaimKind
	Name string
	// Verified is true when at least one Run shows the claim with Flink's own classes.
	Verified bool
	Runs     []Run
	// Why, for a claim read from the source only, says why it cannot run; for a verified claim,
	// optionally what remains unrun.
	Why string
}

// Run is one way a claim is shown with Flink's own classes.
type Run struct {
	// Case is an assignment case (ASSIGN-CASE.md) in reference/testdata/claims, named without
	// ".case.json". TestClaims runs it through the model and through Flink's assignStates on
	// each of Versions (all with sources when empty): the answers must agree after the
	// conventions of assigncase.Compare, the model's outcome must be Outcome ("assigned" or a
	// check name; "input" for a case Flink's classes refuse to build), Flink's refusal message
	// must contain FlinkSays, and, when MaxParallelism is set, the first vertex's max
	// parallelism in Flink's answer must be it.
	Case           string
	Versions       []string
	Outcome        string
	FlinkSays      string
	MaxParallelism int
	// Test names a test of this module that runs Flink's classes for the claim
	// ("package.TestName" or "package.TestName/case"); TestClaims checks that it exists.
	Test string
	// Shows says what the run shows.
	Shows string
}

// versions lists version names for a Run.
func versions(vs ...string) []string { return vs }

var (
	releasesTo23     = versions("1.18", "1.19", "1.20", "2.0", "2.1", "2.2", "2.3")
	withByDataSet    = versions("1.20", "2.2", "2.3", "master")
	withoutByDataSet = versions("1.18", "1.19", "2.0", "2.1")
)

const (
	noSources1101 = "Flink 1.10.1 only: release-1.10 is not in shared/flink-src (the mirror the archives come from has no such branch), so the rule is read from the 1.10.1 source (SPEC §E.5, §F.2)"
	notCompiled   = "the reference compiles assignStates, loadAndValidateCheckpoint, the metadata serializers, KeyGroupRangeAssignment, SubtaskStateMapper, StreamGraphHasherV2, SharedStateRegistryImpl, StandaloneCompletedCheckpointStore and PrioritizedOperatorSubtaskState only; this part of Flink (%s) is not compiled by it yet"
	notModelled   = "not modelled (docs/versions.md gives the reason), so there is nothing of the model to run against Flink"
)

// Claims lists every claim, in a fixed order: known issues, versions.md rows, refusal checks,
// SPEC rules.
func Claims() []Claim {
	return []Claim{
		// Known issues.
		{Kind: ClaimKnownIssue, Name: "FLINK-40113", Verified: true, Runs: []Run{
			{Case: "flink-40113", Versions: releasesTo23, Outcome: "assigned", MaxParallelism: 8,
				Shows: "a chain of a stateless operator and one whose keyed state recorded max parallelism 16, restored with the default max parallelism 8: Flink's assignStates adopts 8 and cuts the 16 key groups' state by an 8-key-group layout"},
			{Case: "flink-40113", Versions: versions("master"), Outcome: "max-parallelism-agreement",
				FlinkSays: "recorded different maximum parallelism in the checkpoint",
				Shows:     "master refuses the same restore (checkMaxParallelismAgreement)"},
		}},
		{Kind: ClaimKnownIssue, Name: "FLINK-16638", Why: noSources1101},
		{Kind: ClaimKnownIssue, Name: "FLINK-13973", Why: noSources1101},
		{Kind: ClaimKnownIssue, Name: "local-copy-after-rescale", Why: "a hazard this project found in Flink's source (1.18 and master), not a filed FLINK issue: " +
			fmt.Sprintf(notCompiled, "TaskStateManagerImpl.prioritizedOperatorState and TaskLocalStateStoreImpl across an in-place rescale; the approval itself, PrioritizedOperatorSubtaskState.Builder, is run by TestPriorityAgainstFlink")},

		// docs/versions.md rows.
		{Kind: ClaimVersionRow, Name: "§7 FLINK-36001", Verified: true, Runs: []Run{
			{Test: "reference.TestMetadataGenerated", Shows: "each version's Flink reads the files the project writes in its format (5 from 2.0 on) and writes them back byte for byte"},
			{Test: "reference.TestVersionGates", Shows: "1.18–1.20 refuse a format-5 file with \"Unrecognized checkpoint version number: 5\"; 2.0 and later read it"},
		}},
		{Kind: ClaimVersionRow, Name: "§7 FLINK-33734", Verified: true, Runs: []Run{
			{Test: "reference.TestVersionGates", Shows: "2.0 refuses a format-6 file; 2.1 and later read it"},
			{Test: "reference.TestMetadataRealFiles", Shows: "Flink's 2.1+ files with merged channel-state handles are read and re-encoded byte for byte"},
		}},
		{Kind: ClaimVersionRow, Name: "§2.1 FLINK-40113", Verified: true, Runs: []Run{
			{Case: "flink-40113", Versions: versions("master"), Outcome: "max-parallelism-agreement", FlinkSays: "recorded different maximum parallelism in the checkpoint",
				Shows: "master refuses a keyed chain whose states recorded different max parallelisms"},
			{Case: "flink-40113", Versions: releasesTo23, Outcome: "assigned", MaxParallelism: 8, Shows: "1.18–2.3 adopt the stateless operator's value (the known issue)"},
		}},
		{Kind: ClaimVersionRow, Name: "§2.2 FLINK-35351", Verified: true, Runs: []Run{
			{Case: "flink-35351", Outcome: "assigned", Shows: "a custom-partitioner (FULL) edge with input channel state at unchanged consumer parallelism: the input descriptors agree with Flink's on every version"},
		}},
		{Kind: ClaimVersionRow, Name: "§2.3 FLINK-39513", Why: fmt.Sprintf(notCompiled, "CheckpointCoordinator.restoreInitialCheckpointIfPresent")},
		{Kind: ClaimVersionRow, Name: "§2.4 FLINK-38267", Verified: true, Runs: []Run{
			{Case: "flink-38267", Outcome: "assigned", Shows: "an exchange without in-flight data gets NO_STATE descriptors from 1.20 on, rescaling descriptors before; the answers agree with Flink's on every version"},
			{Case: "channel-state-unsupported-rescale", Versions: versions("1.18", "1.19"), Outcome: "channel-state-unsupported-rescale", FlinkSays: "Cannot rescale the given pointwise partitioner",
				Shows: "1.18 and 1.19 refuse an empty pointwise exchange of a rescaled vertex"},
		}},
		{Kind: ClaimVersionRow, Name: "§2.5 FLINK-38483", Verified: true, Runs: []Run{
			{Case: "channel-state-no-state-descriptor", Outcome: "assigned", Shows: "a subtask whose input descriptor holds a NO_STATE gate beside a rescaled one is assigned as Flink assigns it, on every version"},
		}, Why: "that the task then restores (no UnsupportedOperationException in getOldSubtaskIndexes) happens on the TaskManager, which the reference does not run; 1.20.3's failure there is not modelled"},
		{Kind: ClaimVersionRow, Name: "§2.6 FLINK-40269", Verified: true, Runs: []Run{
			{Case: "flink-40269", Versions: withByDataSet, Outcome: "assigned", Shows: "two edges between one pair of vertices: the output descriptor follows the edge's data set"},
			{Case: "flink-40269", Versions: withoutByDataSet, Outcome: "assigned", Shows: "1.18, 1.19, 2.0 and 2.1 take the first edge's mapping"},
		}},
		{Kind: ClaimVersionRow, Name: "§2.7 FLINK-38542", Why: notModelled + "; Flink's code runs it (ASSIGN-CASE.md's ex5 with recover_output_on_downstream_task), the model refuses such a case as not modelled"},
		{Kind: ClaimVersionRow, Name: "§2.8 FLINK-33734", Why: notModelled},
		{Kind: ClaimVersionRow, Name: "§2.9 FLINK-36001", Why: notModelled},
		{Kind: ClaimVersionRow, Name: "§3 FLINK-38131", Verified: true, Runs: []Run{
			{Test: "differential.TestAssignAgainstFlink", Shows: "generated cases with BROADCAST state at unchanged and changed parallelism agree with Flink's on every version (the shortcut changes the path, not the assignment)"},
		}},
		{Kind: ClaimVersionRow, Name: "§5.2 FLINK-33341", Verified: true, Runs: []Run{
			{Test: "differential.TestPriorityAgainstFlink", Shows: "from 1.19 on Flink's PrioritizedOperatorSubtaskState.Builder gives keyed state the mixed local/remote alternative (local handles by priority, then the JobManager's left over in HashMap<KeyGroupRange> order, the JobManager's collection as the fallback), 1.18 the single-handle rule: the model's PrioritizeOperatorSubtaskStateAlternatives agrees on every version"},
		}, Why: "the RocksDB rescaling restore that ranks local handles first (model.RocksDBRestore: which handle becomes the base DB) is not part of the reference; inputs on which 1.19+'s mixing throws (a null keyed handle, two JobManager handles of one range), which no assignment produces, are answered by the model with the JobManager's state alone (differential.TestPriorityFlinkThrows)"},
		{Kind: ClaimVersionRow, Name: "§5.3 FLINK-35581", Why: notModelled + "; the RocksDB restore is not part of the reference"},
		{Kind: ClaimVersionRow, Name: "§5.4 FLINK-39964", Why: notModelled},
		{Kind: ClaimVersionRow, Name: "§6 FLINK-34190", Why: "a naming of the configuration and CLI (RestoreMode.NamingIn); no code of the restore path behaves differently, so there is nothing to run"},
		{Kind: ClaimVersionRow, Name: "§6 FLINK-34455", Why: "a class moved to another package; nothing to run"},
		{Kind: ClaimVersionRow, Name: "§6 FLINK-34454", Why: "configuration keys and CLI options; the reference has no configuration layer"},
		{Kind: ClaimVersionRow, Name: "§6 FLINK-34510", Why: "a class renamed; nothing to run"},
		{Kind: ClaimVersionRow, Name: "§6 FLINK-36973", Why: notModelled},

		// Refusal checks.
		{Kind: ClaimCheck, Name: "metadata-version", Verified: true, Runs: []Run{
			{Test: "reference.TestVersionGates", Shows: "every version's Flink reads exactly the format versions the model's reader accepts and refuses the others with \"Unrecognized checkpoint version number\""},
		}},
		{Kind: ClaimCheck, Name: "no-operator-for-state", Verified: true, Runs: []Run{
			{Case: "no-operator-for-state", Outcome: "no-operator-for-state", FlinkSays: "There is no operator for the state", Shows: "assignStates' completeness check"},
			{Test: "reference.TestLoadAndValidate/unmatched with state", Shows: "loadAndValidateCheckpoint's"},
		}},
		{Kind: ClaimCheck, Name: "non-restored-state", Verified: true, Runs: []Run{
			{Test: "reference.TestLoadAndValidate/unmatched with state", Shows: "loadAndValidateCheckpoint refuses state no operator claims"},
		}},
		{Kind: ClaimCheck, Name: "max-parallelism-mismatch", Verified: true, Runs: []Run{
			{Test: "reference.TestLoadAndValidate/max parallelism mismatch", Shows: "loadAndValidateCheckpoint refuses a configured max parallelism other than the state's"},
		}},
		{Kind: ClaimCheck, Name: "max-parallelism-below-parallelism", Verified: true, Runs: []Run{
			{Case: "max-parallelism-below-parallelism", Outcome: "max-parallelism-below-parallelism", FlinkSays: "is lower than the configured parallelism", Shows: "assignStates refuses a parallelism above the restored max parallelism"},
		}},
		{Kind: ClaimCheck, Name: "max-parallelism-change", Verified: true, Runs: []Run{
			{Case: "max-parallelism-change", Outcome: "max-parallelism-change", FlinkSays: "changed. This is currently not supported", Shows: "assignStates refuses a changed configured max parallelism"},
		}},
		{Kind: ClaimCheck, Name: "max-parallelism-out-of-bounds", Verified: true, Runs: []Run{
			{Test: "reference.TestLoadAndValidate/max parallelism out of bounds", Shows: "a recorded max parallelism above 32,768"},
		}},
		{Kind: ClaimCheck, Name: "mixed-finished-operators", Verified: true, Runs: []Run{
			{Case: "mixed-finished-operators", Outcome: "mixed-finished-operators", FlinkSays: "could not have mixed finished and unfinished operators", Shows: "a chain of a fully finished and a running operator"},
			{Case: "fully-finished-with-subtask", Outcome: "input", FlinkSays: "Could not put state to a fully finished operator state", Shows: "a fully finished state cannot hold subtask entries"},
		}},
		{Kind: ClaimCheck, Name: "raw-keyed-without-managed", Verified: true, Runs: []Run{
			{Case: "raw-keyed-unreachable", Outcome: "assigned", Shows: "from 1.18 on an operator with raw keyed state only is restored (the check cannot fire: both keyed maps are filled together)"},
		}, Why: "the refusal itself is reachable only on 1.10.1 (StateAssignmentOperation.operatorSubtaskStateFrom), whose source is not in shared/flink-src"},
		{Kind: ClaimCheck, Name: "null-keyed-state-handles", Why: noSources1101 + "; the NullPointerException was fixed by FLINK-22966 before 1.18"},
		{Kind: ClaimCheck, Name: "channel-state-topology-change", Verified: true, Runs: []Run{
			{Case: "channel-state-topology-change", Outcome: "channel-state-topology-change", FlinkSays: "The following operators contain channel state", Shows: "input channel state of an operator that is no longer its chain's head"},
		}},
		{Kind: ClaimCheck, Name: "channel-state-unsupported-rescale", Verified: true, Runs: []Run{
			{Case: "channel-state-unsupported-rescale", Outcome: "channel-state-unsupported-rescale", FlinkSays: "Cannot rescale the given pointwise partitioner", Shows: "in-flight data of a pointwise edge that would have to be rescaled"},
		}},
		{Kind: ClaimCheck, Name: "max-parallelism-agreement", Verified: true, Runs: []Run{
			{Case: "flink-40113", Versions: versions("master"), Outcome: "max-parallelism-agreement", FlinkSays: "recorded different maximum parallelism in the checkpoint", Shows: "master's checkMaxParallelismAgreement"},
		}},
		{Kind: ClaimCheck, Name: "vertex-parallelism", Verified: true, Runs: []Run{
			{Case: "vertex-parallelism", Outcome: "vertex-parallelism", FlinkSays: "is higher than the max parallelism", Shows: "a new vertex whose parallelism is above its configured max parallelism cannot be built"},
		}},
		{Kind: ClaimCheck, Name: "restore", Why: "a catch-all for exceptions of the repartitioners on input Flink's loader does not build (e.g. an operator-state handle whose offsets do not fit its stream); no single rule of Flink's to run"},

		// SPEC rules.
		{Kind: ClaimSpecRule, Name: "§A murmurHash", Verified: true, Runs: []Run{{Test: "differential.TestKeyGroupsAgainstFlink", Shows: "key groups of random keys on every version"}}},
		{Kind: ClaimSpecRule, Name: "§B hashCode of key types", Verified: true, Runs: []Run{
			{Test: "differential.TestKeyGroupsAgainstFlink", Shows: "int, long, String (UTF-16), boolean and double keys"},
			{Test: "differential.TestSQLKeysAgainstFlink", Shows: "SQL keys (`model.SQLKeyRow`, `BinaryRowData.hashCode`) written by Flink's own `BinaryRowWriter` through `BinaryWriter.write`, NULLs as the planner's `binaryWriterWriteNull`: 7,280 keys a version (4,000 random of 1–6 fields over all 16 type roots, 1,280 edge keys, the 2,000 golden rows of `sql_key_groups.csv`), all agreeing byte for byte, in hashCode and key group on 1.18–2.3"},
		},
			Why: "SQL keys on master: its archive has no writer package (FLINK-39458 moved it to flink-table-type-utils; the four writer files at the archive's commit are identical to release-2.3's)"},
		{Kind: ClaimSpecRule, Name: "§C KeyGroupRangeAssignment", Verified: true, Runs: []Run{
			{Test: "differential.TestKeyGroupsAgainstFlink", Shows: "key group and operator index of a key"},
			{Test: "differential.TestRangesAgainstFlink", Shows: "the ranges of every subtask and the default max parallelism"},
		}},
		{Kind: ClaimSpecRule, Name: "§D keyed state handles and their cut", Verified: true, Runs: []Run{
			{Test: "reference.TestSharedCases", Shows: "ASSIGN-CASE.md's keyed examples (full and incremental handles)"},
			{Test: "differential.TestAssignAgainstFlink", Shows: "generated keyed state on every version"},
		}},
		{Kind: ClaimSpecRule, Name: "§E.1–E.4 operator state repartitioning", Verified: true, Runs: []Run{
			{Test: "differential.TestAssignAgainstFlink", Shows: "SPLIT_DISTRIBUTE, UNION and BROADCAST state, order of handles and names included"},
			{Test: "differential.TestMappersAgainstFlink", Shows: "every SubtaskStateMapper"},
		}},
		{Kind: ClaimSpecRule, Name: "§E.5 operator state in 1.10.1", Why: noSources1101},
		{Kind: ClaimSpecRule, Name: "§F.1 assignStates (1.18 on)", Verified: true, Runs: []Run{{Test: "differential.TestAssignAgainstFlink", Shows: "assignments and refusals of generated cases on every version"}}},
		{Kind: ClaimSpecRule, Name: "§F.2 assignStates in 1.10.1", Why: noSources1101},
		{Kind: ClaimSpecRule, Name: "§G loadAndValidateCheckpoint", Verified: true, Runs: []Run{{Test: "reference.TestLoadAndValidate", Shows: "kept states and refusals on every version"}}},
		{Kind: ClaimSpecRule, Name: "§H.1–H.2 restore in the CheckpointCoordinator", Why: fmt.Sprintf(notCompiled, "CheckpointCoordinator")},
		{Kind: ClaimSpecRule, Name: "§H.3 shared-state registry", Verified: true, Runs: []Run{
			{Test: "differential.TestRegistryAgainstFlink", Shows: "random scripts of registerReference (new, equal, unequal and same-path-other-size handles, placeholders, preventDiscardingCreatedCheckpoint), unregisterUnusedState and registerAllAfterRestored (CLAIM, NO_CLAIM, LEGACY; restored from a checkpoint, a native savepoint or unknown properties) on Flink's SharedStateRegistryImpl: the handles returned, refusals, files deleted and checkpoints in use agree with the model's SharedStateRegistry on every version"},
			{Test: "differential.TestStoreAgainstFlink", Shows: "the registrations a checkpoint makes through its handles (OperatorSubtaskState.registerSharedStates: the keyed handle's marker, then IncrementalRemoteKeyedStateHandle.registerSharedStates), by acknowledged, completed and aborted checkpoints and by restored snapshots, and the registry's deletions as the store drives them, agree with the model's RegisterAll on every version"},
		}, Why: "changelog handles' registrations are not scripted; the order of deletions within one call is not compared (Flink deletes on an executor, in HashMap order); 1.10.1's reference-counting registry has no sources"},
		{Kind: ClaimSpecRule, Name: "§H.4 completed-checkpoint store", Verified: true, Runs: []Run{
			{Test: "differential.TestStoreAgainstFlink", Shows: "random scripts on Flink's StandaloneCompletedCheckpointStore (with SharedStateRegistryImpl and CheckpointsCleaner): retention of 1–4 checkpoints, subsumption of checkpoints, savepoints and stop-with-savepoints (CheckpointSubsumeHelper), the restored snapshot's fate in CLAIM, NO_CLAIM and LEGACY, the cleaner's wait for checkpoints still in use, shutdown by every job status and retention policy, and the refusal of num-retained 0: the retained checkpoints, the latest, the subsumed one returned, the checkpoints discarded in order and the shared and private files deleted agree with the model's CompletedCheckpointStore on every version"},
		}, Why: "DefaultCompletedCheckpointStore's HA state-handle store (ZooKeeper, Kubernetes: addAndLock, releaseAndTryRemove, recovery through DefaultCompletedCheckpointStoreUtils) is not run; which snapshots enter the store and the properties a restored snapshot gets are CheckpointCoordinator's (not compiled: the driver copies restoreSavepoint's switch); 1.10.1's store has no sources"},
		{Kind: ClaimSpecRule, Name: "§I pointer resolution", Why: fmt.Sprintf(notCompiled, "AbstractFsCheckpointStorageAccess")},
		{Kind: ClaimSpecRule, Name: "§J.1 region failover", Why: fmt.Sprintf(notCompiled, "RestartPipelinedRegionFailoverStrategy") + "; its closure reaches the scheduler's topology, KvStateLocation and the REST layer (shaded Jackson, Netty's HTTP codec), which do not compile here without stubs"},
		{Kind: ClaimSpecRule, Name: "§J.2 local recovery", Verified: true, Runs: []Run{
			{Test: "differential.TestPriorityAgainstFlink", Shows: "Flink's PrioritizedOperatorSubtaskState.Builder over random JobManager states with zero to three local alternatives: for every kind of state (managed and raw keyed, managed and raw operator, input and output channel) the alternatives in priority order agree with the model's on every version (a local channel handle is approved by its channel, not its subtask index: the model was fixed)"},
			{Test: "differential.TestPriorityFlinkThrows", Shows: "where the model deliberately answers with the JobManager's state alone, 1.19+'s builder throws (a null keyed handle, two JobManager handles of one key-group range); 1.18 agrees with the model"},
		}, Why: "TaskStateManagerImpl.prioritizedOperatorState (a local copy counts only for the restored checkpoint) and TaskLocalStateStoreImpl are not run; 2.1+'s merged channel-state handles are not modelled, so not sent"},
		{Kind: ClaimSpecRule, Name: "uid hash (StreamGraphHasherV2)", Verified: true, Runs: []Run{
			{Test: "differential.TestUIDHashAgainstFlink", Shows: "Flink's StreamGraphHasherV2.traverseStreamGraphAndGenerateHashes over stream graphs of nodes with random uids (ASCII, BMP, surrogate pairs, unpaired surrogates, '?', U+FFFD, NUL) gives the model's OperatorIDFromUID for every node, and refuses exactly the graphs whose uids the model hashes alike (\"Hash collision on user-specified ID\"), on every version"},
		}, Why: "StreamGraph, StreamNode, StreamEdge and StreamingJobGraphGenerator are stubs (the real ones reach the whole DataStream API); the hash of a node without a uid (generateDeterministicHash, chaining) is not modelled and not run"},
		{Kind: ClaimSpecRule, Name: "_metadata format (flink-metadata/FORMAT.md)", Verified: true, Runs: []Run{
			{Test: "reference.TestMetadataRealFiles", Shows: "every real file Flink reads is re-encoded byte for byte"},
			{Test: "reference.TestMetadataGenerated", Shows: "Flink reads every file the project writes, byte for byte"},
		}},
	}
}

// ClaimsMarkdown renders the claims as the tables of docs/verified.md.
func ClaimsMarkdown() string {
	var b strings.Builder
	kind := ClaimKind("")
	for _, c := range Claims() {
		if c.Kind != kind {
			kind = c.Kind
			fmt.Fprintf(&b, "\n### %s\n\n| claim | label | evidence |\n|---|---|---|\n", kind)
		}
		label := "read from the source only"
		if c.Verified {
			label = "**verified by running Flink's code**"
		}
		var ev []string
		for _, r := range c.Runs {
			ev = append(ev, r.describe())
		}
		if c.Why != "" {
			if c.Verified {
				ev = append(ev, "not run: "+c.Why)
			} else {
				ev = append(ev, c.Why)
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", c.Name, label, strings.Join(ev, "; "))
	}
	return b.String()
}

func (r Run) describe() string {
	if r.Test != "" {
		return fmt.Sprintf("`%s`: %s", r.Test, r.Shows)
	}
	on := "every version with sources"
	if len(r.Versions) > 0 {
		on = strings.Join(r.Versions, ", ")
	}
	return fmt.Sprintf("case [%s](../reference/testdata/claims/%s.case.json) on %s (%s): %s", r.Case, r.Case, on, r.Outcome, r.Shows)
}
