package logclean.conformance;

import static logclean.conformance.Ctx.H;
import static logclean.conformance.Ctx.M;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionReplica;
import org.apache.kafka.common.Uuid;

/**
 * Tiered-storage scenarios (issue 19): Kafka 4.4.0 with remote.log.storage.system.enable=true, the broker's
 * default TopicBasedRemoteLogMetadataManager and the harness's {@link LocalRsm}. Each body records in the
 * manifest's "tiered" section what the broker did: the live local segments before and after, which it deleted,
 * the offsets the broker reports (ListOffsets earliest, earliest-local, latest-tiered, earliest-pending-upload,
 * latest, read_committed latest), the RSM's files and journal.
 */
final class TieredScenarios {
    private TieredScenarios() { }

    /** Broker settings every tiered scenario shares; {@code extra} (key, value pairs) on top. */
    static Map<String, String> broker(String... extra) {
        Map<String, String> m = Scenarios.cfg(
            "remote.log.storage.system.enable", "true",
            "remote.log.storage.manager.class.name", LocalRsm.class.getName(),
            LocalRsm.DIR_CONFIG, "remote-storage",
            "remote.log.metadata.manager.listener.name", "PLAINTEXT",
            "rlmm.config.remote.log.metadata.topic.replication.factor", "1",
            // Not the default 50: keeps the fixture small, and a reader must take the count from the metadata
            // log (the partition count of __remote_log_metadata), not assume 50.
            "rlmm.config.remote.log.metadata.topic.num.partitions", "5",
            "rlmm.config.remote.log.metadata.topic.min.isr", "1",
            "remote.log.manager.task.interval.ms", "1000",
            // The retention task runs every second from the start (the tiered topics' limits are set by the body).
            "log.retention.check.interval.ms", "1000",
            "log.initial.task.delay.ms", "1000",
            "log.segment.delete.delay.ms", "1000");
        m.putAll(Scenarios.cfg(extra));
        return m;
    }

    static void register(Map<String, Scenarios.Scenario> all) {
        all.put("tiered-uploaded", new Scenarios.Scenario(1, broker(), false, TieredScenarios::uploaded));
        all.put("tiered-stalled", new Scenarios.Scenario(1, broker("rsm.config.hang.from.copy", "4"), false,
            TieredScenarios::stalled));
        all.put("tiered-failed", new Scenarios.Scenario(1, broker("rsm.config.fail.from.copy", "4"), false,
            TieredScenarios::failed));
        all.put("tiered-metadata-elsewhere", new Scenarios.Scenario(2, broker(), false,
            TieredScenarios::metadataElsewhere));
        all.put("tiered-open-txn", new Scenarios.Scenario(1, broker(), false, TieredScenarios::openTxn));
        all.put("tiered-copy-disabled", new Scenarios.Scenario(1, broker(), false, TieredScenarios::copyDisabled));
        all.put("tiered-remote-retention", new Scenarios.Scenario(1, broker(), false,
            TieredScenarios::remoteRetention));
    }

    // ---------------------------------------------------------------------------------------------
    static void uploaded(Ctx c) throws Exception {
        TopicPartition tp = new TopicPartition("tu", 0);
        c.createTopic("tu", 1, Scenarios.cfg("remote.storage.enable", "true", "segment.ms", String.valueOf(H),
            "retention.ms", "-1"));
        c.series("tu", 0, 30, -10 * H, 20 * M, false, "none", 60);
        awaitUploadedUpToActive(c, tp);
        List<Long> before = live(c, tp);
        snapshot(c, tp, "before_local_retention", before);
        c.alterTopicConfigs("tu", Map.of("local.retention.bytes", "1000"), List.of());
        settle(c, tp);
        List<Long> after = live(c, tp);
        snapshot(c, tp, "after_local_retention", after);
        deleted(c, tp, before, after);
        finish(c, List.of(tp));
        c.note("tu-0: remote.storage.enable=true, segment.ms=1h, retention.ms=-1; 30 records every 20 min from "
            + "base-10h (a segment per hour of record time). Every non-active segment was uploaded (ListOffsets "
            + "latest-tiered = active base - 1) before local.retention.bytes was set to 1000; the broker then deleted "
            + "the oldest local segments (all uploaded) until the local size was within 1000 bytes: "
            + "tiered.partitions[].deleted_locally. The log start offset stays 0 (retention.ms=-1, nothing expires "
            + "remotely); only the local log start moves.");
    }

