package restoresim.reference;

import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.OperatorIDPair;
import org.apache.flink.runtime.checkpoint.FinishedOperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.InflightDataRescalingDescriptor;
import org.apache.flink.runtime.checkpoint.JobManagerTaskRestore;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.RescaleMappings;
import org.apache.flink.runtime.checkpoint.StateAssignmentOperation;
import org.apache.flink.runtime.checkpoint.StateObjectCollection;
import org.apache.flink.runtime.checkpoint.TaskStateSnapshot;
import org.apache.flink.runtime.checkpoint.channel.InputChannelInfo;
import org.apache.flink.runtime.checkpoint.channel.ResultSubpartitionInfo;
import org.apache.flink.runtime.executiongraph.ExecutionJobVertex;
import org.apache.flink.runtime.io.network.api.writer.SubtaskStateMapper;
import org.apache.flink.runtime.io.network.partition.ResultPartitionType;
import org.apache.flink.runtime.jobgraph.DistributionPattern;
import org.apache.flink.runtime.jobgraph.IntermediateDataSetID;
import org.apache.flink.runtime.jobgraph.JobEdge;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.runtime.jobgraph.JobVertexID;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.scheduler.DefaultVertexParallelismInfo;
import org.apache.flink.runtime.state.AbstractChannelStateHandle;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.InputChannelStateHandle;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.KeyGroupRangeOffsets;
import org.apache.flink.runtime.state.KeyGroupsSavepointStateHandle;
import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.OperatorStateHandle;
import org.apache.flink.runtime.state.OperatorStreamStateHandle;
import org.apache.flink.runtime.state.ResultSubpartitionStateHandle;
import org.apache.flink.runtime.state.StateHandleID;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.filesystem.FileStateHandle;
import org.apache.flink.runtime.state.filesystem.RelativeFileStateHandle;
import org.apache.flink.runtime.state.memory.ByteStreamStateHandle;
import org.apache.flink.util.CollectionUtil;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

/**
 * One assignment case (ASSIGN-CASE.md) run through Flink's own StateAssignmentOperation. The old
 * state is built as Flink's metadata loader builds it; the new job as the scheduler builds its
 * ExecutionJobVertex set (stubbed scaffolding, real JobEdge, IntermediateDataSet and
 * DefaultVertexParallelismInfo). Where a Flink API differs between versions (OperatorIDPair.of,
 * the OperatorState and StateAssignmentOperation constructors, upstream output buffer state) it is
 * looked up by reflection, so one driver source compiles against every branch.
 */
final class Assign {
    /** A refusal at one stage: the case's input, the new job's build, or assignStates. */
    static final class Stage extends Exception {
        final String stage;

        Stage(String stage, Throwable cause) {
            super(cause);
            this.stage = stage;
        }
    }

    private final Map<String, Object> c;

    Assign(Map<String, Object> c) {
        if (c == null) {
            throw new IllegalArgumentException("assign: no case");
        }
        this.c = c;
    }

    Object run() {
        try {
            return answer(runStages());
        } catch (Stage s) {
            return errorAnswer(s.stage, s.getCause());
        }
    }

    private List<ExecutionJobVertex> runStages() throws Stage {
        boolean recover = bool(c, "recover_output_on_downstream_task");
        Constructor<?> saoCtor = constructor(StateAssignmentOperation.class, 5, 4);
        if (c.containsKey("recover_output_on_downstream_task")
                && saoCtor.getParameterCount() == 4) {
            throw new Stage(
                    "input",
                    new IllegalArgumentException(
                            "recover_output_on_downstream_task does not exist in this Flink version"));
        }
        Map<OperatorID, OperatorState> oldStates;
        try {
            oldStates = oldStates();
        } catch (RuntimeException e) {
            throw new Stage("input", unwrap(e));
        }
        List<ExecutionJobVertex> vertices;
        try {
            vertices = vertices();
        } catch (Exception e) {
            throw new Stage("build", unwrap(e));
        }
        Set<ExecutionJobVertex> tasks = new HashSet<>(vertices);
        try {
            StateAssignmentOperation op;
            long id = num(c, "checkpoint_id");
            boolean allow = bool(c, "allow_non_restored_state");
            if (saoCtor.getParameterCount() == 5) {
                op = (StateAssignmentOperation) saoCtor.newInstance(id, tasks, oldStates, allow, recover);
            } else {
                op = (StateAssignmentOperation) saoCtor.newInstance(id, tasks, oldStates, allow);
            }
            op.assignStates();
        } catch (Exception e) {
            throw new Stage("assign", unwrap(e));
        }
        return vertices;
    }

