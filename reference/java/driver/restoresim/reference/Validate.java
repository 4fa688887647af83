package restoresim.reference;

import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.checkpoint.CheckpointProperties;
import org.apache.flink.runtime.checkpoint.CheckpointRetentionPolicy;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.CompletedCheckpoint;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.executiongraph.ExecutionJobVertex;
import org.apache.flink.runtime.jobgraph.JobVertexID;
import org.apache.flink.runtime.state.CompletedCheckpointStorageLocation;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.memory.ByteStreamStateHandle;
import org.apache.flink.runtime.state.filesystem.AbstractFsCheckpointStorageAccess;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A _metadata file and a new job run through Flink's own Checkpoints.loadAndValidateCheckpoint:
 * the file is written as the _metadata of the driver's checkpoint directory and resolved as a
 * restore resolves it (AbstractFsCheckpointStorageAccess.resolveCheckpointPointer); the new job's
 * vertices are built as for an assignment case (Assign.vertices), in input order. The answer lists
 * the operator states Flink accepted, in metadata order, or Flink's refusal.
 */
final class Validate {
    private Validate() {}

    static Object run(Map<String, Object> req) {
        Object b = req.get("bytes");
        if (!(b instanceof String)) {
            throw new IllegalArgumentException("load_and_validate: \"bytes\" (base64) is missing");
        }
        byte[] bytes = Base64.getDecoder().decode((String) b);
        boolean allowNonRestored = Boolean.TRUE.equals(req.get("allow_non_restored_state"));
        return validate(bytes, req.get("vertices"), allowNonRestored, null);
    }

