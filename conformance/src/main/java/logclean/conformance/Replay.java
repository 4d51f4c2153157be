package logclean.conformance;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;

/**
 * Lets a real 4.4.0 broker act on a COPY of a fixture: the oracle for {@code logclean plan}.
 *
 * REPLAY_DIR must hold a copy of {@code fixtures/<scenario>/}: {@code server.properties} (log dirs relative,
 * logs-0, ...) and the {@code logs-N} dirs (copied with their mtimes). The broker is started on those dirs with
 * the fixture's config, new listener ports (the fixture's are stale; cluster id and node id stay, they are in
 * meta.properties and the metadata log) and overrides that let the retention task and the cleaner act at once.
 * A dynamic {@code log.cleaner.backoff.ms} in the metadata log (the compacted scenario parks the cleaner that
 * way) would win over the static override, so it is deleted through the admin API right after startup.
 *
 * Then: poll the dirs until the live segment sets and cleaner checkpoints have not changed for SETTLE seconds
 * (at least MIN_RUN seconds after ready, at most TIMEOUT), read ListOffsets earliest/latest per partition,
 * SIGTERM the broker and write OUT_JSON: the wall-clock window, and per partition the live {@code .log} base
 * offsets before and after, what was deleted/created, the admin log start offset and HW, and the checkpoints.
 *
 * What the broker does before its first retention run (so a planner must model it): it recovers a dir that
 * has no .kafka_cleanshutdown (G2), and a leader whose ISR is itself sets HW = LEO at once (Errata 18).
 *
 * Usage: Replay REPLAY_DIR OUT_JSON [MIN_RUN_S [SETTLE_S [TIMEOUT_S]]]   (defaults 6, 5, 90)
 */
public final class Replay {
    /** The knobs that make the broker act promptly on what it loads. */
    static Map<String, String> replayOverrides() {
        Map<String, String> o = new LinkedHashMap<>();
        o.put("log.initial.task.delay.ms", "1000");
        o.put("log.retention.check.interval.ms", "1000");
        o.put("log.cleaner.backoff.ms", "1000");
        o.put("log.segment.delete.delay.ms", "0");
        o.put("log.cleaner.enable", "true");
        // Keep the run deterministic: the coordinator would abort a fixture's long-expired open transaction
        // 10 s after startup (an abort marker moves LSO/LEO mid-run). The plan is about what the broker does
        // with the dirs as they are, so park that task for the few seconds the replay lasts.
        o.put("transaction.abort.timed.out.transaction.cleanup.interval.ms", "3600000");
        return o;
    }

    /**
     * A cluster replay's knobs: as {@link #replayOverrides()}, but the first retention pass 5 s after the log
     * manager starts, not 1 s. A broker pauses cleaning of a replica that is moving between its log dirs (a
     * -future dir) only when it applies its first metadata (BrokerMetadataPublisher: initializeManagers starts
     * the LogManager and its retention task, then ReplicaManager.applyDelta, maybeAddLogDirFetchers,
     * abortAndPauseCleaning). With the broker's default delay (30 s) the pause always comes first; with 1 s, a
     * loaded machine let the first pass delete the moving replica's expired segments (rf3-jbod, CI of stop 35).
     */
    static final long CLUSTER_INITIAL_TASK_DELAY_MS = 5000;

    static Map<String, String> clusterReplayOverrides() {
        Map<String, String> o = replayOverrides();
        o.put("log.initial.task.delay.ms", String.valueOf(CLUSTER_INITIAL_TASK_DELAY_MS));
        return o;
    }

    /**
     * Tiered fixtures: the RemoteStorageManager's state at capture carries over. {@link LocalRsm} counts copies per
     * JVM, so a fixture captured while its plugin hung (or failed) from the Nth copy would get N-1 good copies in
     * the replay's fresh JVM; the oracle is "the plugin still hangs/fails", so the replay's first copy does.
     */
    record RsmOverrides(Map<String, String> overrides, List<String> adjustments) { }

    static RsmOverrides rsmOverrides(Properties fixture) {
        Map<String, String> o = new LinkedHashMap<>();
        List<String> adj = new ArrayList<>();
        for (String k : List.of("rsm.config.hang.from.copy", "rsm.config.fail.from.copy")) {
            String v = fixture.getProperty(k);
            if (v != null && Integer.parseInt(v.trim()) > 0) {
                o.put(k, "1");
                adj.add(k + "=" + v.trim() + " in the fixture: 1 in the replay (the plugin still hangs/fails, as at "
                    + "capture; its copy count restarts with the JVM)");
            }
        }
        return new RsmOverrides(o, adj);
    }