    // ---------------------------------------------------------------- the new job

    List<ExecutionJobVertex> vertices() throws Exception {
        List<Object> vs = list(c, "vertices");
        List<JobVertex> jobVertices = new ArrayList<>();
        List<DefaultVertexParallelismInfo> infos = new ArrayList<>();
        for (int v = 0; v < vs.size(); v++) {
            Map<String, Object> vm = obj(vs.get(v));
            List<OperatorIDPair> pairs = new ArrayList<>();
            List<Object> ops = list(vm, "operators");
            if (ops.isEmpty()) {
                throw new IllegalArgumentException("vertex " + v + " has no operators");
            }
            for (Object o : ops) {
                Map<String, Object> om = obj(o);
                pairs.add(
                        operatorIDPair(
                                operatorID(str(om, "id")),
                                om.get("user_defined_id") == null
                                        ? null
                                        : operatorID(str(om, "user_defined_id")),
                                (String) om.get("name"),
                                (String) om.get("uid")));
            }
            // Default JobVertexID: the chain head's operator ID (the last in Flink's order).
            String vid = vm.get("id") != null ? str(vm, "id") : str(obj(ops.get(ops.size() - 1)), "id");
            JobVertex jv = new JobVertex(str(vm, "name"), new JobVertexID(hex(vid)), pairs);
            int parallelism = (int) num(vm, "parallelism");
            boolean configured = bool(vm, "max_parallelism_configured");
            int maxParallelism =
                    vm.get("max_parallelism") != null
                            ? (int) num(vm, "max_parallelism")
                            : KeyGroupRangeAssignment.computeDefaultMaxParallelism(parallelism);
            jv.setParallelism(parallelism);
            jv.setMaxParallelism(configured ? maxParallelism : JobVertex.MAX_PARALLELISM_DEFAULT);
            // As SchedulerBase.computeVertexParallelismStore: a max parallelism the user did not
            // configure may be replaced by the restored one.
            infos.add(
                    new DefaultVertexParallelismInfo(
                            parallelism,
                            maxParallelism,
                            newMax ->
                                    configured
                                            ? Optional.of(
                                                    "Cannot override a configured max parallelism.")
                                            : Optional.empty()));
            jobVertices.add(jv);
        }
        // Produced data sets: per upstream, in partition order; an edge without a partition takes
        // the next free index.
        List<List<Integer>> partitionOf = new ArrayList<>();
        List<Set<Integer>> taken = new ArrayList<>();
        for (int v = 0; v < vs.size(); v++) {
            taken.add(new TreeSet<>());
        }
        for (Object vo : vs) {
            for (Object eo : list(obj(vo), "inputs")) {
                Map<String, Object> em = obj(eo);
                if (em.get("partition") != null) {
                    taken.get(upstream(em, vs.size())).add((int) num(em, "partition"));
                }
            }
        }
        for (Object vo : vs) {
            List<Integer> ps = new ArrayList<>();
            for (Object eo : list(obj(vo), "inputs")) {
                Map<String, Object> em = obj(eo);
                int u = upstream(em, vs.size());
                int p;
                if (em.get("partition") != null) {
                    p = (int) num(em, "partition");
                } else {
                    p = 0;
                    while (taken.get(u).contains(p)) {
                        p++;
                    }
                    taken.get(u).add(p);
                }
                ps.add(p);
            }
            partitionOf.add(ps);
        }
        for (int u = 0; u < vs.size(); u++) {
            for (int p : taken.get(u)) {
                jobVertices
                        .get(u)
                        .getOrCreateResultDataSet(dataSetID(u, p), ResultPartitionType.PIPELINED_BOUNDED);
            }
        }
        for (int v = 0; v < vs.size(); v++) {
            List<Object> inputs = list(obj(vs.get(v)), "inputs");
            for (int g = 0; g < inputs.size(); g++) {
                Map<String, Object> em = obj(inputs.get(g));
                int u = upstream(em, vs.size());
                String pattern = (String) em.get("distribution_pattern");
                JobEdge edge =
                        jobVertices
                                .get(v)
                                .connectNewDataSetAsInput(
                                        jobVertices.get(u),
                                        pattern == null
                                                ? DistributionPattern.ALL_TO_ALL
                                                : DistributionPattern.valueOf(pattern),
                                        ResultPartitionType.PIPELINED_BOUNDED,
                                        dataSetID(u, partitionOf.get(v).get(g)),
                                        bool(em, "broadcast"),
                                        bool(em, "forward"));
                if (em.get("upstream_mapper") != null) {
                    edge.setUpstreamSubtaskStateMapper(
                            SubtaskStateMapper.valueOf(str(em, "upstream_mapper")));
                }
                if (em.get("downstream_mapper") != null) {
                    edge.setDownstreamSubtaskStateMapper(
                            SubtaskStateMapper.valueOf(str(em, "downstream_mapper")));
                }
            }
        }
        List<ExecutionJobVertex> ejvs = new ArrayList<>();
        for (int v = 0; v < vs.size(); v++) {
            ejvs.add(new ExecutionJobVertex(v, jobVertices.get(v), infos.get(v)));
        }
        // ExecutionJobVertex.connectToPredecessors: the inputs in the JobVertex's edge order.
        for (int v = 0; v < vs.size(); v++) {
            for (JobEdge edge : jobVertices.get(v).getInputs()) {
                ExecutionJobVertex producer = null;
                int producerIndex = jobVertices.indexOf(edge.getSource().getProducer());
                producer = ejvs.get(producerIndex);
                for (org.apache.flink.runtime.executiongraph.IntermediateResult r :
                        producer.getProducedDataSets()) {
                    if (r.getId().equals(edge.getSourceId())) {
                        ejvs.get(v).addInput(r);
                    }
                }
            }
        }
        return ejvs;
    }

