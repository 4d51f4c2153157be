package logclean.conformance;

import java.io.FileReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.zip.CRC32C;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The broker's side of conformance/disk-full-check (issue 27): a real 4.4.0 broker whose log dir
 * is a small filesystem of its own (WORK/logs-0, mounted by the script) is filled until it halts,
 * and, after logclean freed space, restarted on what is left.
 *
 * Modes (the broker's log dir is always WORK/logs-0; its log WORK/broker.log):
 * <ul>
 * <li>{@code fill WORK}: format, start, create {@code expiring} (retention.ms 2 h, segment.ms
 *     1 h; 48 records of 16 KiB stamped base-6h .. base-2h05 every 5 min, so 4 closed segments
 *     of 12 records, all expired, then one record stamped now in a fifth, active segment) and
 *     {@code kept} (retention.ms -1: nothing frees it), then produce 16 KiB records to
 *     {@code kept} one at a time (idempotent producer, acks=all) until a send fails, and wait
 *     for the broker to exit by itself (ENOSPC: LogDirFailureChannel, "all log dirs have
 *     failed", halt). Prints {@code A topic partition offset crc32c(value)} per acknowledged
 *     record, {@code FAIL message} for the first failed send, {@code HALT exit=N seconds=S} (or
 *     {@code HALT none}: still running 60 s after the first failure, then SIGKILLed), and
 *     {@code FREE usable total} of the log dir's filesystem after the halt.</li>
 * <li>{@code verify WORK [SERVER_PROPERTIES]}: start a broker on WORK/logs-0 as it is (the
 *     fixture's server.properties gives the broker configs, ports and log.dirs replaced; without
 *     it the fill's overrides), print {@code BOOT du_before du_after usable_before usable_after
 *     ready_ms} (allocated bytes of the log dir by {@code du -B1 -s}, usable bytes of its
 *     filesystem, before the start and once describeCluster lists the broker), {@code F0}/{@code F1
 *     path size blocks} for every path under it before the start and then, then per data
 *     partition {@code P topic partition earliest latest read} and {@code V topic partition
 *     offset crc32c(value)} per record read (read_uncommitted, from the beginning to latest),
 *     {@code SERVED du usable ms} once every record is read, and stop cleanly.</li>
 * </ul>
 * Retention and the cleaner never run (initial task delay and interval 1 h, cleaner off): what
 * is compared is what the broker loaded, not what it deleted afterwards.
 */
public final class DiskFullCheck {
    static final long H = 3_600_000L;
    static final long MIN = 60_000L;
    static final int VALUE_BYTES = 16 * 1024;
    private static final Set<String> REPLACED = Set.of("listeners", "advertised.listeners",
        "controller.quorum.bootstrap.servers", "log.dirs", "process.roles", "node.id");

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: DiskFullCheck fill WORK | verify WORK [SERVER_PROPERTIES]");
            System.exit(2);
        }
        Path work = Path.of(args[1]).toAbsolutePath();
        Files.createDirectories(work);
        int rc;
        try {
            switch (args[0]) {
                case "fill" -> rc = fill(work);
                case "verify" -> rc = verify(work, args.length > 2 ? Path.of(args[2]) : null);
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
        System.out.flush();
        System.exit(rc);
    }

    static Map<String, String> overrides() {
        Map<String, String> o = new LinkedHashMap<>();
        o.put("log.cleaner.enable", "false");
        o.put("log.retention.check.interval.ms", "3600000");
        o.put("log.initial.task.delay.ms", "3600000");
        return o;
    }

    /** A record value: 16 KiB from a seeded generator (incompressible, reproducible). */
    static byte[] value(String topic, long i) {
        byte[] b = new byte[VALUE_BYTES];
        new Random(topic.hashCode() * 1_000_003L + i).nextBytes(b);
        return b;
    }

    static long crc(byte[] b) {
        if (b == null) {
            return 0xFFFF_FFFFL;
        }
        CRC32C c = new CRC32C();
        c.update(b);
        return c.getValue();
    }

    private static void ack(RecordMetadata md, byte[] v) {
        System.out.println("A " + md.topic() + " " + md.partition() + " " + md.offset() + " " + crc(v));
    }

    private static int fill(Path work) throws Exception {
        String cp = System.getProperty("java.class.path");
        Path logs = work.resolve("logs-0");
        try (Broker broker = new Broker(work, cp, 1, overrides())) {
            broker.format();
            broker.start();
            broker.awaitReady(Duration.ofSeconds(180));
            long base = (System.currentTimeMillis() / MIN) * MIN;
            try (Admin admin = broker.admin()) {
                admin.createTopics(List.of(
                    new NewTopic("expiring", 1, (short) 1).configs(Map.of(
                        "retention.ms", String.valueOf(2 * H), "segment.ms", String.valueOf(H))),
                    new NewTopic("kept", 1, (short) 1).configs(Map.of("retention.ms", "-1")))).all().get();
            }
            Properties p = new Properties();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
            p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            p.put(ProducerConfig.ACKS_CONFIG, "all");
            p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "4000");
            p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "5000");
            p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "20000");
            KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p);
            try {
                for (int i = 0; i < 48; i++) {
                    byte[] v = value("expiring", i);
                    ack(producer.send(new ProducerRecord<>("expiring", 0, base - 6 * H + i * 5 * MIN, null, v)).get(), v);
                }
                byte[] last = value("expiring", 48);
                ack(producer.send(new ProducerRecord<>("expiring", 0, System.currentTimeMillis(), null, last)).get(), last);
                long t0 = System.nanoTime();
                for (long i = 0; ; i++) {
                    byte[] v = value("kept", i);
                    try {
                        ack(producer.send(new ProducerRecord<>("kept", 0, System.currentTimeMillis(), null, v)).get(), v);
                    } catch (Exception e) {
                        Throwable c = e.getCause() == null ? e : e.getCause();
                        System.out.println("FAIL " + c.getClass().getSimpleName() + ": " + c.getMessage()
                            + " (after " + i + " records to kept)");
                        break;
                    }
                    if (System.nanoTime() - t0 > Duration.ofSeconds(300).toNanos()) {
                        System.out.println("FAIL the log dir did not fill in 300 s");
                        return 1;
                    }
                }
            } finally {
                producer.close(Duration.ZERO);
            }
            long failedAt = System.nanoTime();
            while (broker.isAlive() && System.nanoTime() - failedAt < Duration.ofSeconds(60).toNanos()) {
                Thread.sleep(200);
            }
            long s = (System.nanoTime() - failedAt) / 1_000_000_000L;
            if (broker.isAlive()) {
                System.out.println("HALT none: still running 60 s after the first failed send; SIGKILL");
                broker.crash();
            } else {
                System.out.println("HALT exit=" + broker.exitCode() + " seconds=" + s);
            }
        }
        FileStore fs = Files.getFileStore(logs);
        System.out.println("FREE " + fs.getUsableSpace() + " " + fs.getTotalSpace());
        return 0;
    }

    /** Allocated bytes under {@code dir} (du -B1 -s: blocks, not apparent sizes). */
    static long du(Path dir) throws Exception {
        Process p = new ProcessBuilder("du", "-B1", "-s", dir.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (p.waitFor() != 0) {
            throw new IllegalStateException("du failed: " + out);
        }
        return Long.parseLong(out.split("\\s+")[0]);
    }

    /** {@code find DIR -printf '%P %s %b'}: every path under {@code dir} with its size and 512-byte blocks. */
    static List<String> listing(Path dir) throws Exception {
        Process p = new ProcessBuilder("find", dir.toString(), "-mindepth", "1", "-printf", "%P %s %b\\n")
            .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException("find failed: " + out);
        }
        return out.lines().sorted().toList();
    }

    private static int verify(Path work, Path serverProperties) throws Exception {
        Map<String, String> o = new LinkedHashMap<>();
        if (serverProperties != null) {
            Properties fixture = new Properties();
            try (FileReader r = new FileReader(serverProperties.toFile(), StandardCharsets.UTF_8)) {
                fixture.load(r);
            }
            for (String k : fixture.stringPropertyNames()) {
                if (!REPLACED.contains(k)) {
                    o.put(k, fixture.getProperty(k));
                }
            }
        }
        o.putAll(overrides());
        Path logs = work.resolve("logs-0");
        FileStore fs = Files.getFileStore(logs);
        long duBefore = du(logs);
        long usableBefore = fs.getUsableSpace();
        List<String> filesBefore = listing(logs);
        String cp = System.getProperty("java.class.path");
        long t0 = System.nanoTime();
        try (Broker broker = new Broker(work, cp, 1, o)) {
            broker.writeConfig();
            broker.start();
            broker.awaitReady(Duration.ofSeconds(300));
            long readyMs = (System.nanoTime() - t0) / 1_000_000;
            System.out.println("BOOT " + duBefore + " " + du(logs) + " " + usableBefore + " " + fs.getUsableSpace()
                + " " + readyMs);
            filesBefore.forEach(f -> System.out.println("F0 " + f));
            listing(logs).forEach(f -> System.out.println("F1 " + f));
            try (Admin admin = broker.admin()) {
                Set<String> names = new TreeSet<>(admin.listTopics().names().get());
                Map<String, TopicDescription> topics = admin.describeTopics(names).allTopicNames().get();
                List<TopicPartition> tps = new ArrayList<>();
                for (String n : names) {
                    for (TopicPartitionInfo pi : topics.get(n).partitions()) {
                        tps.add(new TopicPartition(n, pi.partition()));
                    }
                }
                Map<TopicPartition, OffsetSpec> early = new HashMap<>();
                Map<TopicPartition, OffsetSpec> late = new HashMap<>();
                for (TopicPartition tp : tps) {
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
                try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c)) {
                    for (TopicPartition tp : tps) {
                        long earliest = e.get(tp).offset();
                        long latest = l.get(tp).offset();
                        consumer.assign(List.of(tp));
                        consumer.seekToBeginning(List.of(tp));
                        List<String> lines = new ArrayList<>();
                        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                        while (consumer.position(tp) < latest && System.nanoTime() < deadline) {
                            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500)).records(tp)) {
                                lines.add("V " + tp.topic() + " " + tp.partition() + " " + r.offset() + " " + crc(r.value()));
                            }
                        }
                        System.out.println("P " + tp.topic() + " " + tp.partition() + " " + earliest + " " + latest + " "
                            + lines.size());
                        lines.forEach(System.out::println);
                    }
                }
            }
            System.out.println("SERVED " + du(logs) + " " + fs.getUsableSpace() + " "
                + (System.nanoTime() - t0) / 1_000_000);
            broker.stopClean();
        }
        return 0;
    }
}