    /** Keys the Broker launcher sets itself (ports, roles, dirs). */
    static final Set<String> LAUNCHER_KEYS = Set.of("process.roles", "node.id", "controller.quorum.bootstrap.servers",
        "controller.quorum.voters", "broker.id", "zookeeper.connect",
        "listeners", "advertised.listeners", "controller.listener.names", "inter.broker.listener.name",
        "listener.security.protocol.map", "log.dirs");

    static final Pattern PARTITION_DIR = Pattern.compile("^(.+)-(\\d+)$");

    public static void main(String[] args) throws Exception {
        if (args.length < 2 || args.length > 5) {
            System.err.println("usage: Replay REPLAY_DIR OUT_JSON [MIN_RUN_S [SETTLE_S [TIMEOUT_S]]]");
            System.exit(2);
        }
        Path dir = Path.of(args[0]).toAbsolutePath();
        Path out = Path.of(args[1]).toAbsolutePath();
        long minRunMs = 1000L * (args.length > 2 ? Long.parseLong(args[2]) : 6);
        long settleMs = 1000L * (args.length > 3 ? Long.parseLong(args[3]) : 5);
        long timeoutMs = 1000L * (args.length > 4 ? Long.parseLong(args[4]) : 90);
        int rc = 0;
        try {
            if (Files.isDirectory(dir.resolve("node-1"))) {
                runCluster(dir, out, minRunMs, settleMs, timeoutMs);
            } else {
                run(dir, out, minRunMs, settleMs, timeoutMs);
            }
        } catch (Throwable t) {
            t.printStackTrace();
            System.err.println("replay FAILED; broker log: " + dir.resolve("broker.log"));
            rc = 1;
        } finally {
            for (Process p : Broker.CHILDREN) {
                if (p.isAlive()) {
                    p.destroyForcibly();
                }
            }
        }
        System.exit(rc);
    }

    /** One partition replica's dir as found on disk. */
    record Part(String logDir, String topic, int partition, Path path) {
        String key() {
            return topic + "-" + partition;
        }
    }

    static List<Part> partitions(Path root, int numDirs) throws IOException {
        List<Part> parts = new ArrayList<>();
        for (int i = 0; i < numDirs; i++) {
            String dn = "logs-" + i;
            try (Stream<Path> s = Files.list(root.resolve(dn))) {
                for (Path p : s.filter(Files::isDirectory).sorted().toList()) {
                    String name = p.getFileName().toString();
                    Matcher m = PARTITION_DIR.matcher(name);
                    if (!m.matches() || name.equals("__cluster_metadata-0") || name.endsWith("-delete")
                        || name.endsWith("-future") || name.endsWith("-stray")) {
                        continue;
                    }
                    parts.add(new Part(dn, m.group(1), Integer.parseInt(m.group(2)), p));
                }
            }
        }
        return parts;
    }

    /** "topic-partition" -> offset of a checkpoint file (version, count, then "topic partition offset" lines). */
    static Map<String, Long> checkpoint(Path file) throws IOException {
        Map<String, Long> m = new TreeMap<>();
        if (!Files.isRegularFile(file)) {
            return m;
        }
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        for (int i = 2; i < lines.size(); i++) {
            String[] f = lines.get(i).trim().split("\\s+");
            if (f.length == 3) {
                m.put(f[0] + "-" + f[1], Long.parseLong(f[2]));
            }
        }
        return m;
    }