    // ---------------------------------------------------------------------------------------------
    static void stalled(Ctx c) throws Exception {
        TopicPartition tp = new TopicPartition("ts", 0);
        c.createTopic("ts", 1, Scenarios.cfg("remote.storage.enable", "true", "segment.ms", String.valueOf(H),
            "retention.ms", "-1", "local.retention.bytes", "1000"));
        c.series("ts", 0, 30, -10 * H, 20 * M, false, "none", 60);
        Path journal = c.broker.remoteStorageDir().resolve("journal.txt");
        c.waitFor("the RSM to hang", Duration.ofSeconds(90), () -> {
            try {
                return Files.exists(journal) && Files.readString(journal).contains("copy-hang");
            } catch (Exception e) {
                return false;
            }
        });
        c.step("the RSM hung in its 4th copyLogSegmentData call (rsm.config.hang.from.copy=4)");
        settle(c, tp);
        snapshot(c, tp, "at_capture", live(c, tp));
        finish(c, List.of(tp));
        c.note("ts-0: remote.storage.enable=true, segment.ms=1h, retention.ms=-1, local.retention.bytes=1000 from "
            + "creation; 30 records every 20 min from base-10h. The RSM copied 3 segments and hung on the 4th copy "
            + "(tiered.remote_storage.journal: copy-hang; __remote_log_metadata holds COPY_SEGMENT_STARTED for it and "
            + "no COPY_SEGMENT_FINISHED). Local retention deleted uploaded segments only; the hung segment and "
            + "every later one stay on disk although the local size is above 1000 bytes.");
    }

    // ---------------------------------------------------------------------------------------------
    static void failed(Ctx c) throws Exception {
        TopicPartition tp = new TopicPartition("tf", 0);
        c.createTopic("tf", 1, Scenarios.cfg("remote.storage.enable", "true", "segment.ms", String.valueOf(H),
            "retention.ms", "-1", "local.retention.bytes", "1000"));
        c.series("tf", 0, 30, -10 * H, 20 * M, false, "none", 60);
        Path journal = c.broker.remoteStorageDir().resolve("journal.txt");
        c.waitFor("the RSM to fail three copies", Duration.ofSeconds(90), () -> {
            try {
                return Files.exists(journal)
                    && Files.readAllLines(journal).stream().filter(l -> l.contains(" copy-fail ")).count() >= 3;
            } catch (Exception e) {
                return false;
            }
        });
        c.step("the RSM failed its 4th copyLogSegmentData call and every later one (rsm.config.fail.from.copy=4); "
            + "the broker retried the copy at least twice");
        settle(c, tp);
        snapshot(c, tp, "at_capture", live(c, tp));
        finish(c, List.of(tp));
        c.note("tf-0: remote.storage.enable=true, segment.ms=1h, retention.ms=-1, local.retention.bytes=1000 from "
            + "creation; 30 records every 20 min from base-10h. The RSM copied 3 segments and from the 4th copy on "
            + "throws RemoteStorageException (tiered.remote_storage.journal: copy-fail). Each failed attempt leaves "
            + "in __remote_log_metadata COPY_SEGMENT_STARTED, then (the broker's cleanup of the failed copy) "
            + "DELETE_SEGMENT_STARTED and DELETE_SEGMENT_FINISHED, under a new segment id each retry. Local "
            + "retention deleted uploaded segments only; the segment whose copy fails and every later one stay on "
            + "disk although the local size is above 1000 bytes.");
    }

