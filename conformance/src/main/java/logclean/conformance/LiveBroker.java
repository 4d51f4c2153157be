package logclean.conformance;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Keeps a real broker running while logclean is pointed at its live log dir: formats storage, starts
 * the broker, creates topic {@code live} (2 partitions) with a few records, prints
 * {@code READY <log dir>} and waits until its standard input is closed (or says {@code stop}); then
 * stops the broker cleanly. conformance/live-checks drives it: logclean must see the broker's fcntl
 * lock on {@code .lock}, read without mapping, write nothing, and refuse every mutation.
 *
 * Args: WORK_DIR
 */
public final class LiveBroker {
    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: LiveBroker WORK_DIR");
            System.exit(2);
        }
        Path work = Path.of(args[0]).toAbsolutePath();
        Harness.deleteTree(work);
        String cp = System.getProperty("java.class.path");
        int rc = 0;
        try (Broker broker = new Broker(work, cp, 1, Map.of())) {
            broker.format();
            broker.start();
            broker.awaitReady(Duration.ofSeconds(120));
            try (Admin admin = broker.admin()) {
                admin.createTopics(List.of(new NewTopic("live", 2, (short) 1))).all().get();
            }
            Properties p = new Properties();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
            p.put(ProducerConfig.ACKS_CONFIG, "all");
            p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
                for (int i = 0; i < 20; i++) {
                    producer.send(new ProducerRecord<>("live", i % 2, "k" + i, "live-value-" + i)).get();
                }
            }
            System.out.println("READY " + broker.logDirs().get(0));
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null && !line.trim().equals("stop")) {
                // wait for the checks to finish
            }
            if (!broker.isAlive()) {
                System.err.println("broker died while the checks ran, see " + work.resolve("broker.out"));
                rc = 1;
            } else {
                broker.stopClean();
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
}
