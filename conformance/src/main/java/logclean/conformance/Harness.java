package logclean.conformance;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;

/**
 * Runs one scenario end to end: format, start broker, scenario body, capture broker-reported state via
 * the Admin API, stop (clean or crash), copy log dirs into the fixture dir, write manifest.json.
 *
 * Usage: Harness SCENARIO OUT_DIR
 */
public final class Harness {
    public static final String KAFKA_VERSION = "4.4.0";

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: Harness SCENARIO OUT_DIR   (scenarios: " + Scenarios.ALL.keySet() + ")");
            System.exit(2);
        }
        String name = args[0];
        if (ClusterScenarios.ALL.containsKey(name)) {
            System.exit(runCluster(name, Path.of(args[1])));
        }
        Scenarios.Scenario sc = Scenarios.ALL.get(Dist.baseScenario(name));
        if (sc == null || !Dist.baseScenario(name).equals(name) && !Scenarios.V3.contains(Dist.baseScenario(name))) {
            System.err.println("unknown scenario " + name + "; known: " + Scenarios.ALL.keySet() + ", and with a "
                + "zk391- or kraft391- prefix (Kafka 3.9.1 in ZooKeeper / KRaft mode): " + Scenarios.V3);
            System.exit(2);
        }
        Path out = Path.of(args[1]).toAbsolutePath().resolve(name);
        Path work = Path.of(System.getProperty("conformance.work", "work")).toAbsolutePath().resolve(name);
        int rc = 0;
        try {
            run(name, sc, work, out);
        } catch (Throwable t) {
            t.printStackTrace();
            System.err.println("[" + name + "] FAILED; broker log: " + work.resolve("broker.log"));
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

    /** A multi-broker scenario ({@link ClusterScenarios}): exit code 0 or 1, every child JVM killed. */
    static int runCluster(String name, Path outDir) {
        Path out = outDir.toAbsolutePath().resolve(name);
        Path work = Path.of(System.getProperty("conformance.work", "work")).toAbsolutePath().resolve(name);
        try {
            ClusterScenarios.run(name, ClusterScenarios.ALL.get(name), work, out);
            return 0;
        } catch (Throwable t) {
            t.printStackTrace();
            System.err.println("[" + name + "] FAILED; broker logs: " + work.resolve("node-*/broker.log"));
            return 1;
        } finally {
            for (Process p : Broker.CHILDREN) {
                if (p.isAlive()) {
                    p.destroyForcibly();
                }
            }
        }
    }

    static void run(String name, Scenarios.Scenario sc, Path work, Path out) throws Exception {
        deleteTree(work);
        Files.createDirectories(work);
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        // Base time: wall clock rounded down to the minute; all record timestamps are relative to it.
        long base = (System.currentTimeMillis() / 60_000L) * 60_000L;
        Dist dist = Dist.forScenario(name);
        try (Broker broker = new Broker(work, dist, sc.logDirs(), sc.brokerOverrides())) {
            broker.format();
            broker.start();
            broker.awaitReady(Duration.ofSeconds(120));
            ObjectNode manifest;
            Ctx ctx;
            try (Admin admin = broker.admin()) {
                ctx = new Ctx(name, broker, admin, base, json);
                if (dist.zk()) {
                    ctx.step("start ZooKeeper (" + dist.version() + " classpath, ZooKeeperServerMain), create /cluster/id "
                        + "= " + Broker.CLUSTER_ID + ", start the Kafka " + dist.version() + " broker in ZooKeeper mode; "
                        + "base time " + Instant.ofEpochMilli(base));
                } else {
                    ctx.step("format storage (cluster id " + Broker.CLUSTER_ID + (dist.isV3() ? ", static quorum "
                        + "controller.quorum.voters" : ", --standalone") + ") and start the Kafka " + dist.version()
                        + " broker; base time " + Instant.ofEpochMilli(base));
                }
                try {
                    sc.body().run(ctx);
                } finally {
                    ctx.closeProducers();
                }
                manifest = capture(ctx, broker, json);
                if (dist.isV3()) {
                    describeTopicConfigs(broker, work.resolve("topic-configs.txt"));
                    ctx.step("kafka-configs.sh --bootstrap-server B --entity-type topics --describe --all (kafka.admin."
                        + "ConfigCommand, Kafka " + dist.version() + " classpath) -> topic-configs.txt");
                }
                if (sc.crash()) {
                    ctx.step("SIGKILL the broker (Process.destroyForcibly) right after capturing the Admin API numbers");
                } else {
                    ctx.step("SIGTERM the broker (clean shutdown) right after capturing the Admin API numbers");
                }
            }
            if (sc.crash()) {
                broker.crash();
            } else {
                broker.stopClean();
            }
            String capturedAt = Instant.now().toString();
            for (Process p : ctx.children) {
                p.destroyForcibly();
            }
            // copy
            deleteTree(out);
            Files.createDirectories(out);
            List<String> dirNames = new ArrayList<>();
            for (int i = 0; i < broker.logDirs().size(); i++) {
                String dn = "logs-" + i;
                dirNames.add(dn);
                copyTree(broker.logDirs().get(i), out.resolve(dn));
            }
            if (dist.isV3()) {
                Files.copy(work.resolve("topic-configs.txt"), out.resolve("topic-configs.txt"));
            }
            if (dist.zk()) {
                copyTree(broker.zk().dataDir(), out.resolve("zookeeper"));
            }
            if (broker.remoteStorageDir() != null && Files.isDirectory(broker.remoteStorageDir())) {
                copyTree(broker.remoteStorageDir(), out.resolve(broker.remoteStorageName()));
            }
            List<String> mods = new ArrayList<>();
            if (!"1".equals(System.getenv("CONFORMANCE_KEEP_METADATA_PREALLOCATION"))) {
                mods.addAll(trimMetadataIndexes(out.resolve(dirNames.get(0)).resolve("__cluster_metadata-0"),
                    dirNames.get(0) + "/__cluster_metadata-0"));
            }
            Files.writeString(out.resolve("server.properties"), Broker.render(broker.relativeConfig(), dist));
            finish(manifest, ctx, broker, out, dirNames, capturedAt, sc, json);
            ArrayNode ma = manifest.putArray("harness_modifications");
            mods.forEach(ma::add);
            json.writeValue(out.resolve("manifest.json").toFile(), manifest);
            Files.writeString(out.resolve("manifest.json"), Files.readString(out.resolve("manifest.json")) + "\n");
        }
    }

    /** Admin-API state taken while the broker is still running. */
    static ObjectNode capture(Ctx ctx, Broker broker, ObjectMapper json) throws Exception {
        Admin admin = ctx.admin;
        ObjectNode m = json.createObjectNode();
        Set<String> names = new TreeSet<>(admin.listTopics(new ListTopicsOptions().listInternal(true)).names().get());
        Map<String, TopicDescription> descs = admin.describeTopics(names).allTopicNames().get();
        List<ConfigResource> res = names.stream().map(n -> new ConfigResource(ConfigResource.Type.TOPIC, n)).toList();
        Map<ConfigResource, Config> cfgs = admin.describeConfigs(res).all().get();

        ArrayNode topics = json.createArrayNode();
        List<TopicPartition> tps = new ArrayList<>();
        for (String n : names) {
            TopicDescription d = descs.get(n);
            ObjectNode t = topics.addObject();
            t.put("name", n);
            t.put("topic_id", d.topicId().toString());
            t.put("internal", d.isInternal());
            t.put("partitions", d.partitions().size());
            ObjectNode c = t.putObject("configs");
            List<ConfigEntry> entries = new ArrayList<>(cfgs.get(new ConfigResource(ConfigResource.Type.TOPIC, n)).entries());
            entries.sort(Comparator.comparing(ConfigEntry::name));
            for (ConfigEntry e : entries) {
                ObjectNode ce = c.putObject(e.name());
                ce.put("value", e.value());
                ce.put("source", e.source().name());
            }
            d.partitions().forEach(p -> tps.add(new TopicPartition(n, p.partition())));
        }
        tps.sort(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));

        Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (TopicPartition tp : tps) {
            earliest.put(tp, OffsetSpec.earliest());
            latest.put(tp, OffsetSpec.latest());
        }
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> lso = admin.listOffsets(earliest).all().get();
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> hw = admin.listOffsets(latest,
            new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED)).all().get();
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> stable = admin.listOffsets(latest,
            new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get();
        Map<String, LogDirDescription> dirs = admin.describeLogDirs(List.of(Broker.NODE_ID)).allDescriptions().get()
            .get(Broker.NODE_ID);
        Map<TopicPartition, String> tpDir = new HashMap<>();
        Map<TopicPartition, ReplicaInfo> tpInfo = new HashMap<>();
        for (Map.Entry<String, LogDirDescription> e : dirs.entrySet()) {
            String rel = relDir(broker, e.getKey());
            e.getValue().replicaInfos().forEach((tp, ri) -> {
                if (!ri.isFuture()) {
                    tpDir.put(tp, rel);
                    tpInfo.put(tp, ri);
                }
            });
        }
        ArrayNode parts = json.createArrayNode();
        for (TopicPartition tp : tps) {
            ObjectNode p = parts.addObject();
            p.put("topic", tp.topic());
            p.put("partition", tp.partition());
            p.put("log_dir", tpDir.get(tp));
            p.put("log_start_offset", lso.get(tp).offset());
            p.put("high_watermark", hw.get(tp).offset());
            p.put("last_stable_offset", stable.get(tp).offset());
            ReplicaInfo ri = tpInfo.get(tp);
            p.put("log_end_offset", ri == null ? -1 : hw.get(tp).offset() + ri.offsetLag());
            p.put("offset_lag", ri == null ? -1 : ri.offsetLag());
            p.put("size_bytes", ri == null ? -1 : ri.size());
        }
        // Every group the coordinator lists (classic and KIP-848 consumer groups alike), plus those the
        // scenario committed for; offsets from Admin.listConsumerGroupOffsets.
        Map<String, String> committedAt = new TreeMap<>();
        ctx.groups.forEach(g -> committedAt.put(g.group(), g.committedAt()));
        Map<String, org.apache.kafka.clients.admin.GroupListing> listed = new TreeMap<>();
        for (var gl : admin.listGroups().all().get()) {
            listed.put(gl.groupId(), gl);
            committedAt.putIfAbsent(gl.groupId(), null);
        }
        ArrayNode groups = json.createArrayNode();
        for (String g : committedAt.keySet()) {
            ObjectNode gn = groups.addObject();
            gn.put("group", g);
            gn.put("committed_at", committedAt.get(g));
            var gl = listed.get(g);
            gn.put("type", gl == null ? null : gl.type().map(Object::toString).orElse(null));
            gn.put("state", gl == null ? null : gl.groupState().map(Object::toString).orElse(null));
            ArrayNode oa = gn.putArray("offsets");
            // A share group has no committed offsets (its share-partition start offsets are in share_groups).
            if (gl != null && gl.type().map(t -> t == org.apache.kafka.common.GroupType.SHARE).orElse(false)) {
                continue;
            }
            Map<TopicPartition, OffsetAndMetadata> offs = admin.listConsumerGroupOffsets(g)
                .partitionsToOffsetAndMetadata().get();
            offs.entrySet().stream()
                .filter(e -> e.getValue() != null)
                .sorted(Map.Entry.comparingByKey(Comparator.comparing(TopicPartition::topic)
                    .thenComparingInt(TopicPartition::partition)))
                .forEach(e -> {
                    ObjectNode o = oa.addObject();
                    o.put("topic", e.getKey().topic());
                    o.put("partition", e.getKey().partition());
                    o.put("offset", e.getValue().offset());
                });
        }
        ArrayNode deleted = m.putArray("deleted_groups");
        ctx.deletedGroups.forEach(deleted::add);
        if (!ctx.expiredGroups.isEmpty()) {
            ArrayNode expired = m.putArray("expired_groups");
            ctx.expiredGroups.forEach(expired::add);
        }
        if (ctx.findHanging != null) {
            m.set("find_hanging", ctx.findHanging);
        }
        captureTransactions(m, admin, tps, broker);
        m.set("topics", topics);
        m.set("partitions", parts);
        m.set("groups", groups);
        return m;
    }

    /**
     * Producer state (Admin.describeProducers) of every data partition, the coordinator's transactions
     * (listTransactions + describeTransactions), and the hanging ones by kafka-transactions.sh find-hanging's
     * rule: open longer than transaction.max.timeout.ms since the producer's last batch, and the coordinator
     * has no in-flight transaction of that producer over the partition.
     */
    static void captureTransactions(ObjectNode m, Admin admin, List<TopicPartition> tps, Broker broker)
        throws Exception {
        List<TopicPartition> data = tps.stream().filter(tp -> !tp.topic().startsWith("__")).toList();
        long now = System.currentTimeMillis();
        long maxTimeout = Long.parseLong(broker.relativeConfig().getOrDefault("transaction.max.timeout.ms", "900000"));
        var states = admin.describeProducers(data).all().get();
        var listings = admin.listTransactions().all().get();
        Map<String, org.apache.kafka.clients.admin.TransactionDescription> descs = listings.isEmpty() ? Map.of()
            : admin.describeTransactions(listings.stream().map(l -> l.transactionalId()).toList()).all().get();
        ArrayNode producers = m.putArray("producers");
        ArrayNode hanging = m.putArray("hanging_transactions");
        for (TopicPartition tp : data) {
            var st = states.get(tp);
            if (st == null) {
                continue;
            }
            for (var ps : st.activeProducers()) {
                ObjectNode o = producers.addObject();
                o.put("topic", tp.topic());
                o.put("partition", tp.partition());
                o.put("producer_id", ps.producerId());
                o.put("producer_epoch", ps.producerEpoch());
                o.put("last_sequence", ps.lastSequence());
                o.put("last_timestamp_ms", ps.lastTimestamp());
                o.put("current_transaction_start_offset", ps.currentTransactionStartOffset().orElse(-1));
                if (ps.currentTransactionStartOffset().isEmpty() || now - ps.lastTimestamp() <= maxTimeout) {
                    continue;
                }
                String id = null;
                boolean hangs = true;
                for (var l : listings) {
                    if (l.producerId() == ps.producerId()) {
                        id = l.transactionalId();
                        var d = descs.get(id);
                        String state = d.state().toString().toLowerCase(java.util.Locale.ROOT);
                        hangs = !(state.startsWith("ongoing") || state.startsWith("prepare"))
                            || !d.topicPartitions().contains(tp);
                    }
                }
                if (hangs) {
                    ObjectNode h = hanging.addObject();
                    h.put("topic", tp.topic());
                    h.put("partition", tp.partition());
                    h.put("producer_id", ps.producerId());
                    h.put("producer_epoch", ps.producerEpoch());
                    h.put("start_offset", ps.currentTransactionStartOffset().getAsLong());
                    h.put("transactional_id", id);
                }
            }
        }
        ArrayNode txns = m.putArray("transactions");
        for (var l : listings.stream().sorted(Comparator.comparing(l -> l.transactionalId())).toList()) {
            var d = descs.get(l.transactionalId());
            ObjectNode o = txns.addObject();
            o.put("transactional_id", l.transactionalId());
            o.put("producer_id", l.producerId());
            o.put("producer_epoch", d.producerEpoch());
            o.put("state", l.state().toString());
            o.put("transaction_timeout_ms", d.transactionTimeoutMs());
            ArrayNode tpa = o.putArray("partitions");
            d.topicPartitions().stream().map(TopicPartition::toString).sorted().forEach(tpa::add);
        }
    }

    /**
     * `kafka-transactions.sh --bootstrap-server B find-hanging --broker-id ID --max-transaction-timeout MIN`,
     * the Admin calls of TransactionsCommand.FindHangingTransactionsCommand (Kafka 4.4 tools/) one for one:
     * describeTopics of every listed topic, the partitions with a replica on ID; describeProducers (brokerId
     * ID); candidates = active producers with a current transaction start offset whose
     * now - lastTimestamp > MIN minutes; listTransactions(filterProducerIds) maps producer id to
     * transactional id; describeTransactions of those (TransactionalIdNotFound = no description). Hanging:
     * no transactional id, no description, or the description's partitions lack the partition. One row per
     * hanging transaction with the tool's columns.
     */
    static ArrayNode findHanging(Admin admin, int brokerId, int maxTransactionTimeoutMinutes, ObjectMapper json)
        throws Exception {
        long maxMs = java.util.concurrent.TimeUnit.MINUTES.toMillis(maxTransactionTimeoutMinutes);
        List<String> topics = new ArrayList<>(admin.listTopics().names().get());
        List<TopicPartition> tps = new ArrayList<>();
        admin.describeTopics(topics).allTopicNames().get().forEach((t, d) -> d.partitions().forEach(p -> {
            if (p.replicas().stream().anyMatch(n -> n.id() == brokerId)) {
                tps.add(new TopicPartition(t, p.partition()));
            }
        }));
        var states = admin.describeProducers(tps,
            new org.apache.kafka.clients.admin.DescribeProducersOptions().brokerId(brokerId)).all().get();
        long nowMs = System.currentTimeMillis();
        Map<Long, List<Map.Entry<TopicPartition, org.apache.kafka.clients.admin.ProducerState>>> byPid = new TreeMap<>();
        states.forEach((tp, st) -> st.activeProducers().forEach(ps -> {
            if (ps.currentTransactionStartOffset().isPresent() && nowMs - ps.lastTimestamp() > maxMs) {
                byPid.computeIfAbsent(ps.producerId(), k -> new ArrayList<>()).add(Map.entry(tp, ps));
            }
        }));
        ArrayNode rows = json.createArrayNode();
        if (byPid.isEmpty()) {
            return rows;
        }
        Map<Long, String> ids = new HashMap<>();
        admin.listTransactions(new org.apache.kafka.clients.admin.ListTransactionsOptions()
            .filterProducerIds(byPid.keySet())).all().get().forEach(l -> {
                if (byPid.containsKey(l.producerId())) {
                    ids.put(l.producerId(), l.transactionalId());
                }
            });
        Map<String, org.apache.kafka.clients.admin.TransactionDescription> descs = new HashMap<>();
        if (!ids.isEmpty()) {
            var res = admin.describeTransactions(new TreeSet<>(ids.values()));
            for (String id : ids.values()) {
                try {
                    descs.put(id, res.description(id).get());
                } catch (java.util.concurrent.ExecutionException e) {
                    if (!(e.getCause() instanceof org.apache.kafka.common.errors.TransactionalIdNotFoundException)) {
                        throw e;
                    }
                }
            }
        }
        for (var e : byPid.entrySet()) {
            String id = ids.get(e.getKey());
            var d = id == null ? null : descs.get(id);
            for (var open : e.getValue()) {
                if (d != null && d.topicPartitions().contains(open.getKey())) {
                    continue;
                }
                var ps = open.getValue();
                ObjectNode r = rows.addObject();
                r.put("topic", open.getKey().topic());
                r.put("partition", open.getKey().partition());
                r.put("producer_id", ps.producerId());
                r.put("producer_epoch", ps.producerEpoch());
                r.put("coordinator_epoch", ps.coordinatorEpoch().orElse(-1));
                r.put("start_offset", ps.currentTransactionStartOffset().getAsLong());
                r.put("last_timestamp_ms", ps.lastTimestamp());
                r.put("duration_min", java.util.concurrent.TimeUnit.MILLISECONDS.toMinutes(nowMs - ps.lastTimestamp()));
            }
        }
        return rows;
    }

    /**
     * {@code kafka-configs.sh --bootstrap-server B --entity-type topics --describe --all} as the broker's release
     * prints it (its ConfigCommand, run on the release's classpath), saved to FILE: what
     * {@code logclean --config-file} reads, and in ZooKeeper mode the only offline record of topic configs.
     */
    static void describeTopicConfigs(Broker broker, Path file) throws Exception {
        Dist dist = broker.dist();
        String main = dist.isV3() ? "kafka.admin.ConfigCommand" : "org.apache.kafka.tools.ConfigCommand";
        List<String> cmd = new ArrayList<>(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx128m", "-XX:TieredStopAtLevel=1",
            "-Dlog4j.configuration=file:" + broker.work().resolve("log4j.properties").toAbsolutePath(),
            "-Dlog4j2.configurationFile=" + broker.work().resolve("log4j2.properties").toAbsolutePath(),
            "-cp", dist.classpath(), main, "--bootstrap-server", broker.bootstrap(),
            "--entity-type", "topics", "--describe", "--all"));
        Path err = broker.work().resolve("kafka-configs.err");
        Process p = new ProcessBuilder(cmd).redirectOutput(file.toFile()).redirectError(err.toFile()).start();
        Broker.CHILDREN.add(p);
        if (!p.waitFor(120, java.util.concurrent.TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("kafka-configs --describe timed out");
        }
        if (p.exitValue() != 0 || Files.size(file) == 0) {
            throw new IllegalStateException("kafka-configs --describe failed (exit " + p.exitValue() + "):\n"
                + Files.readString(err));
        }
    }

    static String relDir(Broker broker, String path) {
        Path p = Path.of(path).toAbsolutePath().normalize();
        for (int i = 0; i < broker.logDirs().size(); i++) {
            if (broker.logDirs().get(i).normalize().equals(p)) {
                return "logs-" + i;
            }
        }
        return path;
    }

    /** Assemble the manifest in the documented key order, adding on-disk facts read after the stop. */
    static void finish(ObjectNode captured, Ctx ctx, Broker broker, Path out, List<String> dirNames,
                       String capturedAt, Scenarios.Scenario sc, ObjectMapper json) throws IOException {
        ObjectNode m = captured.deepCopy();
        captured.removeAll();
        captured.put("scenario", ctx.scenario);
        Dist dist = broker.dist();
        captured.put("kafka_version", dist.version());
        captured.put("mode", dist.modeKey());
        captured.put("captured_at", capturedAt);
        captured.put("base_time_ms", ctx.base);
        captured.put("base_time", Instant.ofEpochMilli(ctx.base).toString());
        captured.put("shutdown", sc.crash() ? "crash" : "clean");
        captured.put("cluster_id", Broker.CLUSTER_ID);
        captured.put("node_id", Broker.NODE_ID);
        ArrayNode ld = captured.putArray("log_dirs");
        dirNames.forEach(ld::add);
        if (!dist.zk()) {
            captured.put("metadata_log_dir", dirNames.get(0));
        } else {
            captured.put("zookeeper_data_dir", "zookeeper");
        }
        if (dist.isV3()) {
            captured.put("topic_configs_file", "topic-configs.txt");
        }
        ObjectNode bc = captured.putObject("broker_config");
        broker.relativeConfig().forEach(bc::put);
        captured.set("dynamic_broker_configs", ctx.dynamicBrokerConfigs);
        captured.set("topics", m.get("topics"));
        ArrayNode parts = (ArrayNode) m.get("partitions");
        for (var it = parts.elements(); it.hasNext(); ) {
            ObjectNode p = (ObjectNode) it.next();
            String dirName = p.get("log_dir").asText();
            Path pd = out.resolve(dirName).resolve(p.get("topic").asText() + "-" + p.get("partition").asInt());
            ArrayNode segs = p.putArray("segments_on_disk");
            segmentBases(pd, ".log").forEach(segs::add);
            ArrayNode txn = p.putArray("txnindex_on_disk");
            segmentBases(pd, ".txnindex").forEach(txn::add);
            ArrayNode snaps = p.putArray("producer_snapshots_on_disk");
            segmentBases(pd, ".snapshot").forEach(snaps::add);
        }
        captured.set("partitions", parts);
        // metadata log (not visible through the Admin API); ZooKeeper mode has none
        Path md = out.resolve(dirNames.get(0)).resolve("__cluster_metadata-0");
        ObjectNode ml = dist.zk() ? json.createObjectNode() : captured.putObject("metadata_log");
        ml.put("dir", dirNames.get(0) + "/__cluster_metadata-0");
        ArrayNode msegs = ml.putArray("segments_on_disk");
        segmentBases(md, ".log").forEach(msegs::add);
        ArrayNode cps = ml.putArray("snapshots_on_disk");
        if (Files.isDirectory(md)) {
            try (Stream<Path> s = Files.list(md)) {
                s.map(x -> x.getFileName().toString()).filter(x -> x.endsWith(".checkpoint")).sorted().forEach(cps::add);
            }
        }
        captured.set("groups", m.get("groups"));
        for (String k : List.of("deleted_groups", "producers", "transactions", "hanging_transactions")) {
            captured.set(k, m.get(k));
        }
        for (String k : List.of("expired_groups", "find_hanging")) {
            if (m.has(k)) {
                captured.set(k, m.get(k));
            }
        }
        if (ctx.tiered.size() > 0) {
            captured.set("tiered", ctx.tiered);
        }
        if (ctx.share.size() > 0) {
            captured.set("share_groups", ctx.share);
        }
        ArrayNode steps = captured.putArray("steps");
        ctx.steps.forEach(steps::add);
        captured.put("notes", String.join("\n", ctx.notes));
        // per-dir marker files, as found after the stop
        ObjectNode markers = captured.putObject("log_dir_files");
        for (String dn : dirNames) {
            ArrayNode a = markers.putArray(dn);
            try (Stream<Path> s = Files.list(out.resolve(dn))) {
                s.filter(Files::isRegularFile).map(x -> x.getFileName().toString()).sorted().forEach(a::add);
            }
        }
    }

    /**
     * The metadata log ignores log.index.size.max.bytes: its active .index/.timeindex are preallocated to the
     * 10 MiB segment.index.bytes default and are NOT trimmed at clean shutdown. Two such files per fixture would
     * blow the fixture size budget, so the copy drops their all-zero tail (whole slots only). Kafka accepts either
     * size for the active segment (it resizes the index when it opens it).
     */
    static List<String> trimMetadataIndexes(Path dir, String relDir) throws IOException {
        List<String> mods = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return mods;
        }
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(x -> x.toString().endsWith(".index") || x.toString().endsWith(".timeindex")).sorted().toList();
        }
        for (Path f : files) {
            int slot = f.toString().endsWith(".index") ? 8 : 12;
            byte[] b = Files.readAllBytes(f);
            if (b.length < 65536) {
                continue;
            }
            int slots = b.length / slot;
            int used = 0;
            for (int i = 0; i < slots; i++) {
                boolean zero = true;
                for (int j = i * slot; j < (i + 1) * slot; j++) {
                    if (b[j] != 0) {
                        zero = false;
                        break;
                    }
                }
                if (!zero) {
                    used = i + 1;
                }
            }
            int keep = used * slot;
            try (var ch = java.nio.channels.FileChannel.open(f, java.nio.file.StandardOpenOption.WRITE)) {
                ch.truncate(keep);
            }
            mods.add(relDir + "/" + f.getFileName() + ": truncated from " + b.length + " to " + keep
                + " bytes (all-zero tail of the preallocated active metadata-log index removed by the harness)");
        }
        return mods;
    }

    static List<Long> segmentBases(Path partitionDir, String suffix) throws IOException {
        if (!Files.isDirectory(partitionDir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(partitionDir)) {
            return s.map(p -> p.getFileName().toString())
                .filter(n -> n.endsWith(suffix) && n.length() == 20 + suffix.length())
                .map(n -> Long.parseLong(n.substring(0, 20)))
                .sorted()
                .collect(Collectors.toList());
        }
    }

    static void copyTree(Path src, Path dst) throws IOException {
        Files.walkFileTree(src, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                Files.createDirectories(dst.resolve(src.relativize(dir).toString()));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.copy(file, dst.resolve(src.relativize(file).toString()), StandardCopyOption.COPY_ATTRIBUTES);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> s = Files.walk(p)) {
            for (Path x : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(x);
            }
        }
    }
}
