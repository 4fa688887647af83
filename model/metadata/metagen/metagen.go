// Package metagen draws random _metadata for property tests: valid Files of every format version
// and handle kind (File), and model metadata that metadata.FromModel writes (Model). Every File it
// makes obeys the rules metadata.Read enforces, so Read(Marshal(f)) gives f back. It is test
// support, not part of the model: only tests import it (model/metadata's and the reference's).
package metagen

import (
	"strings"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
	"pgregory.net/rapid"
)

func genString(t *rapid.T, label string) string {
	return rapid.StringN(0, 12, 40).Draw(t, label)
}

func genBytes(t *rapid.T, label string) []byte {
	return rapid.SliceOfN(rapid.Byte(), 0, 24).Draw(t, label)
}

func genOffsets(t *rapid.T, label string) []int64 {
	return rapid.SliceOfN(rapid.Int64(), 0, 6).Draw(t, label)
}

func genStream(t *rapid.T, depth int, allowNull bool) *metadata.StreamHandle {
	tags := []byte{metadata.TagByteStream, metadata.TagFile, metadata.TagRelativeFile, metadata.TagSegmentFile, metadata.TagEmptySegmentFile}
	if allowNull {
		tags = append(tags, metadata.TagNull)
	}
	if depth < 3 {
		tags = append(tags, metadata.TagKeyGroups)
	}
	tag := rapid.SampledFrom(tags).Draw(t, "streamTag")
	h := &metadata.StreamHandle{Tag: tag}
	switch tag {
	case metadata.TagNull:
		return nil
	case metadata.TagByteStream:
		h.Name = genString(t, "name")
		h.Data = genBytes(t, "data")
	case metadata.TagFile, metadata.TagRelativeFile:
		h.Path = genString(t, "path")
		h.Size = rapid.Int64().Draw(t, "size")
	case metadata.TagSegmentFile:
		h.StartPos = rapid.Int64().Draw(t, "startPos")
		h.Size = rapid.Int64().Draw(t, "size")
		h.Scope = rapid.Int32Range(0, 1).Draw(t, "scope")
		h.Path = genString(t, "path")
		h.LogicalFileID = genString(t, "logical")
	case metadata.TagKeyGroups:
		h.KeyGroups = genKeyGroups(t, metadata.TagKeyGroups, depth+1)
	}
	return h
}

func genKeyGroups(t *rapid.T, tag byte, depth int) *metadata.KeyGroupsHandle {
	h := &metadata.KeyGroupsHandle{Tag: tag, StartKeyGroup: rapid.Int32Range(0, 1000).Draw(t, "start"),
		Offsets: genOffsets(t, "offsets"), Delegate: genStream(t, depth, false)}
	if tag == metadata.TagKeyGroupsV2 {
		h.StateHandleID = genString(t, "id")
	}
	return h
}

func genPaths(t *rapid.T, depth int) []metadata.PathHandle {
	n := rapid.IntRange(0, 2).Draw(t, "numPaths")
	var v []metadata.PathHandle
	for i := 0; i < n; i++ {
		v = append(v, metadata.PathHandle{LocalPath: genString(t, "local"), Handle: genStream(t, depth, true)})
	}
	return v
}

func genChangelogPart(t *rapid.T, depth int) metadata.KeyedHandle {
	start, num := rapid.Int32Range(0, 1000).Draw(t, "start"), rapid.Int32Range(-2, 50).Draw(t, "num")
	switch rapid.IntRange(0, 3).Draw(t, "partKind") {
	case 0:
		return nil
	case 1:
		h := &metadata.InMemoryChangelogHandle{StartKeyGroup: start, NumKeyGroups: num, From: rapid.Int64().Draw(t, "from"),
			To: rapid.Int64().Draw(t, "to"), StateHandleID: genString(t, "id")}
		for i := rapid.IntRange(0, 2).Draw(t, "numChanges"); i > 0; i-- {
			h.Changes = append(h.Changes, metadata.StateChange{KeyGroup: rapid.Int32().Draw(t, "kg"), Data: genBytes(t, "data")})
		}
		return h
	}
	h := &metadata.ChangelogStreamHandle{Tag: rapid.SampledFrom([]byte{metadata.TagChangelogStreamV1, metadata.TagChangelogStream}).Draw(t, "tag"),
		StartKeyGroup: start, NumKeyGroups: num, StateSize: rapid.Int64().Draw(t, "size"),
		CheckpointedSize: rapid.Int64().Draw(t, "csize"), StateHandleID: genString(t, "id")}
	if h.Tag == metadata.TagChangelogStream {
		h.StorageID = genString(t, "storage")
	}
	for i := rapid.IntRange(0, 2).Draw(t, "numParts"); i > 0; i-- {
		h.Parts = append(h.Parts, metadata.ChangelogPart{Offset: rapid.Int64().Draw(t, "off"), Handle: genStream(t, depth, true)})
	}
	return h
}