    /**
     * The answer of load_and_validate to a file and a job. md, when not null, is the file as
     * Checkpoints.loadCheckpointMetadata read it against the driver's checkpoint directory (it
     * orders the accepted states; else the file is read again for that).
     */
    static Map<String, Object> validate(
            byte[] bytes, Object vertices, boolean allowNonRestored, CheckpointMetadata md) {
        Map<String, Object> job = new LinkedHashMap<>();
        job.put("vertices", vertices);
        Map<JobVertexID, ExecutionJobVertex> tasks = new LinkedHashMap<>();
        try {
            for (ExecutionJobVertex v : new Assign(job).vertices()) {
                tasks.put(v.getJobVertexId(), v);
            }
        } catch (Throwable t) {
            return Assign.errorAnswer("build", t);
        }
        String pointer;
        CompletedCheckpoint cp;
        try {
            pointer = Metadata.writeMetadata(bytes);
            CompletedCheckpointStorageLocation location =
                    readFromMemory(
                            AbstractFsCheckpointStorageAccess.resolveCheckpointPointer(pointer),
                            bytes);
            cp =
                    Checkpoints.loadAndValidateCheckpoint(
                            new JobID(),
                            tasks,
                            location,
                            Validate.class.getClassLoader(),
                            allowNonRestored,
                            CheckpointProperties.forCheckpoint(
                                    CheckpointRetentionPolicy.NEVER_RETAIN_AFTER_TERMINATION));
        } catch (Throwable t) {
            return Assign.errorAnswer("validate", t);
        }
        // The accepted states are a map: list them in metadata order.
        List<Object> accepted = new ArrayList<>();
        try {
            if (md == null) {
                md =
                        Checkpoints.loadCheckpointMetadata(
                                new DataInputStream(new ByteArrayInputStream(bytes)),
                                Validate.class.getClassLoader(),
                                pointer);
            }
            for (OperatorState s : md.getOperatorStates()) {
                if (cp.getOperatorStates().containsKey(s.getOperatorID())) {
                    accepted.add(s.getOperatorID().toHexString());
                }
            }
        } catch (Throwable t) {
            return Assign.errorAnswer("driver", t);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("checkpoint_id", cp.getCheckpointID());
        m.put("external_pointer", cp.getExternalPointer());
        m.put("operators", accepted);
        return m;
    }

    /**
     * load_checkpoint: metadata_roundtrip and load_and_validate in one request, the file sent
     * once and read once. The file is read by Checkpoints.loadCheckpointMetadata and written back
     * by storeCheckpointMetadata in Flink's default format version ("roundtrip": the versions,
     * and the written bytes only when they differ from the file's, else "same": true); a read or
     * write refusal is the whole answer, as metadata_roundtrip's. Then load_and_validate runs
     * ("validate") on the file, or, with "validate_written" and the file written back in its own
     * format version, on Flink's bytes. A refusal whose message names a file: URI also carries
     * the "external_pointer" of the checkpoint (load_and_validate of the same bytes and no
     * vertices, allowing non-restored state), so that the caller can name it as its own.
     */
    static Object loadCheckpoint(Map<String, Object> req) {
        Object b = req.get("bytes");
        if (!(b instanceof String)) {
            throw new IllegalArgumentException("load_checkpoint: \"bytes\" (base64) is missing");
        }
        byte[] in = Base64.getDecoder().decode((String) b);
        boolean allowNonRestored = Boolean.TRUE.equals(req.get("allow_non_restored_state"));
        boolean validateWritten = Boolean.TRUE.equals(req.get("validate_written"));
        CheckpointMetadata md;
        try {
            md =
                    Checkpoints.loadCheckpointMetadata(
                            new DataInputStream(new ByteArrayInputStream(in)),
                            Validate.class.getClassLoader(),
                            Metadata.pointer());
        } catch (Throwable t) {
            return Assign.errorAnswer("read", t);
        }
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try {
            Metadata.store(md, new DataOutputStream(buf), 0);
        } catch (Throwable t) {
            return Assign.errorAnswer("write", Metadata.unwrap(t));
        }
        byte[] written = buf.toByteArray();
        boolean same = Arrays.equals(in, written);
        int version = Metadata.readInt(in, 4);
        int writtenVersion = Metadata.readInt(written, 4);
        Map<String, Object> rt = new LinkedHashMap<>();
        rt.put("same", same);
        if (!same) {
            rt.put("bytes", Base64.getEncoder().encodeToString(written));
        }
        rt.put("version", (long) version);
        rt.put("written_version", (long) writtenVersion);
        rt.put("checkpoint_id", md.getCheckpointId());
        rt.put("operators", (long) md.getOperatorStates().size());

        byte[] loaded = in;
        CheckpointMetadata loadedMd = md;
        if (validateWritten && version == writtenVersion && !same) {
            loaded = written;
            loadedMd = null;
        }
        Map<String, Object> v = validate(loaded, req.get("vertices"), allowNonRestored, loadedMd);
        Object err = v.get("error");
        if (err instanceof Map
                && String.valueOf(((Map<?, ?>) err).get("message")).contains("file:")) {
            Map<String, Object> p = validate(loaded, new ArrayList<>(), true, loadedMd);
            Object ptr = p.get("external_pointer");
            if (!p.containsKey("error") && ptr != null) {
                v.put("external_pointer", ptr);
            }
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("roundtrip", rt);
        m.put("validate", v);
        return m;
    }

    /**
     * The location as resolved, except that its metadata handle's stream reads the bytes the
     * driver just wrote into the handle's file from memory. Flink's loadAndValidateCheckpoint
     * reads the file through an unbuffered local-file stream, a system call for each field: the
     * same bytes, read from memory, are read the same way at a fraction of the cost. Everything
     * else (the external pointer, the handle's path, its disposal) is the resolved location's.
     * Both are wrapped by dynamic proxies of their interfaces, which hold on every branch.
     */
    static CompletedCheckpointStorageLocation readFromMemory(
            CompletedCheckpointStorageLocation location, byte[] bytes) {
        StreamStateHandle file = location.getMetadataHandle();
        StreamStateHandle handle =
                (StreamStateHandle)
                        Proxy.newProxyInstance(
                                Validate.class.getClassLoader(),
                                new Class<?>[] {StreamStateHandle.class},
                                (proxy, method, args) -> {
                                    if (method.getName().equals("openInputStream")
                                            && method.getParameterCount() == 0) {
                                        return new ByteStreamStateHandle("_metadata", bytes)
                                                .openInputStream();
                                    }
                                    return delegate(method, file, args);
                                });
        return (CompletedCheckpointStorageLocation)
                Proxy.newProxyInstance(
                        Validate.class.getClassLoader(),
                        new Class<?>[] {CompletedCheckpointStorageLocation.class},
                        (proxy, method, args) -> {
                            if (method.getName().equals("getMetadataHandle")
                                    && method.getParameterCount() == 0) {
                                return handle;
                            }
                            return delegate(method, location, args);
                        });
    }

    private static Object delegate(Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
