package oracle

import "fmt"

// This file is the oracle's own version gate: which _metadata format versions each Flink release
// reads (SPEC-VERSIONS.md §7; Flink's MetadataSerializers.getSerializer knows the versions of the
// serializers it registers and throws "Unrecognized checkpoint version number" for any other).

// gateReleases lists the modelled releases oldest first (master last), by the names users give
// them, each with the newest format version it reads; each reads from version 2 on (version 1
// is registered but "no longer supported"). Master is the one model/doc.go pins, reading V7.
var gateReleases = []struct {
	name   string
	newest int32
}{{"1.10.1", 2}, {"1.18", 4}, {"1.19", 4}, {"1.20", 4}, {"2.0", 5}, {"2.1", 6}, {"2.2", 6}, {"2.3", 6}, {"master", 7}}

// ReadsFormat reports whether the release named release reads format version n; known is false
// for a name the oracle does not know.
func ReadsFormat(release string, n int32) (reads, known bool) {
	for _, r := range gateReleases {
		if r.name == release {
			return n >= 2 && n <= r.newest, true
		}
	}
	return false, false
}

// OldestReading names the oldest release that reads format version n ("" when none does) and
// the words a refusal of n uses for it: "Flink X is the oldest modelled release that reads it",
// or for a format only master reads "of the modelled versions only Flink master reads it".
func OldestReading(n int32) (release, words string) {
	for _, r := range gateReleases {
		if n >= 2 && n <= r.newest {
			if r.name == "master" {
				return r.name, "of the modelled versions only Flink master reads it"
			}
			return r.name, fmt.Sprintf("Flink %s is the oldest modelled release that reads it", r.name)
		}
	}
	return "", ""
}

// StoredMax gives the max parallelism the snapshot of shape s recorded for the operator state
// with uid (the source's, the keyed vertex's for the keyed operator and the sink, a stage's for
// its operators); false for a uid the snapshot does not hold. A restore planner's max restorable
// parallelism of a state refused as below the new parallelism is this number: its task's
// checks accept any parallelism up to it, and no higher one.
func (s Shape) StoredMax(uid string) (int, bool) {
	switch uid {
	case "":
		return 0, false
	case s.SourceUID:
		return s.SourceMax, true
	case s.KeyedUID, s.SinkUID:
		return s.KeyedMax, true
	}
	for _, st := range s.Stages {
		for _, u := range st.UIDs {
			if u == uid {
				return st.Max, true
			}
		}
	}
	return 0, false
}
