package restoresim.reference;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.checkpoint.CheckpointProperties;
import org.apache.flink.runtime.checkpoint.CheckpointRetentionPolicy;
import org.apache.flink.runtime.checkpoint.CheckpointsCleaner;
import org.apache.flink.runtime.checkpoint.CompletedCheckpoint;
import org.apache.flink.runtime.checkpoint.CompletedCheckpointStats;
import org.apache.flink.runtime.checkpoint.CompletedCheckpointStore;
import org.apache.flink.runtime.checkpoint.MasterState;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.StandaloneCompletedCheckpointStore;
import org.apache.flink.runtime.checkpoint.StateObjectCollection;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.state.CompletedCheckpointStorageLocation;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.SharedStateRegistry;
import org.apache.flink.runtime.state.SharedStateRegistryFactory;
import org.apache.flink.runtime.state.StateHandleID;
import org.apache.flink.runtime.state.memory.ByteStreamStateHandle;
import org.apache.flink.util.concurrent.Executors;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executor;

/**
 * A script of calls on one StandaloneCompletedCheckpointStore (Flink's own, with its own
 * SharedStateRegistryImpl and a CheckpointsCleaner, every executor direct), made as
 * CheckpointCoordinator makes them: a snapshot restored as restoreSavepoint restores it, the
 * shared state of a checkpoint registered when its tasks acknowledge it, the checkpoint added
 * when it completes, the store shut down with a job status.
 */
final class Store {
    private Store() {}

    /** The files deleted, in order: every state handle of a script is a Recording. */
    private static final List<Object> DELETED = new ArrayList<>();

    /** The checkpoints whose storage location was disposed, in order. */
    private static final List<Object> DISPOSED = new ArrayList<>();

    /** A stream whose discardState records that it was deleted. */
    static final class Recording extends ByteStreamStateHandle {
        private static final long serialVersionUID = 1L;

        Recording(String name, int size) {
            super(name, new byte[size]);
        }

        @Override
        public void discardState() {
            DELETED.add(getHandleName());
        }
    }