    /** Everything the poll loop watches: live segment bases per partition and each dir's cleaner checkpoint. */
    static String signature(Path root, List<Part> parts, int numDirs) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (Part p : parts) {
            sb.append(p.logDir()).append('/').append(p.key()).append(Harness.segmentBases(p.path(), ".log")).append(';');
        }
        for (int i = 0; i < numDirs; i++) {
            sb.append(checkpoint(root.resolve("logs-" + i).resolve("cleaner-offset-checkpoint"))).append(';');
        }
        return sb.toString();
    }

    /** Deletes a dynamic log.cleaner.backoff.ms (cluster default or broker 1); returns what it removed. */
    static List<String> unparkCleaner(Admin admin) throws Exception {
        List<String> done = new ArrayList<>();
        for (String name : List.of("", String.valueOf(Broker.NODE_ID))) {
            ConfigResource r = new ConfigResource(ConfigResource.Type.BROKER, name);
            Config c = admin.describeConfigs(List.of(r)).all().get(30, TimeUnit.SECONDS).get(r);
            ConfigEntry e = c.get("log.cleaner.backoff.ms");
            boolean dynamic = e != null && (e.source() == ConfigEntry.ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG
                || e.source() == ConfigEntry.ConfigSource.DYNAMIC_BROKER_CONFIG);
            if (!dynamic) {
                continue;
            }
            admin.incrementalAlterConfigs(Map.of(r, List.of(new AlterConfigOp(
                new ConfigEntry("log.cleaner.backoff.ms", ""), AlterConfigOp.OpType.DELETE)))).all()
                .get(30, TimeUnit.SECONDS);
            done.add("deleted dynamic log.cleaner.backoff.ms=" + e.value() + " (" + e.source() + ") on broker resource '"
                + name + "' so the static replay value applies");
        }
        return done;
    }

    static void run(Path dir, Path out, long minRunMs, long settleMs, long timeoutMs) throws Exception {
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        Properties fixture = new Properties();
        Path fixtureProps = dir.resolve("server.properties.fixture");
        if (!Files.exists(fixtureProps)) {
            Files.move(dir.resolve("server.properties"), fixtureProps);
        }
        try (var r = Files.newBufferedReader(fixtureProps, StandardCharsets.UTF_8)) {
            fixture.load(r);
        }
        int numDirs = fixture.getProperty("log.dirs", "logs-0").split(",").length;
        Map<String, String> overrides = new LinkedHashMap<>();
        for (String k : new TreeSet<>(fixture.stringPropertyNames())) {
            if (!LAUNCHER_KEYS.contains(k)) {
                overrides.put(k, fixture.getProperty(k));
            }
        }
        overrides.putAll(replayOverrides());
        overrides.putAll(rsmOverrides(fixture).overrides());

        List<Part> parts = partitions(dir, numDirs);
        Map<String, List<Long>> before = new HashMap<>();
        for (Part p : parts) {
            before.put(p.logDir() + "/" + p.key(), Harness.segmentBases(p.path(), ".log"));
        }
        Map<String, List<String>> metadataBefore = metadataLogFiles(dir, numDirs);
        List<Map<String, Long>> cleanerBefore = new ArrayList<>();
        List<Map<String, Long>> startBefore = new ArrayList<>();
        List<Boolean> cleanMarker = new ArrayList<>();
        for (int i = 0; i < numDirs; i++) {
            Path d = dir.resolve("logs-" + i);
            cleanerBefore.add(checkpoint(d.resolve("cleaner-offset-checkpoint")));
            startBefore.add(checkpoint(d.resolve("log-start-offset-checkpoint")));
            cleanMarker.add(Files.exists(d.resolve(".kafka_cleanshutdown")));
        }

        // The release that wrote the fixture replays it (-Dconformance.kafka.version, from its manifest); a
        // server.properties with zookeeper.connect is a ZooKeeper-mode fixture, whose ZooKeeper data dir (topics,
        // their configs and ids) is in REPLAY_DIR/zookeeper and is served by a fresh ZooKeeper on a new port.
        Dist dist = Dist.of(System.getProperty("conformance.kafka.version", Dist.DEFAULT_VERSION),
            fixture.getProperty("zookeeper.connect") != null ? Dist.Mode.ZK : Dist.Mode.KRAFT);
        if (dist.zk() && !Files.isDirectory(dir.resolve("zookeeper"))) {
            throw new IllegalStateException("ZooKeeper-mode fixture without its zookeeper/ data dir: " + dir);
        }
        ObjectNode res = json.createObjectNode();
        res.put("kafka_version", dist.version());
        res.put("mode", dist.modeKey());
        res.put("replay_dir", dir.toString());
        ObjectNode ov = res.putObject("overrides");
        replayOverrides().forEach(ov::put);
        ArrayNode adj = res.putArray("adjustments");
        rsmOverrides(fixture).adjustments().forEach(adj::add);
        ArrayNode marker = res.putArray("clean_shutdown_marker_before");
        cleanMarker.forEach(marker::add);
        ObjectNode window = res.putObject("window");
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> earliest;
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> latest;
        boolean timedOut = false;
        Map<String, String> policies = new HashMap<>();
        try (Broker broker = new Broker(dir, dist, numDirs, overrides)) {
            broker.writeConfig();
            window.put("start_ms", System.currentTimeMillis());
            broker.start();
            broker.awaitReady(Duration.ofSeconds(120));
            long ready = System.currentTimeMillis();
            window.put("ready_ms", ready);
            try (Admin admin = broker.admin()) {
                unparkCleaner(admin).forEach(adj::add);
                String sig = signature(dir, parts, numDirs);
                long changed = System.currentTimeMillis();
                while (true) {
                    Thread.sleep(500);
                    if (!broker.isAlive()) {
                        throw new IllegalStateException("broker exited, see " + dir.resolve("broker.out"));
                    }
                    long now = System.currentTimeMillis();
                    String s = signature(dir, parts, numDirs);
                    if (!s.equals(sig)) {
                        sig = s;
                        changed = now;
                    }
                    if (now - ready >= minRunMs && now - changed >= settleMs) {
                        break;
                    }
                    if (now - ready >= timeoutMs) {
                        timedOut = true;
                        break;
                    }
                }
                window.put("settled_ms", System.currentTimeMillis());
                Collection<String> topics = admin.listTopics(new ListTopicsOptions().listInternal(true)).names()
                    .get(30, TimeUnit.SECONDS);
                Map<String, TopicDescription> desc = admin.describeTopics(topics).allTopicNames().get(30, TimeUnit.SECONDS);
                Map<TopicPartition, OffsetSpec> e = new HashMap<>();
                Map<TopicPartition, OffsetSpec> l = new HashMap<>();
                for (TopicDescription td : desc.values()) {
                    td.partitions().forEach(pi -> {
                        e.put(new TopicPartition(td.name(), pi.partition()), OffsetSpec.earliest());
                        l.put(new TopicPartition(td.name(), pi.partition()), OffsetSpec.latest());
                    });
                }
                List<ConfigResource> rs = topics.stream().map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t))
                    .toList();
                admin.describeConfigs(rs).all().get(30, TimeUnit.SECONDS).forEach((r, cfg) -> {
                    ConfigEntry ce = cfg.get("cleanup.policy");
                    policies.put(r.name(), ce == null ? null : ce.value());
                });
                earliest = admin.listOffsets(e).all().get(30, TimeUnit.SECONDS);
                latest = admin.listOffsets(l).all().get(30, TimeUnit.SECONDS);
            }
            window.put("stop_begin_ms", System.currentTimeMillis());
            broker.stopClean();
            window.put("stop_ms", System.currentTimeMillis());
        }
        res.put("timed_out", timedOut);

        ArrayNode pa = res.putArray("partitions");
        for (Part p : parts) {
            int di = Integer.parseInt(p.logDir().substring("logs-".length()));
            ObjectNode o = pa.addObject();
            o.put("log_dir", p.logDir());
            o.put("topic", p.topic());
            o.put("partition", p.partition());
            List<Long> b = before.get(p.logDir() + "/" + p.key());
            List<Long> a = Harness.segmentBases(p.path(), ".log");
            ArrayNode bn = o.putArray("segments_before");
            b.forEach(bn::add);
            ArrayNode an = o.putArray("segments_after");
            a.forEach(an::add);
            ArrayNode del = o.putArray("deleted");
            b.stream().filter(x -> !a.contains(x)).forEach(del::add);
            ArrayNode cre = o.putArray("created");
            a.stream().filter(x -> !b.contains(x)).forEach(cre::add);
            o.put("cleanup_policy", policies.get(p.topic()));
            TopicPartition tp = new TopicPartition(p.topic(), p.partition());
            if (earliest.containsKey(tp)) {
                o.put("log_start_offset", earliest.get(tp).offset());
                o.put("high_watermark", latest.get(tp).offset());
            } else {
                o.putNull("log_start_offset");
                o.putNull("high_watermark");
            }
            putNullable(o, "log_start_checkpoint_before", startBefore.get(di).get(p.key()));
            putNullable(o, "log_start_checkpoint_after",
                checkpoint(dir.resolve(p.logDir()).resolve("log-start-offset-checkpoint")).get(p.key()));
            Long cb = cleanerBefore.get(di).get(p.key());
            Long ca = checkpoint(dir.resolve(p.logDir()).resolve("cleaner-offset-checkpoint")).get(p.key());
            putNullable(o, "cleaner_checkpoint_before", cb);
            putNullable(o, "cleaner_checkpoint_after", ca);
            o.put("cleaned", ca != null && !ca.equals(cb));
        }
        // The broker's log, read once for both accounts below (the replay dir's path shown as <replay>).
        Path log = dir.resolve("broker.log");
        List<String> logLines = new ArrayList<>();
        if (Files.exists(log)) {
            try (Stream<String> s = Files.lines(log, StandardCharsets.UTF_8)) {
                s.map(x -> x.replace(dir.toString(), "<replay>")).forEach(logLines::add);
            }
        }
        // The metadata log (KRaft): not retention-driven; its own cleaner (KafkaRaftLog.maybeClean, first run 60 s
        // after the raft client starts) deletes snapshots and the segments below the oldest one it keeps.
        if (!metadataBefore.isEmpty()) {
            Map<String, List<String>> metadataAfter = metadataLogFiles(dir, numDirs);
            ObjectNode ml = res.putObject("metadata_log");
            ml.put("log_dir", metadataBefore.get("log_dir").get(0));
            for (String k : List.of("segments", "snapshots")) {
                List<String> b = metadataBefore.get(k);
                List<String> a = metadataAfter.getOrDefault(k, List.of());
                ArrayNode bn = ml.putArray(k + "_before");
                b.forEach(bn::add);
                ArrayNode an = ml.putArray(k + "_after");
                a.forEach(an::add);
                ArrayNode dn = ml.putArray(k + "_deleted");
                b.stream().filter(x -> !a.contains(x)).forEach(dn::add);
            }
            // The cleaner's own lines (when each run happened, what it marked), for a difference's report.
            ArrayNode cl = ml.putArray("cleaner_log");
            logLines.stream().filter(x -> x.contains("KafkaRaftLog") && (x.contains("Marking snapshot") || x.contains("Initialized")))
                .limit(64).forEach(cl::add);
        }
        // The broker's own account of what it deleted and cleaned, for the report.
        ArrayNode lines = res.putArray("broker_log");
        Pattern interesting = Pattern.compile("Deleting segment|breach|Incremented log start offset|Cleaner \\d+: "
            + "Cleaning log|Log cleaner thread \\d+ cleaned log|Recovering unflushed segment|Found deletable segments"
            + "|future timestamp|high watermark|Truncat");
        logLines.stream().filter(x -> interesting.matcher(x).find()).filter(x -> !x.contains("__cluster_metadata"))
            .limit(400).forEach(lines::add);
        json.writeValue(out.toFile(), res);
        Files.writeString(out, Files.readString(out) + "\n");
        System.out.println("replay: window " + window + (timedOut ? " (TIMED OUT waiting to settle)" : "") + " -> " + out);
    }

    /**
     * A multi-broker fixture (issue 21; REPLAY_DIR holds manifest.json and node-N/ with server.properties and
     * logs-M): the nodes the manifest says were running at capture are started on their dirs (node 1 the
     * controller, the others brokers pointed at it; new ports), the retention task and the cleaner let loose,
     * until every started node's dirs settle. A node stopped before capture stays stopped, as it was: its
     * replicas are listed with "replayed": false. Per replica: the live segments before and after, the
     * checkpoints, and whether the node led the partition after the run (describeTopics).
     */
    /** The shortest cluster replay after the last node is ready (the first retention pass runs up to 5 s in). */
    static final long CLUSTER_MIN_RUN_MS = 15_000;

    static void runCluster(Path dir, Path out, long minRunMs, long settleMs, long timeoutMs) throws Exception {
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        var manifest = json.readTree(dir.resolve("manifest.json").toFile());
        List<Integer> started = new ArrayList<>();
        List<Integer> startedInReplay = new ArrayList<>();
        Map<Integer, Integer> dirsOf = new TreeMap<>();
        for (var n : manifest.get("nodes")) {
            int id = n.get("node_id").asInt();
            dirsOf.put(id, n.get("log_dirs").size());
            // A node stopped at capture stays stopped, unless the scenario is about its restart
            // (started_in_replay: a follower that comes back behind its leader).
            if ("running".equals(n.path("at_capture").asText()) || n.path("started_in_replay").asBoolean(false)) {
                started.add(id);
            }
            if (!"running".equals(n.path("at_capture").asText()) && n.path("started_in_replay").asBoolean(false)) {
                startedInReplay.add(id);
            }
        }
        if (!started.contains(1)) {
            throw new IllegalStateException("node 1 (the controller) was not running at capture: nothing to replay");
        }
        List<String> names = new ArrayList<>();
        List<Part> parts = new ArrayList<>();
        for (var e : dirsOf.entrySet()) {
            for (int i = 0; i < e.getValue(); i++) {
                String dn = "node-" + e.getKey() + "/logs-" + i;
                names.add(dn);
                try (Stream<Path> st = Files.list(dir.resolve(dn))) {
                    for (Path p : st.filter(Files::isDirectory).sorted().toList()) {
                        String name = p.getFileName().toString();
                        Matcher m = PARTITION_DIR.matcher(name);
                        if (m.matches() && !name.equals("__cluster_metadata-0") && !name.endsWith("-delete")
                            && !name.endsWith("-future") && !name.endsWith("-stray")) {
                            parts.add(new Part(dn, m.group(1), Integer.parseInt(m.group(2)), p));
                        }
                    }
                }
            }
        }
        Map<String, List<Long>> before = new HashMap<>();
        for (Part p : parts) {
            before.put(p.logDir() + "/" + p.key(), Harness.segmentBases(p.path(), ".log"));
        }
        Map<String, Map<String, Long>> cleanerBefore = new HashMap<>();
        Map<String, Map<String, Long>> startBefore = new HashMap<>();
        for (String dn : names) {
            cleanerBefore.put(dn, checkpoint(dir.resolve(dn).resolve("cleaner-offset-checkpoint")));
            startBefore.put(dn, checkpoint(dir.resolve(dn).resolve("log-start-offset-checkpoint")));
        }
        ObjectNode res = json.createObjectNode();
        res.put("kafka_version", Dist.DEFAULT_VERSION);
        res.put("mode", "kraft");
        res.put("replay_dir", dir.toString());
        ArrayNode sn = res.putArray("nodes_started");
        started.forEach(sn::add);
        ObjectNode ov = res.putObject("overrides");
        clusterReplayOverrides().forEach(ov::put);
        ObjectNode window = res.putObject("window");
        Map<String, Integer> leaders = new HashMap<>();
        boolean timedOut = false;
        List<Broker> brokers = new ArrayList<>();
        try {
            Broker controller = null;
            for (int id : started) {
                Properties fixture = new Properties();
                Path nodeDir = dir.resolve("node-" + id);
                Path props = nodeDir.resolve("server.properties.fixture");
                if (!Files.exists(props)) {
                    Files.move(nodeDir.resolve("server.properties"), props);
                }
                try (var r = Files.newBufferedReader(props, StandardCharsets.UTF_8)) {
                    fixture.load(r);
                }
                Map<String, String> overrides = new LinkedHashMap<>();
                for (String k : new TreeSet<>(fixture.stringPropertyNames())) {
                    if (!LAUNCHER_KEYS.contains(k)) {
                        overrides.put(k, fixture.getProperty(k));
                    }
                }
                overrides.putAll(clusterReplayOverrides());
                Broker b = new Broker(nodeDir, id, controller == null ? -1 : controller.controllerPort(),
                    dirsOf.get(id), overrides).heap(Cluster.HEAP);
                if (controller == null) {
                    controller = b;
                }
                brokers.add(b);
                b.writeConfig();
            }
            window.put("start_ms", System.currentTimeMillis());
            // The nodes running at capture first; a node stopped at capture (started_in_replay) only once the
            // partitions it shares with them have their leaders again, as when an operator brings a stopped
            // broker back into a running cluster. Every capture ends leaderless (the last replica's controlled
            // shutdown leaves leader -1 with the ISR kept), and with unclean.leader.election.enable the
            // controller elects whichever live replica unfences first (PartitionChangeBuilder: ISR, then ELR,
            // then any live replica): started together, a diverged replica outside the ISR could win the race.
            // Waiting pins the restart leader to the ISR's (logclean's restart_election_assumed).
            List<Broker> later = new ArrayList<>();
            for (Broker b : brokers) {
                if (startedInReplay.contains(b.nodeId())) {
                    later.add(b);
                    continue;
                }
                b.start();
            }
            for (Broker b : brokers) {
                if (!later.contains(b)) {
                    b.awaitReady(Duration.ofSeconds(120));
                }
            }
            if (!later.isEmpty()) {
                List<Integer> first = new ArrayList<>(started);
                later.forEach(b -> first.remove((Integer) b.nodeId()));
                res.putPOJO("leaders_before_later_nodes", awaitLeaders(controller, first, Duration.ofSeconds(60)));
                ArrayNode ln = res.putArray("started_after_leaders");
                for (Broker b : later) {
                    ln.add(b.nodeId());
                    b.start();
                }
                for (Broker b : later) {
                    b.awaitReady(Duration.ofSeconds(120));
                }
            }
            long ready = System.currentTimeMillis();
            window.put("ready_ms", ready);
            String sig = signature(dir, parts, names);
            long changed = System.currentTimeMillis();
            while (true) {
                Thread.sleep(500);
                for (Broker b : brokers) {
                    if (!b.isAlive()) {
                        throw new IllegalStateException("node " + b.nodeId() + " exited, see " + b.work());
                    }
                }
                long now = System.currentTimeMillis();
                String s2 = signature(dir, parts, names);
                if (!s2.equals(sig)) {
                    sig = s2;
                    changed = now;
                }
                // At least CLUSTER_MIN_RUN_MS: the followers' fetch responses carry the leader's log start
                // once its retention ran (a second or two after the last node is ready).
                if (now - ready >= Math.max(minRunMs, CLUSTER_MIN_RUN_MS) && now - changed >= settleMs) {
                    break;
                }
                if (now - ready >= timeoutMs) {
                    timedOut = true;
                    break;
                }
            }
            window.put("settled_ms", System.currentTimeMillis());
            try (Admin admin = controller.admin()) {
                Collection<String> topics = admin.listTopics().names().get(30, TimeUnit.SECONDS);
                admin.describeTopics(topics).allTopicNames().get(30, TimeUnit.SECONDS).forEach((t, d) ->
                    d.partitions().forEach(pi -> leaders.put(t + "-" + pi.partition(),
                        pi.leader() == null ? -1 : pi.leader().id())));
            }
            window.put("stop_begin_ms", System.currentTimeMillis());
            for (int i = brokers.size() - 1; i >= 0; i--) {
                brokers.get(i).stopClean();
            }
            window.put("stop_ms", System.currentTimeMillis());
        } finally {
            for (Broker b : brokers) {
                b.close();
            }
        }
        res.put("timed_out", timedOut);
        ArrayNode pa = res.putArray("partitions");
        for (Part p : parts) {
            int node = Integer.parseInt(p.logDir().substring("node-".length(), p.logDir().indexOf('/')));
            ObjectNode o = pa.addObject();
            o.put("log_dir", p.logDir());
            o.put("node_id", node);
            o.put("replayed", started.contains(node));
            o.put("topic", p.topic());
            o.put("partition", p.partition());
            o.put("leader_after", leaders.getOrDefault(p.key(), -1));
            List<Long> b = before.get(p.logDir() + "/" + p.key());
            // An intra-broker move (a -future dir at capture) that finished during the run: the source dir was
            // renamed -delete and the future took the partition's name in another log dir of the node. The
            // replica is then read where it lives now, and marked moved_to (its segments were moved, not
            // deleted by retention: plan_compare compares its log start only).
            Path path = p.path();
            String movedTo = null;
            if (!Files.isDirectory(path)) {
                for (int i = 0; i < dirsOf.get(node); i++) {
                    String dn = "node-" + node + "/logs-" + i;
                    if (!dn.equals(p.logDir()) && Files.isDirectory(dir.resolve(dn).resolve(p.key()))) {
                        path = dir.resolve(dn).resolve(p.key());
                        movedTo = dn;
                    }
                }
            }
            if (movedTo != null) {
                o.put("moved_to", movedTo);
            }
            List<Long> a = Harness.segmentBases(path, ".log");
            ArrayNode bn = o.putArray("segments_before");
            b.forEach(bn::add);
            ArrayNode an = o.putArray("segments_after");
            a.forEach(an::add);
            ArrayNode del = o.putArray("deleted");
            b.stream().filter(x -> !a.contains(x)).forEach(del::add);
            ArrayNode cre = o.putArray("created");
            a.stream().filter(x -> !b.contains(x)).forEach(cre::add);
            putNullable(o, "log_start_checkpoint_before", startBefore.get(p.logDir()).get(p.key()));
            Long lsAfter = checkpoint(dir.resolve(movedTo != null ? movedTo : p.logDir())
                .resolve("log-start-offset-checkpoint")).get(p.key());
            putNullable(o, "log_start_checkpoint_after", lsAfter);
            // The replica's own log start after the run: the checkpoint holds it only when it is above the first
            // segment's base (LogManager.checkpointLogStartOffsetsInDir), else it is that base.
            long first = a.isEmpty() ? -1 : a.get(0);
            o.put("log_start_offset", Math.max(lsAfter == null ? -1 : lsAfter, first));
            Long cb = cleanerBefore.get(p.logDir()).get(p.key());
            Long ca = checkpoint(dir.resolve(p.logDir()).resolve("cleaner-offset-checkpoint")).get(p.key());
            putNullable(o, "cleaner_checkpoint_before", cb);
            putNullable(o, "cleaner_checkpoint_after", ca);
            o.put("cleaned", ca != null && !ca.equals(cb));
        }
        json.writeValue(out.toFile(), res);
        Files.writeString(out, Files.readString(out) + "\n");
        System.out.println("replay (nodes " + started + "): window " + window + (timedOut ? " (TIMED OUT)" : "")
            + " -> " + out);
    }

    /**
     * Waits until every partition whose ISR or ELR holds one of the {@code running} nodes has a leader
     * (describeTopics), at most {@code timeout}: partition -> leader id (-1: none). A partition none of whose
     * ISR/ELR members runs keeps no leader (unclean election aside) and is not waited for.
     */
    static Map<String, Integer> awaitLeaders(Broker controller, List<Integer> running, Duration timeout)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Admin admin = controller.admin()) {
            while (true) {
                Map<String, Integer> leaders = new TreeMap<>();
                boolean waiting = false;
                Collection<String> topics = admin.listTopics().names().get(30, TimeUnit.SECONDS);
                for (var e : admin.describeTopics(topics).allTopicNames().get(30, TimeUnit.SECONDS).entrySet()) {
                    for (var pi : e.getValue().partitions()) {
                        int leader = pi.leader() == null || pi.leader().id() < 0 ? -1 : pi.leader().id();
                        leaders.put(e.getKey() + "-" + pi.partition(), leader);
                        boolean eligible = Stream.concat(pi.isr().stream(),
                                pi.elr() == null ? Stream.empty() : pi.elr().stream())
                            .anyMatch(n -> running.contains(n.id()));
                        waiting |= leader < 0 && eligible;
                    }
                }
                if (!waiting) {
                    return leaders;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("no leader elected among the running nodes " + running
                        + " within " + timeout + ": " + leaders);
                }
                Thread.sleep(200);
            }
        }
    }

    /** {@link #signature(Path, List, int)} over named dirs (node-N/logs-M). */
    static String signature(Path root, List<Part> parts, List<String> dirNames) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (Part p : parts) {
            sb.append(p.logDir()).append('/').append(p.key()).append(Harness.segmentBases(p.path(), ".log")).append(';');
        }
        for (String dn : dirNames) {
            sb.append(checkpoint(root.resolve(dn).resolve("cleaner-offset-checkpoint"))).append(';');
        }
        return sb.toString();
    }

    /**
     * The live files of the first {@code __cluster_metadata-0} under logs-N: "log_dir", "segments" (base offsets of
     * the .log files, as text) and "snapshots" (the .checkpoint file names, "END_OFFSET-EPOCH"); empty if none.
     * Files the broker deleted are renamed to *.deleted first, so they no longer match.
     */
    static Map<String, List<String>> metadataLogFiles(Path root, int numDirs) throws IOException {
        Map<String, List<String>> m = new TreeMap<>();
        for (int i = 0; i < numDirs; i++) {
            Path p = root.resolve("logs-" + i).resolve("__cluster_metadata-0");
            if (!Files.isDirectory(p)) {
                continue;
            }
            m.put("log_dir", List.of("logs-" + i));
            m.put("segments", Harness.segmentBases(p, ".log").stream().map(String::valueOf).toList());
            try (Stream<Path> s = Files.list(p)) {
                m.put("snapshots", s.map(x -> x.getFileName().toString())
                    .filter(n -> n.matches("\\d{20}-\\d{10}\\.checkpoint"))
                    .map(n -> n.substring(0, n.length() - ".checkpoint".length())).sorted().toList());
            }
            break;
        }
        return m;
    }

    static void putNullable(ObjectNode o, String k, Long v) {
        if (v == null) {
            o.putNull(k);
        } else {
            o.put(k, v);
        }
    }
}
