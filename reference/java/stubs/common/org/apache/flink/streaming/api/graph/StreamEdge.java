package org.apache.flink.streaming.api.graph;

/**
 * Stub of StreamEdge (restoresim): the real one holds the partitioner, output tag and exchange
 * mode. StreamGraphHasherV2 reads its ends only.
 */
public class StreamEdge {
    private final int sourceId;
    private final int targetId;

    StreamEdge(int sourceId, int targetId) {
        this.sourceId = sourceId;
        this.targetId = targetId;
    }

    public int getSourceId() {
        return sourceId;
    }

    public int getTargetId() {
        return targetId;
    }
}
