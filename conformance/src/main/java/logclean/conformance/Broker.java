package logclean.conformance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;

/**
 * Launches one single-node Kafka broker as a child JVM: 4.4.0 KRaft (process.roles=broker,controller, dynamic
 * quorum), or a 3.x release ({@link Dist}) in KRaft mode (static quorum, controller.quorum.voters) or in
 * ZooKeeper mode (broker.id, zookeeper.connect to a {@link ZkServer} this class starts and stops with the broker).
 *
 * Lifecycle: {@link #format()} (kafka.tools.StorageTool format --standalone, fixed cluster id),
 * {@link #start()} (kafka.Kafka server.properties), {@link #awaitReady()} (Admin describeCluster),
 * then {@link #stopClean()} (SIGTERM, broker writes .kafka_cleanshutdown) or {@link #crash()} (SIGKILL).
 */
public final class Broker implements AutoCloseable {
    /** Base64 of the 16 ASCII bytes "LogCleanFixtures": fixed so fixtures are reproducible. */
    public static final String CLUSTER_ID = "TG9nQ2xlYW5GaXh0dXJlcw";
    public static final int NODE_ID = 1;

    /** Every child JVM we start, so a shutdown hook can SIGKILL leftovers. */
    static final List<Process> CHILDREN = new CopyOnWriteArrayList<>();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            for (Process p : CHILDREN) {
                if (p.isAlive()) {
                    p.destroyForcibly();
                }
            }
        }, "kill-child-jvms"));
    }

    private final Path work;
    private final Dist dist;
    private final String classpath;
    /** ZooKeeper mode: the ZooKeeper server (data in WORK/zookeeper, kept in the fixture). */
    private final ZkServer zk;
    private final int numLogDirs;
    private final Map<String, String> config = new LinkedHashMap<>();
    private final List<Path> logDirs = new ArrayList<>();
    private final int brokerPort;
    private final int controllerPort;
    /** This node's id: {@link #NODE_ID} for a single-node broker, 1..3 for a {@link Cluster} node. */
    private final int nodeId;
    /** Whether this node runs the (single-voter) KRaft controller; a {@link Cluster}'s nodes 2 and 3 do not. */
    private final boolean controllerRole;
    private Process process;
    /** -Xmx of the broker JVM; a {@link Cluster}'s three nodes run with less. */
    private String maxHeap = "512m";

    /** Sets the broker JVM's -Xmx (e.g. "256m"). */
    Broker heap(String xmx) {
        this.maxHeap = xmx;
        return this;
    }

    /** Default broker settings (small, deterministic); scenario overrides are applied on top. */
    public static Map<String, String> defaults() {
        return defaults(Dist.of(Dist.DEFAULT_VERSION, Dist.Mode.KRAFT));
    }

    /** The defaults for a release: 3.x has no share coordinator (its keys would be unknown configs). */
    public static Map<String, String> defaults(Dist dist) {
        Map<String, String> d = new LinkedHashMap<>();
        d.put("num.partitions", "1");
        d.put("default.replication.factor", "1");
        d.put("auto.create.topics.enable", "false");
        d.put("offsets.topic.num.partitions", "3");
        d.put("offsets.topic.replication.factor", "1");
        d.put("transaction.state.log.num.partitions", "3");
        d.put("transaction.state.log.replication.factor", "1");
        d.put("transaction.state.log.min.isr", "1");
        if (!dist.isV3()) {
            d.put("share.coordinator.state.topic.num.partitions", "1");
            d.put("share.coordinator.state.topic.replication.factor", "1");
            d.put("share.coordinator.state.topic.min.isr", "1");
        }
        d.put("min.insync.replicas", "1");
        d.put("group.initial.rebalance.delay.ms", "0");
        // Active indexes are preallocated to this size; keep it small so fixtures stay small.
        d.put("log.index.size.max.bytes", "65536");
        // Keep expired segments on disk: the retention task must not run while a scenario is captured.
        d.put("log.retention.check.interval.ms", "3600000");
        // Test-only knob: LogManager schedules retention, flusher, recovery-point and log-start-offset
        // checkpoint tasks with this initial delay (default 30 s). 30 s would let the retention task run
        // once mid-scenario and delete expired segments, so push it out by default.
        d.put("log.initial.task.delay.ms", "3600000");
        d.put("log.cleaner.backoff.ms", "15000");
        d.put("transaction.max.timeout.ms", "7200000");
        d.put("num.network.threads", "2");
        d.put("num.io.threads", "2");
        d.put("num.recovery.threads.per.data.dir", "1");
        d.put("background.threads", "2");
        return d;
    }

    public Broker(Path work, String classpath, int numLogDirs, Map<String, String> overrides) {
        this(work, Dist.of(Dist.DEFAULT_VERSION, Dist.Mode.KRAFT), numLogDirs, overrides, classpath);
    }

    public Broker(Path work, Dist dist, int numLogDirs, Map<String, String> overrides) {
        this(work, dist, numLogDirs, overrides, dist.classpath());
    }

    private Broker(Path work, Dist dist, int numLogDirs, Map<String, String> overrides, String classpath) {
        this(work, dist, numLogDirs, overrides, classpath, NODE_ID, -1);
    }

    /**
     * A node of a multi-node 4.4.0 KRaft cluster ({@link Cluster}): {@code quorumPort} &lt; 0 makes it the
     * combined broker+controller (the single voter, formatted --standalone), else a broker-only node whose
     * controller listens on {@code quorumPort}.
     */
    Broker(Path work, int nodeId, int quorumPort, int numLogDirs, Map<String, String> overrides) {
        this(work, Dist.of(Dist.DEFAULT_VERSION, Dist.Mode.KRAFT), numLogDirs, overrides,
            System.getProperty("java.class.path"), nodeId, quorumPort);
    }

    private Broker(Path work, Dist dist, int numLogDirs, Map<String, String> overrides, String classpath,
                   int nodeId, int quorumPort) {
        this.nodeId = nodeId;
        this.controllerRole = quorumPort < 0;
        this.work = work;
        this.dist = dist;
        this.classpath = classpath;
        this.zk = dist.zk() ? new ZkServer(work, work.resolve("zookeeper"), classpath) : null;
        this.numLogDirs = numLogDirs;
        this.brokerPort = freePort();
        int cp = quorumPort;
        while (cp < 0 || cp == brokerPort && controllerRole) {
            cp = freePort();
        }
        this.controllerPort = cp;
        for (int i = 0; i < numLogDirs; i++) {
            logDirs.add(work.resolve("logs-" + i).toAbsolutePath());
        }
        if (dist.zk()) {
            config.put("broker.id", String.valueOf(NODE_ID));
            config.put("zookeeper.connect", zk.connect());
            config.put("listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
            config.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
            config.put("inter.broker.listener.name", "PLAINTEXT");
            config.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT");
        } else if (!controllerRole) {
            config.put("process.roles", "broker");
            config.put("node.id", String.valueOf(nodeId));
            config.put("controller.quorum.bootstrap.servers", "127.0.0.1:" + controllerPort);
            config.put("listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
            config.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
            config.put("controller.listener.names", "CONTROLLER");
            config.put("inter.broker.listener.name", "PLAINTEXT");
            config.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        } else {
            config.put("process.roles", "broker,controller");
            config.put("node.id", String.valueOf(nodeId));
            if (dist.isV3()) {
                config.put("controller.quorum.voters", NODE_ID + "@127.0.0.1:" + controllerPort);
            } else {
                config.put("controller.quorum.bootstrap.servers", "127.0.0.1:" + controllerPort);
            }
            config.put("listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
            config.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
            config.put("controller.listener.names", "CONTROLLER");
            config.put("inter.broker.listener.name", "PLAINTEXT");
            config.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        }
        config.put("log.dirs", String.join(",", logDirs.stream().map(Path::toString).toList()));
        config.putAll(defaults(dist));
        config.putAll(overrides);
        // Tiered scenarios: the harness's RemoteStorageManager (LocalRsm) keeps its files in a dir named relative
        // to the work dir (next to logs-N), copied into the fixture under the same name.
        String rsm = config.get(LocalRsm.DIR_CONFIG);
        if (rsm != null) {
            remoteStorageName = rsm;
            config.put(LocalRsm.DIR_CONFIG, work.resolve(rsm).toAbsolutePath().toString());
        }
    }

    /** The RemoteStorageManager's dir (relative name, absolute path), or null when tiered storage is off. */
    private String remoteStorageName;

    public String remoteStorageName() {
        return remoteStorageName;
    }

    public Path remoteStorageDir() {
        return remoteStorageName == null ? null : work.resolve(remoteStorageName).toAbsolutePath();
    }

    static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String bootstrap() {
        return "127.0.0.1:" + brokerPort;
    }

    public List<Path> logDirs() {
        return logDirs;
    }

    public Map<String, String> config() {
        return config;
    }

    public Path propertiesFile() {
        return work.resolve("server.properties");
    }

    /** The server.properties with log dirs rewritten to the fixture-relative names logs-0, logs-1, ... */
    public Map<String, String> relativeConfig() {
        Map<String, String> rel = new LinkedHashMap<>(config);
        List<String> names = new ArrayList<>();
        for (int i = 0; i < numLogDirs; i++) {
            names.add("logs-" + i);
        }
        rel.put("log.dirs", String.join(",", names));
        if (remoteStorageName != null) {
            rel.put(LocalRsm.DIR_CONFIG, remoteStorageName);
        }
        return rel;
    }

    public Dist dist() {
        return dist;
    }

    /** ZooKeeper mode: the ZooKeeper server; null in KRaft mode. */
    public ZkServer zk() {
        return zk;
    }

    static String render(Map<String, String> cfg) {
        return render(cfg, Dist.of(Dist.DEFAULT_VERSION, Dist.Mode.KRAFT));
    }

    static String render(Map<String, String> cfg, Dist dist) {
        StringBuilder sb = new StringBuilder();
        sb.append("# Generated by logclean conformance harness (Apache Kafka ").append(dist.version())
            .append(dist.zk() ? ", single-node ZooKeeper mode).\n" : ", single-node KRaft).\n");
        for (Map.Entry<String, String> e : cfg.entrySet()) {
            sb.append(e.getKey()).append('=').append(e.getValue()).append('\n');
        }
        return sb.toString();
    }

    private List<String> javaCmd(String mainClass, String... jvmExtra) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add(controllerRole && nodeId == NODE_ID && maxHeap.equals("512m") ? "-Xms128m" : "-Xms64m");
        cmd.add("-Xmx" + maxHeap);
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-Djava.awt.headless=true");
        cmd.add("-Dlog4j2.configurationFile=" + work.resolve("log4j2.properties").toAbsolutePath());
        // 3.x logs through reload4j (log4j 1.x syntax)
        cmd.add("-Dlog4j.configuration=file:" + work.resolve("log4j.properties").toAbsolutePath());
        cmd.add("-Dkafka.logs.dir=" + work.toAbsolutePath());
        cmd.addAll(List.of(jvmExtra));
        cmd.add("-cp");
        cmd.add(classpath);
        cmd.add(mainClass);
        return cmd;
    }

    private void writeLog4j() throws IOException {
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
            "logger.kafka.name = kafka",
            "logger.kafka.level = INFO",
            "logger.state.name = state.change.logger",
            "logger.state.level = WARN",
            "logger.req.name = kafka.request.logger",
            "logger.req.level = WARN",
            "");
        Files.writeString(work.resolve("log4j2.properties"), props, StandardCharsets.UTF_8);
        String props1 = String.join("\n",
            "log4j.rootLogger=INFO, file",
            "log4j.appender.file=org.apache.log4j.FileAppender",
            "log4j.appender.file.File=" + log,
            "log4j.appender.file.Append=true",
            "log4j.appender.file.layout=org.apache.log4j.PatternLayout",
            "log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n",
            "log4j.logger.kafka=INFO",
            "log4j.logger.state.change.logger=WARN",
            "log4j.logger.kafka.request.logger=WARN",
            "log4j.logger.org.apache.zookeeper=WARN",
            "");
        Files.writeString(work.resolve("log4j.properties"), props1, StandardCharsets.UTF_8);
    }

    /** Writes log4j2.properties and server.properties into the work dir (what start() needs). */
    public void writeConfig() throws IOException {
        Files.createDirectories(work);
        writeLog4j();
        Files.writeString(propertiesFile(), render(config, dist), StandardCharsets.UTF_8);
    }

    /** Writes server.properties and runs kafka.tools.StorageTool format --standalone. */
    public void format() throws Exception {
        writeConfig();
        if (dist.zk()) {
            // ZooKeeper mode has no storage format: the broker writes meta.properties (version 0) itself and
            // takes the cluster id from /cluster/id, which is created here (before the first broker start) so
            // the id is the same fixed one as in KRaft mode.
            zk.start();
            zk.create("/cluster", "");
            zk.create("/cluster/id", "{\"version\":\"1\",\"id\":\"" + CLUSTER_ID + "\"}");
            return;
        }
        List<String> cmd = javaCmd("kafka.tools.StorageTool");
        cmd.addAll(List.of("format", "--cluster-id", CLUSTER_ID, "--config", propertiesFile().toString()));
        if (!dist.isV3() && controllerRole) {
            cmd.add("--standalone");
        }
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
            .redirectOutput(work.resolve("format.out").toFile());
        Process p = pb.start();
        CHILDREN.add(p);
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("storage format timed out");
        }
        if (p.exitValue() != 0) {
            throw new IllegalStateException("storage format failed:\n" + Files.readString(work.resolve("format.out")));
        }
    }

    public void start() throws Exception {
        if (zk != null && !zk.isAlive()) {
            zk.start();
        }
        List<String> cmd = javaCmd("kafka.Kafka");
        cmd.add(propertiesFile().toString());
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
            .redirectOutput(work.resolve("broker.out").toFile());
        process = pb.start();
        CHILDREN.add(process);
    }

    public Admin admin() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "20000");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "60000");
        return Admin.create(p);
    }

    /** Waits until describeCluster reports our node (i.e. the broker is registered and unfenced). */
    public void awaitReady(Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Admin a = admin()) {
            while (true) {
                if (!process.isAlive()) {
                    throw new IllegalStateException("broker exited early, see " + work.resolve("broker.out"));
                }
                try {
                    Collection<?> nodes = a.describeCluster(new DescribeClusterOptions().timeoutMs(5000))
                        .nodes().get(6, TimeUnit.SECONDS);
                    if (nodes.stream().anyMatch(n -> ((org.apache.kafka.common.Node) n).id() == nodeId)) {
                        return;
                    }
                } catch (Exception e) {
                    // not ready yet
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("broker not ready after " + timeout);
                }
                Thread.sleep(250);
            }
        }
    }

    /** SIGTERM and wait: the broker runs its shutdown hook (controlled shutdown, flush, .kafka_cleanshutdown). */
    public void stopClean() throws Exception {
        process.destroy();
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            throw new IllegalStateException("broker did not stop within 120 s after SIGTERM");
        }
        if (zk != null) {
            zk.stop();
        }
    }


    /** SIGKILL: no shutdown hook runs, nothing is flushed or trimmed. */
    public void crash() throws Exception {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("broker did not die after SIGKILL");
        }
        if (zk != null) {
            zk.stop();
        }
    }

    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    public Path work() {
        return work;
    }

    public int controllerPort() {
        return controllerPort;
    }

    public int nodeId() {
        return nodeId;
    }

    /** The JVM's exit code once it has exited by itself (e.g. halted on a failed log dir), else null. */
    public Integer exitCode() {
        return process == null || process.isAlive() ? null : process.exitValue();
    }

    /** The JVM's pid while it runs (for the manifest's account of what was stopped or killed). */
    public long pid() {
        return process == null ? -1 : process.pid();
    }

    @Override
    public void close() {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (zk != null) {
            zk.close();
        }
    }
}
