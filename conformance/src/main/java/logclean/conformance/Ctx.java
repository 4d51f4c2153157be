package logclean.conformance;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringSerializer;

/** Everything a scenario body can do against the running broker. Every action is logged as a step. */
public final class Ctx {
    public static final long S = 1000L;
    public static final long M = 60 * S;
    public static final long H = 60 * M;
    public static final long D = 24 * H;

    public record Rec(long ts, String key, String value) { }

    public record GroupInfo(String group, String committedAt) { }

    final String scenario;
    final Broker broker;
    final Admin admin;
    final long base;
    final List<String> steps = new ArrayList<>();
    final List<String> notes = new ArrayList<>();
    final ObjectNode dynamicBrokerConfigs;
    final List<GroupInfo> groups = new ArrayList<>();
    final List<String> deletedGroups = new ArrayList<>();
    /** Groups whose offsets the coordinator itself expired (offsets.retention.minutes) before capture. */
    final List<String> expiredGroups = new ArrayList<>();
    /** kafka-transactions.sh find-hanging's rows as the scenario saw them (null: not run). */
    com.fasterxml.jackson.databind.node.ArrayNode findHanging;
    final Map<String, KafkaProducer<String, String>> producers = new LinkedHashMap<>();
    final ObjectMapper json;
    /** Tiered-storage facts a tiered scenario records (manifest key "tiered"; absent when empty). */
    final ObjectNode tiered;
    /** Share groups' start offsets per share partition (manifest key "share_groups"; absent when empty). */
    final ObjectNode share;
    final List<Process> children = new ArrayList<>();

    Ctx(String scenario, Broker broker, Admin admin, long base, ObjectMapper json) {
        this.scenario = scenario;
        this.broker = broker;
        this.admin = admin;
        this.base = base;
        this.json = json;
        this.dynamicBrokerConfigs = json.createObjectNode();
        this.tiered = json.createObjectNode();
        this.share = json.createObjectNode();
    }

    /** Absolute timestamp for an offset relative to the scenario base time. */
    public long t(long relMs) {
        return base + relMs;
    }

    public static String rel(long relMs) {
        if (relMs == 0) {
            return "base";
        }
        long a = Math.abs(relMs);
        String sign = relMs < 0 ? "-" : "+";
        if (a % D == 0) {
            return "base" + sign + (a / D) + "d";
        }
        if (a % H == 0) {
            return "base" + sign + (a / H) + "h";
        }
        if (a % M == 0) {
            return "base" + sign + (a / M) + "min";
        }
        return "base" + sign + a + "ms";
    }

    public void step(String s) {
        steps.add(s);
        System.out.println("[" + scenario + "] " + s);
    }

    public void note(String s) {
        notes.add(s);
    }

    public void createTopic(String name, int partitions, Map<String, String> configs) throws Exception {
        NewTopic nt = new NewTopic(name, partitions, (short) 1).configs(configs);
        admin.createTopics(List.of(nt)).all().get();
        step("create topic " + name + " partitions=" + partitions + " configs=" + configs);
        // wait until metadata has a leader for every partition
        waitFor("leaders for " + name, Duration.ofSeconds(30), () -> {
            try {
                return admin.describeTopics(List.of(name)).allTopicNames().get().get(name).partitions().stream()
                    .allMatch(p -> p.leader() != null && p.leader().id() == Broker.NODE_ID);
            } catch (Exception e) {
                return false;
            }
        });
    }

