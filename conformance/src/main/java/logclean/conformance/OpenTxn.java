package logclean.conformance;

import java.util.Properties;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Child JVM that begins a transaction, writes records, flushes them, prints READY and then waits
 * forever without committing or aborting. The parent kills it with SIGKILL, so the transaction stays
 * open on the broker until transaction.timeout.ms (set large) expires.
 *
 * Args: bootstrap transactionalId topic partition baseTimeMs count keyPrefix
 */
public final class OpenTxn {
    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String txnId = args[1];
        String topic = args[2];
        int partition = Integer.parseInt(args[3]);
        long ts = Long.parseLong(args[4]);
        int count = Integer.parseInt(args[5]);
        String keyPrefix = args[6];
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, txnId);
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "3600000");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        KafkaProducer<String, String> producer = new KafkaProducer<>(p);
        producer.initTransactions();
        producer.beginTransaction();
        for (int i = 0; i < count; i++) {
            producer.send(new ProducerRecord<>(topic, partition, ts + i * 1000L, keyPrefix + i,
                "open-txn-value-" + i)).get();
        }
        producer.flush();
        System.out.println("READY");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