    /**
     * {"op":"store","retained":n,"mode":"NO_CLAIM","retention":"NEVER_RETAIN_AFTER_TERMINATION",
     * "steps":[step...]} → {"steps":[{"retained":[ids],"latest":id|null,"subsumed":id|null,
     * "deleted":[names],"discarded":[ids],"error":{..}?}...]} or, when the store cannot be built,
     * {"error":{..}}. A step is one of
     *
     * <ul>
     *   <li>{"restore":id,"sharing":"NO_SHARING"|"FORWARD_BACKWARD"|null,"state":s}: restoreSavepoint's
     *       part with the store: the snapshot's properties by restore mode (the switch of
     *       CheckpointCoordinator.restoreSavepoint), registerSharedStatesAfterRestored, then
     *       addCheckpointAndSubsumeOldestOne;
     *   <li>{"register":id,"state":s}: the acknowledgement of checkpoint id's task:
     *       OperatorSubtaskState.registerSharedStates(registry, id);
     *   <li>{"complete":id,"state":s}: both of the above for a checkpoint (the job's checkpoint
     *       properties): its state registered, then added;
     *   <li>{"add":id,"kind":"CHECKPOINT"|"SAVEPOINT"|"SYNC_SAVEPOINT","state":s}:
     *       addCheckpointAndSubsumeOldestOne of a completed checkpoint (the job's checkpoint
     *       properties) or savepoint;
     *   <li>{"shutdown":"FINISHED"}: shutdown(jobStatus, cleaner).
     * </ul>
     *
     * The state s of a snapshot, {"handle":id,"shared":[{"path":p,"size":n}],"private":[..],
     * "meta":{..}}, is one operator with one subtask whose managed keyed state is one
     * IncrementalRemoteKeyedStateHandle; the snapshot's _metadata is "chk-<id>/_metadata".
     */
    static Object run(Map<String, Object> req) throws Exception {
        DELETED.clear();
        DISPOSED.clear();
        String mode = (String) req.get("mode");
        CheckpointProperties jobProps =
                CheckpointProperties.forCheckpoint(
                        CheckpointRetentionPolicy.valueOf((String) req.get("retention")));
        Executor direct = Executors.directExecutor();
        CompletedCheckpointStore store;
        Class<?> modeClass;
        try {
            Constructor<?> ctor = storeConstructor();
            modeClass = ctor.getParameterTypes()[3];
            store =
                    (CompletedCheckpointStore)
                            ctor.newInstance(
                                    ((Number) req.get("retained")).intValue(),
                                    SharedStateRegistry.DEFAULT_FACTORY,
                                    direct,
                                    enumValue(modeClass, mode));
        } catch (InvocationTargetException e) {
            return Assign.errorAnswer("store", e.getCause());
        }
        CheckpointsCleaner cleaner = new CheckpointsCleaner();
        // The pending checkpoints: acknowledged (their state registered), not yet added.
        Map<Long, OperatorState> pending = new HashMap<>();
        List<Object> out = new ArrayList<>();
        for (Object so : (List<?>) req.get("steps")) {
            Map<?, ?> s = (Map<?, ?>) so;
            Map<String, Object> m = new LinkedHashMap<>();
            CompletedCheckpoint subsumed = null;
            try {
                if (s.containsKey("restore")) {
                    long id = ((Number) s.get("restore")).longValue();
                    CheckpointProperties props;
                    switch (mode) {
                        case "CLAIM":
                            props = jobProps;
                            break;
                        case "LEGACY":
                            props = CheckpointProperties.forSavepoint(false, SavepointFormatType.CANONICAL);
                            break;
                        default:
                            props = CheckpointProperties.forUnclaimedSnapshot();
                    }
                    CompletedCheckpoint cp =
                            checkpoint(id, operator(id, (Map<?, ?>) s.get("state")), props,
                                    restoredProperties((String) s.get("sharing")));
                    Method register =
                            CompletedCheckpoint.class.getMethod(
                                    "registerSharedStatesAfterRestored",
                                    SharedStateRegistry.class,
                                    modeClass);
                    register.invoke(cp, store.getSharedStateRegistry(), enumValue(modeClass, mode));
                    subsumed = store.addCheckpointAndSubsumeOldestOne(cp, cleaner, () -> {});
                } else if (s.containsKey("register")) {
                    long id = ((Number) s.get("register")).longValue();
                    OperatorState op = operator(id, (Map<?, ?>) s.get("state"));
                    pending.put(id, op);
                    for (OperatorSubtaskState st : op.getStates()) {
                        st.registerSharedStates(store.getSharedStateRegistry(), id);
                    }
                } else if (s.containsKey("complete")) {
                    long id = ((Number) s.get("complete")).longValue();
                    OperatorState op = operator(id, (Map<?, ?>) s.get("state"));
                    for (OperatorSubtaskState st : op.getStates()) {
                        st.registerSharedStates(store.getSharedStateRegistry(), id);
                    }
                    subsumed =
                            store.addCheckpointAndSubsumeOldestOne(
                                    checkpoint(id, op, jobProps, null), cleaner, () -> {});
                } else if (s.containsKey("add")) {
                    long id = ((Number) s.get("add")).longValue();
                    OperatorState op = pending.remove(id);
                    if (op == null) {
                        op = operator(id, (Map<?, ?>) s.get("state"));
                    }
                    CheckpointProperties props;
                    switch ((String) s.get("kind")) {
                        case "CHECKPOINT":
                            props = jobProps;
                            break;
                        case "SAVEPOINT":
                            props = CheckpointProperties.forSavepoint(true, SavepointFormatType.CANONICAL);
                            break;
                        case "SYNC_SAVEPOINT":
                            props =
                                    CheckpointProperties.forSyncSavepoint(
                                            true, true, SavepointFormatType.CANONICAL);
                            break;
                        default:
                            throw new IllegalArgumentException("unknown kind " + s.get("kind"));
                    }
                    subsumed =
                            store.addCheckpointAndSubsumeOldestOne(
                                    checkpoint(id, op, props, null), cleaner, () -> {});
                } else if (s.containsKey("shutdown")) {
                    store.shutdown(JobStatus.valueOf((String) s.get("shutdown")), cleaner);
                } else {
                    throw new IllegalArgumentException("unknown store step " + s);
                }
            } catch (InvocationTargetException e) {
                m.putAll(Assign.errorAnswer("store", e.getCause()));
            } catch (Exception e) {
                m.putAll(Assign.errorAnswer("store", e));
            }
            List<Object> retained = new ArrayList<>();
            for (CompletedCheckpoint c : store.getAllCheckpoints()) {
                retained.add(c.getCheckpointID());
            }
            m.put("retained", retained);
            CompletedCheckpoint latest = store.getLatestCheckpoint();
            m.put("latest", latest == null ? null : latest.getCheckpointID());
            m.put("subsumed", subsumed == null ? null : subsumed.getCheckpointID());
            m.put("deleted", new ArrayList<>(DELETED));
            m.put("discarded", new ArrayList<>(DISPOSED));
            DELETED.clear();
            DISPOSED.clear();
            out.add(m);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("steps", out);
        return m;
    }

    private static Constructor<?> storeConstructor() {
        for (Constructor<?> c : StandaloneCompletedCheckpointStore.class.getConstructors()) {
            Class<?>[] ps = c.getParameterTypes();
            if (ps.length == 4 && ps[1] == SharedStateRegistryFactory.class) {
                return c;
            }
        }
        throw new IllegalStateException("no StandaloneCompletedCheckpointStore(int, factory, executor, mode)");
    }

    /** The properties a restored snapshot's metadata records (null: none recorded). */
    private static CheckpointProperties restoredProperties(String sharing) {
        if ("NO_SHARING".equals(sharing)) {
            return CheckpointProperties.forSavepoint(true, SavepointFormatType.NATIVE);
        }
        if ("FORWARD_BACKWARD".equals(sharing)) {
            return CheckpointProperties.forCheckpoint(
                    CheckpointRetentionPolicy.NEVER_RETAIN_AFTER_TERMINATION);
        }
        return null;
    }

    private static CompletedCheckpoint checkpoint(
            long id, OperatorState op, CheckpointProperties props, CheckpointProperties restored) {
        CompletedCheckpointStorageLocation location =
                (CompletedCheckpointStorageLocation)
                        Proxy.newProxyInstance(
                                Store.class.getClassLoader(),
                                new Class<?>[] {CompletedCheckpointStorageLocation.class},
                                (p, method, args) -> {
                                    switch (method.getName()) {
                                        case "getExternalPointer":
                                            return "restoresim://chk-" + id;
                                        case "getMetadataHandle":
                                            return new Recording("chk-" + id + "/_metadata", 1);
                                        case "disposeStorageLocation":
                                            DISPOSED.add(id);
                                            return null;
                                        case "hashCode":
                                            return System.identityHashCode(p);
                                        case "equals":
                                            return p == args[0];
                                        case "toString":
                                            return "restoresim://chk-" + id;
                                        default:
                                            return null;
                                    }
                                });
        Map<OperatorID, OperatorState> ops = new HashMap<>();
        ops.put(op.getOperatorID(), op);
        return new CompletedCheckpoint(
                new JobID(),
                id,
                0L,
                0L,
                ops,
                Collections.<MasterState>emptyList(),
                props,
                location,
                (CompletedCheckpointStats) null,
                restored);
    }

    /** The operator of the job (one subtask, max parallelism 128) with snapshot id's state. */
    private static OperatorState operator(long id, Map<?, ?> s) throws Exception {
        OperatorID opID = new OperatorID(1L, 1L);
        OperatorState op;
        Constructor<?> five = null;
        Constructor<?> three = null;
        for (Constructor<?> c : OperatorState.class.getConstructors()) {
            if (c.getParameterCount() == 5) {
                five = c;
            } else if (c.getParameterCount() == 3) {
                three = c;
            }
        }
        if (five != null) {
            op = (OperatorState) five.newInstance(null, null, opID, 1, 128);
        } else {
            op = (OperatorState) three.newInstance(opID, 1, 128);
        }
        IncrementalRemoteKeyedStateHandle h =
                IncrementalRemoteKeyedStateHandle.restore(
                        new UUID(0L, 1L),
                        KeyGroupRange.of(0, 127),
                        id,
                        files(s.get("shared")),
                        files(s.get("private")),
                        stream((Map<?, ?>) s.get("meta")),
                        -1L,
                        new StateHandleID((String) s.get("handle")));
        op.putState(
                0,
                OperatorSubtaskState.builder()
                        .setManagedKeyedState(StateObjectCollection.singleton(h))
                        .build());
        return op;
    }

    private static List<IncrementalRemoteKeyedStateHandle.HandleAndLocalPath> files(Object o) {
        List<IncrementalRemoteKeyedStateHandle.HandleAndLocalPath> l = new ArrayList<>();
        for (Object f : (List<?>) o) {
            Map<?, ?> m = (Map<?, ?>) f;
            String path = (String) m.get("path");
            l.add(
                    IncrementalRemoteKeyedStateHandle.HandleAndLocalPath.of(
                            stream(m), path.substring(path.lastIndexOf('/') + 1)));
        }
        return l;
    }

    private static Recording stream(Map<?, ?> m) {
        return new Recording((String) m.get("path"), ((Number) m.get("size")).intValue());
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Object enumValue(Class<?> c, String name) {
        return Enum.valueOf((Class) c, name);
    }
}