    public KafkaProducer<String, String> producer(String compression) {
        return producers.computeIfAbsent("plain-" + compression, k -> {
            Properties p = baseProducerProps();
            p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, compression);
            return new KafkaProducer<>(p);
        });
    }

    Properties baseProducerProps() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        // Records are accumulated and released by an explicit flush(): one flush = one batch per partition.
        p.put(ProducerConfig.LINGER_MS_CONFIG, "60000");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, "1048576");
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        return p;
    }

    /** Sends the records as one batch (one flush) to topic-partition. */
    public List<RecordMetadata> batch(String topic, int partition, List<Rec> recs, String compression) throws Exception {
        return batchWith(producer(compression), topic, partition, recs);
    }

    static List<RecordMetadata> batchWith(KafkaProducer<String, String> pr, String topic, int partition,
                                          List<Rec> recs) throws Exception {
        List<Future<RecordMetadata>> fs = new ArrayList<>();
        for (Rec r : recs) {
            fs.add(pr.send(new ProducerRecord<>(topic, partition, r.ts(), r.key(), r.value())));
        }
        pr.flush();
        List<RecordMetadata> out = new ArrayList<>();
        for (Future<RecordMetadata> f : fs) {
            out.add(f.get());
        }
        return out;
    }

    /** One record per batch, timestamps base+start, base+start+step, ... ; values are deterministic. */
    public void series(String topic, int partition, int count, long startRel, long stepMs, boolean keyed,
                       String compression, int valueBytes) throws Exception {
        for (int i = 0; i < count; i++) {
            long rel = startRel + i * stepMs;
            String key = keyed ? String.format("k%03d", i % 50) : null;
            batch(topic, partition, List.of(new Rec(t(rel), key, value(topic, partition, i, valueBytes))), compression);
        }
        step(String.format("produce %d %s records to %s-%d, one per batch, compression=%s, timestamps %s .. %s step %s",
            count, keyed ? "keyed" : "keyless", topic, partition, compression, rel(startRel),
            rel(startRel + (count - 1) * stepMs), rel(stepMs).replace("base+", "")));
    }

    public static String value(String topic, int partition, int i, int bytes) {
        StringBuilder sb = new StringBuilder(String.format("%s/%d/%05d:", topic, partition, i));
        String filler = "lorem-ipsum-dolor-sit-amet-";
        int j = 0;
        while (sb.length() < bytes) {
            sb.append(filler.charAt(j++ % filler.length()));
        }
        return sb.toString();
    }

    public void alterTopicConfigs(String topic, Map<String, String> set, Collection<String> delete) throws Exception {
        List<AlterConfigOp> ops = new ArrayList<>();
        set.forEach((k, v) -> ops.add(new AlterConfigOp(new ConfigEntry(k, v), AlterConfigOp.OpType.SET)));
        for (String k : delete) {
            ops.add(new AlterConfigOp(new ConfigEntry(k, null), AlterConfigOp.OpType.DELETE));
        }
        admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, topic), ops)).all().get();
        step("incrementalAlterConfigs topic " + topic + " set=" + set + " delete=" + delete);
    }

    /** brokerId "" = cluster-wide default, "1" = this broker. Recorded in manifest dynamic_broker_configs. */
    public void alterBrokerConfig(String brokerId, Map<String, String> set) throws Exception {
        List<AlterConfigOp> ops = new ArrayList<>();
        set.forEach((k, v) -> ops.add(new AlterConfigOp(new ConfigEntry(k, v), AlterConfigOp.OpType.SET)));
        admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.BROKER, brokerId), ops)).all().get();
        String key = brokerId.isEmpty() ? "cluster_default" : "broker_" + brokerId;
        ObjectNode n = dynamicBrokerConfigs.has(key) ? (ObjectNode) dynamicBrokerConfigs.get(key)
            : dynamicBrokerConfigs.putObject(key);
        set.forEach(n::put);
        step("incrementalAlterConfigs broker " + (brokerId.isEmpty() ? "<cluster default>" : brokerId) + " set=" + set);
    }

    public void commitOffsets(String group, Map<TopicPartition, Long> offsets) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> m = new LinkedHashMap<>();
        offsets.forEach((tp, o) -> m.put(tp, new OffsetAndMetadata(o)));
        admin.alterConsumerGroupOffsets(group, m).all().get();
        groups.removeIf(g -> g.group().equals(group));
        groups.add(new GroupInfo(group, Instant.now().toString()));
        step("commit offsets for group " + group + " via Admin.alterConsumerGroupOffsets: " + offsets);
    }

    public void recordGroup(String group) {
        groups.removeIf(g -> g.group().equals(group));
        groups.add(new GroupInfo(group, Instant.now().toString()));
    }

    public void deleteRecords(TopicPartition tp, long beforeOffset) throws Exception {
        admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(beforeOffset))).all().get();
        step("DeleteRecords " + tp + " beforeOffset=" + beforeOffset);
    }

    public void waitFor(String what, Duration timeout, BooleanSupplier cond) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out waiting for " + what);
            }
            Thread.sleep(200);
        }
    }

    /** Lines of a checkpoint file in log dir i (empty list if absent). */
    public List<String> checkpoint(int logDir, String file) {
        try {
            Path p = broker.logDirs().get(logDir).resolve(file);
            return Files.exists(p) ? Files.readAllLines(p) : List.of();
        } catch (Exception e) {
            return List.of();
        }
    }

    void closeProducers() {
        for (KafkaProducer<String, String> p : producers.values()) {
            p.close(Duration.ofSeconds(10));
        }
        producers.clear();
    }
}