    private static int upstream(Map<String, Object> em, int n) {
        int u = (int) num(em, "upstream");
        if (u < 0 || u >= n) {
            throw new IllegalArgumentException("edge upstream " + u + " is not a vertex");
        }
        return u;
    }

    private static IntermediateDataSetID dataSetID(int vertex, int partition) {
        return new IntermediateDataSetID(
                new org.apache.flink.util.AbstractID(vertex + 1, partition + 1));
    }

    private static OperatorIDPair operatorIDPair(
            OperatorID generated, OperatorID userDefined, String name, String uid) {
        try {
            for (Method m : OperatorIDPair.class.getMethods()) {
                if (!m.getName().equals("of")) {
                    continue;
                }
                if (m.getParameterCount() == 4) {
                    return (OperatorIDPair) m.invoke(null, generated, userDefined, name, uid);
                }
            }
            return (OperatorIDPair)
                    OperatorIDPair.class
                            .getMethod("of", OperatorID.class, OperatorID.class)
                            .invoke(null, generated, userDefined);
        } catch (InvocationTargetException e) {
            throw asRuntime(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    // ---------------------------------------------------------------- the old state

    private Map<OperatorID, OperatorState> oldStates() {
        List<Object> ops = list(c, "operators");
        Map<OperatorID, OperatorState> states = CollectionUtil.newHashMapWithExpectedSize(ops.size());
        for (Object o : ops) {
            Map<String, Object> om = obj(o);
            OperatorID id = operatorID(str(om, "operator_id"));
            int parallelism = (int) num(om, "parallelism");
            int maxParallelism = (int) num(om, "max_parallelism");
            String name = (String) om.get("name");
            String uid = (String) om.get("uid");
            OperatorState state;
            if (bool(om, "fully_finished")) {
                state =
                        (OperatorState)
                                newOperatorState(
                                        org.apache.flink.runtime.checkpoint.FullyFinishedOperatorState
                                                .class,
                                        name,
                                        uid,
                                        id,
                                        parallelism,
                                        maxParallelism);
            } else {
                state =
                        (OperatorState)
                                newOperatorState(
                                        OperatorState.class, name, uid, id, parallelism, maxParallelism);
            }
            // A fully finished operator's entries go to its putState too, which refuses them
            // (FullyFinishedOperatorState: "Could not put state to a fully finished operator
            // state."), as the model's Case.Input does.
            {
                List<Object> subtasks = list(om, "subtasks");
                for (int i = 0; i < subtasks.size(); i++) {
                    Object so = subtasks.get(i);
                    if (so == null) {
                        continue;
                    }
                    Map<String, Object> sm = obj(so);
                    if (bool(sm, "finished")) {
                        state.putState(i, FinishedOperatorSubtaskState.INSTANCE);
                    } else {
                        state.putState(i, subtaskState(sm, i));
                    }
                }
            }
            if (om.get("coordinator_state") != null) {
                Map<String, Object> cs = obj(om.get("coordinator_state"));
                state.setCoordinatorState(
                        new ByteStreamStateHandle(str(cs, "path"), new byte[(int) num(cs, "size")]));
            }
            if (states.put(id, state) != null) {
                throw new IllegalArgumentException("operator " + id + " appears twice");
            }
        }
        return states;
    }

    private static Object newOperatorState(
            Class<?> cls, String name, String uid, OperatorID id, int p, int maxP) {
        try {
            Constructor<?> ctor = constructor(cls, 5, 3);
            if (ctor.getParameterCount() == 5) {
                return ctor.newInstance(name, uid, id, p, maxP);
            }
            // Before 2.0 an OperatorState has no name or uid (FLINK-36001): such a case is an
            // input error, as ASSIGN-CASE.md makes a field the version does not have.
            if (name != null || uid != null) {
                throw new IllegalArgumentException(
                        "an operator state's " + (name != null ? "name" : "uid")
                                + " does not exist in this Flink version");
            }
            return ctor.newInstance(id, p, maxP);
        } catch (InvocationTargetException e) {
            throw asRuntime(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static OperatorSubtaskState subtaskState(Map<String, Object> sm, int oldSubtask) {
        OperatorSubtaskState.Builder b = OperatorSubtaskState.builder();
        b.setManagedOperatorState(new StateObjectCollection<>(operatorHandles(sm, "managed_operator_state")));
        b.setRawOperatorState(new StateObjectCollection<>(operatorHandles(sm, "raw_operator_state")));
        b.setManagedKeyedState(new StateObjectCollection<>(keyedHandles(sm, "managed_keyed_state")));
        b.setRawKeyedState(new StateObjectCollection<>(keyedHandles(sm, "raw_keyed_state")));
        List<InputChannelStateHandle> in = new ArrayList<>();
        for (Object o : list(sm, "input_channel_state")) {
            Map<String, Object> h = obj(o);
            StreamStateHandle d = delegate(obj(h.get("delegate")));
            in.add(
                    new InputChannelStateHandle(
                            h.get("subtask_index") == null ? oldSubtask : (int) num(h, "subtask_index"),
                            new InputChannelInfo((int) num(h, "gate_or_partition"), (int) num(h, "channel")),
                            d,
                            longs(h, "offsets"),
                            h.get("state_size") == null ? d.getStateSize() : num(h, "state_size")));
        }
        b.setInputChannelState((StateObjectCollection) new StateObjectCollection<>(in));
        List<ResultSubpartitionStateHandle> out = new ArrayList<>();
        for (Object o : list(sm, "result_subpartition_state")) {
            Map<String, Object> h = obj(o);
            StreamStateHandle d = delegate(obj(h.get("delegate")));
            out.add(
                    new ResultSubpartitionStateHandle(
                            h.get("subtask_index") == null ? oldSubtask : (int) num(h, "subtask_index"),
                            new ResultSubpartitionInfo(
                                    (int) num(h, "gate_or_partition"), (int) num(h, "channel")),
                            d,
                            longs(h, "offsets"),
                            h.get("state_size") == null ? d.getStateSize() : num(h, "state_size")));
        }
        b.setResultSubpartitionState((StateObjectCollection) new StateObjectCollection<>(out));
        return b.build();
    }

    private static List<OperatorStateHandle> operatorHandles(Map<String, Object> sm, String key) {
        List<OperatorStateHandle> hs = new ArrayList<>();
        for (Object o : list(sm, key)) {
            Map<String, Object> h = obj(o);
            List<Object> states = list(h, "states");
            // As the metadata loader: a HashMap sized for the names, filled in list order.
            Map<String, OperatorStateHandle.StateMetaInfo> m =
                    CollectionUtil.newHashMapWithExpectedSize(states.size());
            for (Object so : states) {
                Map<String, Object> s = obj(so);
                List<Long> offs = longs(s, "offsets");
                long[] offsets = new long[offs.size()];
                for (int k = 0; k < offsets.length; k++) {
                    offsets[k] = offs.get(k);
                }
                m.put(
                        str(s, "name"),
                        new OperatorStateHandle.StateMetaInfo(
                                offsets, OperatorStateHandle.Mode.valueOf(str(s, "mode"))));
            }
            hs.add(new OperatorStreamStateHandle(m, delegate(obj(h.get("delegate")))));
        }
        return hs;
    }

    private static List<KeyedStateHandle> keyedHandles(Map<String, Object> sm, String key) {
        List<KeyedStateHandle> hs = new ArrayList<>();
        for (Object o : list(sm, key)) {
            Map<String, Object> h = obj(o);
            String type = str(h, "type");
            switch (type) {
                case "KeyGroupsStateHandle":
                case "KeyGroupsSavepointStateHandle":
                    {
                        Map<String, Object> kg = obj(h.get("key_groups"));
                        KeyGroupRange range = range(obj(kg.get("range")));
                        List<Long> offs = longs(kg, "offsets");
                        long[] offsets = new long[offs.size()];
                        for (int k = 0; k < offsets.length; k++) {
                            offsets[k] = offs.get(k);
                        }
                        KeyGroupRangeOffsets kgo = new KeyGroupRangeOffsets(range, offsets);
                        StreamStateHandle d = delegate(obj(h.get("delegate")));
                        if (type.equals("KeyGroupsSavepointStateHandle")) {
                            hs.add(new KeyGroupsSavepointStateHandle(kgo, d));
                        } else if (h.get("state_handle_id") != null) {
                            hs.add(
                                    KeyGroupsStateHandle.restore(
                                            kgo, d, new StateHandleID(str(h, "state_handle_id"))));
                        } else {
                            hs.add(new KeyGroupsStateHandle(kgo, d));
                        }
                        break;
                    }
                case "IncrementalRemoteKeyedStateHandle":
                    hs.add(
                            IncrementalRemoteKeyedStateHandle.restore(
                                    UUID.fromString(str(h, "backend_id")),
                                    range(obj(h.get("key_group_range"))),
                                    num(h, "checkpoint_id"),
                                    localPaths(h, "shared"),
                                    localPaths(h, "private"),
                                    delegate(obj(h.get("meta"))),
                                    h.get("checkpointed_size") == null
                                            ? -1L
                                            : num(h, "checkpointed_size"),
                                    new StateHandleID(
                                            h.get("state_handle_id") == null
                                                    ? UUID.randomUUID().toString()
                                                    : str(h, "state_handle_id"))));
                    break;
                default:
                    throw new IllegalArgumentException("unknown keyed handle type " + type);
            }
        }
        return hs;
    }

    private static List<IncrementalRemoteKeyedStateHandle.HandleAndLocalPath> localPaths(
            Map<String, Object> h, String key) {
        List<IncrementalRemoteKeyedStateHandle.HandleAndLocalPath> l = new ArrayList<>();
        for (Object o : list(h, key)) {
            Map<String, Object> m = obj(o);
            l.add(
                    IncrementalRemoteKeyedStateHandle.HandleAndLocalPath.of(
                            delegate(obj(m.get("handle"))), str(m, "local_path")));
        }
        return l;
    }

    private static KeyGroupRange range(Map<String, Object> r) {
        return KeyGroupRange.of((int) num(r, "start"), (int) num(r, "end"));
    }

    private static StreamStateHandle delegate(Map<String, Object> d) {
        long size = num(d, "size");
        if (bool(d, "in_memory")) {
            return new ByteStreamStateHandle(str(d, "path"), new byte[(int) size]);
        }
        if (bool(d, "relative")) {
            return new RelativeFileStateHandle(
                    new Path(str(d, "path")), str(d, "relative_path"), size);
        }
        return new FileStateHandle(new Path(str(d, "path")), size);
    }

    // ---------------------------------------------------------------- the answer

    private static Map<String, Object> answer(List<ExecutionJobVertex> vertices) {
        List<Object> vs = new ArrayList<>();
        for (ExecutionJobVertex v : vertices) {
            Map<String, Object> vm = new LinkedHashMap<>();
            vm.put("name", v.getName());
            vm.put("parallelism", v.getParallelism());
            vm.put("max_parallelism", v.getMaxParallelism());
            List<Object> subtasks = new ArrayList<>();
            for (int i = 0; i < v.getParallelism(); i++) {
                JobManagerTaskRestore r = v.getTaskVertices()[i].getCurrentExecutionAttempt().getTaskRestore();
                subtasks.add(r == null ? null : restore(v, r));
            }
            vm.put("subtasks", subtasks);
            vs.add(vm);
        }
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("vertices", vs);
        return a;
    }

    private static Map<String, Object> restore(ExecutionJobVertex v, JobManagerTaskRestore r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("checkpoint_id", r.getRestoreCheckpointId());
        TaskStateSnapshot snap = r.getTaskStateSnapshot();
        m.put("deployed_as_finished", snap.isTaskDeployedAsFinished());
        List<Object> ops = new ArrayList<>();
        for (OperatorIDPair pair : v.getOperatorIDs()) {
            OperatorSubtaskState s = snap.getSubtaskStateByOperatorID(pair.getGeneratedOperatorID());
            if (s == null) {
                continue;
            }
            Map<String, Object> om = new LinkedHashMap<>();
            om.put("operator_id", pair.getGeneratedOperatorID().toHexString());
            om.put("state", subtaskAnswer(s));
            ops.add(om);
        }
        m.put("operators", ops);
        return m;
    }

    private static Map<String, Object> subtaskAnswer(OperatorSubtaskState s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("managed_operator_state", operatorAnswer(s.getManagedOperatorState()));
        m.put("raw_operator_state", operatorAnswer(s.getRawOperatorState()));
        m.put("managed_keyed_state", keyedAnswer(s.getManagedKeyedState()));
        m.put("raw_keyed_state", keyedAnswer(s.getRawKeyedState()));
        m.put("input_channel_state", channelAnswer(s.getInputChannelState()));
        m.put("result_subpartition_state", channelAnswer(s.getResultSubpartitionState()));
        try {
            Method up = OperatorSubtaskState.class.getMethod("getUpstreamOutputBufferState");
            m.put("upstream_output_buffer_state", channelAnswer((Collection<?>) up.invoke(s)));
        } catch (NoSuchMethodException e) {
            // before 2.3
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
        m.put("input_rescaling_descriptor", descriptor(s.getInputRescalingDescriptor()));
        m.put("output_rescaling_descriptor", descriptor(s.getOutputRescalingDescriptor()));
        return m;
    }

    private static List<Object> operatorAnswer(Collection<OperatorStateHandle> hs) {
        List<Object> l = new ArrayList<>();
        for (OperatorStateHandle h : hs) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("delegate", delegateAnswer(h.getDelegateStateHandle()));
            List<Object> states = new ArrayList<>();
            for (Map.Entry<String, OperatorStateHandle.StateMetaInfo> e :
                    h.getStateNameToPartitionOffsets().entrySet()) {
                Map<String, Object> sm = new LinkedHashMap<>();
                sm.put("name", e.getKey());
                sm.put("mode", e.getValue().getDistributionMode().name());
                List<Object> offs = new ArrayList<>();
                for (long x : e.getValue().getOffsets()) {
                    offs.add(x);
                }
                sm.put("offsets", offs);
                states.add(sm);
            }
            m.put("states", states);
            l.add(m);
        }
        return l;
    }

    private static List<Object> keyedAnswer(Collection<KeyedStateHandle> hs) {
        List<Object> l = new ArrayList<>();
        for (KeyedStateHandle h : hs) {
            Map<String, Object> m = new LinkedHashMap<>();
            if (h instanceof KeyGroupsStateHandle) {
                KeyGroupsStateHandle k = (KeyGroupsStateHandle) h;
                m.put("type", h.getClass().getSimpleName());
                Map<String, Object> kg = new LinkedHashMap<>();
                kg.put("range", rangeAnswer(k.getKeyGroupRange()));
                List<Object> offs = new ArrayList<>();
                for (int g = k.getKeyGroupRange().getStartKeyGroup();
                        g <= k.getKeyGroupRange().getEndKeyGroup();
                        g++) {
                    offs.add(k.getOffsetForKeyGroup(g));
                }
                kg.put("offsets", offs);
                m.put("key_groups", kg);
                m.put("delegate", delegateAnswer(k.getDelegateStateHandle()));
                m.put("state_handle_id", k.getStateHandleId().getKeyString());
            } else if (h instanceof IncrementalRemoteKeyedStateHandle) {
                IncrementalRemoteKeyedStateHandle k = (IncrementalRemoteKeyedStateHandle) h;
                m.put("type", "IncrementalRemoteKeyedStateHandle");
                m.put("backend_id", k.getBackendIdentifier().toString());
                m.put("key_group_range", rangeAnswer(k.getKeyGroupRange()));
                m.put("checkpoint_id", k.getCheckpointId());
                m.put("shared", localPathAnswer(k.getSharedState()));
                m.put("private", localPathAnswer(k.getPrivateState()));
                m.put("meta", delegateAnswer((StreamStateHandle) call(k, "getMetaStateHandle", "getMetaDataStateHandle")));
                m.put("checkpointed_size", k.getCheckpointedSize());
                m.put("state_handle_id", k.getStateHandleId().getKeyString());
            } else {
                throw new IllegalStateException("unexpected keyed handle " + h.getClass().getName());
            }
            l.add(m);
        }
        return l;
    }

    private static List<Object> localPathAnswer(
            List<IncrementalRemoteKeyedStateHandle.HandleAndLocalPath> ps) {
        List<Object> l = new ArrayList<>();
        for (IncrementalRemoteKeyedStateHandle.HandleAndLocalPath p : ps) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("local_path", p.getLocalPath());
            m.put("handle", delegateAnswer(p.getHandle()));
            l.add(m);
        }
        return l;
    }

    private static Map<String, Object> rangeAnswer(KeyGroupRange r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("start", r.getStartKeyGroup());
        m.put("end", r.getEndKeyGroup());
        return m;
    }

    private static List<Object> channelAnswer(Collection<?> hs) {
        List<Object> l = new ArrayList<>();
        for (Object o : hs) {
            if (!(o instanceof AbstractChannelStateHandle)) {
                throw new IllegalStateException("unexpected channel handle " + o.getClass().getName());
            }
            AbstractChannelStateHandle<?> h = (AbstractChannelStateHandle<?>) o;
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("subtask_index", h.getSubtaskIndex());
            Object info = h.getInfo();
            if (info instanceof InputChannelInfo) {
                m.put("gate_or_partition", ((InputChannelInfo) info).getGateIdx());
                m.put("channel", ((InputChannelInfo) info).getInputChannelIdx());
            } else {
                m.put("gate_or_partition", ((ResultSubpartitionInfo) info).getPartitionIdx());
                m.put("channel", ((ResultSubpartitionInfo) info).getSubPartitionIdx());
            }
            m.put("offsets", new ArrayList<Object>(h.getOffsets()));
            m.put("state_size", h.getStateSize());
            m.put("delegate", delegateAnswer(h.getDelegate()));
            l.add(m);
        }
        return l;
    }

    private static Map<String, Object> delegateAnswer(StreamStateHandle d) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (d instanceof ByteStreamStateHandle) {
            ByteStreamStateHandle b = (ByteStreamStateHandle) d;
            m.put("path", b.getHandleName());
            m.put("size", (long) b.getData().length);
            m.put("in_memory", true);
        } else if (d instanceof RelativeFileStateHandle) {
            RelativeFileStateHandle r = (RelativeFileStateHandle) d;
            m.put("path", r.getFilePath().toString());
            m.put("size", r.getStateSize());
            m.put("relative", true);
            m.put("relative_path", r.getRelativePath());
        } else if (d instanceof FileStateHandle) {
            FileStateHandle f = (FileStateHandle) d;
            m.put("path", f.getFilePath().toString());
            m.put("size", f.getStateSize());
        } else {
            throw new IllegalStateException("unexpected stream handle " + d.getClass().getName());
        }
        return m;
    }

    private static Object descriptor(InflightDataRescalingDescriptor d) {
        if (d == null || d == InflightDataRescalingDescriptor.NO_RESCALE) {
            return null;
        }
        Object[] gates = (Object[]) field(d, "gateOrPartitionDescriptors");
        Object noState = staticField(gates.getClass().getComponentType(), "NO_STATE");
        List<Object> l = new ArrayList<>();
        for (Object g : gates) {
            Map<String, Object> m = new LinkedHashMap<>();
            if (noState != null && g == noState) {
                m.put("no_state", true);
                l.add(m);
                continue;
            }
            List<Object> old = new ArrayList<>();
            for (int x : (int[]) field(g, "oldSubtaskIndexes")) {
                old.add(x);
            }
            m.put("old_subtask_indexes", old);
            RescaleMappings rm = (RescaleMappings) field(g, "rescaledChannelsMappings");
            Map<String, Object> mm = new LinkedHashMap<>();
            mm.put("identity", rm.isIdentity());
            mm.put("number_of_sources", field(rm, "numberOfSources"));
            mm.put("number_of_targets", field(rm, "numberOfTargets"));
            List<Object> rows = new ArrayList<>();
            for (int[] row : (int[][]) field(rm, "mappings")) {
                List<Object> r = new ArrayList<>();
                for (int x : row) {
                    r.add(x);
                }
                rows.add(r);
            }
            mm.put("mappings", rows);
            m.put("rescaled_channels_mappings", mm);
            @SuppressWarnings("unchecked")
            Set<Integer> amb = new TreeSet<>((Set<Integer>) field(g, "ambiguousSubtaskIndexes"));
            m.put("ambiguous_subtask_indexes", new ArrayList<Object>(amb));
            m.put("mapping_type", String.valueOf(field(g, "mappingType")));
            l.add(m);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("gates_or_partitions", l);
        return m;
    }

    // ---------------------------------------------------------------- errors

    static Map<String, Object> errorAnswer(String stage, Throwable t) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("stage", stage);
        e.put("class", t.getClass().getName());
        e.put("message", String.valueOf(t.getMessage()));
        StackTraceElement[] st = t.getStackTrace();
        e.put("at", st.length == 0 ? "" : st[0].getClassName() + "." + st[0].getMethodName());
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("error", e);
        return m;
    }

    private static Throwable unwrap(Throwable t) {
        while (t instanceof InvocationTargetException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private static RuntimeException asRuntime(Throwable t) {
        return t instanceof RuntimeException ? (RuntimeException) t : new RuntimeException(t);
    }

    // ---------------------------------------------------------------- reflection and JSON access

    private static Constructor<?> constructor(Class<?> cls, int... counts) {
        for (int n : counts) {
            for (Constructor<?> k : cls.getConstructors()) {
                if (k.getParameterCount() == n) {
                    return k;
                }
            }
        }
        throw new IllegalStateException("no constructor of " + cls.getName() + " with " + Arrays.toString(counts));
    }

    private static Object field(Object o, String name) {
        for (Class<?> k = o.getClass(); k != null; k = k.getSuperclass()) {
            try {
                Field f = k.getDeclaredField(name);
                f.setAccessible(true);
                return f.get(o);
            } catch (NoSuchFieldException e) {
                // look in the superclass
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }
        throw new IllegalStateException("no field " + name + " in " + o.getClass().getName());
    }

    /** Calls the first of the named no-argument methods that the class has (names differ by version). */
    private static Object call(Object o, String... names) {
        for (String n : names) {
            try {
                return o.getClass().getMethod(n).invoke(o);
            } catch (NoSuchMethodException e) {
                // try the next name
            } catch (InvocationTargetException e) {
                throw asRuntime(e.getCause());
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }
        throw new IllegalStateException("none of " + Arrays.toString(names) + " in " + o.getClass().getName());
    }

    private static Object staticField(Class<?> cls, String name) {
        try {
            Field f = cls.getDeclaredField(name);
            f.setAccessible(true);
            return f.get(null);
        } catch (NoSuchFieldException e) {
            return null;
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    private static OperatorID operatorID(String hex) {
        return new OperatorID(hex(hex));
    }

    private static byte[] hex(String s) {
        if (s.length() != 32) {
            throw new IllegalArgumentException("an ID is 32 hex digits, got \"" + s + "\"");
        }
        byte[] b = new byte[16];
        for (int i = 0; i < 16; i++) {
            b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        }
        return b;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> obj(Object o) {
        if (!(o instanceof Map)) {
            throw new IllegalArgumentException("expected an object, got " + o);
        }
        return (Map<String, Object>) o;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Map<String, Object> m, String k) {
        Object o = m.get(k);
        if (o == null) {
            return new ArrayList<>();
        }
        if (!(o instanceof List)) {
            throw new IllegalArgumentException(k + ": expected an array");
        }
        return (List<Object>) o;
    }

    private static List<Long> longs(Map<String, Object> m, String k) {
        List<Long> l = new ArrayList<>();
        for (Object o : list(m, k)) {
            l.add(((Number) o).longValue());
        }
        return l;
    }

    private static String str(Map<String, Object> m, String k) {
        Object o = m.get(k);
        if (!(o instanceof String)) {
            throw new IllegalArgumentException(k + ": expected a string");
        }
        return (String) o;
    }

    private static long num(Map<String, Object> m, String k) {
        Object o = m.get(k);
        if (!(o instanceof Number)) {
            throw new IllegalArgumentException(k + ": expected a number");
        }
        return ((Number) o).longValue();
    }

    private static boolean bool(Map<String, Object> m, String k) {
        return Boolean.TRUE.equals(m.get(k));
    }
}
