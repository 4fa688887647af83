package org.apache.flink.runtime.execution;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.runtime.jobgraph.JobVertexID;

/**
 * Stub of Environment (restoresim, reached on 1.20+ through CheckpointStorageWorkerView): the real
 * interface is a task's whole runtime (TaskManager, I/O, metrics). The file-merging classes on the
 * path read only these three getters; nothing here ever implements it.
 */
public interface Environment {
    JobID getJobID();

    JobVertexID getJobVertexId();

    TaskInfo getTaskInfo();
}
