package org.apache.flink.table.runtime.typeutils;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.binary.BinaryMapData;

/**
 * Stub of MapDataSerializer (restoresim): the archives hold flink-table-runtime's writer package
 * alone, whose AbstractBinaryWriter.writeMap and BinaryWriter's MAP and MULTISET cases name it.
 * The driver (SqlKey.java) writes key fields of atomic types only (no MAP or MULTISET), so
 * neither is reached.
 */
public abstract class MapDataSerializer extends TypeSerializer<MapData> {
    private static final long serialVersionUID = 1L;

    public BinaryMapData toBinaryMap(MapData from) {
        throw new UnsupportedOperationException("restoresim: MAP fields are not written");
    }
}
