package org.apache.flink.runtime.executiongraph;

import org.apache.flink.runtime.checkpoint.JobManagerTaskRestore;

/**
 * Stub of Execution (restoresim): the real one deploys a task over RPC; this one only keeps the
 * restore object StateAssignmentOperation sets on it.
 */
public class Execution {
    private JobManagerTaskRestore taskRestore;

    public void setInitialState(JobManagerTaskRestore taskRestore) {
        this.taskRestore = taskRestore;
    }

    public JobManagerTaskRestore getTaskRestore() {
        return taskRestore;
    }
}
