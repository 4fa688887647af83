package org.apache.flink.types;

import java.io.Serializable;

/**
 * Stub of ColumnList (restoresim; Flink 2.1 and later): the real one reaches DataTypes and so the
 * type extraction and shaded ASM, which no jar here provides. Of a SQL key's types only
 * DescriptorType names it (ColumnList.class, its conversion class); the driver (SqlKey.java)
 * makes no DESCRIPTOR value, so nothing of it is reached.
 */
public final class ColumnList implements Serializable {
    private static final long serialVersionUID = 1L;

    private ColumnList() {}
}
