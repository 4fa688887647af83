package org.apache.flink.runtime.executiongraph;

import org.apache.flink.runtime.JobException;
import org.apache.flink.runtime.OperatorIDPair;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.runtime.jobgraph.JobVertexID;
import org.apache.flink.runtime.scheduler.VertexParallelismInformation;

import java.util.ArrayList;
import java.util.List;

/**
 * Stub of ExecutionJobVertex (restoresim): the real one needs the execution graph, the scheduler,
 * slot sharing and RPC. It keeps what StateAssignmentOperation reads: the JobVertex, its
 * parallelism information (Flink's real VertexParallelismInformation decides max-parallelism
 * adoption), the consumed and produced results and one execution per subtask. hashCode() is the
 * vertex's index, so that Flink's HashMaps keyed by vertices iterate in input order (ASSIGN-CASE
 * convention 1) and messages naming a vertex read "ExecutionJobVertex@<index>".
 */
public class ExecutionJobVertex {
    private final int index;
    private final JobVertex jobVertex;
    private final VertexParallelismInformation parallelismInfo;
    private final List<IntermediateResult> inputs = new ArrayList<>();
    private final IntermediateResult[] producedDataSets;
    private final ExecutionVertex[] taskVertices;

    public ExecutionJobVertex(
            int index, JobVertex jobVertex, VertexParallelismInformation parallelismInfo)
            throws JobException {
        this.index = index;
        this.jobVertex = jobVertex;
        this.parallelismInfo = parallelismInfo;
        // The check of the real constructor (ExecutionJobVertex.<init>).
        if (parallelismInfo.getParallelism() > parallelismInfo.getMaxParallelism()) {
            throw new JobException(
                    String.format(
                            "Vertex %s's parallelism (%s) is higher than the max parallelism (%s). Please lower the parallelism or increase the max parallelism.",
                            jobVertex.getName(),
                            parallelismInfo.getParallelism(),
                            parallelismInfo.getMaxParallelism()));
        }
        this.producedDataSets = new IntermediateResult[jobVertex.getProducedDataSets().size()];
        for (int i = 0; i < producedDataSets.length; i++) {
            producedDataSets[i] =
                    new IntermediateResult(jobVertex.getProducedDataSets().get(i), this);
        }
        this.taskVertices = new ExecutionVertex[parallelismInfo.getParallelism()];
        for (int i = 0; i < taskVertices.length; i++) {
            taskVertices[i] = new ExecutionVertex(this, i);
        }
    }

    /** The real vertex connects its inputs to its producers' results (connectToPredecessors). */
    public void addInput(IntermediateResult result) {
        inputs.add(result);
    }

    public List<OperatorIDPair> getOperatorIDs() {
        return jobVertex.getOperatorIDs();
    }

    public void setMaxParallelism(int maxParallelism) {
        parallelismInfo.setMaxParallelism(maxParallelism);
    }

    public JobVertex getJobVertex() {
        return jobVertex;
    }

    public String getName() {
        return jobVertex.getName();
    }

    public int getParallelism() {
        return parallelismInfo.getParallelism();
    }

    public int getMaxParallelism() {
        return parallelismInfo.getMaxParallelism();
    }

    public boolean canRescaleMaxParallelism(int desiredMaxParallelism) {
        return parallelismInfo.canRescaleMaxParallelism(desiredMaxParallelism);
    }

    public JobVertexID getJobVertexId() {
        return jobVertex.getID();
    }

    public ExecutionVertex[] getTaskVertices() {
        return taskVertices;
    }

    public IntermediateResult[] getProducedDataSets() {
        return producedDataSets;
    }

    public List<IntermediateResult> getInputs() {
        return inputs;
    }

    @Override
    public int hashCode() {
        return index;
    }
}
