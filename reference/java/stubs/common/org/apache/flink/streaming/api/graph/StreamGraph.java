package org.apache.flink.streaming.api.graph;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Stub of StreamGraph (restoresim): the real one reaches the whole DataStream API, the type
 * system, the job graph generator and the REST layer. StreamGraphHasherV2 reads only its source
 * IDs, nodes, edges' ends and whether chaining is enabled; this stub holds just those.
 */
public class StreamGraph {
    private final Map<Integer, StreamNode> streamNodes = new LinkedHashMap<>();
    private final List<Integer> sources = new ArrayList<>();
    private boolean chaining = true;

    /** Adds a node with a user-specified uid (null: none); a node without inputs is a source. */
    public StreamNode addNode(int id, String transformationUID) {
        StreamNode n = new StreamNode(id, transformationUID);
        streamNodes.put(id, n);
        sources.add(id);
        return n;
    }

    /** Connects two nodes; the target is no longer a source. */
    public void addEdge(int sourceId, int targetId) {
        StreamEdge e = new StreamEdge(sourceId, targetId);
        streamNodes.get(sourceId).getOutEdges().add(e);
        streamNodes.get(targetId).getInEdges().add(e);
        sources.remove(Integer.valueOf(targetId));
    }

    public Collection<Integer> getSourceIDs() {
        return sources;
    }

    public StreamNode getStreamNode(Integer vertexID) {
        return streamNodes.get(vertexID);
    }

    public boolean isChainingEnabled() {
        return chaining;
    }

    public void setChaining(boolean chaining) {
        this.chaining = chaining;
    }

    public StreamNode getSourceVertex(StreamEdge edge) {
        return streamNodes.get(edge.getSourceId());
    }

    public StreamNode getTargetVertex(StreamEdge edge) {
        return streamNodes.get(edge.getTargetId());
    }
}