    // ---------------------------------------------------------------------------------------------
    static void metadataElsewhere(Ctx c) throws Exception {
        TopicPartition tp = new TopicPartition("te", 0);
        c.createTopic("te", 1, Scenarios.cfg("remote.storage.enable", "true", "segment.ms", String.valueOf(H),
            "retention.ms", "-1", "local.retention.bytes", "1000"));
        Uuid id = c.admin.describeTopics(List.of("te")).allTopicNames().get().get("te").topicId();
        // The broker's own partitioner (kafka-storage, a runtime dependency only: reflection).
        Class<?> partitioner = Class.forName(
            "org.apache.kafka.server.log.remote.metadata.storage.RemoteLogMetadataTopicPartitioner");
        int mp = (int) partitioner.getMethod("metadataPartition", TopicIdPartition.class)
            .invoke(partitioner.getConstructor(int.class).newInstance(5), new TopicIdPartition(id, tp));
        TopicPartition meta = new TopicPartition("__remote_log_metadata", mp);
        place(c, tp, 0);
        place(c, meta, 1);
        c.step(tp + " (topic id " + id + ") is in logs-0; its metadata partition " + meta + " (the broker's "
            + "RemoteLogMetadataTopicPartitioner over 5 partitions) in logs-1");
        c.series("te", 0, 30, -10 * H, 20 * M, false, "none", 60);
        awaitUploadedUpToActive(c, tp);
        settle(c, tp);
        // Read from offset 0: the records below the local log start come from remote storage, and the broker
        // fetches their indexes into remote-log-index-cache/ (first log dir).
        java.util.Properties cp = new java.util.Properties();
        cp.put("bootstrap.servers", c.broker.bootstrap());
        cp.put("key.deserializer", org.apache.kafka.common.serialization.StringDeserializer.class.getName());
        cp.put("value.deserializer", org.apache.kafka.common.serialization.StringDeserializer.class.getName());
        int read = 0;
        try (var consumer = new org.apache.kafka.clients.consumer.KafkaConsumer<String, String>(cp)) {
            consumer.assign(List.of(tp));
            consumer.seek(tp, 0);
            long deadline = System.currentTimeMillis() + 60_000;
            while (read < 30 && System.currentTimeMillis() < deadline) {
                read += consumer.poll(Duration.ofMillis(500)).count();
            }
        }
        c.step("KafkaConsumer (no group, assign " + tp + ", seek 0) polled " + read + " records; those below the "
            + "local log start were served from remote storage");
        c.tiered.put("remote_read_records", read);
        settle(c, tp);
        snapshot(c, tp, "at_capture", live(c, tp));
        finish(c, List.of(tp));
        c.tiered.put("metadata_partition", mp);
        c.tiered.put("metadata_partition_dir", "logs-1");
        c.note("te-0: remote.storage.enable=true, segment.ms=1h, retention.ms=-1, local.retention.bytes=1000 from "
            + "creation, on a broker with two log dirs: te-0 in logs-0, its __remote_log_metadata partition "
            + "(tiered.metadata_partition) in logs-1, both placed with AlterReplicaLogDirs while empty. 30 records "
            + "every 20 min from base-10h; every non-active segment uploaded and local retention deleted the "
            + "uploaded ones above 1000 bytes; then a consumer read all 30 from offset 0 (the first 20 from remote "
            + "storage: their indexes are in logs-0/remote-log-index-cache/). Given logs-0 alone a reader cannot see "
            + "what was uploaded.");
    }

