package logclean.conformance;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.zip.CRC32C;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The broker's side of conformance/generator-check and benches/broker-load (issue 13): does a
 * log dir written by logclean's generator (benches/support/generator.rs, examples/gen.rs) load
 * in a real 4.4.0 broker as its own, and how long does the broker take to load it.
 *
 * Modes (the broker's log dir is always WORK/logs-0; its log WORK/broker.log):
 * <ul>
 * <li>{@code create WORK TOPIC:PARTITIONS[:compact]...}: format a fresh single-node KRaft broker,
 *     start it, create the topics (compact ones with cleanup.policy=compact) and
 *     __consumer_offsets (a FindCoordinator does), write WORK/topic-ids.json
 *     ({"topic": "base64 id"}), stop it cleanly.</li>
 * <li>{@code check WORK SUMMARY_JSON}: start it on the generated dir, then compare with the
 *     generator's summary: ListOffsets earliest/latest per partition, every record read by a
 *     consumer (count and the generator's checksum), listConsumerGroupOffsets per group. Prints
 *     one {@code MISMATCH ...} line per difference and {@code OK ...} lines; exit 1 on any
 *     mismatch. Stops cleanly.</li>
 * <li>{@code load WORK}: start, print {@code READY_MS n} (process start until describeCluster
 *     lists the broker, i.e. its logs are loaded and it is unfenced), stop cleanly.</li>
 * </ul>
 * The log cleaner and the retention task are off in check and load: they must not change what
 * is compared or timed.
 */
public final class GeneratorCheck {
    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: GeneratorCheck create WORK TOPIC:N[:compact]... | check WORK SUMMARY | load WORK");
            System.exit(2);
        }
        Path work = Path.of(args[1]).toAbsolutePath();
        Files.createDirectories(work);
        int rc;
        try {
            switch (args[0]) {
                case "create" -> rc = create(work, List.of(args).subList(2, args.length));
                case "check" -> rc = check(work, Path.of(args[2]));
                case "load" -> rc = load(work);
                default -> {
                    System.err.println("unknown mode " + args[0]);
                    rc = 2;
                }
            }
        } catch (Throwable t) {
            t.printStackTrace();
            rc = 1;
        } finally {
            for (Process proc : Broker.CHILDREN) {
                if (proc.isAlive()) {
                    proc.destroyForcibly();
                }
            }
        }
        System.exit(rc);
    }

    private static Map<String, String> overrides() {
        Map<String, String> o = new LinkedHashMap<>();
        o.put("log.cleaner.enable", "false");
        o.put("log.retention.check.interval.ms", "3600000");
        o.put("log.initial.task.delay.ms", "3600000");
        // Kafka's own default (the harness uses 1 to keep fixtures deterministic).
        o.put("num.recovery.threads.per.data.dir", "2");
        // Big generated segments roll only by size; keep them from rolling by time on load.
        o.put("log.roll.ms", String.valueOf(7L * 24 * 3600 * 1000));
        return o;
    }

    private static int create(Path work, List<String> topics) throws Exception {
        String cp = System.getProperty("java.class.path");
        try (Broker broker = new Broker(work, cp, 1, overrides())) {
            broker.format();
            broker.start();
            broker.awaitReady(Duration.ofSeconds(180));
            try (Admin admin = broker.admin()) {
                List<NewTopic> news = new ArrayList<>();
                for (String t : topics) {
                    String[] p = t.split(":");
                    NewTopic nt = new NewTopic(p[0], Integer.parseInt(p[1]), (short) 1);
                    if (p.length > 2 && p[2].equals("compact")) {
                        nt.configs(Map.of("cleanup.policy", "compact"));
                    }
                    news.add(nt);
                }
                admin.createTopics(news).all().get();
                // FindCoordinator creates __consumer_offsets.
                admin.listConsumerGroupOffsets("generator-check-probe").partitionsToOffsetAndMetadata().get();
                List<String> names = new ArrayList<>();
                for (NewTopic nt : news) {
                    names.add(nt.name());
                }
                names.add("__consumer_offsets");
                Map<String, TopicDescription> desc = admin.describeTopics(names).allTopicNames().get();
                Map<String, String> ids = new TreeMap<>();
                for (TopicDescription d : desc.values()) {
                    ids.put(d.name(), d.topicId().toString());
                }
                Files.writeString(work.resolve("topic-ids.json"),
                    new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(ids), StandardCharsets.UTF_8);
                System.out.println("created " + ids);
            }
            broker.stopClean();
        }
        return 0;
    }

    /** Starts a broker on WORK/logs-0 as it is (the previous run's server.properties ports are replaced). */
    private static Broker startExisting(Path work) throws Exception {
        String cp = System.getProperty("java.class.path");
        Broker broker = new Broker(work, cp, 1, overrides());
        broker.writeConfig();
        broker.start();
        return broker;
    }

    private static int load(Path work) throws Exception {
        long t0 = System.nanoTime();
        try (Broker broker = startExisting(work)) {
            broker.awaitReady(Duration.ofSeconds(1800));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            System.out.println("READY_MS " + ms);
            broker.stopClean();
        }
        return 0;
    }

    private static long hash(byte[] b) {
        if (b == null) {
            return 0xFFFF_FFFFL;
        }
        CRC32C c = new CRC32C();
        c.update(b);
        return c.getValue();
    }

    private static int check(Path work, Path summaryFile) throws Exception {
        JsonNode summary = new ObjectMapper().readTree(summaryFile.toFile());
        int mismatches = 0;
        long t0 = System.nanoTime();
        try (Broker broker = startExisting(work)) {
            broker.awaitReady(Duration.ofSeconds(300));
            System.out.println("READY_MS " + (System.nanoTime() - t0) / 1_000_000);
            try (Admin admin = broker.admin()) {
                Map<TopicPartition, JsonNode> want = new LinkedHashMap<>();
                for (JsonNode p : summary.get("partitions")) {
                    want.put(new TopicPartition(p.get("topic").asText(), p.get("partition").asInt()), p);
                }
                Map<TopicPartition, OffsetSpec> early = new HashMap<>();
                Map<TopicPartition, OffsetSpec> late = new HashMap<>();
                for (TopicPartition tp : want.keySet()) {
                    early.put(tp, OffsetSpec.earliest());
                    late.put(tp, OffsetSpec.latest());
                }
                Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> e = admin.listOffsets(early).all().get();
                Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> l = admin.listOffsets(late).all().get();
                Properties c = new Properties();
                c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
                c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
                c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
                c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
                c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
                c.put(ConsumerConfig.CHECK_CRCS_CONFIG, "true");
                long records = 0;
                try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c)) {
                    for (Map.Entry<TopicPartition, JsonNode> w : want.entrySet()) {
                        TopicPartition tp = w.getKey();
                        JsonNode p = w.getValue();
                        long earliest = e.get(tp).offset();
                        long latest = l.get(tp).offset();
                        long wantStart = p.get("log_start_offset").asLong();
                        long wantEnd = p.get("log_end_offset").asLong();
                        if (earliest != wantStart || latest != wantEnd) {
                            System.out.println("MISMATCH offsets " + tp + " broker " + earliest + ".." + latest
                                + " generator " + wantStart + ".." + wantEnd);
                            mismatches++;
                        }
                        long n = 0;
                        long sum = 0;
                        consumer.assign(List.of(tp));
                        consumer.seekToBeginning(List.of(tp));
                        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                        while (consumer.position(tp) < latest && System.nanoTime() < deadline) {
                            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                                n++;
                                sum += (hash(r.key()) << 32) | hash(r.value());
                            }
                        }
                        records += n;
                        long wantN = p.get("records").asLong();
                        long wantSum = Long.parseUnsignedLong(p.get("checksum").asText());
                        if (n != wantN || sum != wantSum) {
                            System.out.println("MISMATCH records " + tp + " broker " + n + " checksum "
                                + Long.toUnsignedString(sum) + " generator " + wantN + " checksum "
                                + Long.toUnsignedString(wantSum));
                            mismatches++;
                        }
                    }
                }
                System.out.println("OK read " + records + " records in " + want.size() + " partitions");
                int groups = 0;
                int commits = 0;
                for (Iterator<Map.Entry<String, JsonNode>> it = summary.get("commits").fields(); it.hasNext();) {
                    Map.Entry<String, JsonNode> g = it.next();
                    Map<TopicPartition, OffsetAndMetadata> got = admin.listConsumerGroupOffsets(g.getKey())
                        .partitionsToOffsetAndMetadata().get();
                    Map<String, Long> gotByName = new TreeMap<>();
                    for (Map.Entry<TopicPartition, OffsetAndMetadata> o : got.entrySet()) {
                        gotByName.put(o.getKey().topic() + "-" + o.getKey().partition(), o.getValue().offset());
                    }
                    Map<String, Long> wantByName = new TreeMap<>();
                    for (Iterator<Map.Entry<String, JsonNode>> pt = g.getValue().fields(); pt.hasNext();) {
                        Map.Entry<String, JsonNode> o = pt.next();
                        wantByName.put(o.getKey(), o.getValue().asLong());
                    }
                    if (!gotByName.equals(wantByName)) {
                        System.out.println("MISMATCH commits " + g.getKey() + " broker " + gotByName
                            + " generator " + wantByName);
                        mismatches++;
                    }
                    groups++;
                    commits += wantByName.size();
                }
                System.out.println("OK compared " + commits + " committed offsets of " + groups + " groups");
            }
            broker.stopClean();
        }
        System.out.println(mismatches == 0 ? "OK no mismatches" : "FAILED " + mismatches + " mismatches");
        return mismatches == 0 ? 0 : 1;
    }
}
