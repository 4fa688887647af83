package org.apache.flink.runtime.state;

/**
 * Stub of TaskStateManager (restoresim, reached on 1.20+ through FileMergingSnapshotManager's
 * imports): the real interface reaches the task's channel-state readers and the TaskExecutor.
 */
public interface TaskStateManager {}
