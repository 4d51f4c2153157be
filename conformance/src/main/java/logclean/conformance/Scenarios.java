package logclean.conformance;

import static logclean.conformance.Ctx.D;
import static logclean.conformance.Ctx.H;
import static logclean.conformance.Ctx.M;
import static logclean.conformance.Ctx.S;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The fixture scenarios. Directory names are fixed; see conformance/README.md. */
public final class Scenarios {
    @FunctionalInterface
    public interface Body {
        void run(Ctx c) throws Exception;
    }

    public record Scenario(int logDirs, Map<String, String> brokerOverrides, boolean crash, Body body) { }

    public static final Map<String, Scenario> ALL = new LinkedHashMap<>();

    /**
     * The scenarios that also run on Kafka 3.9.1, as {@code zk391-NAME} (ZooKeeper mode) and {@code kraft391-NAME}
     * (KRaft mode): retention by time and size, an expired active segment, a future timestamp, DeleteRecords,
     * compaction, consumer groups and transactions. Same bodies; where 3.9 differs the body branches on
     * {@code c.broker.dist()}.
     */
    public static final List<String> V3 = List.of("basic-delete", "idle-active-segment", "future-timestamps",
        "delete-records", "compacted", "consumer-groups", "transactions");

    static Map<String, String> cfg(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    static {
        ALL.put("basic-delete", new Scenario(2, cfg(), false, Scenarios::basicDelete));
        ALL.put("idle-active-segment", new Scenario(1, cfg(), false, Scenarios::idleActive));
        ALL.put("future-timestamps", new Scenario(1, cfg(), false, Scenarios::futureTimestamps));
        ALL.put("compacted", new Scenario(1, cfg("log.cleaner.backoff.ms", "3600000"), false, Scenarios::compacted));
        ALL.put("consumer-groups", new Scenario(1, cfg(), false, Scenarios::consumerGroups));
        ALL.put("transactions", new Scenario(1, cfg(), false, Scenarios::transactions));
        ALL.put("compression", new Scenario(1, cfg(), false, Scenarios::compression));
        ALL.put("unclean-shutdown", new Scenario(1, cfg(
            "log.initial.task.delay.ms", "1000",
            "log.flush.offset.checkpoint.interval.ms", "1000",
            "log.flush.start.offset.checkpoint.interval.ms", "1000"), true, Scenarios::uncleanShutdown));
        ALL.put("delete-records", new Scenario(1, cfg(), false, Scenarios::deleteRecords));
        ALL.put("open-txn-compacted", new Scenario(1, cfg("log.cleaner.backoff.ms", "3600000"), false,
            Scenarios::openTxnCompacted));
        ALL.put("expired-hanging", new Scenario(1, cfg(
            "offsets.retention.minutes", "1",
            "offsets.retention.check.interval.ms", "5000"), false, Scenarios::expiredHanging));
        ALL.put("kraft-metadata", new Scenario(1, cfg(
            "metadata.log.max.snapshot.interval.ms", "3000",
            "metadata.log.max.record.bytes.between.snapshots", "4096"), false, Scenarios::kraftMetadata));
        ALL.put("big-index", new Scenario(1, cfg(), false, Scenarios::bigIndex));
        // Internal topics (issue 22). __share_group_state: a snapshot every 2 updates, the prune job every 2 s,
        // cold-partition snapshotting pushed out to a day (the broker default is 5 min) so an idle key keeps blocking
        // the prune. __cluster_metadata: a segment and a snapshot every 5 s, so segments fall below the newest snapshot.
        ALL.put("internal-topics", new Scenario(1, cfg(
            "share.coordinator.snapshot.update.records.per.snapshot", "2",
            "share.coordinator.state.topic.prune.interval.ms", "2000",
            "share.coordinator.cold.partition.snapshot.interval.ms", String.valueOf(D),
            "metadata.log.segment.ms", "5000",
            "metadata.log.max.snapshot.interval.ms", "5000"), false, Scenarios::internalTopics));
        TieredScenarios.register(ALL);
    }

    // ---------------------------------------------------------------------------------------------
    static void basicDelete(Ctx c) throws Exception {
        // orders: 3 partitions, time retention 6 h, roll every hour of record time.
        c.createTopic("orders", 3, cfg("retention.ms", String.valueOf(6 * H), "segment.ms", String.valueOf(H)));
        for (int p = 0; p < 3; p++) {
            // 36 records from base-12h+10min every 20 min: a new segment roughly every 4 records.
            c.series("orders", p, 36, -12 * H + 10 * M, 20 * M, p != 2, "none", 60);
        }
        // sized: size-based retention only.
        c.createTopic("sized", 2, cfg("retention.ms", "-1", "retention.bytes", "1000", "segment.ms", String.valueOf(H)));
        for (int p = 0; p < 2; p++) {
            c.series("sized", p, 24, -12 * H + 15 * M, 30 * M, true, "none", 40);
        }
        // fresh: default retention (7 d), data well inside it.
        c.createTopic("fresh", 1, cfg("segment.ms", String.valueOf(H)));
        c.series("fresh", 0, 8, -4 * H + 5 * M, 30 * M, false, "none", 40);
        c.note("orders: retention.ms=6h, segment.ms=1h; records every 20 min from base-11h50min to base-10min. "
            + "Rolled segments whose largest timestamp is older than base-6h are expired as of base (no timestamp is "
            + "within 10 min of the base-6h boundary). The log retention task never ran (log.retention.check.interval.ms="
            + "1h, log.initial.task.delay.ms=1h), so expired segments are still on disk.");
        c.note("sized: retention.ms=-1, retention.bytes=1000 per partition; older segments breach the size limit.");
        c.note("fresh: default retention 7 d; nothing expired.");
        c.note("JBOD: log.dirs=logs-0,logs-1; the broker placed each partition (see partitions[].log_dir). "
            + "__cluster_metadata-0 lives in logs-0.");
    }

    // ---------------------------------------------------------------------------------------------
    static void idleActive(Ctx c) throws Exception {
        // trickle: one segment (segment.ms default 7 d) spanning base-5h .. base-5min; retention 2 h.
        c.createTopic("trickle", 1, cfg("retention.ms", String.valueOf(2 * H)));
        c.series("trickle", 0, 60, -5 * H, 5 * M, false, "none", 40);
        // idle: one active segment whose every record is older than retention (1 h).
        c.createTopic("idle", 1, cfg("retention.ms", String.valueOf(H)));
        c.series("idle", 0, 7, -5 * H, 10 * M, true, "none", 40);
        // idle-rolled: several segments (segment.ms=1h), all expired including the active one.
        c.createTopic("idle-rolled", 1, cfg("retention.ms", String.valueOf(H), "segment.ms", String.valueOf(H)));
        c.series("idle-rolled", 0, 13, -8 * H, 20 * M, true, "none", 40);
        c.note("trickle-0: retention.ms=2h, default segment.ms (7 d): a single (active) segment holding records from "
            + "base-5h to base-5min every 5 min. Its largest timestamp is recent, so time retention deletes nothing even "
            + "though most records are older than retention.");
        c.note("idle-0: retention.ms=1h; a single active segment with records base-5h .. base-4h; nothing was appended "
            + "since, so the active segment has expired entirely (retention would roll a new empty segment and delete it).");
        c.note("idle-rolled-0: retention.ms=1h, segment.ms=1h; records base-8h .. base-4h every 20 min; every segment, "
            + "the active one included, has expired.");
    }

    // ---------------------------------------------------------------------------------------------
    static void futureTimestamps(Ctx c) throws Exception {
        c.createTopic("ft", 1, cfg(
            "retention.ms", String.valueOf(D),
            "segment.ms", String.valueOf(H),
            "message.timestamp.after.max.ms", String.valueOf(Long.MAX_VALUE),
            "index.interval.bytes", "0",
            "segment.index.bytes", "96"));
        c.series("ft", 0, 14, -80 * H, 10 * M, true, "none", 40);
        c.batch("ft", 0, List.of(new Ctx.Rec(c.t(365 * D), "future", "timestamp-one-year-after-base")), "none");
        c.step("produce 1 record to ft-0 with timestamp base+365d (the far-future record; it rolls a new segment)");
        c.series("ft", 0, 12, -60 * H, 10 * M, true, "none", 40);
        c.series("ft", 0, 14, -50 * H, 10 * M, true, "none", 40);
        c.series("ft", 0, 2, -30 * M, 10 * M, true, "none", 40);
        c.note("ft-0: retention.ms=1d, segment.ms=1h, message.timestamp.after.max.ms=Long.MAX. Records: 14 at base-80h.. "
            + "(two segments, rolled by record time, expired), then one record at base+365d which starts a new segment "
            + "(its timestamp is more than segment.ms after the previous segment's first batch). Records with old "
            + "timestamps appended after it cannot roll by time (their timestamp minus the far-future rolling base is "
            + "negative), so that segment is rolled by a full offset index instead: the topic sets "
            + "index.interval.bytes=0 (an index entry for every batch but a segment's first) and segment.index.bytes=96 "
            + "(12 offset entries). Then 14 records at base-50h.. (two time-rolled segments, expired by timestamp) and 2 "
            + "records at base-30min. Time retention stops at the segment holding the base+365d record, so the expired "
            + "segments after it are blocked.");
    }

    // ---------------------------------------------------------------------------------------------
    static void compacted(Ctx c) throws Exception {
        c.createTopic("compacted", 2, cfg(
            "cleanup.policy", "compact",
            "segment.ms", String.valueOf(H),
            "min.cleanable.dirty.ratio", "0.5",
            "delete.retention.ms", String.valueOf(D)));
        for (int p = 0; p < 2; p++) {
            for (int i = 0; i < 36; i++) {
                String key = String.format("k%02d", i % 20);
                boolean tomb = i >= 32 && i <= 34;
                String val = tomb ? null : Ctx.value("compacted", p, i, 40);
                c.batch("compacted", p, List.of(new Ctx.Rec(c.t(-12 * H + i * 10 * M), key, val)), "none");
            }
            c.step("produce 36 records to compacted-" + p + ", one per batch, 20 distinct keys k00..k19 (key of record i "
                + "is k(i mod 20)); records 32, 33, 34 (keys k12, k13, k14) are tombstones; timestamps base-12h .. "
                + "base-6h10min step 10min");
        }
        // The cleaner is parked (static log.cleaner.backoff.ms=1h; its first pass ran at startup, before any topic
        // existed). Wake it with a dynamic backoff so it cleans each partition once, up to its active segment.
        setCleanerBackoff(c, "500");
        c.step("wait for the log cleaner to clean compacted-0 and compacted-1");
        c.waitFor("cleaner-offset-checkpoint for compacted-0/1", java.time.Duration.ofSeconds(90), () -> {
            List<String> l = c.checkpoint(0, "cleaner-offset-checkpoint");
            return l.stream().anyMatch(x -> x.startsWith("compacted 0 ")) && l.stream().anyMatch(x -> x.startsWith("compacted 1 "));
        });
        c.step("cleaner-offset-checkpoint now: " + c.checkpoint(0, "cleaner-offset-checkpoint"));
        // Park the cleaner again so the dirty sections produced next stay dirty until capture.
        setCleanerBackoff(c, "3600000");
        Thread.sleep(3000);
        // partition 0: lots of new dirty data (dirty ratio of the cleanable section well above 0.5)
        for (int i = 0; i < 40; i++) {
            String key = String.format("k%02d", i % 20);
            c.batch("compacted", 0, List.of(new Ctx.Rec(c.t(-5 * H + i * 6 * M), key, Ctx.value("compacted", 0, 100 + i, 40))), "none");
        }
        c.step("produce 40 records to compacted-0 (keys k00..k19 again), timestamps base-5h .. base-1h6min step 6min");
        // partition 1: a little new data (dirty ratio below 0.5)
        for (int i = 0; i < 2; i++) {
            c.batch("compacted", 1, List.of(new Ctx.Rec(c.t(-5 * H + i * 5 * M), "k00", Ctx.value("compacted", 1, 100 + i, 40))), "none");
        }
        c.step("produce 2 records to compacted-1 (key k00), timestamps base-5h, base-4h55min");
        // compact,delete topic, produced while the cleaner is parked.
        c.createTopic("compact-delete", 1, cfg(
            "cleanup.policy", "compact,delete",
            "retention.ms", String.valueOf(D),
            "segment.ms", String.valueOf(H)));
        for (int i = 0; i < 24; i++) {
            String key = String.format("k%02d", i % 6);
            long rel = i < 18 ? -40 * H + i * 20 * M : -2 * H + (i - 18) * 15 * M;
            c.batch("compact-delete", 0, List.of(new Ctx.Rec(c.t(rel), key, Ctx.value("compact-delete", 0, i, 40))), "none");
        }
        c.step("produce 24 records to compact-delete-0 (6 distinct keys): 18 at base-40h .. base-34h20min step 20min, "
            + "6 at base-2h .. base-45min step 15min");
        c.note("compacted: cleanup.policy=compact, segment.ms=1h, min.cleanable.dirty.ratio=0.5, delete.retention.ms=1d. "
            + "The broker starts with log.cleaner.backoff.ms=1h, so the cleaner is parked while data is produced. Phase 1: 36 "
            + "records per partition, 20 distinct keys, tombstones (null values) for keys k12..k14 at offsets 32..34; then a dynamic "
            + "cluster-default log.cleaner.backoff.ms=500 restarts the cleaner threads, which clean both partitions up "
            + "to their active segments (see steps for the cleaner-offset-checkpoint content); then "
            + "log.cleaner.backoff.ms=3600000 parks them again (cleaner threads restart on this reconfiguration, find "
            + "nothing dirty enough and sleep). Phase 2: compacted-0 got 40 more records "
            + "(the cleanable dirty section is well above the 0.5 ratio), compacted-1 got 2 records (the old active segment "
            + "became cleanable; dirty ratio below 0.5).");
        c.note("compact-delete: cleanup.policy=compact,delete, retention.ms=1d, segment.ms=1h, produced after the cleaner "
            + "was parked, so it was never cleaned; segments with records from base-40h are expired by time. Note that "
            + "for compact,delete topics Kafka runs time/size retention from the cleaner threads, not the retention task.");
    }

    static void setCleanerBackoff(Ctx c, String ms) throws Exception {
        c.alterBrokerConfig("", cfg("log.cleaner.backoff.ms", ms));
        c.waitFor("dynamic log.cleaner.backoff.ms=" + ms + " applied", java.time.Duration.ofSeconds(30), () -> {
            try {
                var r = new org.apache.kafka.common.config.ConfigResource(
                    org.apache.kafka.common.config.ConfigResource.Type.BROKER, "1");
                var e = c.admin.describeConfigs(List.of(r)).all().get().get(r).get("log.cleaner.backoff.ms");
                return e != null && ms.equals(e.value());
            } catch (Exception ex) {
                return false;
            }
        });
    }

    // ---------------------------------------------------------------------------------------------
    static void consumerGroups(Ctx c) throws Exception {
        c.createTopic("events", 2, cfg("retention.ms", String.valueOf(6 * H), "segment.ms", String.valueOf(H)));
        for (int p = 0; p < 2; p++) {
            c.series("events", p, 15, -10 * H + 10 * M, 20 * M, true, "none", 40);
        }
        var tp0 = new org.apache.kafka.common.TopicPartition("events", 0);
        var tp1 = new org.apache.kafka.common.TopicPartition("events", 1);
        c.commitOffsets("g-stale", cfg2(tp0, 5L, tp1, 5L));
        c.step("g-stale stops committing from here on");
        for (int p = 0; p < 2; p++) {
            c.series("events", p, 15, -5 * H + 10 * M, 20 * M, true, "none", 40);
        }
        c.commitOffsets("g-behind", cfg2(tp0, 1L, tp1, 2L));
        // g-current: a real consumer that reads everything and commits synchronously.
        java.util.Properties cp = new java.util.Properties();
        cp.put("bootstrap.servers", c.broker.bootstrap());
        cp.put("group.id", "g-current");
        cp.put("enable.auto.commit", "false");
        cp.put("auto.offset.reset", "earliest");
        cp.put("key.deserializer", org.apache.kafka.common.serialization.StringDeserializer.class.getName());
        cp.put("value.deserializer", org.apache.kafka.common.serialization.StringDeserializer.class.getName());
        int read = 0;
        try (var consumer = new org.apache.kafka.clients.consumer.KafkaConsumer<String, String>(cp)) {
            consumer.assign(List.of(tp0, tp1));
            long deadline = System.currentTimeMillis() + 60_000;
            while (read < 60 && System.currentTimeMillis() < deadline) {
                read += consumer.poll(java.time.Duration.ofMillis(500)).count();
            }
            consumer.commitSync();
        }
        c.recordGroup("g-current");
        c.step("g-current: KafkaConsumer (assign events-0/1, auto.offset.reset=earliest) polled " + read
            + " records and commitSync'ed the end positions");
        // A classic and a KIP-848 (group.protocol=consumer) group: subscribing consumers that read everything,
        // commit and leave (the groups stay, Empty, with their offsets).
        // KIP-848 (group.protocol=consumer) is GA from 4.0; 3.9 has it only as an early-access KRaft feature
        // (group.coordinator.rebalance.protocols) and not at all in ZooKeeper mode: 3.x runs the classic group.
        String[][] subscribed = c.broker.dist().isV3() ? new String[][] {{"g-classic", "classic"}}
            : new String[][] {{"g-classic", "classic"}, {"g-848", "consumer"}};
        for (String[] gp : subscribed) {
            java.util.Properties sp = new java.util.Properties();
            sp.putAll(cp);
            sp.put("group.id", gp[0]);
            sp.put("group.protocol", gp[1]);
            int got = 0;
            try (var consumer = new org.apache.kafka.clients.consumer.KafkaConsumer<String, String>(sp)) {
                consumer.subscribe(List.of("events"));
                long deadline = System.currentTimeMillis() + 60_000;
                while (got < 60 && System.currentTimeMillis() < deadline) {
                    got += consumer.poll(java.time.Duration.ofMillis(500)).count();
                }
                consumer.commitSync();
            }
            c.recordGroup(gp[0]);
            c.step(gp[0] + ": KafkaConsumer (group.protocol=" + gp[1] + ", subscribe events) polled " + got
                + " records, commitSync'ed and closed (left the group)");
        }
        // A deleted group: offsets committed, then Admin.deleteConsumerGroups (tombstones).
        c.commitOffsets("g-deleted", cfg2(tp0, 3L, tp1, 3L));
        c.admin.deleteConsumerGroups(List.of("g-deleted")).all().get();
        c.groups.removeIf(g -> g.group().equals("g-deleted"));
        c.deletedGroups.add("g-deleted");
        c.step("g-deleted deleted via Admin.deleteConsumerGroups");
        // Transactional offset commits: one committed, one aborted (which must not count).
        java.util.Properties tp = c.baseProducerProps();
        tp.put("transactional.id", "tx-offsets");
        try (var pr = new org.apache.kafka.clients.producer.KafkaProducer<String, String>(tp)) {
            pr.initTransactions();
            var meta = new org.apache.kafka.clients.consumer.ConsumerGroupMetadata("g-txn");
            pr.beginTransaction();
            pr.sendOffsetsToTransaction(java.util.Map.of(
                tp0, new org.apache.kafka.clients.consumer.OffsetAndMetadata(20),
                tp1, new org.apache.kafka.clients.consumer.OffsetAndMetadata(21)), meta);
            pr.commitTransaction();
            pr.beginTransaction();
            pr.sendOffsetsToTransaction(java.util.Map.of(
                tp0, new org.apache.kafka.clients.consumer.OffsetAndMetadata(25)), meta);
            pr.abortTransaction();
        }
        c.recordGroup("g-txn");
        c.step("g-txn: transactional producer tx-offsets sendOffsetsToTransaction {events-0=20, events-1=21}, "
            + "commit; then {events-0=25}, abort");
        c.note("events: retention.ms=6h, segment.ms=1h, 30 records per partition every 20 min from base-9h50min to "
            + "base-10min. Groups: g-current is at the log end; g-behind (offsets 1 and 2) is behind the segments that "
            + "time retention deletes next; g-stale committed offset 5 before the second half of the data was produced "
            + "and never again (its committed_at is the earliest; the broker stamps commit times with its wall clock, so "
            + "'long ago' is only seconds). __consumer_offsets has offsets.topic.num.partitions=3. g-classic and g-848 "
            + "are subscribed groups of the two protocols (Empty after their consumers left); g-deleted was deleted; "
            + "g-txn's offsets came from a committed transaction (an aborted one after it does not count).");
        if (c.broker.dist().isV3()) {
            c.note("Kafka " + c.broker.dist().version() + " (" + c.broker.dist().modeName() + "): no g-848 (KIP-848 "
                + "consumer groups are GA from 4.0 only); every group here is a classic group.");
        }
    }

    static java.util.Map<org.apache.kafka.common.TopicPartition, Long> cfg2(
        org.apache.kafka.common.TopicPartition a, long oa, org.apache.kafka.common.TopicPartition b, long ob) {
        java.util.Map<org.apache.kafka.common.TopicPartition, Long> m = new LinkedHashMap<>();
        m.put(a, oa);
        m.put(b, ob);
        return m;
    }

    // ---------------------------------------------------------------------------------------------
    static void transactions(Ctx c) throws Exception {
        c.createTopic("txn", 1, cfg("segment.ms", String.valueOf(H)));
        c.createTopic("txn-compacted", 1, cfg("cleanup.policy", "compact", "segment.ms", String.valueOf(H)));
        java.util.Properties p = c.baseProducerProps();
        p.put("transactional.id", "tx-main");
        p.put("transaction.timeout.ms", "60000");
        try (var pr = new org.apache.kafka.clients.producer.KafkaProducer<String, String>(p)) {
            pr.initTransactions();
            c.step("transactional producer tx-main: initTransactions");
            String[] outcome = {"commit", "abort", "commit", "abort", "commit"};
            for (int k = 0; k < outcome.length; k++) {
                pr.beginTransaction();
                List<Ctx.Rec> recs = new java.util.ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    recs.add(new Ctx.Rec(c.t(-6 * H + k * 75 * M + i * M), String.format("t%d-%d", k, i),
                        Ctx.value("txn", 0, k * 10 + i, 40)));
                }
                Ctx.batchWith(pr, "txn", 0, recs);
                if (outcome[k].equals("commit")) {
                    pr.commitTransaction();
                } else {
                    pr.abortTransaction();
                }
                c.step("tx-main txn #" + k + ": 4 records to txn-0 (one batch), timestamps " + Ctx.rel(-6 * H + k * 75 * M)
                    + " .. +3min, then " + outcome[k]);
            }
            // compacted topic: committed data, then an open transaction from another process, then more committed data.
            pr.beginTransaction();
            List<Ctx.Rec> recs = new java.util.ArrayList<>();
            for (int i = 0; i < 5; i++) {
                recs.add(new Ctx.Rec(c.t(-3 * H + i * M), "key-" + i, Ctx.value("txn-compacted", 0, i, 40)));
            }
            Ctx.batchWith(pr, "txn-compacted", 0, recs);
            pr.commitTransaction();
            c.step("tx-main: 5 records to txn-compacted-0 (keys key-0..key-4, timestamps base-3h..), commit");

            openTxnChild(c, "tx-open", "txn-compacted", 0, c.t(-2 * H), 3, "key-");
            c.step("child JVM (transactional.id tx-open, transaction.timeout.ms=3600000) began a transaction, wrote 3 "
                + "records (keys key-0..key-2, timestamps base-2h..) to txn-compacted-0, flushed, and was SIGKILLed "
                + "without commit/abort");
            pr.beginTransaction();
            recs = new java.util.ArrayList<>();
            for (int i = 0; i < 3; i++) {
                recs.add(new Ctx.Rec(c.t(-H + i * M), "key-" + (i + 3), Ctx.value("txn-compacted", 0, 10 + i, 40)));
            }
            Ctx.batchWith(pr, "txn-compacted", 0, recs);
            pr.commitTransaction();
            c.step("tx-main: 3 records to txn-compacted-0 (keys key-3..key-5, timestamps base-1h..), commit "
                + "(above the open transaction, so not yet visible to read_committed consumers)");
        }
        c.note("txn-0: 5 transactions of 4 records each from producer tx-main: commit, abort, commit, abort, commit. "
            + "Transaction markers are control batches stamped with the broker's wall clock (about base), not with the "
            + "producer's record timestamps; a marker therefore rolls the segment when its timestamp is more than "
            + "segment.ms after the segment's first batch, and segments holding a marker are not expired by time. "
            + ".txnindex entries are written for the aborted transactions (see partitions[].txnindex_on_disk).");
        c.note("txn-compacted-0: cleanup.policy=compact; an open transaction (producer tx-open killed with SIGKILL, "
            + "transaction.timeout.ms=1h, broker transaction.max.timeout.ms=2h) keeps last_stable_offset at its first "
            + "offset while high_watermark is above it. The coordinator will abort it only after the timeout.");
    }

