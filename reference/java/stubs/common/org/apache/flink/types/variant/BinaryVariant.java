package org.apache.flink.types.variant;

/**
 * Stub of BinaryVariant (restoresim; Flink 2.1 and later): the real one writes JSON with shaded
 * Jackson, which no jar here provides. A SQL key's classes name it where a VARIANT field is read
 * (BinaryRowData.getVariant, BinarySegmentUtils.readVariant) or written
 * (AbstractBinaryWriter.writeVariant: getMetadata, getValue); the driver (SqlKey.java) neither
 * reads fields nor writes a VARIANT, so nothing of it is reached and every method throws.
 */
public final class BinaryVariant implements Variant {
    public BinaryVariant(byte[] value, byte[] metadata) {
        throw unsupported();
    }

    private static UnsupportedOperationException unsupported() {
        return new UnsupportedOperationException("restoresim: VARIANT values are not supported");
    }

    public byte[] getValue() {
        throw unsupported();
    }

    public byte[] getMetadata() {
        throw unsupported();
    }

    public int getPos() {
        throw unsupported();
    }
}
