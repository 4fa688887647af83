package org.apache.flink.table.functions;

/**
 * Stub of ProcessTableFunction (restoresim; Flink 2.1 and later): the real one reaches the
 * function stack (type inference, the type extraction and shaded ASM, which no jar here
 * provides). Of a SQL key's types only DescriptorType names it, in its documentation; the driver
 * (SqlKey.java) calls no function, so nothing of it is reached.
 */
public abstract class ProcessTableFunction<T> {
    private ProcessTableFunction() {}
}
