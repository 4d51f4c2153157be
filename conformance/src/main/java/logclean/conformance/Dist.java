package logclean.conformance;

import java.nio.file.Path;

/**
 * Which Kafka release runs the broker, and in which mode. The harness (driver, Admin/producer/consumer clients)
 * always runs on pom.xml's 4.4.0 classpath; the broker, its StorageTool, ZooKeeper and ConfigCommand child JVMs
 * run on the release's own classpath: {@code lib/} for 4.4.0, {@code lib-VERSION/} (kafka-dist.pom.xml) for an
 * older release.
 *
 * Scenario names carry the release and mode: {@code basic-delete} is 4.4.0 KRaft, {@code zk391-basic-delete}
 * 3.9.1 in ZooKeeper mode, {@code kraft391-basic-delete} 3.9.1 in KRaft mode (static quorum,
 * {@code controller.quorum.voters}, as 3.x clusters are configured).
 */
public record Dist(String version, Mode mode, String classpath) {
    public enum Mode { KRAFT, ZK }

    public static final String DEFAULT_VERSION = "4.4.0";

    /** Prefix of a scenario name -> release (the rest is the 4.4 scenario it reuses). */
    record Prefix(String prefix, String version, Mode mode) { }

    static final Prefix[] PREFIXES = {
        new Prefix("zk391-", "3.9.1", Mode.ZK),
        new Prefix("kraft391-", "3.9.1", Mode.KRAFT),
    };

    /** The 4.4 scenario a (possibly prefixed) scenario name runs. */
    public static String baseScenario(String name) {
        for (Prefix p : PREFIXES) {
            if (name.startsWith(p.prefix())) {
                return name.substring(p.prefix().length());
            }
        }
        return name;
    }

    /** The release and mode of a scenario name. */
    public static Dist forScenario(String name) {
        for (Prefix p : PREFIXES) {
            if (name.startsWith(p.prefix())) {
                return of(p.version(), p.mode());
            }
        }
        return of(DEFAULT_VERSION, Mode.KRAFT);
    }

    /**
     * The classpath of a release: 4.4.0 is this JVM's own; another release's is {@code
     * -Dconformance.lib.VERSION=DIR} or {@code <conformance.home>/lib-VERSION}, all jars in it.
     */
    public static Dist of(String version, Mode mode) {
        if (version.equals(DEFAULT_VERSION)) {
            return new Dist(version, mode, System.getProperty("java.class.path"));
        }
        String dir = System.getProperty("conformance.lib." + version);
        if (dir == null) {
            dir = Path.of(System.getProperty("conformance.home", ".")).resolve("lib-" + version).toString();
        }
        return new Dist(version, mode, Path.of(dir).toAbsolutePath() + "/*");
    }

    public boolean isV3() {
        return version.startsWith("3.");
    }

    public boolean zk() {
        return mode == Mode.ZK;
    }

    /** "ZooKeeper mode" / "KRaft mode". */
    public String modeName() {
        return zk() ? "ZooKeeper mode" : "KRaft mode";
    }

    /** The manifest's "mode" value. */
    public String modeKey() {
        return zk() ? "zookeeper" : "kraft";
    }
}
