package org.apache.flink.streaming.api.graph;

import java.util.ArrayList;
import java.util.List;

/**
 * Stub of StreamNode (restoresim): the real one holds the operator factory, serializers, slot
 * sharing and resources. StreamGraphHasherV2 reads its ID, uid, edges, parallelism and operator
 * factory (the last two only for a debug log line); this stub holds just those.
 */
public class StreamNode {
    private final int id;
    private final String transformationUID;
    private final List<StreamEdge> inEdges = new ArrayList<>();
    private final List<StreamEdge> outEdges = new ArrayList<>();

    StreamNode(int id, String transformationUID) {
        this.id = id;
        this.transformationUID = transformationUID;
    }

    public int getId() {
        return id;
    }

    public String getTransformationUID() {
        return transformationUID;
    }

    public List<StreamEdge> getInEdges() {
        return inEdges;
    }

    public List<StreamEdge> getOutEdges() {
        return outEdges;
    }

    public int getParallelism() {
        return 1;
    }

    public Object getOperatorFactory() {
        return null;
    }

    @Override
    public String toString() {
        return "StreamNode(" + id + ")";
    }
}
