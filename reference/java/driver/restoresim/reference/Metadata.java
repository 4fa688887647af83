package restoresim.reference;

import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.checkpoint.metadata.MetadataSerializer;
import org.apache.flink.runtime.checkpoint.metadata.MetadataSerializers;
import org.apache.flink.runtime.state.filesystem.AbstractFsCheckpointStorageAccess;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A _metadata file read and written back by Flink's own Checkpoints.loadCheckpointMetadata and
 * Checkpoints.storeCheckpointMetadata. The file is read as a restore reads it: the external pointer
 * is a real checkpoint directory (an empty one the driver makes, holding a _metadata file), against
 * which relative file handles are resolved. The write takes the serializer Flink writes by default,
 * or the one of a given format version ("write_version"). Where the store method differs between
 * versions (2.2 added the exclusive directory, renaming the variant without it) it is looked up by
 * reflection, so one driver source compiles against every branch.
 */
final class Metadata {
    private static String pointer;

    private Metadata() {}

    static Object roundTrip(Map<String, Object> req) {
        Object b = req.get("bytes");
        if (!(b instanceof String)) {
            throw new IllegalArgumentException("metadata_roundtrip: \"bytes\" (base64) is missing");
        }
        byte[] in = Base64.getDecoder().decode((String) b);
        int writeVersion = 0;
        if (req.get("write_version") instanceof Number) {
            writeVersion = ((Number) req.get("write_version")).intValue();
        }
        CheckpointMetadata md;
        try {
            md =
                    Checkpoints.loadCheckpointMetadata(
                            new DataInputStream(new ByteArrayInputStream(in)),
                            Metadata.class.getClassLoader(),
                            pointer());
        } catch (Throwable t) {
            return Assign.errorAnswer("read", t);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            store(md, new DataOutputStream(out), writeVersion);
        } catch (Throwable t) {
            return Assign.errorAnswer("write", unwrap(t));
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("bytes", Base64.getEncoder().encodeToString(out.toByteArray()));
        m.put("version", (long) readInt(in, 4));
        m.put("written_version", (long) readInt(out.toByteArray(), 4));
        m.put("checkpoint_id", md.getCheckpointId());
        m.put("operators", (long) md.getOperatorStates().size());
        return m;
    }

    /**
     * Checkpoints.storeCheckpointMetadata(metadata, out[, serializer]) up to 2.1; from 2.2 on the
     * store with the exclusive directory the file was read from (relative handles inside it stay
     * relative, as when the JobManager writes a checkpoint there).
     */
    static void store(CheckpointMetadata md, DataOutputStream out, int version)
            throws Throwable {
        MetadataSerializer serializer =
                version == 0 ? null : MetadataSerializers.getSerializer(version);
        Method withDir =
                method(
                        "storeCheckpointMetadata",
                        CheckpointMetadata.class,
                        DataOutputStream.class,
                        MetadataSerializer.class,
                        Path.class);
        try {
            if (withDir != null) {
                Path dir =
                        AbstractFsCheckpointStorageAccess.resolveCheckpointPointer(pointer())
                                .getExclusiveCheckpointDir();
                if (serializer == null) {
                    method(
                                    "storeCheckpointMetadata",
                                    CheckpointMetadata.class,
                                    DataOutputStream.class,
                                    Path.class)
                            .invoke(null, md, out, dir);
                } else {
                    withDir.invoke(null, md, out, serializer, dir);
                }
            } else if (serializer == null) {
                method("storeCheckpointMetadata", CheckpointMetadata.class, DataOutputStream.class)
                        .invoke(null, md, out);
            } else {
                method(
                                "storeCheckpointMetadata",
                                CheckpointMetadata.class,
                                DataOutputStream.class,
                                MetadataSerializer.class)
                        .invoke(null, md, out, serializer);
            }
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
        out.flush();
    }

    private static Method method(String name, Class<?>... params) {
        try {
            return Checkpoints.class.getMethod(name, params);
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    /** Writes the _metadata file of the driver's checkpoint directory; returns its pointer. */
    static String writeMetadata(byte[] bytes) throws IOException {
        String p = pointer();
        Files.write(new File(new File(java.net.URI.create(p)), "_metadata").toPath(), bytes);
        return p;
    }

    /** A checkpoint directory holding a _metadata file, made once: the external pointer. */
    static synchronized String pointer() throws IOException {
        if (pointer == null) {
            File dir = Files.createTempDirectory("restoresim-reference-").toFile();
            dir.deleteOnExit();
            File chk = new File(dir, "chk-1");
            if (!chk.mkdir()) {
                throw new IOException("cannot create " + chk);
            }
            chk.deleteOnExit();
            File md = new File(chk, "_metadata");
            Files.write(md.toPath(), new byte[0]);
            md.deleteOnExit();
            pointer = chk.toURI().toString();
        }
        return pointer;
    }

    static int readInt(byte[] b, int at) {
        if (b.length < at + 4) {
            return -1;
        }
        return ((b[at] & 0xff) << 24)
                | ((b[at + 1] & 0xff) << 16)
                | ((b[at + 2] & 0xff) << 8)
                | (b[at + 3] & 0xff);
    }

    static Throwable unwrap(Throwable t) {
        while (t instanceof InvocationTargetException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
