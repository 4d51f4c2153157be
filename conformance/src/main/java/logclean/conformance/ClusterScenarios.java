package logclean.conformance;

import static logclean.conformance.Ctx.H;
import static logclean.conformance.Ctx.M;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.common.TopicPartitionReplica;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Multi-broker scenarios (issue 21) on a {@link Cluster} of three 4.4.0 KRaft nodes: replication factor 3,
 * {@code min.insync.replicas} 2. The fixture holds every node's dirs ({@code node-N/logs-M}, {@code
 * node-N/server.properties}) and one manifest whose {@code nodes} lists each node (its log dirs, whether it was
 * running at capture, how it was stopped) and whose {@code partitions} has one entry per replica (node, log dir,
 * size, and the leader's ListOffsets figures), beside the metadata's leader/ISR/ELR per partition.
 *
 * Usage: through {@link Harness} (its main dispatches these names here).
 */
final class ClusterScenarios {
    private ClusterScenarios() { }

    record Scenario(int jbodNode, Map<String, String> brokerOverrides, Body body) { }

    @FunctionalInterface
    interface Body {
        void run(ClusterCtx c) throws Exception;
    }

    static final Map<String, Scenario> ALL = new LinkedHashMap<>();

    static {
        ALL.put("rf3-retention", new Scenario(2, Map.of(), ClusterScenarios::retention));
        ALL.put("rf3-stuck-hw", new Scenario(0, Map.of(), ClusterScenarios::stuckHw));
        ALL.put("rf3-jbod", new Scenario(2, Map.of(), ClusterScenarios::jbod));
        ALL.put("rf3-follower-restart", new Scenario(0, Map.of(), ClusterScenarios::followerRestart));
        ALL.put("rf3-unclean", new Scenario(0, Map.of(), ClusterScenarios::unclean));
    }

    /** A scenario body's handle: the single-broker {@link Ctx} (admin and producers through node 1) and the cluster. */
    static final class ClusterCtx {
        final Ctx ctx;
        final Cluster cluster;
        /** How each node ended: "running" (stopped cleanly after capture), "sigterm", "sigkill" mid-scenario. */
        final Map<Integer, String> ended = new LinkedHashMap<>();
        /** Nodes stopped at capture that plan-check's replay starts (their restart is the scenario). */
        final Set<Integer> startedInReplay = new TreeSet<>();
        final ObjectNode facts;

        ClusterCtx(Ctx ctx, Cluster cluster, ObjectNode facts) {
            this.ctx = ctx;
            this.cluster = cluster;
            this.facts = facts;
        }

        /** Creates a topic with an explicit replica assignment (first replica = preferred leader). */
        void createTopic(String name, List<List<Integer>> assignment, Map<String, String> configs) throws Exception {
            Map<Integer, List<Integer>> a = new LinkedHashMap<>();
            for (int p = 0; p < assignment.size(); p++) {
                a.put(p, assignment.get(p));
            }
            ctx.admin.createTopics(List.of(new NewTopic(name, a).configs(configs))).all().get();
            ctx.step("create topic " + name + " replica assignment " + a + " configs=" + configs);
            ctx.waitFor("leaders and full ISR for " + name, Duration.ofSeconds(60), () -> {
                try {
                    return ctx.admin.describeTopics(List.of(name)).allTopicNames().get().get(name).partitions().stream()
                        .allMatch(p -> p.leader() != null && p.leader().id() == p.replicas().get(0).id()
                            && p.isr().size() == p.replicas().size());
                } catch (Exception e) {
                    return false;
                }
            });
        }

        /** SIGTERM node {@code id} (controlled shutdown) and wait for the JVM to exit. */
        void stop(int id) throws Exception {
            cluster.node(id).stopClean();
            ended.put(id, "sigterm");
            ctx.step("SIGTERM node " + id + " (controlled shutdown) and wait for it to exit");
        }

        /** Waits until the ISR of {@code tp} is exactly {@code isr}. */
        void awaitIsr(TopicPartition tp, List<Integer> isr) throws Exception {
            ctx.waitFor("ISR of " + tp + " = " + isr, Duration.ofSeconds(90), () -> {
                try {
                    TopicPartitionInfo p = ctx.admin.describeTopics(List.of(tp.topic())).allTopicNames().get()
                        .get(tp.topic()).partitions().get(tp.partition());
                    return p.isr().stream().map(Node::id).toList().equals(isr);
                } catch (Exception e) {
                    return false;
                }
            });
        }
    }

    static String nodeDirName(int node, int dir) {
        return "node-" + node + "/logs-" + dir;
    }

    // ---------------------------------------------------------------------------------------------
    /**
     * rf3-retention: RF 3, min ISR 2, every partition led by a different node; time retention (orders) and size
     * retention (sized) with expired segments still on every replica (the retention task is parked, as in the
     * single-broker fixtures). acks=all, one batch per flush: each follower fetch brings one batch, so the
     * followers roll their segments where the leader did.
     */
    static void retention(ClusterCtx c) throws Exception {
        Ctx x = c.ctx;
        Map<String, String> orders = Scenarios.cfg("retention.ms", String.valueOf(6 * H), "segment.ms",
            String.valueOf(H), "min.insync.replicas", "2");
        c.createTopic("orders", List.of(List.of(1, 2, 3), List.of(2, 3, 1)), orders);
        c.createTopic("sized", List.of(List.of(3, 1, 2)), Scenarios.cfg("retention.ms", "-1", "retention.bytes",
            "1000", "segment.ms", String.valueOf(H), "min.insync.replicas", "2"));
        for (int p = 0; p < 2; p++) {
            x.series("orders", p, 20, -10 * H + 10 * M, 30 * M, true, "none", 50);
        }
        x.series("sized", 0, 16, -8 * H + 15 * M, 30 * M, true, "none", 40);
        // The followers learn the final HW from the leader's next fetch response (replica.fetch.wait.max.ms 500).
        Thread.sleep(3000);
        x.step("wait 3 s so the followers' next fetch carries the leader's final high watermark");
        x.note("orders: RF 3 (p0 replicas [1,2,3], p1 [2,3,1]), min.insync.replicas=2, retention.ms=6h, "
            + "segment.ms=1h; 20 records per partition every 30 min from base-9h50min. Segments whose largest "
            + "timestamp is older than base-6h are expired on every replica; the retention task never ran.");
        x.note("sized: RF 3 (replicas [3,1,2]), retention.ms=-1, retention.bytes=1000: older segments breach the "
            + "size limit on every replica.");
        x.note("node-2 has two log dirs (JBOD); the broker placed each replica (partitions[].log_dir).");
    }

    // ---------------------------------------------------------------------------------------------
    /**
     * rf3-stuck-hw: min.insync.replicas=2, RF 3. Four records with acks=all (HW 4), then both followers stop
     * (SIGTERM); the ISR shrinks to [1] (the followers go to the ELR); four more records with acks=1 (idempotence
     * off) are appended by the leader alone. The HW stays at 4 while the leader's log end goes to 8: Kafka 4.x
     * does not advance the HW of a partition under min ISR (Partition.maybeIncrementLeaderHW, KIP-966).
     */
    static void stuckHw(ClusterCtx c) throws Exception {
        Ctx x = c.ctx;
        TopicPartition tp = new TopicPartition("stuck", 0);
        c.createTopic("stuck", List.of(List.of(1, 2, 3)), Scenarios.cfg("retention.ms", String.valueOf(3 * H),
            "segment.ms", String.valueOf(H), "min.insync.replicas", "2"));
        x.series("stuck", 0, 4, -10 * H, H, false, "none", 40);
        Thread.sleep(2000);
        ObjectNode before = c.facts.putObject("before_followers_stopped");
        leaderFacts(c, tp, before);
        c.stop(3);
        c.stop(2);
        c.awaitIsr(tp, List.of(1));
        ObjectNode shrunk = c.facts.putObject("after_followers_stopped");
        leaderFacts(c, tp, shrunk);
        Properties p = x.baseProducerProps();
        p.put(ProducerConfig.ACKS_CONFIG, "1");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        ArrayNode acked = c.facts.putArray("acks1_offsets");
        try (KafkaProducer<String, String> pr = new KafkaProducer<>(p)) {
            for (int i = 0; i < 4; i++) {
                long rel = -6 * H + i * H;
                RecordMetadata md = pr.send(new ProducerRecord<>("stuck", 0, x.t(rel), null,
                    Ctx.value("stuck", 0, 4 + i, 40))).get(30, TimeUnit.SECONDS);
                acked.add(md.offset());
            }
        }
        x.step("produce 4 keyless records to stuck-0 with acks=1 (idempotence off), one per send, timestamps "
            + "base-6h .. base-3h step 1h; the leader acknowledged offsets " + acked);
        Thread.sleep(3000);
        ObjectNode after = c.facts.putObject("after_acks1_writes");
        leaderFacts(c, tp, after);
        after.put("log_end_offset_from_acks", acked.get(acked.size() - 1).asLong() + 1);
        x.step("wait 3 s; ListOffsets earliest/latest (10 s timeout each), describeTopics leader/ISR/ELR");
        x.note("stuck-0: RF 3 (replicas [1,2,3]), min.insync.replicas=2, retention.ms=3h, segment.ms=1h. Records "
            + "0-3 (acks=all, base-10h .. base-7h) reached every replica (HW 4); nodes 3 and 2 were then stopped "
            + "(SIGTERM) and records 4-7 (acks=1, base-6h .. base-3h) were appended by node 1 alone.");
        x.note("Broker behaviour (rf3_stuck_hw facts): with the ISR [1] below min.insync.replicas 2 the leader's "
            + "high watermark stays where it was when the ISR shrank, below its log end; the records above it are "
            + "acknowledged (acks=1) but not committed, and retention cannot delete a segment above the HW "
            + "(UnifiedLog.deletableSegments: only segments whose next segment's base offset <= HW). Kafka 4.4 "
            + "Partition.maybeIncrementLeaderHW returns early when isUnderMinIsr (KIP-966 ELR).");
    }

    /** The log dir (absolute, as the broker names it) holding {@code node}'s replica of {@code tp}, or its future. */
    static Optional<String> replicaDir(Admin a, int node, TopicPartition tp, boolean future) throws Exception {
        Map<String, LogDirDescription> dirs = a.describeLogDirs(List.of(node)).allDescriptions()
            .get(30, TimeUnit.SECONDS).get(node);
        for (var e : dirs.entrySet()) {
            var ri = e.getValue().replicaInfos().get(tp);
            if (ri != null && ri.isFuture() == future) {
                return Optional.of(e.getKey());
            }
        }
        return Optional.empty();
    }

    /** Moves node 2's replica of {@code tp} to its other log dir (AlterReplicaLogDirs); returns the target dir. */
    static String moveOnNode2(ClusterCtx c, TopicPartition tp) throws Exception {
        Broker b = c.cluster.node(2);
        try (Admin a = c.cluster.admin()) {
            String from = replicaDir(a, 2, tp, false).orElseThrow();
            String to = b.logDirs().stream().map(d -> d.toAbsolutePath().normalize().toString())
                .filter(d -> !Path.of(d).equals(Path.of(from).toAbsolutePath().normalize())).findFirst().orElseThrow();
            a.alterReplicaLogDirs(Map.of(new TopicPartitionReplica(tp.topic(), tp.partition(), 2), to)).all()
                .get(30, TimeUnit.SECONDS);
            c.ctx.step("AlterReplicaLogDirs: node 2's replica of " + tp + " from " + Harness.relDir(b, from) + " to "
                + Harness.relDir(b, to));
            return to;
        }
    }

    /** Puts node 2's replica of {@code tp} in its log dir {@code dir} (AlterReplicaLogDirs) and waits for it. */
    static void placeOnNode2(ClusterCtx c, TopicPartition tp, int dir) throws Exception {
        Broker b = c.cluster.node(2);
        String to = b.logDirs().get(dir).toAbsolutePath().normalize().toString();
        try (Admin a = c.cluster.admin()) {
            String from = replicaDir(a, 2, tp, false).orElseThrow();
            if (Path.of(from).toAbsolutePath().normalize().equals(Path.of(to))) {
                return;
            }
            a.alterReplicaLogDirs(Map.of(new TopicPartitionReplica(tp.topic(), tp.partition(), 2), to)).all()
                .get(30, TimeUnit.SECONDS);
        }
        c.ctx.step("AlterReplicaLogDirs: node 2's (empty) replica of " + tp + " to logs-" + dir);
        c.ctx.waitFor("node 2's replica of " + tp + " in logs-" + dir, Duration.ofSeconds(60), () -> {
            try (Admin a = c.cluster.admin()) {
                return replicaDir(a, 2, tp, true).isEmpty()
                    && replicaDir(a, 2, tp, false).map(d -> Path.of(d).equals(Path.of(to))).orElse(false);
            } catch (Exception e) {
                return false;
            }
        });
    }

    /** Any dir under node {@code id}'s log dirs whose name starts with {@code prefix} and ends with {@code suffix}. */
    static boolean dirExists(ClusterCtx c, int id, String prefix, String suffix) {
        for (Path d : c.cluster.node(id).logDirs()) {
            try (Stream<Path> s = Files.list(d)) {
                if (s.map(p -> p.getFileName().toString()).anyMatch(n -> n.startsWith(prefix) && n.endsWith(suffix))) {
                    return true;
                }
            } catch (Exception e) {
                // not there yet
            }
        }
        return false;
    }

    // ---------------------------------------------------------------------------------------------
    /**
     * rf3-jbod: node 2 has two log dirs. moved-0's replica on node 2 moves to its other dir (AlterReplicaLogDirs)
     * and finishes; with the alter-log-dirs fetcher then throttled to 1 B/s, moving-0's move starts and is
     * captured mid-move (a {@code -future} dir beside the live one). strayed-0 is reassigned to [1, 2] while node 3
     * is down: restarted, node 3 sets its replica aside as {@code -stray}. dropped is deleted: each node renames
     * its replica to {@code -delete}, removed after file.delete.delay.ms (captured before).
     */
    static void jbod(ClusterCtx c) throws Exception {
        Ctx x = c.ctx;
        // segment.index.bytes 1024: the -delete and -stray dirs keep their active segment's preallocated indexes
        // (the broker renames them without trimming), so the fixture stays small.
        Map<String, String> cfg = Scenarios.cfg("retention.ms", String.valueOf(6 * H), "segment.ms",
            String.valueOf(H), "min.insync.replicas", "2", "segment.index.bytes", "1024");
        for (String t : List.of("moved", "moving", "strayed", "dropped")) {
            c.createTopic(t, List.of(List.of(1, 2, 3)), cfg);
        }
        // The broker places a new replica in the dir with the fewest partitions, ties broken in no fixed order:
        // node 2's replicas are put in fixed dirs (while still empty) so that a regeneration matches.
        Map<String, Integer> placement = Map.of("moved", 0, "moving", 1, "strayed", 0, "dropped", 1);
        for (String t : List.of("moved", "moving", "strayed", "dropped")) {
            placeOnNode2(c, new TopicPartition(t, 0), placement.get(t));
        }
        for (String t : List.of("moved", "moving", "strayed", "dropped")) {
            x.series(t, 0, 4, -10 * H + 10 * M, 2 * H, true, "none", 40);
        }
        Thread.sleep(3000);
        x.step("wait 3 s so the followers' next fetch carries the leader's final high watermark");
        TopicPartition moved = new TopicPartition("moved", 0);
        String target = moveOnNode2(c, moved);
        x.waitFor("node 2's replica of moved-0 in " + target + " and no future replica", Duration.ofSeconds(90), () -> {
            try (Admin a = c.cluster.admin()) {
                return replicaDir(a, 2, moved, true).isEmpty()
                    && replicaDir(a, 2, moved, false).map(d -> Path.of(d).equals(Path.of(target))).orElse(false);
            } catch (Exception e) {
                return false;
            }
        });
        try (Admin a = c.cluster.admin()) {
            a.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.BROKER, "2"), List.of(
                new AlterConfigOp(new ConfigEntry("replica.alter.log.dirs.io.max.bytes.per.second", "1"),
                    AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS);
        }
        x.step("set replica.alter.log.dirs.io.max.bytes.per.second=1 on node 2 (dynamic broker config)");
        TopicPartition moving = new TopicPartition("moving", 0);
        moveOnNode2(c, moving);
        x.waitFor("a moving-0 -future dir on node 2", Duration.ofSeconds(60), () -> dirExists(c, 2, "moving-0.",
            "-future"));
        TopicPartition strayed = new TopicPartition("strayed", 0);
        c.stop(3);
        try (Admin a = c.cluster.admin()) {
            a.alterPartitionReassignments(Map.of(strayed, Optional.of(new NewPartitionReassignment(List.of(1, 2)))))
                .all().get(30, TimeUnit.SECONDS);
            x.step("alterPartitionReassignments strayed-0 -> [1, 2] while node 3 is down");
            x.waitFor("strayed-0 replicas [1, 2]", Duration.ofSeconds(60), () -> {
                try {
                    return a.describeTopics(List.of("strayed")).allTopicNames().get().get("strayed").partitions()
                        .get(0).replicas().stream().map(Node::id).toList().equals(List.of(1, 2));
                } catch (Exception e) {
                    return false;
                }
            });
        }
        c.cluster.node(3).start();
        c.cluster.node(3).awaitReady(Duration.ofSeconds(90));
        c.ended.remove(3);
        x.step("start node 3 again and wait until it is registered");
        x.waitFor("a strayed-0 -stray dir on node 3", Duration.ofSeconds(60), () -> dirExists(c, 3, "strayed-0.",
            "-stray"));
        try (Admin a = c.cluster.admin()) {
            a.deleteTopics(List.of("dropped")).all().get(30, TimeUnit.SECONDS);
        }
        x.step("delete topic dropped");
        for (int id = 1; id <= 3; id++) {
            int node = id;
            x.waitFor("a dropped-0 -delete dir on node " + node, Duration.ofSeconds(30), () -> dirExists(c, node,
                "dropped-0.", "-delete"));
        }
        x.note("moved, moving, strayed, dropped: RF 3 (replicas [1,2,3]), min.insync.replicas=2, retention.ms=6h, "
            + "segment.ms=1h, segment.index.bytes=1024; 4 records each, one every 2 h from base-9h50min.");
        x.note("node 2 has two log dirs (JBOD): moved-0 was moved between them and finished; moving-0's move was "
            + "throttled (replica.alter.log.dirs.io.max.bytes.per.second=1) and is captured mid-move: its -future "
            + "dir beside the live one.");
        x.note("strayed-0 was reassigned to [1, 2] while node 3 was down; node 3, restarted, renamed its replica "
            + "-stray (LogManager never deletes -stray dirs). dropped was deleted: every node renamed its replica "
            + "-delete (removed file.delete.delay.ms, 60 s, later; captured before). The finished move of moved-0 "
            + "left node 2's old replica as a -delete dir too.");
    }

    // ---------------------------------------------------------------------------------------------
    /**
     * rf3-follower-restart: a follower stopped while data is written, then restarted (by plan-check's replay),
     * and DeleteRecords on RF 3. lagging-0 and lagging-1: RF 3 (replicas [1,2,3]), min ISR 2, retention.ms -1 (only
     * the log start deletes), segment.ms 1 h with records 2 h apart (one record per segment). Offsets 0-3 reach
     * every replica; node 3 is stopped; offsets 4-7 go to nodes 1 and 2 (acks=all, ISR [1,2]); DeleteRecords
     * moves the leader's log start to 6 on lagging-0 (above node 3's log end 4) and to 3 on lagging-1 (below it);
     * node 2 takes each from its fetches. Captured with node 3 stopped; the replay starts it: on lagging-0 it
     * truncates fully and restarts at 6 (AbstractFetcherThread.fetchOffsetAndTruncate), on lagging-1 it fetches
     * 4-7 and takes the leader's log start 3, deleting below it.
     */
    static void followerRestart(ClusterCtx c) throws Exception {
        Ctx x = c.ctx;
        Map<String, String> cfg = Scenarios.cfg("retention.ms", "-1", "segment.ms", String.valueOf(H),
            "min.insync.replicas", "2", "segment.index.bytes", "1024");
        c.createTopic("lagging", List.of(List.of(1, 2, 3), List.of(1, 2, 3)), cfg);
        for (int p = 0; p < 2; p++) {
            x.series("lagging", p, 4, -16 * H, 2 * H, true, "none", 40);
        }
        Thread.sleep(3000);
        x.step("wait 3 s so the followers' next fetch carries the leader's high watermark");
        c.stop(3);
        c.awaitIsr(new TopicPartition("lagging", 0), List.of(1, 2));
        c.awaitIsr(new TopicPartition("lagging", 1), List.of(1, 2));
        for (int p = 0; p < 2; p++) {
            x.series("lagging", p, 4, -8 * H, 2 * H, true, "none", 40);
        }
        x.deleteRecords(new TopicPartition("lagging", 0), 6);
        x.deleteRecords(new TopicPartition("lagging", 1), 3);
        Thread.sleep(3000);
        x.step("wait 3 s so node 2's next fetch carries the leader's log start and high watermark");
        for (int p = 0; p < 2; p++) {
            leaderFacts(c, new TopicPartition("lagging", p), c.facts.putObject("lagging_" + p));
        }
        c.startedInReplay.add(3);
        x.note("lagging: RF 3 (replicas [1,2,3]), min.insync.replicas=2, retention.ms=-1, segment.ms=1h; records "
            + "2 h apart, one per segment. Offsets 0-3 reached every replica; node 3 was then stopped (SIGTERM) and "
            + "offsets 4-7 written to nodes 1 and 2; DeleteRecords before 6 (lagging-0) and 3 (lagging-1).");
        x.note("node 3 is stopped at capture (log end 4 on both partitions); plan-check's replay starts it "
            + "(nodes[].started_in_replay): lagging-0's log start 6 is above its log end, so it truncates fully "
            + "and restarts at 6; lagging-1's 3 is below, so it catches up and deletes below the leader's log start.");
    }

    // ---------------------------------------------------------------------------------------------
    /**
     * rf3-unclean: an unclean leader election that leaves a replica diverged (leader-epoch checkpoints disagree).
     * diverged-0: replicas [2, 3] (node 1, the controller, must stay up, so it holds no replica: an ISR with it
     * would never need an unclean election), min.insync.replicas 1, unclean.leader.election.enable true. Offsets
     * 0-3 reach both; node 3 is stopped; node 2 alone appends 4-7 (acks=1); node 2 is stopped (leader -1, ISR
     * [2]); node 3 is started and elected uncleanly (Admin electLeaders UNCLEAN) with log end 4, and appends 2
     * records at 4-5 in its new epoch. Captured with node 2 stopped, its records 4-7 in epoch 0 on disk (its
     * offset 4 in segment 3 with offset 3); the replay starts it once node 3 leads: it asks the leader for the end
     * of its last epoch (OffsetsForLeaderEpoch) and truncates to 4 inside segment 3, then fetches 4-5 from node 3
     * (AbstractFetcherThread.truncateToEpochEndOffsets).
     */
    static void unclean(ClusterCtx c) throws Exception {
        Ctx x = c.ctx;
        TopicPartition tp = new TopicPartition("diverged", 0);
        c.createTopic("diverged", List.of(List.of(2, 3)), Scenarios.cfg("retention.ms", "-1", "segment.ms",
            String.valueOf(H), "min.insync.replicas", "1", "unclean.leader.election.enable", "true",
            "segment.index.bytes", "1024"));
        x.series("diverged", 0, 4, -16 * H, 2 * H, true, "none", 40);
        Thread.sleep(3000);
        x.step("wait 3 s so node 3's next fetch carries the leader's high watermark");
        c.stop(3);
        c.awaitIsr(tp, List.of(2));
        Properties p = x.baseProducerProps();
        p.put(ProducerConfig.ACKS_CONFIG, "1");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        ArrayNode first = c.facts.putArray("node2_alone_offsets");
        try (KafkaProducer<String, String> pr = new KafkaProducer<>(p)) {
            // Offset 4 half an hour after 3 (within segment.ms of it): node 2's segment 3 holds 3-4, so the
            // truncation to 4 cuts inside it; 5-7 two hours apart, one segment each.
            for (int i = 0; i < 4; i++) {
                long ts = i == 0 ? -10 * H + H / 2 : -8 * H + (i - 1) * 2 * H;
                RecordMetadata md = pr.send(new ProducerRecord<>("diverged", 0, x.t(ts), null,
                    Ctx.value("diverged", 0, 4 + i, 40))).get(30, TimeUnit.SECONDS);
                first.add(md.offset());
            }
        }
        x.step("produce 4 keyless records to diverged-0 with acks=1 (node 2 alone), timestamps base-9h30m, then "
            + "base-8h .. base-4h step 2h; acknowledged at " + first);
        Thread.sleep(1000);
        leaderFacts(c, tp, c.facts.putObject("before_node2_stopped"));
        c.stop(2);
        c.cluster.node(3).start();
        c.cluster.node(3).awaitReady(Duration.ofSeconds(90));
        c.ended.remove(3);
        x.step("start node 3 again and wait until it is registered");
        try (Admin a = c.cluster.admin()) {
            x.waitFor("an unclean election of node 3 for diverged-0", Duration.ofSeconds(60), () -> {
                try {
                    a.electLeaders(org.apache.kafka.common.ElectionType.UNCLEAN, Set.of(tp)).partitions()
                        .get(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                    // ELECTION_NOT_NEEDED once elected, or not yet possible
                }
                try {
                    TopicPartitionInfo pi = a.describeTopics(List.of("diverged")).allTopicNames().get()
                        .get("diverged").partitions().get(0);
                    return pi.leader() != null && pi.leader().id() == 3;
                } catch (Exception e) {
                    return false;
                }
            });
        }
        x.step("Admin electLeaders UNCLEAN diverged-0 until node 3 leads it");
        ArrayNode second = c.facts.putArray("node3_after_unclean_offsets");
        try (KafkaProducer<String, String> pr = new KafkaProducer<>(p)) {
            for (int i = 0; i < 2; i++) {
                RecordMetadata md = pr.send(new ProducerRecord<>("diverged", 0, x.t(-7 * H + i * 2 * H), null,
                    Ctx.value("diverged", 0, 100 + i, 40))).get(30, TimeUnit.SECONDS);
                second.add(md.offset());
            }
        }
        x.step("produce 2 keyless records to diverged-0 with acks=1 (node 3, the new leader), timestamps base-7h, "
            + "base-5h; acknowledged at " + second);
        Thread.sleep(2000);
        leaderFacts(c, tp, c.facts.putObject("after_unclean_election"));
        c.startedInReplay.add(2);
        x.note("diverged-0: replicas [2, 3], min.insync.replicas=1, unclean.leader.election.enable=true, "
            + "retention.ms=-1, segment.ms=1h, records 2 h apart (one per segment) but for node 2's offset 4, 30 min "
            + "after 3 (node 2's segment 3 holds 3-4). Offsets 0-3 on both; node 3 "
            + "stopped; 4-7 on node 2 alone (epoch 0); node 2 stopped; node 3 started and elected uncleanly; 4-5 "
            + "written again on node 3 in its new epoch. Node 2 is stopped at capture with offsets 4-7 that no "
            + "leader has: its leader-epoch-checkpoint ends at epoch 0, node 3's has a later epoch from 4.");
        x.note("plan-check's replay starts node 2 too (nodes[].started_in_replay), once node 3 (the ISR member) "
            + "leads again: node 2 truncates to 4, the end of epoch 0 on node 3 (segment 3 cut inside, 5-7 "
            + "deleted) and refetches 4-5. Started together, node 2 could be elected uncleanly if it registered "
            + "first, and node 3 would truncate instead.");
    }

    /** The leader's figures for {@code tp}: ISR/ELR/leader from describeTopics, ListOffsets earliest and latest. */
    static void leaderFacts(ClusterCtx c, TopicPartition tp, ObjectNode o) throws Exception {
        try (Admin a = c.cluster.admin()) {
            TopicPartitionInfo p = a.describeTopics(List.of(tp.topic())).allTopicNames().get(30, TimeUnit.SECONDS)
                .get(tp.topic()).partitions().get(tp.partition());
            partitionInfo(p, o);
            o.put("log_start_offset", listOffset(a, tp, OffsetSpec.earliest()));
            o.put("high_watermark", listOffset(a, tp, OffsetSpec.latest()));
        }
    }

    /** ListOffsets with a 10 s timeout: the offset, or -1 with the failure recorded by the caller's text. */
    static long listOffset(Admin a, TopicPartition tp, OffsetSpec spec) {
        try {
            return a.listOffsets(Map.of(tp, spec), new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED)
                .timeoutMs(10000)).partitionResult(tp).get(12, TimeUnit.SECONDS).offset();
        } catch (Exception e) {
            return -1;
        }
    }

    static void partitionInfo(TopicPartitionInfo p, ObjectNode o) {
        o.put("leader", p.leader() == null ? -1 : p.leader().id());
        ArrayNode r = o.putArray("replicas");
        p.replicas().forEach(n -> r.add(n.id()));
        ArrayNode isr = o.putArray("isr");
        p.isr().forEach(n -> isr.add(n.id()));
        ArrayNode elr = o.putArray("elr");
        p.elr().forEach(n -> elr.add(n.id()));
        ArrayNode lkelr = o.putArray("last_known_elr");
        p.lastKnownElr().forEach(n -> lkelr.add(n.id()));
    }

    // ---------------------------------------------------------------------------------------------
    static void run(String name, Scenario sc, Path work, Path out) throws Exception {
        Harness.deleteTree(work);
        Files.createDirectories(work);
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        long base = (System.currentTimeMillis() / 60_000L) * 60_000L;
        try (Cluster cluster = new Cluster(work, sc.jbodNode(), sc.brokerOverrides())) {
            cluster.formatAndStart();
            ObjectNode manifest = json.createObjectNode();
            ObjectNode facts = json.createObjectNode();
            ClusterCtx cc;
            try (Admin admin = cluster.admin()) {
                Ctx ctx = new Ctx(name, cluster.node(1), admin, base, json);
                cc = new ClusterCtx(ctx, cluster, facts);
                ctx.step("format storage on three nodes (cluster id " + Broker.CLUSTER_ID + "; node 1 broker+controller "
                    + "--standalone, nodes 2 and 3 brokers only) and start Kafka " + Harness.KAFKA_VERSION
                    + " on each (-Xmx" + Cluster.HEAP + "); base time " + Instant.ofEpochMilli(base));
                try {
                    sc.body().run(cc);
                } finally {
                    ctx.closeProducers();
                }
                capture(cc, manifest, json);
                ctx.step("SIGTERM the running nodes (brokers first, node 1 with the controller last) right after "
                    + "capturing the Admin API numbers");
            }
            for (int id = Cluster.SIZE; id >= 1; id--) {
                if (cluster.node(id).isAlive()) {
                    cluster.node(id).stopClean();
                    cc.ended.put(id, "running");
                }
            }
            String capturedAt = Instant.now().toString();
            Harness.deleteTree(out);
            Files.createDirectories(out);
            List<String> mods = new ArrayList<>();
            ArrayNode nodes = json.createArrayNode();
            for (Broker b : cluster.nodes()) {
                int id = b.nodeId();
                Path nodeOut = out.resolve("node-" + id);
                ObjectNode n = nodes.addObject();
                n.put("node_id", id);
                n.put("process_roles", b.config().get("process.roles"));
                n.put("at_capture", cc.ended.getOrDefault(id, "running").equals("running") ? "running" : "stopped");
                n.put("shutdown", "clean");
                if (cc.startedInReplay.contains(id)) {
                    n.put("started_in_replay", true);
                }
                ArrayNode ld = n.putArray("log_dirs");
                ObjectNode files = json.createObjectNode();
                for (int i = 0; i < b.logDirs().size(); i++) {
                    Harness.copyTree(b.logDirs().get(i), nodeOut.resolve("logs-" + i));
                    ld.add(nodeDirName(id, i));
                    ArrayNode fa = files.putArray(nodeDirName(id, i));
                    try (Stream<Path> s = Files.list(nodeOut.resolve("logs-" + i))) {
                        s.filter(Files::isRegularFile).map(x -> x.getFileName().toString()).sorted().forEach(fa::add);
                    }
                }
                n.put("metadata_log_dir", nodeDirName(id, 0));
                mods.addAll(Harness.trimMetadataIndexes(nodeOut.resolve("logs-0").resolve("__cluster_metadata-0"),
                    nodeDirName(id, 0) + "/__cluster_metadata-0"));
                Files.writeString(nodeOut.resolve("server.properties"), Broker.render(b.relativeConfig()));
                ObjectNode bc = n.putObject("broker_config");
                b.relativeConfig().forEach(bc::put);
                n.set("log_dir_files", files);
            }
            ObjectNode m = json.createObjectNode();
            m.put("scenario", name);
            m.put("kafka_version", Harness.KAFKA_VERSION);
            m.put("mode", "kraft");
            m.put("captured_at", capturedAt);
            m.put("base_time_ms", base);
            m.put("base_time", Instant.ofEpochMilli(base).toString());
            m.put("cluster_id", Broker.CLUSTER_ID);
            m.set("nodes", nodes);
            m.set("topics", manifest.get("topics"));
            ArrayNode parts = (ArrayNode) manifest.get("partitions");
            for (var it = parts.elements(); it.hasNext(); ) {
                ObjectNode p = (ObjectNode) it.next();
                String dn = p.get("topic").asText() + "-" + p.get("partition").asInt();
                if (p.get("log_dir").isNull()) {
                    // A node stopped before capture: its replica's dir as found on disk.
                    Broker b = cluster.node(p.get("node_id").asInt());
                    for (int i = 0; i < b.logDirs().size(); i++) {
                        if (Files.isDirectory(out.resolve(nodeDirName(b.nodeId(), i)).resolve(dn))) {
                            p.put("log_dir", nodeDirName(b.nodeId(), i));
                        }
                    }
                    if (p.get("log_dir").isNull()) {
                        continue;
                    }
                }
                Path pd = out.resolve(p.get("log_dir").asText()).resolve(dn);
                ArrayNode segs = p.putArray("segments_on_disk");
                Harness.segmentBases(pd, ".log").forEach(segs::add);
            }
            m.set("partitions", parts);
            if (facts.size() > 0) {
                m.set("facts", facts);
            }
            ArrayNode steps = m.putArray("steps");
            cc.ctx.steps.forEach(steps::add);
            m.put("notes", String.join("\n", cc.ctx.notes));
            ArrayNode ma = m.putArray("harness_modifications");
            mods.forEach(ma::add);
            json.writeValue(out.resolve("manifest.json").toFile(), m);
            Files.writeString(out.resolve("manifest.json"), Files.readString(out.resolve("manifest.json")) + "\n");
        }
    }

    /**
     * Admin-API state of every data topic taken while the running nodes are up: topics (id, configs, per
     * partition leader/replicas/ISR/ELR), and one entry per replica: the node and log dir describeLogDirs puts it
     * in, its size and offset lag (max(HW - LEO, 0) on that node), and the leader's ListOffsets earliest / latest
     * (-1: the call failed or timed out). A stopped node's replicas are listed with log_dir null.
     */
    static void capture(ClusterCtx c, ObjectNode m, ObjectMapper json) throws Exception {
        try (Admin admin = c.cluster.admin()) {
            Set<String> names = new TreeSet<>(admin.listTopics(new ListTopicsOptions().listInternal(false)).names()
                .get(30, TimeUnit.SECONDS));
            Map<String, TopicDescription> descs = admin.describeTopics(names).allTopicNames().get(30, TimeUnit.SECONDS);
            List<ConfigResource> res = names.stream().map(n -> new ConfigResource(ConfigResource.Type.TOPIC, n)).toList();
            Map<ConfigResource, Config> cfgs = admin.describeConfigs(res).all().get(30, TimeUnit.SECONDS);
            Map<Integer, Map<TopicPartition, String[]>> where = new HashMap<>();
            for (Broker b : c.cluster.nodes()) {
                if (!b.isAlive()) {
                    continue;
                }
                Map<TopicPartition, String[]> w = new HashMap<>();
                Map<String, LogDirDescription> dirs = admin.describeLogDirs(List.of(b.nodeId())).allDescriptions()
                    .get(30, TimeUnit.SECONDS).get(b.nodeId());
                for (var e : dirs.entrySet()) {
                    String rel = "node-" + b.nodeId() + "/" + Harness.relDir(b, e.getKey());
                    e.getValue().replicaInfos().forEach((tp, ri) -> {
                        if (!ri.isFuture()) {
                            w.put(tp, new String[] {rel, String.valueOf(ri.size()), String.valueOf(ri.offsetLag())});
                        }
                    });
                }
                where.put(b.nodeId(), w);
            }
            ArrayNode topics = m.putArray("topics");
            ArrayNode parts = m.putArray("partitions");
            for (String n : names) {
                TopicDescription d = descs.get(n);
                ObjectNode t = topics.addObject();
                t.put("name", n);
                t.put("topic_id", d.topicId().toString());
                t.put("internal", d.isInternal());
                t.put("partitions", d.partitions().size());
                ObjectNode cn = t.putObject("configs");
                List<ConfigEntry> entries = new ArrayList<>(cfgs.get(new ConfigResource(ConfigResource.Type.TOPIC, n))
                    .entries());
                entries.sort(Comparator.comparing(ConfigEntry::name));
                for (ConfigEntry e : entries) {
                    ObjectNode ce = cn.putObject(e.name());
                    ce.put("value", e.value());
                    ce.put("source", e.source().name());
                }
                ArrayNode assign = t.putArray("assignment");
                for (TopicPartitionInfo pi : d.partitions()) {
                    ObjectNode a = assign.addObject();
                    a.put("partition", pi.partition());
                    partitionInfo(pi, a);
                    TopicPartition tp = new TopicPartition(n, pi.partition());
                    long start = listOffset(admin, tp, OffsetSpec.earliest());
                    long hw = listOffset(admin, tp, OffsetSpec.latest());
                    a.put("log_start_offset", start);
                    a.put("high_watermark", hw);
                    for (Node r : pi.replicas()) {
                        ObjectNode p = parts.addObject();
                        p.put("topic", n);
                        p.put("partition", pi.partition());
                        p.put("node_id", r.id());
                        p.put("role", pi.leader() != null && pi.leader().id() == r.id() ? "leader" : "follower");
                        p.put("in_isr", pi.isr().stream().anyMatch(i -> i.id() == r.id()));
                        String[] w = Optional.ofNullable(where.get(r.id())).map(x -> x.get(tp)).orElse(null);
                        if (w == null) {
                            p.putNull("log_dir");
                            p.putNull("size_bytes");
                            p.putNull("offset_lag");
                        } else {
                            p.put("log_dir", w[0]);
                            p.put("size_bytes", Long.parseLong(w[1]));
                            p.put("offset_lag", Long.parseLong(w[2]));
                        }
                    }
                }
            }
        }
    }
}