    /** Puts the broker's replica of {@code tp} in its log dir {@code dir} (AlterReplicaLogDirs) and waits. */
    static void place(Ctx c, TopicPartition tp, int dir) throws Exception {
        String to = c.broker.logDirs().get(dir).toAbsolutePath().normalize().toString();
        c.admin.alterReplicaLogDirs(Map.of(new TopicPartitionReplica(tp.topic(), tp.partition(), 1), to)).all()
            .get(30, TimeUnit.SECONDS);
        c.waitFor(tp + " in logs-" + dir, Duration.ofSeconds(60), () -> {
            try {
                var d = c.admin.describeReplicaLogDirs(List.of(new TopicPartitionReplica(tp.topic(), tp.partition(),
                    1))).all().get().values().iterator().next();
                return d.getFutureReplicaLogDir() == null && d.getCurrentReplicaLogDir() != null
                    && Path.of(d.getCurrentReplicaLogDir()).toAbsolutePath().normalize().equals(Path.of(to));
            } catch (Exception e) {
                return false;
            }
        });
    }

    // ---------------------------------------------------------------------------------------------
    static void openTxn(Ctx c) throws Exception {
        TopicPartition tp = new TopicPartition("tt", 0);
        c.createTopic("tt", 1, Scenarios.cfg("remote.storage.enable", "true", "segment.ms", String.valueOf(H),
            "retention.ms", "-1", "local.retention.bytes", "1000"));
        c.series("tt", 0, 9, -10 * H, 20 * M, false, "none", 60);
        Scenarios.openTxnChild(c, "tt-open", "tt", 0, c.t(-7 * H), 3, "open-");
        c.step("child JVM (transactional.id tt-open, transaction.timeout.ms=3600000) began a transaction, wrote 3 "
            + "records (timestamps base-7h..) to tt-0, flushed, and was SIGKILLed without commit/abort");
        c.series("tt", 0, 18, -7 * H + 20 * M, 20 * M, false, "none", 60);
        settle(c, tp);
        snapshot(c, tp, "at_capture", live(c, tp));
        finish(c, List.of(tp));
        c.note("tt-0: remote.storage.enable=true, segment.ms=1h, retention.ms=-1, local.retention.bytes=1000; 9 "
            + "records from base-10h, then an open transaction (3 records at base-7h, producer SIGKILLed, timeout "
            + "1 h), then 18 more records. The last stable offset stays at the transaction's first offset, so only "
            + "segments whose next segment starts at or below it can be uploaded; local retention deleted uploaded "
            + "ones only, and every segment from the one holding the open transaction on stays local.");
    }

    // ---------------------------------------------------------------------------------------------
    static void copyDisabled(Ctx c) throws Exception {
        TopicPartition tp = new TopicPartition("cd", 0);
        c.createTopic("cd", 1, Scenarios.cfg("remote.storage.enable", "true", "segment.ms", String.valueOf(H),
            "retention.ms", "-1"));
        c.series("cd", 0, 12, -10 * H, 20 * M, false, "none", 60);
        awaitUploadedUpToActive(c, tp);
        c.alterTopicConfigs("cd", Map.of("remote.log.copy.disable", "true"), List.of());
        c.series("cd", 0, 15, -6 * H, 20 * M, false, "none", 60);
        Thread.sleep(5000);
        List<Long> before = live(c, tp);
        snapshot(c, tp, "before_retention", before);
        c.alterTopicConfigs("cd", Map.of("local.retention.bytes", "2000", "retention.bytes", "2000"), List.of());
        settle(c, tp);
        List<Long> after = live(c, tp);
        snapshot(c, tp, "after_retention", after);
        deleted(c, tp, before, after);
        finish(c, List.of(tp));
        c.note("cd-0: remote.storage.enable=true, segment.ms=1h, retention.ms=-1; 12 records from base-10h, all "
            + "non-active segments uploaded; then remote.log.copy.disable=true and 15 more records (never uploaded: "
            + "latest_tiered stays); then local.retention.bytes=retention.bytes=2000 (the broker refuses different "
            + "values while remote.log.copy.disable=true: InvalidConfigurationException). What the broker did is in "
            + "tiered.partitions[] (local segments and ListOffsets before and after, deleted_locally) and "
            + "tiered.remote_storage (the RSM's journal: remote deletes); total retention.bytes counts remote and "
            + "local bytes together.");
    }

