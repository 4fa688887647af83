package org.apache.flink.util;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputView;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.OutputStream;
import java.io.Serializable;

/**
 * Stub of InstantiationUtil (restoresim): the real one reaches Kryo through the type serializers.
 * Plain Java serialization and reflection are all the restore path asks of it. The methods over a
 * TypeSerializer, and resolveClassByName, are named by the classes a SQL key's types reach
 * (BinaryRawValueData of a RAW value, TypeSerializerSnapshotSerializationUtil reading a
 * serializer snapshot); the driver (SqlKey.java) writes no RAW value and reads no serializer
 * snapshot, so they throw.
 */
public final class InstantiationUtil {
    private InstantiationUtil() {}

    /** An object stream resolving classes with a given class loader. */
    public static class ClassLoaderObjectInputStream extends ObjectInputStream {
        private final ClassLoader classLoader;

        public ClassLoaderObjectInputStream(InputStream in, ClassLoader classLoader)
                throws IOException {
            super(in);
            this.classLoader = classLoader;
        }

        @Override
        protected Class<?> resolveClass(ObjectStreamClass desc)
                throws IOException, ClassNotFoundException {
            if (classLoader != null) {
                return Class.forName(desc.getName(), false, classLoader);
            }
            return super.resolveClass(desc);
        }
    }

    public static <T> T instantiate(Class<T> clazz) {
        try {
            return clazz.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new RuntimeException("Could not instantiate " + clazz.getName(), e);
        }
    }

    public static <T> T instantiate(Class<T> clazz, Class<? super T> castTo) {
        return instantiate(clazz);
    }

    @SuppressWarnings("unchecked")
    public static <T> T deserializeObject(byte[] bytes, ClassLoader cl)
            throws IOException, ClassNotFoundException {
        return (T) deserializeObject(new ByteArrayInputStream(bytes), cl);
    }

    @SuppressWarnings("unchecked")
    public static <T> T deserializeObject(InputStream in, ClassLoader cl)
            throws IOException, ClassNotFoundException {
        return (T) new ClassLoaderObjectInputStream(in, cl).readObject();
    }

    public static byte[] serializeObject(Object o) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        serializeObject(out, o);
        return out.toByteArray();
    }

    public static void serializeObject(OutputStream out, Object o) throws IOException {
        ObjectOutputStream oos = new ObjectOutputStream(out);
        oos.writeObject(o);
        oos.flush();
    }

    public static boolean isSerializable(Object o) {
        try {
            serializeObject(o);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    public static <T extends Serializable> T clone(T obj)
            throws IOException, ClassNotFoundException {
        return obj == null ? null : clone(obj, obj.getClass().getClassLoader());
    }

    public static <T extends Serializable> T clone(T obj, ClassLoader classLoader)
            throws IOException, ClassNotFoundException {
        return obj == null ? null : deserializeObject(serializeObject(obj), classLoader);
    }

    public static <T extends Serializable> T cloneUnchecked(T obj) {
        try {
            return clone(obj);
        } catch (IOException | ClassNotFoundException e) {
            throw new RuntimeException("Could not clone " + obj, e);
        }
    }

    public static <T> byte[] serializeToByteArray(TypeSerializer<T> serializer, T record)
            throws IOException {
        throw new UnsupportedOperationException("restoresim: no serializer runs here");
    }

    public static <T> T deserializeFromByteArray(TypeSerializer<T> serializer, byte[] buf)
            throws IOException {
        throw new UnsupportedOperationException("restoresim: no serializer runs here");
    }

    public static <T> Class<T> resolveClassByName(
            DataInputView in, ClassLoader cl, Class<? super T> supertype) throws IOException {
        throw new UnsupportedOperationException("restoresim: no serializer snapshot is read");
    }
}
