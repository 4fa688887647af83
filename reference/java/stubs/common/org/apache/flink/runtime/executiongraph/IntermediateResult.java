package org.apache.flink.runtime.executiongraph;

import org.apache.flink.runtime.jobgraph.IntermediateDataSet;
import org.apache.flink.runtime.jobgraph.IntermediateDataSetID;

/**
 * Stub of IntermediateResult (restoresim): the real one holds partitions and shuffle descriptors
 * of a running graph; StateAssignmentOperation reads only its ID and producer.
 */
public class IntermediateResult {
    private final IntermediateDataSet intermediateDataSet;
    private final ExecutionJobVertex producer;

    public IntermediateResult(IntermediateDataSet intermediateDataSet, ExecutionJobVertex producer) {
        this.intermediateDataSet = intermediateDataSet;
        this.producer = producer;
    }

    public IntermediateDataSetID getId() {
        return intermediateDataSet.getId();
    }

    public ExecutionJobVertex getProducer() {
        return producer;
    }
}
