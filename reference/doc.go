// Package reference runs Flink's own classes beside the model: a JVM per Flink version, compiled
// from Flink's unmodified sources, answering assignment cases (ASSIGN-CASE.md) one JSON line each
// way.
//
// The Java side lives in java/ (embedded in this package): a driver (java/driver) and stubs of the
// execution-graph scaffolding that Flink's restore path reaches but that cannot be compiled
// outside a cluster (java/stubs; each names the real class it stands for and why). Build compiles
// the driver with `javac -sourcepath stubs:flink`, so that only the transitive closure of what the
// driver references is compiled from Flink's files (a scratch copy whose only edit is the renaming
// of Flink's shaded imports to the unshaded Debian jars), into a cache directory keyed by the Flink
// branch and commit, the driver's sources and the JDK. Start starts one long-lived JVM on a build;
// Assign sends one case and reads one answer, with a timeout; MetadataRoundTrip has Flink read and
// write back a _metadata file; a JVM that crashed or timed out is started again on the next
// request, and its error is reported in one line (a refusal by Flink's code is a *Refusal).
//
// Sources: the archives of shared/flink-src (one per branch: release-1.18 … release-2.3, master),
// found through $RESTORESIM_FLINK_ARCHIVES or beside the module root, or a user's Flink checkout
// (Options.FlinkSrc, $RESTORESIM_FLINK_SRC). Flink 1.10.1 is modelled but has no sources here:
// Branch says why. Whatever the reference runs, the model runs without it: Java is an extra
// check, never a dependency of the main job.
package reference