    // ---------------------------------------------------------------------------------------------
    static void remoteRetention(Ctx c) throws Exception {
        TopicPartition tp = new TopicPartition("rr", 0);
        c.createTopic("rr", 1, Scenarios.cfg("remote.storage.enable", "true", "segment.ms", String.valueOf(H),
            "retention.ms", "-1", "local.retention.bytes", "3000"));
        c.series("rr", 0, 30, -10 * H, 20 * M, false, "none", 60);
        awaitUploadedUpToActive(c, tp);
        settle(c, tp);
        List<Long> before = live(c, tp);
        snapshot(c, tp, "before_remote_retention", before);
        c.alterTopicConfigs("rr", Map.of("retention.ms", String.valueOf(6 * H)), List.of());
        c.waitFor("remote retention to raise the log start offset", Duration.ofSeconds(60),
            () -> offsets(c, tp).get("earliest") > 0);
        settle(c, tp);
        List<Long> after = live(c, tp);
        snapshot(c, tp, "after_remote_retention", after);
        deleted(c, tp, before, after);
        finish(c, List.of(tp));
        c.note("rr-0: remote.storage.enable=true, segment.ms=1h, local.retention.bytes=3000; 30 records every 20 min "
            + "from base-10h, all non-active segments uploaded and the local size trimmed to 3000 bytes with "
            + "retention.ms=-1; then retention.ms=6h: the leader's remote expiration deleted the remote segments "
            + "whose records are all older than 6 h (RSM journal: delete) and raised the log start offset "
            + "(ListOffsets earliest); the local segments below the new log start went too "
            + "(tiered.partitions[].deleted_locally), not by a local limit.");
    }

    // ---------------------------------------------------------------------------------------------
    /** Live .log base offsets of tp (log dir 0). */
    static List<Long> live(Ctx c, TopicPartition tp) throws Exception {
        return Harness.segmentBases(c.broker.logDirs().get(0).resolve(tp.topic() + "-" + tp.partition()), ".log");
    }

    /** ListOffsets of tp for every spec the broker knows about tiered storage; -1 when the broker has none. */
    static Map<String, Long> offsets(Ctx c, TopicPartition tp) {
        Map<String, OffsetSpec> specs = new java.util.LinkedHashMap<>();
        specs.put("earliest", OffsetSpec.earliest());
        specs.put("earliest_local", OffsetSpec.earliestLocal());
        specs.put("latest_tiered", OffsetSpec.latestTiered());
        specs.put("earliest_pending_upload", OffsetSpec.earliestPendingUpload());
        specs.put("latest", OffsetSpec.latest());
        Map<String, Long> out = new java.util.LinkedHashMap<>();
        try {
            for (var e : specs.entrySet()) {
                out.put(e.getKey(), c.admin.listOffsets(Map.of(tp, e.getValue())).partitionResult(tp).get().offset());
            }
            out.put("last_stable", c.admin.listOffsets(Map.of(tp, OffsetSpec.latest()),
                new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).partitionResult(tp).get().offset());
        } catch (Exception e) {
            throw new IllegalStateException("ListOffsets " + tp, e);
        }
        return out;
    }

    /** Waits until every non-active segment of tp is uploaded: latest-tiered = active base - 1. */
    static void awaitUploadedUpToActive(Ctx c, TopicPartition tp) throws Exception {
        c.waitFor("uploads of " + tp, Duration.ofSeconds(90), () -> {
            try {
                List<Long> l = live(c, tp);
                return l.size() > 1 && offsets(c, tp).get("latest_tiered") == l.get(l.size() - 1) - 1;
            } catch (Exception e) {
                return false;
            }
        });
        c.step("waited until every non-active segment of " + tp + " was uploaded (ListOffsets latest-tiered = "
            + "active segment base - 1)");
    }

