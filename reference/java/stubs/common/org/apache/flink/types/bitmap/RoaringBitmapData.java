package org.apache.flink.types.bitmap;

import java.io.Serializable;

/**
 * Stub of RoaringBitmapData (restoresim; Flink 2.3 and later): the real one is backed by the
 * RoaringBitmap library, which no jar here provides. A SQL key's classes reach it through
 * Bitmap's static factories (BinarySegmentUtils reading a BITMAP field) and BitmapType's
 * conversion classes (its name); the driver (SqlKey.java) neither reads fields nor writes a
 * BITMAP, so no method of it is reached (they throw; the class is abstract, as no instance is made).
 */
public abstract class RoaringBitmapData implements Bitmap, Serializable {
    private static final long serialVersionUID = 1L;

    private RoaringBitmapData() {}

    private static UnsupportedOperationException unsupported() {
        return new UnsupportedOperationException("restoresim: BITMAP values are not supported");
    }

    public static RoaringBitmapData empty() {
        throw unsupported();
    }

    public static RoaringBitmapData from(Bitmap other) {
        throw unsupported();
    }

    public static RoaringBitmapData fromBytes(byte[] bytes) {
        throw unsupported();
    }

    public static RoaringBitmapData fromArray(int[] values) {
        throw unsupported();
    }

    public static RoaringBitmapData toRoaringBitmapData(Bitmap bm) {
        throw unsupported();
    }
}