func genKeyed(t *rapid.T, depth int) metadata.KeyedHandle {
	kinds := []string{"none", "keyGroups", "incremental", "changelogPart"}
	if depth < 2 {
		kinds = append(kinds, "changelogBackend")
	}
	start := rapid.Int32Range(0, 1000).Draw(t, "start")
	num := rapid.Int32Range(-2, 50).Draw(t, "num")
	switch rapid.SampledFrom(kinds).Draw(t, "keyedKind") {
	case "keyGroups":
		return genKeyGroups(t, rapid.SampledFrom([]byte{metadata.TagKeyGroups, metadata.TagKeyGroupsV2, metadata.TagKeyGroupsSavepoint}).Draw(t, "tag"), depth+1)
	case "incremental":
		h := &metadata.IncrementalHandle{Tag: rapid.SampledFrom([]byte{metadata.TagIncrementalV1, metadata.TagIncremental}).Draw(t, "tag"),
			CheckpointID: rapid.Int64().Draw(t, "cp"), BackendID: genString(t, "backend"), StartKeyGroup: start, NumKeyGroups: num,
			Meta: genStream(t, depth+1, true), Shared: genPaths(t, depth+1), Private: genPaths(t, depth+1)}
		if h.Tag == metadata.TagIncremental {
			h.CheckpointedSize = rapid.Int64().Draw(t, "csize")
			h.StateHandleID = genString(t, "id")
		}
		return h
	case "changelogPart":
		return genChangelogPart(t, depth+1)
	case "changelogBackend":
		h := &metadata.ChangelogBackendHandle{Tag: rapid.SampledFrom([]byte{metadata.TagChangelogBackendV1, metadata.TagChangelogBackend}).Draw(t, "tag"),
			StartKeyGroup: start, NumKeyGroups: num, CheckpointedSize: rapid.Int64().Draw(t, "csize"),
			MaterializationID: rapid.Int64().Draw(t, "mat"), StateHandleID: genString(t, "id")}
		if h.Tag == metadata.TagChangelogBackend {
			h.CheckpointID = rapid.Int64().Draw(t, "cp")
		}
		for i := rapid.IntRange(0, 2).Draw(t, "numMat"); i > 0; i-- {
			h.Materialized = append(h.Materialized, genKeyed(t, depth+1))
		}
		for i := rapid.IntRange(0, 2).Draw(t, "numNonMat"); i > 0; i-- {
			h.NonMaterialized = append(h.NonMaterialized, genChangelogPart(t, depth+1))
		}
		return h
	}
	return nil
}

func genOperatorHandle(t *rapid.T) *metadata.OperatorHandle {
	switch rapid.IntRange(0, 5).Draw(t, "opHandleKind") {
	case 0:
		return nil
	case 1:
		return &metadata.OperatorHandle{Tag: metadata.TagNull}
	}
	h := &metadata.OperatorHandle{Tag: rapid.SampledFrom([]byte{metadata.TagOperatorStream, metadata.TagFileMergingOperatorStream}).Draw(t, "tag")}
	for i := rapid.IntRange(0, 3).Draw(t, "numStates"); i > 0; i-- {
		h.States = append(h.States, metadata.StateEntry{Name: genString(t, "state"), Mode: byte(rapid.IntRange(0, 2).Draw(t, "mode")), Offsets: genOffsets(t, "offsets")})
	}
	if h.Tag == metadata.TagFileMergingOperatorStream {
		h.TaskOwnedDir, h.SharedDir, h.IsEmpty = genString(t, "owned"), genString(t, "shared"), rapid.Bool().Draw(t, "empty")
		h.Delegate = &metadata.StreamHandle{Tag: metadata.TagEmptySegmentFile}
		if rapid.Bool().Draw(t, "segment") {
			h.Delegate = &metadata.StreamHandle{Tag: metadata.TagSegmentFile, StartPos: 1, Size: 2, Path: genString(t, "path"), LogicalFileID: "l"}
		}
		return h
	}
	h.Delegate = genStream(t, 1, false)
	return h
}

