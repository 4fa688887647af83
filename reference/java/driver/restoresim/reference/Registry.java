package restoresim.reference;

import org.apache.flink.api.common.JobID;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.checkpoint.CheckpointProperties;
import org.apache.flink.runtime.checkpoint.CheckpointRetentionPolicy;
import org.apache.flink.runtime.checkpoint.CompletedCheckpoint;
import org.apache.flink.runtime.checkpoint.CompletedCheckpointStats;
import org.apache.flink.runtime.checkpoint.MasterState;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.state.CompletedCheckpointStorageLocation;
import org.apache.flink.runtime.state.PhysicalStateHandleID;
import org.apache.flink.runtime.state.PlaceholderStreamStateHandle;
import org.apache.flink.runtime.state.SharedStateRegistryImpl;
import org.apache.flink.runtime.state.SharedStateRegistryKey;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.memory.ByteStreamStateHandle;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A script of operations on one SharedStateRegistryImpl (Flink's own, with a direct executor):
 * registerReference, unregisterUnusedState and registerAllAfterRestored.
 */
final class Registry {
    private Registry() {}

    /** A stream whose discardState records that the registry deleted it. */
    static final class Recording extends ByteStreamStateHandle {
        private static final long serialVersionUID = 1L;
        Recording(String name, int size) {
            super(name, new byte[size]);
        }

        @Override
        public void discardState() {
            DELETED.add(handle(this));
        }
    }

    /**
     * {"op":"registry","steps":[{"register":key,"path":p,"size":n,"placeholder":b,"checkpoint":c,
     * "prevent":b} | {"unregister":lowest} | {"restored":c,"mode":"CLAIM","sharing":"NO_SHARING"|
     * "FORWARD_BACKWARD"|null}]} → {"steps":[{"handle":{..}} | {"discarded":[..],"in_use":[..]} |
     * {} | {"error":{..}}]}.
     */
    static Object run(Map<String, Object> req) throws Exception {
        SharedStateRegistryImpl reg = new SharedStateRegistryImpl();
        List<Object> out = new ArrayList<>();
        for (Object so : (List<?>) req.get("steps")) {
            Map<?, ?> s = (Map<?, ?>) so;
            Map<String, Object> m = new LinkedHashMap<>();
            try {
                if (s.containsKey("register")) {
                    String path = (String) s.get("path");
                    int size = ((Number) s.get("size")).intValue();
                    StreamStateHandle h;
                    if (Boolean.TRUE.equals(s.get("placeholder"))) {
                        h = placeholder(path, size);
                    } else {
                        h = new Recording(path, size);
                    }
                    StreamStateHandle got =
                            reg.registerReference(
                                    new SharedStateRegistryKey((String) s.get("register")),
                                    h,
                                    ((Number) s.get("checkpoint")).longValue(),
                                    Boolean.TRUE.equals(s.get("prevent")));
                    m.put("handle", handle(got));
                } else if (s.containsKey("unregister")) {
                    Set<Long> inUse =
                            reg.unregisterUnusedState(((Number) s.get("unregister")).longValue());
                    m.put("discarded", drainDeleted());
                    m.put("in_use", new ArrayList<>(new TreeSet<>(inUse)));
                } else if (s.containsKey("restored")) {
                    restored(reg, ((Number) s.get("restored")).longValue(), (String) s.get("mode"),
                            (String) s.get("sharing"));
                } else {
                    throw new IllegalArgumentException("unknown registry step " + s);
                }
            } catch (RuntimeException e) {
                out.add(Assign.errorAnswer("registry", e));
                continue;
            }
            out.add(m);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("steps", out);
        return m;
    }

    /** The Recordings deleted since the last drain (the registry's executor is direct). */
    private static final List<Object> DELETED = new ArrayList<>();

    private static List<Object> drainDeleted() {
        List<Object> d = new ArrayList<>(DELETED);
        DELETED.clear();
        return d;
    }

    static Map<String, Object> handle(StreamStateHandle h) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (h instanceof PlaceholderStreamStateHandle) {
            m.put("path", h.getStreamStateHandleID().getKeyString());
            m.put("placeholder", Boolean.TRUE);
        } else {
            m.put("path", ((ByteStreamStateHandle) h).getHandleName());
        }
        m.put("size", h.getStateSize());
        return m;
    }

    private static StreamStateHandle placeholder(String path, long size) throws Exception {
        PhysicalStateHandleID id = new PhysicalStateHandleID(path);
        for (Constructor<?> c : PlaceholderStreamStateHandle.class.getConstructors()) {
            if (c.getParameterCount() == 2) {
                return (StreamStateHandle) c.newInstance(id, size);
            }
            if (c.getParameterCount() == 3) {
                return (StreamStateHandle) c.newInstance(id, size, false);
            }
        }
        throw new IllegalStateException("no PlaceholderStreamStateHandle constructor");
    }

    private static void restored(SharedStateRegistryImpl reg, long id, String mode, String sharing)
            throws Exception {
        CheckpointProperties restoredProps = null;
        if ("NO_SHARING".equals(sharing)) {
            restoredProps = CheckpointProperties.forSavepoint(true, SavepointFormatType.NATIVE);
        } else if ("FORWARD_BACKWARD".equals(sharing)) {
            restoredProps =
                    CheckpointProperties.forCheckpoint(
                            CheckpointRetentionPolicy.NEVER_RETAIN_AFTER_TERMINATION);
        }
        CompletedCheckpointStorageLocation location =
                (CompletedCheckpointStorageLocation)
                        Proxy.newProxyInstance(
                                Registry.class.getClassLoader(),
                                new Class<?>[] {CompletedCheckpointStorageLocation.class},
                                (p, method, args) -> {
                                    if ("getExternalPointer".equals(method.getName())) {
                                        return "restoresim://chk-" + id;
                                    }
                                    return null;
                                });
        CompletedCheckpoint cp =
                new CompletedCheckpoint(
                        new JobID(),
                        id,
                        0L,
                        0L,
                        new HashMap<OperatorID, org.apache.flink.runtime.checkpoint.OperatorState>(),
                        Collections.<MasterState>emptyList(),
                        CheckpointProperties.forCheckpoint(
                                CheckpointRetentionPolicy.NEVER_RETAIN_AFTER_TERMINATION),
                        location,
                        (CompletedCheckpointStats) null,
                        restoredProps);
        for (Method m : SharedStateRegistryImpl.class.getMethods()) {
            if (m.getName().equals("registerAllAfterRestored")) {
                Class<?> modeClass = m.getParameterTypes()[1];
                m.invoke(reg, cp, enumValue(modeClass, mode));
                return;
            }
        }
        throw new IllegalStateException("no registerAllAfterRestored");
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Object enumValue(Class<?> c, String name) {
        return Enum.valueOf((Class) c, name);
    }
}
