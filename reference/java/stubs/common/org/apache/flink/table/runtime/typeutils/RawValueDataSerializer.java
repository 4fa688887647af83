package org.apache.flink.table.runtime.typeutils;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.table.data.RawValueData;

/**
 * Stub of RawValueDataSerializer (restoresim): the archives hold flink-table-runtime's writer
 * package alone, whose AbstractBinaryWriter.writeRawValue and BinaryWriter's RAW case name it. The
 * driver (SqlKey.java) writes key fields of atomic types only (no RAW), so neither is reached.
 */
public abstract class RawValueDataSerializer<T> extends TypeSerializer<RawValueData<T>> {
    private static final long serialVersionUID = 1L;

    public TypeSerializer<T> getInnerSerializer() {
        throw new UnsupportedOperationException("restoresim: RAW fields are not written");
    }
}