func genChannels(t *rapid.T, version int32, input bool) []metadata.ChannelHandle {
	var v []metadata.ChannelHandle
	for i := rapid.IntRange(0, 2).Draw(t, "numChannels"); i > 0; i-- {
		h := metadata.ChannelHandle{Type: metadata.ChannelOutput, SubtaskIndex: rapid.Int32().Draw(t, "sub")}
		if input {
			h.Type = metadata.ChannelInput
		}
		if version >= 6 && rapid.Bool().Draw(t, "merged") {
			h.Type += 2
			h.StateSize = rapid.Int64().Draw(t, "size")
			h.Delegate = genStream(t, 1, true)
			h.SerializedOffsets = genBytes(t, "blob")
		} else {
			h.GateOrPartition, h.Channel = rapid.Int32().Draw(t, "gate"), rapid.Int32().Draw(t, "channel")
			h.Offsets = genOffsets(t, "offsets")
			h.StateSize = rapid.Int64().Draw(t, "size")
			h.Delegate = genStream(t, 1, true)
		}
		v = append(v, h)
	}
	return v
}

func genSubtask(t *rapid.T, version int32, index int32) metadata.Subtask {
	s := metadata.Subtask{Index: index}
	if version >= 3 && rapid.IntRange(0, 5).Draw(t, "finished") == 0 {
		s.Finished = true
		return s
	}
	if version == 2 {
		s.Duration = rapid.Int64().Draw(t, "duration")
		for i := rapid.IntRange(0, 1).Draw(t, "numLegacy"); i > 0; i-- {
			s.Legacy = append(s.Legacy, genStream(t, 1, true))
		}
	}
	s.ManagedOperatorState = genOperatorHandle(t)
	s.RawOperatorState = genOperatorHandle(t)
	s.ManagedKeyedState = genKeyed(t, 0)
	s.RawKeyedState = genKeyed(t, 0)
	if version >= 3 {
		s.InputChannels = genChannels(t, version, true)
		s.OutputChannels = genChannels(t, version, false)
	}
	if version >= 7 && rapid.Bool().Draw(t, "hasRef") {
		v := rapid.Int64().Draw(t, "ref")
		s.RefCheckpointID = &v
	}
	return s
}

func genOperator(t *rapid.T, version int32) metadata.Operator {
	var op metadata.Operator
	if version >= 5 {
		op.Name, op.UID = genString(t, "opName"), genString(t, "uid")
	}
	copy(op.ID[:], rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(t, "id"))
	op.Parallelism = rapid.Int32Range(0, 5).Draw(t, "parallelism")
	op.MaxParallelism = rapid.Int32Range(op.Parallelism, 1<<15).Draw(t, "maxParallelism")
	if version == 2 {
		op.ChainLength = rapid.Int32Range(0, 2).Draw(t, "chain")
	}
	if version >= 3 && rapid.IntRange(0, 6).Draw(t, "fullyFinished") == 0 {
		op.FullyFinished = true
		return op
	}
	if version >= 3 && rapid.Bool().Draw(t, "hasCoordinator") {
		op.CoordinatorState = &metadata.StreamHandle{Tag: metadata.TagByteStream, Name: op.ID.String(), Data: genBytes(t, "coord")}
	}
	for i := int32(0); i < op.Parallelism; i++ {
		if rapid.IntRange(0, 3).Draw(t, "skipSubtask") == 0 {
			continue // subtasks without state may be missing
		}
		op.Subtasks = append(op.Subtasks, genSubtask(t, version, i))
	}
	return op
}

