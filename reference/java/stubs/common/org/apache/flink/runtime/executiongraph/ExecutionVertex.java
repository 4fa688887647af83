package org.apache.flink.runtime.executiongraph;

/** Stub of ExecutionVertex (restoresim): one subtask of a vertex, holding its current execution. */
public class ExecutionVertex {
    private final ExecutionJobVertex jobVertex;
    private final int subtaskIndex;
    private final Execution currentExecution = new Execution();

    public ExecutionVertex(ExecutionJobVertex jobVertex, int subtaskIndex) {
        this.jobVertex = jobVertex;
        this.subtaskIndex = subtaskIndex;
    }

    public ExecutionJobVertex getJobVertex() {
        return jobVertex;
    }

    public int getParallelSubtaskIndex() {
        return subtaskIndex;
    }

    public Execution getCurrentExecutionAttempt() {
        return currentExecution;
    }
}
