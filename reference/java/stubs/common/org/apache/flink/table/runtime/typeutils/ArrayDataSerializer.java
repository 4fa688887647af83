package org.apache.flink.table.runtime.typeutils;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.binary.BinaryArrayData;

/**
 * Stub of ArrayDataSerializer (restoresim): the archives hold flink-table-runtime's writer package
 * alone, whose AbstractBinaryWriter.writeArray and BinaryWriter's ARRAY case name it. The driver
 * (SqlKey.java) writes key fields of atomic types only (no ARRAY), so neither is reached.
 */
public abstract class ArrayDataSerializer extends TypeSerializer<ArrayData> {
    private static final long serialVersionUID = 1L;

    public BinaryArrayData toBinaryArray(ArrayData from) {
        throw new UnsupportedOperationException("restoresim: ARRAY fields are not written");
    }
}
