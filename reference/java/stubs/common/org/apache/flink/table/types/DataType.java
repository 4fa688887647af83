package org.apache.flink.table.types;

import java.io.Serializable;

/**
 * Stub of DataType (restoresim): the real one reaches DataTypes and DataTypeUtils and, through
 * the type extraction (ExtractionUtils), shaded ASM, which no Debian jar provides, and the whole
 * function stack. Of the LogicalTypes of a SQL key only StructuredType names it, in its
 * documentation (and the stub LegacyTypeInfoDataTypeConverter in a signature); the driver
 * (SqlKey.java) makes no DataType, so nothing of it is reached.
 */
public abstract class DataType implements Serializable {
    private static final long serialVersionUID = 1L;

    private DataType() {}
}