func genProperties(t *rapid.T) *metadata.Properties {
	p := &metadata.Properties{
		DiscardCancelled: rapid.Bool().Draw(t, "dc"), DiscardFailed: rapid.Bool().Draw(t, "df"),
		DiscardFinished: rapid.Bool().Draw(t, "dfin"), DiscardSubsumed: rapid.Bool().Draw(t, "ds"),
		DiscardSuspended: rapid.Bool().Draw(t, "dsus"), Forced: rapid.Bool().Draw(t, "forced"),
		Unclaimed: rapid.Bool().Draw(t, "unclaimed"), Savepoint: rapid.Bool().Draw(t, "savepoint"),
		TypeName: rapid.SampledFrom([]string{"Checkpoint", "Savepoint", "Suspend Savepoint", "NONE", ""}).Draw(t, "typeName"),
	}
	if p.Savepoint {
		p.Format = rapid.SampledFrom([]string{"CANONICAL", "NATIVE"}).Draw(t, "format")
		p.PostCheckpointAction = rapid.SampledFrom([]string{"NONE", "SUSPEND", "TERMINATE"}).Draw(t, "action")
	} else {
		p.Sharing = rapid.SampledFrom([]string{"FORWARD_BACKWARD", "FORWARD", "NO_SHARING"}).Draw(t, "sharing")
	}
	return p
}

// File draws a File of any format version (2 to 7) and any handle kind.
func File(t *rapid.T) *metadata.File {
	f := &metadata.File{Version: rapid.Int32Range(metadata.MinVersion, metadata.MaxVersion).Draw(t, "version"), CheckpointID: rapid.Int64Min(0).Draw(t, "checkpointId")}
	for i := rapid.IntRange(0, 2).Draw(t, "numMasters"); i > 0; i-- {
		f.MasterStates = append(f.MasterStates, metadata.MasterState{Name: genString(t, "master"), Version: rapid.Int32().Draw(t, "hookVersion"), Data: genBytes(t, "payload")})
	}
	for i := rapid.IntRange(0, 3).Draw(t, "numOperators"); i > 0; i-- {
		f.Operators = append(f.Operators, genOperator(t, f.Version))
	}
	if f.Version >= 4 {
		f.Properties = genProperties(t)
	}
	return f
}

// Model draws model metadata FromModel can write: at most one handle per kind, states with
// distinct names, in-memory data below 1 KiB, file paths as Flink's Path prints them (Path).
func Model(t *rapid.T) model.CheckpointMetadata {
	md := model.CheckpointMetadata{CheckpointID: rapid.Int64Min(0).Draw(t, "checkpointId"), Operators: []model.OperatorState{}}
	stream := func() model.StreamHandle {
		h := model.StreamHandle{Size: rapid.Int64Range(0, 1024).Draw(t, "size")}
		switch rapid.IntRange(0, 2).Draw(t, "streamKind") {
		case 0:
			h.InMemory, h.Path = true, genString(t, "name")
		case 1:
			h.Relative, h.Path = true, genSegments(t)
		default:
			h.Path = Path(t)
		}
		return h
	}
	for i := rapid.IntRange(0, 3).Draw(t, "numOperators"); i > 0; i-- {
		var id model.OperatorID
		copy(id[:], rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(t, "id"))
		p := rapid.IntRange(1, 4).Draw(t, "parallelism")
		maxP := rapid.IntRange(p, 256).Draw(t, "maxParallelism")
		op := model.OperatorState{OperatorID: id, Parallelism: p, MaxParallelism: maxP}
		for s := 0; s < p; s++ {
			if rapid.IntRange(0, 3).Draw(t, "skip") == 0 {
				op.Subtasks = append(op.Subtasks, nil)
				continue
			}
			st := &model.OperatorSubtaskState{}
			if rapid.Bool().Draw(t, "hasOpState") {
				h := model.OperatorStateHandle{Delegate: stream()}
				seen := map[string]bool{}
				for k := rapid.IntRange(0, 3).Draw(t, "numStates"); k > 0; k-- {
					name := genString(t, "stateName")
					if seen[name] {
						continue
					}
					seen[name] = true
					h.States = append(h.States, model.NamedOperatorState{Name: name,
						Mode: model.DistributionMode(rapid.IntRange(1, 3).Draw(t, "mode")), Offsets: genOffsets(t, "offsets")})
				}
				st.ManagedOperatorState = []model.OperatorStateHandle{h}
			}
			if rapid.Bool().Draw(t, "hasKeyed") {
				r, _ := model.ComputeKeyGroupRangeForOperatorIndex(maxP, p, s)
				offsets := make([]int64, r.NumberOfKeyGroups())
				for k := range offsets {
					offsets[k] = int64(k * 10)
				}
				st.ManagedKeyedState = []model.KeyedStateHandle{&model.KeyGroupsStateHandle{
					Offsets: model.KeyGroupRangeOffsets{Range: r, Offsets: offsets}, Delegate: stream(), StateHandleID: genString(t, "shid")}}
			}
			op.Subtasks = append(op.Subtasks, st)
		}
		md.Operators = append(md.Operators, op)
	}
	return md
}

