package org.apache.flink.runtime.state.hashmap;

import org.apache.flink.runtime.state.StateBackend;

/**
 * Stub of HashMapStateBackend (restoresim): the real one is the heap keyed-state backend, which
 * reaches the task runtime. Checkpoints creates it only to dispose of savepoints (never done here).
 */
public class HashMapStateBackend implements StateBackend {
    private static final long serialVersionUID = 1L;
}
