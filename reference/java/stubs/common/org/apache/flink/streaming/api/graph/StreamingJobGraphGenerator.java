package org.apache.flink.streaming.api.graph;

/**
 * Stub of StreamingJobGraphGenerator (restoresim): the real one builds the JobGraph and reaches
 * the scheduler. StreamGraphHasherV2 calls isChainable only for a node without a uid (the
 * deterministic hash), which the reference never hashes: it throws.
 */
public class StreamingJobGraphGenerator {
    private StreamingJobGraphGenerator() {}

    public static boolean isChainable(StreamEdge edge, StreamGraph streamGraph) {
        throw new UnsupportedOperationException(
                "restoresim stub: isChainable (only nodes with a uid are hashed)");
    }
}