    /** Waits until tp's live segments and the broker's offsets have not changed for 5 s (at most 60 s). */
    static void settle(Ctx c, TopicPartition tp) throws Exception {
        long deadline = System.currentTimeMillis() + 60_000;
        String last = "";
        long since = System.currentTimeMillis();
        while (System.currentTimeMillis() < deadline) {
            String now = live(c, tp) + " " + offsets(c, tp) + " " + remoteFiles(c);
            if (!now.equals(last)) {
                last = now;
                since = System.currentTimeMillis();
            } else if (System.currentTimeMillis() - since >= 5000) {
                break;
            }
            Thread.sleep(500);
        }
        c.step("waited until " + tp + "'s local segments, ListOffsets and the RSM's files had not changed for 5 s");
    }

    static List<String> remoteFiles(Ctx c) throws Exception {
        Path d = c.broker.remoteStorageDir();
        if (!Files.isDirectory(d)) {
            return List.of();
        }
        try (Stream<Path> s = Files.walk(d)) {
            return s.filter(Files::isRegularFile).map(p -> d.relativize(p).toString()).sorted().toList();
        }
    }

    static ObjectNode partitionNode(Ctx c, TopicPartition tp) {
        ObjectNode parts = c.tiered.has("partitions") ? (ObjectNode) c.tiered.get("partitions")
            : c.tiered.putObject("partitions");
        String k = tp.topic() + "-" + tp.partition();
        return parts.has(k) ? (ObjectNode) parts.get(k) : parts.putObject(k);
    }

    /** Records the live segments and the broker's offsets of tp under tiered.partitions[tp][name]. */
    static void snapshot(Ctx c, TopicPartition tp, String name, List<Long> segments) {
        ObjectNode s = partitionNode(c, tp).putObject(name);
        ArrayNode a = s.putArray("local_segments");
        segments.forEach(a::add);
        offsets(c, tp).forEach(s::put);
        c.step("recorded " + tp + " " + name + ": local segments " + segments + ", ListOffsets " + offsets(c, tp));
    }

    static void deleted(Ctx c, TopicPartition tp, List<Long> before, List<Long> after) {
        List<Long> gone = new ArrayList<>(before);
        gone.removeAll(after);
        ArrayNode a = partitionNode(c, tp).putArray("deleted_locally");
        gone.forEach(a::add);
    }

    /** The RSM's files (per partition: start offset, segment id, bytes of the .log) and its journal. */
    static void finish(Ctx c, List<TopicPartition> tps) throws Exception {
        Path d = c.broker.remoteStorageDir();
        ObjectNode rs = c.tiered.putObject("remote_storage");
        rs.put("dir", c.broker.remoteStorageName());
        ObjectNode segs = rs.putObject("segments");
        for (TopicPartition tp : tps) {
            ArrayNode a = segs.putArray(tp.topic() + "-" + tp.partition());
            Path pd = d.resolve(tp.topic() + "-" + tp.partition());
            if (!Files.isDirectory(pd)) {
                continue;
            }
            List<Path> logs;
            try (Stream<Path> s = Files.list(pd)) {
                logs = s.filter(p -> p.getFileName().toString().endsWith(".log")).sorted().toList();
            }
            for (Path p : logs) {
                String n = p.getFileName().toString();
                ObjectNode o = a.addObject();
                o.put("start_offset", Long.parseLong(n.substring(0, 20)));
                o.put("segment_id", n.substring(21, n.length() - 4));
                o.put("size_bytes", Files.size(p));
            }
        }
        ArrayNode j = rs.putArray("journal");
        Path jf = d.resolve("journal.txt");
        if (Files.exists(jf)) {
            Files.readAllLines(jf).forEach(j::add);
        }
        Map<String, Integer> counts = new HashMap<>();
        for (var line : Files.exists(jf) ? Files.readAllLines(jf) : List.<String>of()) {
            String ev = line.split(" ")[1].replaceAll("#.*", "");
            counts.merge(ev, 1, Integer::sum);
        }
        ObjectNode cn = rs.putObject("journal_counts");
        counts.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> cn.put(e.getKey(), e.getValue()));
    }
}
