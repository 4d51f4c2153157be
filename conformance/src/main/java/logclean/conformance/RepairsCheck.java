package logclean.conformance;

import java.io.FileReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Starts a real broker on EXISTING log dirs (copies of fixtures that logclean changed, or that the
 * broker is to rebuild itself), reads every data partition, and stops it cleanly (so it trims the
 * active segments' indexes). conformance/repairs-check drives it.
 *
 * Prints one line per partition: {@code P <topic> <partition> <earliest> <latest> <records read>}
 * (a KafkaConsumer, read_uncommitted, assigned to the partition, from the beginning to latest),
 * then {@code R <topic> <partition> <first offset read> <last offset read> <gaps>} (-1 -1 when
 * nothing was read; gaps counts records whose offset is not the previous one's plus one, so
 * "records read = latest - earliest, first = earliest, 0 gaps" means exactly every offset of the
 * range was read).
 * The broker's application log is WORK_DIR/broker.log.
 *
 * Args: WORK_DIR SERVER_PROPERTIES LOG_DIR...  (the fixture's server.properties gives the configs;
 * ports, listeners and log.dirs are replaced)
 *
 * Optional system property {@code repairs.produce=TOPIC:PRODUCERS:ROUNDS} (before reading: create TOPIC with one partition
 * and segment.ms = 1 h, then ROUNDS rounds; in round r the first PRODUCERS * (r + 1) / ROUNDS of
 * PRODUCERS idempotent producers each send one record, flushed, so one batch each, in an order
 * shuffled with a fixed seed; round r's records are timestamped now - 12 h + r * 2 h, so each
 * round starts a new segment and brings new producers into it).
 */
public final class RepairsCheck {
    private static final Set<String> REPLACED = Set.of("listeners", "advertised.listeners",
        "controller.quorum.bootstrap.servers", "log.dirs", "process.roles", "node.id");

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: RepairsCheck WORK_DIR SERVER_PROPERTIES LOG_DIR...");
            System.exit(2);
        }
        Path work = Path.of(args[0]).toAbsolutePath();
        Files.createDirectories(work);
        Properties fixture = new Properties();
        try (FileReader r = new FileReader(args[1], StandardCharsets.UTF_8)) {
            fixture.load(r);
        }
        Map<String, String> overrides = new LinkedHashMap<>();
        for (String k : fixture.stringPropertyNames()) {
            if (!REPLACED.contains(k)) {
                overrides.put(k, fixture.getProperty(k));
            }
        }
        List<String> dirs = new ArrayList<>();
        for (int i = 2; i < args.length; i++) {
            dirs.add(Path.of(args[i]).toAbsolutePath().toString());
        }
        overrides.put("log.dirs", String.join(",", dirs));
        // Retention and the cleaner must not change what is compared.
        overrides.put("log.retention.check.interval.ms", "3600000");
        overrides.put("log.initial.task.delay.ms", "3600000");
        overrides.put("log.cleaner.enable", "false");
        String cp = System.getProperty("java.class.path");
        int rc = 0;
        try (Broker broker = new Broker(work, cp, 1, overrides)) {
            writeLog4j(work);
            Files.writeString(broker.propertiesFile(), Broker.render(broker.config()), StandardCharsets.UTF_8);
            broker.start();
            broker.awaitReady(Duration.ofSeconds(180));
            try (Admin admin = broker.admin()) {
                String produce = System.getProperty("repairs.produce", "");
                if (!produce.isEmpty()) {
                    String[] f = produce.split(":");
                    produceMany(admin, broker.bootstrap(), f[0], Integer.parseInt(f[1]), Integer.parseInt(f[2]));
                }
                Set<String> names = admin.listTopics().names().get();
                Map<String, TopicDescription> topics = admin.describeTopics(names).allTopicNames().get();
                List<TopicPartition> tps = new ArrayList<>();
                for (TopicDescription t : topics.values()) {
                    for (TopicPartitionInfo p : t.partitions()) {
                        tps.add(new TopicPartition(t.name(), p.partition()));
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
                try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c)) {
                    for (TopicPartition tp : tps) {
                        long earliest = e.get(tp).offset();
                        long latest = l.get(tp).offset();
                        consumer.assign(List.of(tp));
                        consumer.seekToBeginning(List.of(tp));
                        long[] read = readRange(consumer, tp, latest);
                        System.out.println("P " + tp.topic() + " " + tp.partition() + " " + earliest + " " + latest + " " + read[0]);
                        System.out.println("R " + tp.topic() + " " + tp.partition() + " " + read[1] + " " + read[2] + " " + read[3]);
                    }
                }
            }
            broker.stopClean();
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

    /**
     * Poll {@code tp} (assigned, positioned) until its position reaches {@code latest} or 60 s pass.
     * Returns {records read, first offset, last offset, gaps} (first/last -1 when none).
     */
    private static long[] readRange(KafkaConsumer<byte[], byte[]> consumer, TopicPartition tp, long latest) {
        long n = 0;
        long first = -1;
        long last = -1;
        long gaps = 0;
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (consumer.position(tp) < latest && System.nanoTime() < deadline) {
            ConsumerRecords<byte[], byte[]> recs = consumer.poll(Duration.ofMillis(500));
            for (ConsumerRecord<byte[], byte[]> rec : recs.records(tp)) {
                if (first < 0) {
                    first = rec.offset();
                } else if (rec.offset() != last + 1) {
                    gaps++;
                }
                last = rec.offset();
                n++;
            }
        }
        return new long[] {n, first, last, gaps};
    }

    /** See repairs.produce in the class comment. */
    private static void produceMany(Admin admin, String bootstrap, String topic, int producers, int rounds)
            throws Exception {
        if (!admin.listTopics().names().get().contains(topic)) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1)
                .configs(Map.of("segment.ms", "3600000")))).all().get();
        }
        List<KafkaProducer<byte[], byte[]>> ps = new ArrayList<>();
        try {
            for (int i = 0; i < producers; i++) {
                Properties p = new Properties();
                p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
                p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
                p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
                p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
                p.put(ProducerConfig.ACKS_CONFIG, "all");
                ps.add(new KafkaProducer<>(p));
            }
            java.util.Random rnd = new java.util.Random(9);
            long base = System.currentTimeMillis() - Duration.ofHours(12).toMillis();
            for (int r = 0; r < rounds; r++) {
                List<Integer> order = new ArrayList<>();
                for (int i = 0; i < producers * (r + 1) / rounds; i++) {
                    order.add(i);
                }
                java.util.Collections.shuffle(order, rnd);
                long ts = base + r * Duration.ofHours(2).toMillis();
                for (int i : order) {
                    String v = "round " + r + " producer " + i;
                    ps.get(i).send(new ProducerRecord<>(topic, 0, ts, null, v.getBytes(StandardCharsets.UTF_8))).get();
                    ps.get(i).flush();
                }
            }
        } finally {
            for (KafkaProducer<byte[], byte[]> p : ps) {
                p.close(Duration.ofSeconds(10));
            }
        }
        System.out.println("PRODUCED " + topic + " " + producers + " producers x " + rounds + " rounds");
    }

    private static void writeLog4j(Path work) throws java.io.IOException {
        String log = work.resolve("broker.log").toAbsolutePath().toString();
        String props = String.join("\n",
            "status = warn",
            "appender.file.type = File",
            "appender.file.name = FILE",
            "appender.file.fileName = " + log,
            "appender.file.append = true",
            "appender.file.layout.type = PatternLayout",
            "appender.file.layout.pattern = [%d] %p %m (%c)%n",
            "rootLogger.level = INFO",
            "rootLogger.appenderRef.file.ref = FILE",
            "");
        Files.writeString(work.resolve("log4j2.properties"), props, StandardCharsets.UTF_8);
    }
}