// Path draws a file path in the form Flink's Path.toString gives (what a FileStateHandle
// written by Flink holds): an optional scheme and authority, then non-empty segments that are not
// "." or "..", without ':' or '\\', joined by single slashes, absolute when there is a scheme.
// Segments may hold any other character (spaces, '%', '#', '?', non-ASCII), which Flink keeps.
func Path(t *rapid.T) string {
	switch rapid.IntRange(0, 3).Draw(t, "pathForm") {
	case 0:
		return genSegments(t)
	case 1:
		return "/" + genSegments(t)
	case 2:
		return rapid.SampledFrom([]string{"file", "s3", "hdfs", "oss"}).Draw(t, "scheme") + ":/" + genSegments(t)
	}
	authority := rapid.StringOfN(rapid.RuneFrom([]rune("abcxyz0189.-_")), 1, 12, -1).Draw(t, "authority")
	return rapid.SampledFrom([]string{"s3", "hdfs", "gs"}).Draw(t, "scheme") + "://" + authority + "/" + genSegments(t)
}

// genSegments draws a relative path: one to four segments, none empty, "." or "..".
func genSegments(t *rapid.T) string {
	segment := rapid.StringOfN(rapid.Rune().Filter(func(r rune) bool { return r != '/' && r != '\\' && r != ':' }), 1, 10, -1).
		Filter(func(s string) bool { return s != "." && s != ".." })
	return strings.Join(rapid.SliceOfN(segment, 1, 4).Draw(t, "segments"), "/")
}

// Properties draws the properties of a checkpoint or a savepoint as the model describes them
// (nil: a regular checkpoint's, as FromModel writes for nil).
func Properties(t *rapid.T) *model.CheckpointProperties {
	if rapid.IntRange(0, 3).Draw(t, "defaultProperties") == 0 {
		return nil
	}
	p := &model.CheckpointProperties{Savepoint: rapid.Bool().Draw(t, "savepoint"), Forced: rapid.Bool().Draw(t, "forced"),
		Unclaimed: rapid.Bool().Draw(t, "unclaimed"), DiscardSubsumed: rapid.Bool().Draw(t, "discardSubsumed")}
	if p.Savepoint {
		p.Native, p.Synchronous = rapid.Bool().Draw(t, "native"), rapid.Bool().Draw(t, "synchronous")
	} else {
		p.Sharing = rapid.SampledFrom([]model.SharingFilesStrategy{model.ForwardBackward, model.Forward, model.NoSharing}).Draw(t, "sharing")
	}
	return p
}

// Names draws an operator name and uid for each operator of md ("" = none), as format versions 5
// and later store them.
func Names(t *rapid.T, md model.CheckpointMetadata) metadata.OperatorNames {
	names := map[model.OperatorID][2]string{}
	for _, op := range md.Operators {
		names[op.OperatorID] = [2]string{genString(t, "operatorName"), genString(t, "operatorUid")}
	}
	return func(id model.OperatorID) (string, string) { return names[id][0], names[id][1] }
}
