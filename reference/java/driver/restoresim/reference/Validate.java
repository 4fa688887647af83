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
import org.apache.flink.runtime.state.filesystem.AbstractFsCheckpointStorageAccess;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.util.ArrayList;
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
        Map<String, Object> job = new LinkedHashMap<>();
        job.put("vertices", req.get("vertices"));
        boolean allowNonRestored = Boolean.TRUE.equals(req.get("allow_non_restored_state"));
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
                    AbstractFsCheckpointStorageAccess.resolveCheckpointPointer(pointer);
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
            CheckpointMetadata md =
                    Checkpoints.loadCheckpointMetadata(
                            new DataInputStream(new ByteArrayInputStream(bytes)),
                            Validate.class.getClassLoader(),
                            pointer);
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
}
