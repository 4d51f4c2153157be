package logclean.conformance;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.Node;

/**
 * Three Kafka 4.4.0 KRaft nodes on 127.0.0.1 (issue 21): node 1 is broker+controller, the single voter of the
 * quorum (formatted --standalone, as the single-node fixtures are); nodes 2 and 3 are brokers only, pointed at
 * node 1's controller listener. Why not three combined nodes: a three-voter quorum loses its majority when two
 * nodes stop, and then the controller cannot shrink the ISR at all, so "two followers stopped while the leader
 * takes acks=1 writes" would test the quorum, not the partition's high watermark. With one voter on node 1 the
 * brokers 2 and 3 can stop, be killed and restart individually while the controller keeps working (stopping
 * node 1 stops the controller: scenarios do that last).
 *
 * Each node has its own work dir {@code WORK/node-N} (server.properties, broker.log, logs-0 ..) and heap
 * (-Xmx256m). Node {@code jbodNode} gets two log dirs, the others one.
 */
public final class Cluster implements AutoCloseable {
    public static final int SIZE = 3;
    static final String HEAP = "256m";

    private final List<Broker> nodes = new ArrayList<>();

    public Cluster(Path work, int jbodNode, Map<String, String> overrides) {
        Broker first = new Broker(work.resolve("node-1"), 1, -1, jbodNode == 1 ? 2 : 1, overrides).heap(HEAP);
        nodes.add(first);
        for (int id = 2; id <= SIZE; id++) {
            nodes.add(new Broker(work.resolve("node-" + id), id, first.controllerPort(), jbodNode == id ? 2 : 1,
                overrides).heap(HEAP));
        }
    }

    /** Node {@code id} (1-based). */
    public Broker node(int id) {
        return nodes.get(id - 1);
    }

    public List<Broker> nodes() {
        return nodes;
    }

    /** Formats every node, starts node 1 (the controller) and then the brokers, and waits for all three. */
    public void formatAndStart() throws Exception {
        for (Broker b : nodes) {
            b.format();
        }
        node(1).start();
        node(1).awaitReady(Duration.ofSeconds(120));
        for (int id = 2; id <= SIZE; id++) {
            node(id).start();
        }
        for (int id = 2; id <= SIZE; id++) {
            node(id).awaitReady(Duration.ofSeconds(120));
        }
        awaitRegistered(SIZE, Duration.ofSeconds(60));
    }

    /** The bootstrap list of the nodes running now. */
    public String bootstrap() {
        List<String> s = new ArrayList<>();
        for (Broker b : nodes) {
            if (b.isAlive()) {
                s.add(b.bootstrap());
            }
        }
        return String.join(",", s);
    }

    public Admin admin() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "15000");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        return Admin.create(p);
    }

    /** Waits until describeCluster lists {@code n} brokers. */
    public void awaitRegistered(int n, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Admin a = admin()) {
            while (true) {
                try {
                    Collection<Node> ns = a.describeCluster(new DescribeClusterOptions().timeoutMs(5000)).nodes()
                        .get(6, TimeUnit.SECONDS);
                    if (ns.size() == n) {
                        return;
                    }
                } catch (Exception e) {
                    // not yet
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(n + " brokers not registered after " + timeout);
                }
                Thread.sleep(250);
            }
        }
    }

    @Override
    public void close() {
        for (Broker b : nodes) {
            b.close();
        }
    }
}