    /**
     * Runs OpenTxn in a child JVM (transaction.timeout.ms 1 h): it begins a transaction, writes COUNT records
     * (keys PREFIX0.., timestamps TS, TS+1s, ...) to topic-partition, flushes and is then SIGKILLed, so the
     * transaction stays open on the broker.
     */
    static void openTxnChild(Ctx c, String txnId, String topic, int partition, long ts, int count, String prefix)
        throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of(
            java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx128m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
            OpenTxn.class.getName(), c.broker.bootstrap(), txnId, topic, String.valueOf(partition),
            String.valueOf(ts), String.valueOf(count), prefix));
        Process child = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        Broker.CHILDREN.add(child);
        c.children.add(child);
        var reader = new java.io.BufferedReader(new java.io.InputStreamReader(child.getInputStream()));
        long deadline = System.currentTimeMillis() + 90_000;
        String line;
        boolean ready = false;
        while ((line = reader.readLine()) != null) {
            if (line.contains("READY")) {
                ready = true;
                break;
            }
            if (System.currentTimeMillis() > deadline) {
                break;
            }
        }
        if (!ready) {
            throw new IllegalStateException("OpenTxn child did not become ready");
        }
        child.destroyForcibly().waitFor();
    }

    // ---------------------------------------------------------------------------------------------
    static void openTxnCompacted(Ctx c) throws Exception {
        // otx (compact): the open transaction starts in the MIDDLE of a non-active segment, so the last stable
        // offset (not the active segment) bounds what the cleaner may clean. The cleaner is parked (backoff 1 h)
        // so the fixture is never cleaned.
        c.createTopic("otx", 1, cfg("cleanup.policy", "compact", "segment.ms", String.valueOf(H)));
        List<Ctx.Rec> recs = new java.util.ArrayList<>();
        for (int i = 0; i < 5; i++) {
            recs.add(new Ctx.Rec(c.t(-6 * H + i * M), "k" + i, Ctx.value("otx", 0, i, 40)));
        }
        c.batch("otx", 0, recs, "none");
        c.step("produce 5 records to otx-0 (keys k0..k4, one batch, idempotent, not transactional), timestamps "
            + Ctx.rel(-6 * H) + " .. +4min: offsets 0..4");
        openTxnChild(c, "otx-open", "otx", 0, c.t(-6 * H + 10 * M), 3, "k");
        c.step("child JVM (transactional.id otx-open, transaction.timeout.ms=3600000) began a transaction, wrote 3 "
            + "records (keys k0..k2, timestamps " + Ctx.rel(-6 * H + 10 * M) + " +0/1/2 s) to otx-0: offsets 5..7, same "
            + "segment (within segment.ms of its first batch); flushed, then SIGKILLed without commit/abort");
        for (int b = 0; b < 2; b++) {
            long at = b == 0 ? -3 * H : -H;
            int n = b == 0 ? 5 : 3;
            recs = new java.util.ArrayList<>();
            for (int i = 0; i < n; i++) {
                recs.add(new Ctx.Rec(c.t(at + i * M), "k" + i, Ctx.value("otx", 0, 10 * (b + 1) + i, 40)));
            }
            c.batch("otx", 0, recs, "none");
            c.step("produce " + n + " records to otx-0 (keys k0..k" + (n - 1) + ", one batch), timestamps " + Ctx.rel(at)
                + " .. : more than segment.ms after the segment's first batch, so it rolls a new segment");
        }
        c.note("otx-0: cleanup.policy=compact, segment.ms=1h, never cleaned (log.cleaner.backoff.ms=1h). Segments: "
            + "0 (offsets 0..4 committed, 5..7 an open transaction of a SIGKILLed producer, transaction.timeout.ms=1h), "
            + "8 (8..12, base-3h), 13 (13..15, base-1h, active). last_stable_offset = 5, in the middle of segment 0, "
            + "below the active segment: the cleaner's first uncleanable offset is the LSO, not the active segment.");
    }

    // ---------------------------------------------------------------------------------------------
    /**
     * Groups the coordinator itself expires (offsets.retention.minutes=1, checked every 5 s) next to one inside
     * retention at capture, and a transaction kafka-transactions.sh find-hanging reports as hanging: its producer
     * wrote to hang-0 and died; then the coordinator's state was lost (broker stopped, __transaction_state-*
     * removed, broker restarted: it recreates those partitions empty), so nothing will ever end it.
     */
    static void expiredHanging(Ctx c) throws Exception {
        c.createTopic("eg", 1, cfg());
        c.series("eg", 0, 10, -2 * H, 10 * M, true, "none", 40);
        c.createTopic("hang", 1, cfg());
        c.series("hang", 0, 3, -4 * H, 10 * M, true, "none", 40);
        openTxnChild(c, "tx-hang", "hang", 0, c.t(-3 * H), 3, "h-");
        c.step("child JVM (transactional.id tx-hang, transaction.timeout.ms=3600000) began a transaction, wrote 3 "
            + "records (keys h-0..h-2, timestamps base-3h +0/1/2 s) to hang-0: offsets 3..5; flushed, then SIGKILLed "
            + "without commit/abort");
        c.series("hang", 0, 2, -2 * H, 10 * M, true, "none", 40);
        var eg0 = new org.apache.kafka.common.TopicPartition("eg", 0);
        c.commitOffsets("g-expired-simple", java.util.Map.of(eg0, 4L));
        java.util.Properties cp = new java.util.Properties();
        cp.put("bootstrap.servers", c.broker.bootstrap());
        cp.put("enable.auto.commit", "false");
        cp.put("auto.offset.reset", "earliest");
        cp.put("key.deserializer", org.apache.kafka.common.serialization.StringDeserializer.class.getName());
        cp.put("value.deserializer", org.apache.kafka.common.serialization.StringDeserializer.class.getName());
        for (String[] gp : new String[][] {{"g-expired-classic", "classic"}, {"g-expired-848", "consumer"}}) {
            java.util.Properties sp = new java.util.Properties();
            sp.putAll(cp);
            sp.put("group.id", gp[0]);
            sp.put("group.protocol", gp[1]);
            int got = 0;
            try (var consumer = new org.apache.kafka.clients.consumer.KafkaConsumer<String, String>(sp)) {
                consumer.subscribe(List.of("eg"));
                long deadline = System.currentTimeMillis() + 60_000;
                while (got < 10 && System.currentTimeMillis() < deadline) {
                    got += consumer.poll(java.time.Duration.ofMillis(500)).count();
                }
                consumer.commitSync();
            }
            c.step(gp[0] + ": KafkaConsumer (group.protocol=" + gp[1] + ", subscribe eg) polled " + got
                + " records, commitSync'ed and closed (left the group: Empty)");
        }
        List<String> expiring = List.of("g-expired-848", "g-expired-classic", "g-expired-simple");
        c.step("wait until the coordinator's offset expiry (offsets.retention.minutes=1, "
            + "offsets.retention.check.interval.ms=5000) removed " + expiring + " (listGroups no longer lists them)");
        c.waitFor("offset expiry of " + expiring, java.time.Duration.ofSeconds(180), () -> {
            try {
                var listed = c.admin.listGroups().all().get().stream().map(g -> g.groupId()).toList();
                return expiring.stream().noneMatch(listed::contains);
            } catch (Exception e) {
                return false;
            }
        });
        for (String g : expiring) {
            var offs = c.admin.listConsumerGroupOffsets(g).partitionsToOffsetAndMetadata().get();
            if (!offs.isEmpty()) {
                throw new IllegalStateException(g + " still has offsets after expiry: " + offs);
            }
            c.groups.removeIf(x -> x.group().equals(g));
            c.expiredGroups.add(g);
        }
        c.step("expired: listGroups lists none of " + expiring + "; listConsumerGroupOffsets returns {} for each");
        // Lose the transaction coordinator's state.
        c.step("SIGTERM the broker; remove every __transaction_state-* partition dir; start the broker again");
        c.broker.stopClean();
        for (java.nio.file.Path dir : c.broker.logDirs()) {
            try (var s = java.nio.file.Files.list(dir)) {
                for (java.nio.file.Path p : s.filter(x -> x.getFileName().toString().startsWith("__transaction_state-"))
                    .toList()) {
                    Harness.deleteTree(p);
                }
            }
        }
        c.broker.start();
        c.broker.awaitReady(java.time.Duration.ofSeconds(120));
        c.step("wait until find-hanging (--broker-id 1 --max-transaction-timeout 15) answers and lists the transaction");
        c.waitFor("find-hanging lists hang-0", java.time.Duration.ofSeconds(120), () -> {
            try {
                var rows = Harness.findHanging(c.admin, Broker.NODE_ID, 15, c.json);
                if (rows.isEmpty()) {
                    return false;
                }
                c.findHanging = rows;
                return true;
            } catch (Exception e) {
                return false;
            }
        });
        for (java.nio.file.Path dir : c.broker.logDirs()) {
            for (int p = 0; p < 3; p++) {
                if (!java.nio.file.Files.isDirectory(dir.resolve("__transaction_state-" + p))) {
                    throw new IllegalStateException("the broker did not recreate __transaction_state-" + p);
                }
            }
        }
        c.step("find-hanging: " + c.findHanging);
        c.commitOffsets("g-live", java.util.Map.of(eg0, 7L));
        c.note("expired-hanging: offsets.retention.minutes=1, offsets.retention.check.interval.ms=5000. eg-0: 10 "
            + "records. g-expired-simple (Admin.alterConsumerGroupOffsets, eg-0=4), g-expired-classic and g-expired-848 "
            + "(subscribed consumers of the two protocols that committed the log end and left) were expired by the "
            + "coordinator itself (expired_groups); g-live (Admin commit eg-0=7) was committed seconds before capture, "
            + "inside retention (it expires one minute after its commit).");
        c.note("hang-0: offsets 0..2 and 6..7 idempotent records; 3..5 an open transaction of tx-hang (SIGKILLed "
            + "producer). The broker was then stopped, every __transaction_state-* dir removed and the broker "
            + "restarted: it recreated the three partitions empty, so the coordinator does not know tx-hang and the "
            + "transaction hangs (last_stable_offset 3 forever). find_hanging holds kafka-transactions.sh find-hanging's "
            + "rows (--broker-id 1 --max-transaction-timeout 15, its Admin calls reproduced) from the live broker.");
    }

    // ---------------------------------------------------------------------------------------------
    static void bigIndex(Ctx c) throws Exception {
        // wide: an index entry for every batch (index.interval.bytes=0) and 48 KiB indexes: the time index
        // (4096 entries of 12 bytes) fills first and rolls the segment, so the rolled segment's .index and
        // .timeindex (32 KiB and 48 KiB) are larger than what a shallow scan reads of them.
        c.createTopic("wide", 1, cfg(
            "index.interval.bytes", "0",
            "segment.index.bytes", String.valueOf(48 * 1024),
            "retention.ms", "-1"));
        c.series("wide", 0, 4300, -10 * H, 5000L, false, "none", 8);
        c.note("wide-0: index.interval.bytes=0 (an offset and time index entry for every batch but a segment's "
            + "first), segment.index.bytes=49152, retention.ms=-1; 4300 one-record batches with timestamps base-10h "
            + "every 5 s. The time index fills at 4096 entries and rolls segment 0 (offsets 0..4096: a 32 KiB .index "
            + "and a 48 KiB .timeindex, both larger than the 8 KiB tail a shallow scan reads); the active segment "
            + "holds the rest.");
    }

    // ---------------------------------------------------------------------------------------------
    static void compression(Ctx c) throws Exception {
        for (String codec : List.of("none", "gzip", "snappy", "lz4", "zstd")) {
            String topic = "comp-" + codec;
            c.createTopic(topic, 1, cfg("segment.ms", String.valueOf(H)));
            for (int b = 0; b < 6; b++) {
                List<Ctx.Rec> recs = new java.util.ArrayList<>();
                for (int i = 0; i < 10; i++) {
                    int n = b * 10 + i;
                    recs.add(new Ctx.Rec(c.t(-4 * H + b * 40 * M + i * 1000L), String.format("k%02d", n % 25),
                        n % 17 == 16 ? null : Ctx.value(topic, 0, n, 120)));
                }
                c.batch(topic, 0, recs, codec);
            }
            c.step("produce 6 batches of 10 keyed records (every 17th value null) to " + topic + "-0 with producer "
                + "compression.type=" + codec + ", batch timestamps base-4h + 40min*b (+1s per record)");
        }
        // broker-side recompression
        c.createTopic("comp-broker-zstd", 1, cfg("segment.ms", String.valueOf(H), "compression.type", "zstd"));
        for (int b = 0; b < 3; b++) {
            List<Ctx.Rec> recs = new java.util.ArrayList<>();
            for (int i = 0; i < 10; i++) {
                int n = b * 10 + i;
                recs.add(new Ctx.Rec(c.t(-3 * H + b * 70 * M + i * 1000L), String.format("k%02d", n % 25),
                    Ctx.value("comp-broker-zstd", 0, n, 120)));
            }
            c.batch("comp-broker-zstd", 0, recs, "none");
        }
        c.step("produce 3 uncompressed batches of 10 records to comp-broker-zstd-0 (topic compression.type=zstd: the "
            + "broker recompresses), batch timestamps base-3h + 70min*b");
        c.note("One topic per codec (comp-none, comp-gzip, comp-snappy, comp-lz4, comp-zstd): topic compression.type="
            + "producer (default), so batches are stored as the producer compressed them. comp-broker-zstd has topic "
            + "compression.type=zstd and an uncompressed producer: the broker recompressed the batches.");
    }

    // ---------------------------------------------------------------------------------------------
    static void uncleanShutdown(Ctx c) throws Exception {
        c.createTopic("crash", 2, cfg("segment.ms", String.valueOf(H), "index.interval.bytes", "100"));
        for (int p = 0; p < 2; p++) {
            c.series("crash", p, 12, -6 * H, 20 * M, true, "none", 60);
        }
        c.step("wait until recovery-point-offset-checkpoint lists both crash partitions (periodic task, 1 s)");
        c.waitFor("recovery-point checkpoint", java.time.Duration.ofSeconds(60), () -> {
            List<String> l = c.checkpoint(0, "recovery-point-offset-checkpoint");
            return l.stream().anyMatch(x -> x.startsWith("crash 0 ")) && l.stream().anyMatch(x -> x.startsWith("crash 1 "));
        });
        Thread.sleep(1500);
        c.step("recovery-point-offset-checkpoint: " + c.checkpoint(0, "recovery-point-offset-checkpoint"));
        for (int p = 0; p < 2; p++) {
            c.series("crash", p, 5, -10 * M, M, true, "none", 60);
        }
        c.note("crash: segment.ms=1h, index.interval.bytes=100 (so the active .index/.timeindex have entries). The broker "
            + "was killed with SIGKILL: no .kafka_cleanshutdown, .lock files remain, active segments' .index/.timeindex "
            + "are still preallocated to log.index.size.max.bytes (65536) and zero-filled after the valid entries, and the "
            + "recovery point in recovery-point-offset-checkpoint is below the log end. log.initial.task.delay.ms=1000 and "
            + "the checkpoint intervals were lowered to 1 s so the checkpoint files exist.");
    }

    // ---------------------------------------------------------------------------------------------
    static void deleteRecords(Ctx c) throws Exception {
        c.createTopic("dr", 3, cfg("segment.ms", String.valueOf(H)));
        for (int p = 0; p < 3; p++) {
            c.series("dr", p, 24, -8 * H + 10 * M, 20 * M, true, "none", 40);
        }
        c.deleteRecords(new org.apache.kafka.common.TopicPartition("dr", 0), 6);
        c.deleteRecords(new org.apache.kafka.common.TopicPartition("dr", 1), 13);
        c.deleteRecords(new org.apache.kafka.common.TopicPartition("dr", 2), 24);
        c.note("dr: segment.ms=1h, 24 records per partition every 20 min from base-7h50min (roughly 3-4 records per "
            + "segment). DeleteRecords moved the log start offset: dr-0 to 6 (inside a segment), dr-1 to 13 (past "
            + "segment boundaries: whole segments lie below it), dr-2 to 24 (= high watermark: everything deleted). "
            + "The segments below the log start offset are still on disk because the retention task (which runs the "
            + "log-start-offset pass) never ran; log-start-offset-checkpoint records the new start offsets.");
    }

    // ---------------------------------------------------------------------------------------------
    static void kraftMetadata(Ctx c) throws Exception {
        c.createTopic("kt-alpha", 3, cfg("retention.ms", String.valueOf(H), "cleanup.policy", "delete"));
        c.createTopic("kt-beta", 1, cfg("cleanup.policy", "compact", "min.cleanable.dirty.ratio", "0.1"));
        c.createTopic("kt-gamma", 1, cfg("retention.bytes", "123456"));
        // Probe the topic-level segment.bytes minimum (KIP-1030 raised it to 1 MiB in 4.0).
        try {
            c.admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic("kt-small-segments", 1, (short) 1)
                .configs(cfg("segment.bytes", String.valueOf(1024 * 1024 - 1))))).all().get();
            c.step("create topic kt-small-segments with segment.bytes=1048575: ACCEPTED");
        } catch (java.util.concurrent.ExecutionException e) {
            c.step("create topic kt-small-segments with segment.bytes=1048575: rejected with "
                + e.getCause().getClass().getSimpleName() + ": " + e.getCause().getMessage());
        }
        c.alterTopicConfigs("kt-alpha", cfg("retention.ms", String.valueOf(2 * H), "segment.ms", String.valueOf(10 * M),
            "max.message.bytes", "2000000"), List.of());
        c.alterTopicConfigs("kt-alpha", cfg(), List.of("max.message.bytes"));
        c.alterTopicConfigs("kt-beta", cfg("cleanup.policy", "compact,delete", "retention.ms", String.valueOf(D)), List.of());
        c.admin.deleteTopics(List.of("kt-gamma")).all().get();
        c.step("delete topic kt-gamma");
        c.alterBrokerConfig("", cfg("log.retention.ms", String.valueOf(3 * D), "log.cleaner.backoff.ms", "20000"));
        c.alterBrokerConfig("1", cfg("log.retention.ms", String.valueOf(2 * D), "log.retention.bytes", "1073741824"));
        for (int p = 0; p < 3; p++) {
            c.series("kt-alpha", p, 3, -30 * M, 10 * M, true, "none", 40);
        }
        c.series("kt-beta", 0, 3, -30 * M, 10 * M, true, "none", 40);
        java.nio.file.Path md = c.broker.logDirs().get(0).resolve("__cluster_metadata-0");
        long since = System.currentTimeMillis();
        c.step("wait for a metadata snapshot (.checkpoint) newer than the last config change "
            + "(metadata.log.max.snapshot.interval.ms=3000, metadata.log.max.record.bytes.between.snapshots=4096)");
        c.waitFor("metadata snapshot", java.time.Duration.ofSeconds(60), () -> {
            try (var s = java.nio.file.Files.list(md)) {
                return s.anyMatch(x -> x.getFileName().toString().endsWith(".checkpoint")
                    && !x.getFileName().toString().startsWith("00000000000000000000-")
                    && x.toFile().lastModified() > since);
            } catch (Exception e) {
                return false;
            }
        });
        c.note("kraft-metadata: topic configs set at creation (CreateTopics) and changed with incrementalAlterConfigs "
            + "(SET and DELETE ops, see steps), topic kt-gamma created then deleted (RemoveTopicRecord), dynamic broker "
            + "configs at cluster-default and per-broker level (per-broker log.retention.ms=2d overrides the cluster "
            + "default 3d). __cluster_metadata-0 holds the bootstrap snapshot written by storage format "
            + "(00000000000000000000-0000000000.checkpoint) plus at least one snapshot written by the running node.");
    }

    // ---------------------------------------------------------------------------------------------
    static void internalTopics(Ctx c) throws Exception {
        c.createTopic("audit", 1, cfg());
        c.createTopic("jobs", 1, cfg());
        c.series("audit", 0, 10, -20 * M, M, false, "none", 40);
        c.series("jobs", 0, 60, -20 * M, 10 * S, false, "none", 40);
        for (String g : List.of("auditors", "workers")) {
            var res = new org.apache.kafka.common.config.ConfigResource(
                org.apache.kafka.common.config.ConfigResource.Type.GROUP, g);
            c.admin.incrementalAlterConfigs(java.util.Map.of(res, List.of(new org.apache.kafka.clients.admin.AlterConfigOp(
                new org.apache.kafka.clients.admin.ConfigEntry("share.auto.offset.reset", "earliest"),
                org.apache.kafka.clients.admin.AlterConfigOp.OpType.SET)))).all().get();
            c.step("incrementalAlterConfigs group " + g + " set share.auto.offset.reset=earliest");
        }
        // auditors: reads the 10 audit records once, acknowledges them all, and is never heard from again.
        int audited = shareConsume(c, "auditors", "audit", 10, 0);
        c.step("auditors: KafkaShareConsumer (explicit acknowledgement) subscribed to audit, acknowledged " + audited
            + " records (ACCEPT) with one commitSync, closed; the group stays Empty with no further writes");
        c.alterTopicConfigs("__share_group_state", cfg("segment.ms", "3000"), List.of());
        // workers: one commitSync per record, 200 ms apart: one share-state write each (a ShareSnapshot every
        // 2 ShareUpdates), spread over segments that roll every 3 s.
        int worked = shareConsume(c, "workers", "jobs", 60, 200);
        c.step("workers: KafkaShareConsumer (explicit acknowledgement) subscribed to jobs, acknowledged " + worked
            + " records one at a time, commitSync after each, 200 ms apart; closed");
        Thread.sleep(6000);
        c.step("wait 6 s: the share coordinator's prune job (every 2 s) deletes records below the oldest share "
            + "snapshot still needed (DeleteRecords on __share_group_state-0)");
        var offs = c.admin.listShareGroupOffsets(java.util.Map.of(
            "auditors", new org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec(),
            "workers", new org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec())).all().get();
        var share = c.json.createObjectNode();
        offs.forEach((g, m) -> {
            var gn = share.putObject(g);
            m.forEach((tp, info) -> gn.put(tp.toString(), info == null ? -1 : info.startOffset()));
        });
        c.share.setAll(share);
        c.step("Admin.listShareGroupOffsets: " + share);
        c.note("internal-topics: __cluster_metadata-0 rolls a segment every 5 s (metadata.log.segment.ms) and the node "
            + "writes a snapshot at least every 5 s (metadata.log.max.snapshot.interval.ms); metadata.max.retention.ms/"
            + "bytes stay at their defaults (7 d, 100 MiB), so the segments below the newest snapshot stay on disk.");
        c.note("internal-topics: __share_group_state has 1 partition (cleanup.policy=delete, retention.ms=-1, segment.ms "
            + "altered to 3 s). Group auditors wrote its share state for audit-0 once (an initial ShareSnapshot, then "
            + "its acknowledgements), early in __share_group_state-0; group workers wrote one record per "
            + "acknowledged jobs record, a ShareSnapshot every 2 updates "
            + "(share.coordinator.snapshot.update.records.per.snapshot=2). The coordinator prunes only below the "
            + "oldest latest snapshot over all keys (ShareCoordinatorOffsetsManager): auditors' snapshot, so every "
            + "later segment stays, though workers' newer snapshots made them redundant. Cold-partition snapshotting "
            + "(share.coordinator.cold.partition.snapshot.interval.ms, default 5 min) is set to 1 day here, so it "
            + "never re-snapshotted auditors' key during the scenario.");
    }

    /** A share consumer in explicit acknowledgement mode: ACCEPTs {@code want} records, commitSync per record when
     * {@code pauseMs > 0} (one share-state write each), else once at the end. Returns how many it acknowledged. */
    static int shareConsume(Ctx c, String group, String topic, int want, long pauseMs) throws Exception {
        java.util.Properties p = new java.util.Properties();
        p.put("bootstrap.servers", c.broker.bootstrap());
        p.put("group.id", group);
        p.put("share.acknowledgement.mode", "explicit");
        p.put("key.deserializer", org.apache.kafka.common.serialization.StringDeserializer.class.getName());
        p.put("value.deserializer", org.apache.kafka.common.serialization.StringDeserializer.class.getName());
        int acked = 0;
        try (var consumer = new org.apache.kafka.clients.consumer.KafkaShareConsumer<String, String>(p)) {
            consumer.subscribe(List.of(topic));
            long deadline = System.currentTimeMillis() + 90_000;
            while (acked < want && System.currentTimeMillis() < deadline) {
                for (var r : consumer.poll(java.time.Duration.ofMillis(500))) {
                    consumer.acknowledge(r, org.apache.kafka.clients.consumer.AcknowledgeType.ACCEPT);
                    acked++;
                    if (pauseMs > 0) {
                        consumer.commitSync(java.time.Duration.ofSeconds(10));
                        Thread.sleep(pauseMs);
                    }
                }
            }
            consumer.commitSync(java.time.Duration.ofSeconds(10));
        }
        if (acked < want) {
            throw new IllegalStateException(group + ": acknowledged " + acked + " of " + want + " records");
        }
        return acked;
    }
}
