package org.apache.flink.runtime.jobgraph;

import org.apache.flink.runtime.OperatorIDPair;
import org.apache.flink.runtime.io.network.partition.ResultPartitionType;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Stub of JobVertex (restoresim, Flink 2.x): the real one carries the invokable class, input splits,
 * operator coordinators and resources, whose closure reaches the serialization and RPC frameworks.
 * This one keeps what state assignment reads: ID, name, operator ID pairs, parallelism, max
 * parallelism, its inputs (JobEdge, real) and produced data sets (IntermediateDataSet, real), the
 * latter in creation order as the real vertex's LinkedHashMap keeps them.
 */
public class JobVertex implements java.io.Serializable {
    private static final long serialVersionUID = 1L;

    public static final int MAX_PARALLELISM_DEFAULT = -1;

    private final JobVertexID id;
    private final String name;
    private final List<OperatorIDPair> operatorIDs;
    private final Map<IntermediateDataSetID, IntermediateDataSet> results = new LinkedHashMap<>();
    private final List<JobEdge> inputs = new ArrayList<>();
    private int parallelism = -1;
    private int maxParallelism = MAX_PARALLELISM_DEFAULT;

    public JobVertex(String name, JobVertexID id, List<OperatorIDPair> operatorIDPairs) {
        this.name = name;
        this.id = id;
        this.operatorIDs = operatorIDPairs;
    }

    public JobVertexID getID() {
        return id;
    }

    public String getName() {
        return name;
    }

    public List<OperatorIDPair> getOperatorIDs() {
        return operatorIDs;
    }

    public int getParallelism() {
        return parallelism;
    }

    public void setParallelism(int parallelism) {
        this.parallelism = parallelism;
    }

    public int getMaxParallelism() {
        return maxParallelism;
    }

    public void setMaxParallelism(int maxParallelism) {
        this.maxParallelism = maxParallelism;
    }

    public int getNumberOfProducedIntermediateDataSets() {
        return results.size();
    }

    public List<IntermediateDataSet> getProducedDataSets() {
        return new ArrayList<>(results.values());
    }

    public List<JobEdge> getInputs() {
        return inputs;
    }

    public IntermediateDataSet getOrCreateResultDataSet(
            IntermediateDataSetID id, ResultPartitionType partitionType) {
        return results.computeIfAbsent(id, key -> new IntermediateDataSet(id, partitionType, this));
    }

    /** As the real connectNewDataSetAsInput, with the defaults of the real short overloads. */
    public JobEdge connectNewDataSetAsInput(
            JobVertex input,
            DistributionPattern distPattern,
            ResultPartitionType partitionType,
            IntermediateDataSetID intermediateDataSetId,
            boolean isBroadcast,
            boolean isForward) {
        IntermediateDataSet dataSet = input.getOrCreateResultDataSet(intermediateDataSetId, partitionType);
        JobEdge edge =
                new JobEdge(
                        dataSet,
                        this,
                        distPattern,
                        isBroadcast,
                        isForward,
                        -1,
                        distPattern != DistributionPattern.POINTWISE,
                        distPattern != DistributionPattern.POINTWISE && !isBroadcast);
        this.inputs.add(edge);
        dataSet.addConsumer(edge);
        return edge;
    }

    @Override
    public String toString() {
        return name + " (" + id + ")";
    }
}
