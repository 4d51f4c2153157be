package logclean.conformance;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.server.log.remote.storage.LogSegmentData;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteStorageException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageManager;

/**
 * The conformance harness's RemoteStorageManager: stores each copied segment and its indexes as plain files
 * under a local dir, one sub-dir per user partition ({@code <topic>-<partition>/}), files named
 * {@code <20-digit start offset>-<segment id>.<kind>} (kind: log, index, timeindex, snapshot, txnindex,
 * leader-epoch). Every call is appended to {@code journal.txt} in that dir (one line: wall-clock ms, event,
 * partition, start offset, end offset, segment id), so a scenario can tell which copy hung or failed.
 *
 * Broker configs (prefix {@code rsm.config.}, the broker's remote.log.storage.manager.impl.prefix default):
 * {@code dir} (required), {@code hang.from.copy} N (0 = never: the Nth copyLogSegmentData call and every later
 * one blocks until interrupted, then fails), {@code fail.from.copy} N (0 = never: the Nth call and every later one
 * throws RemoteStorageException). Copies are counted per broker JVM, over all partitions.
 */
public final class LocalRsm implements RemoteStorageManager {
    /** The broker config that names the dir (relative in a fixture's server.properties, like log.dirs). */
    public static final String DIR_CONFIG = "rsm.config.dir";

    private static final AtomicInteger COPIES = new AtomicInteger();

    private Path dir;
    private int hangFrom;
    private int failFrom;

    @Override
    public void configure(Map<String, ?> configs) {
        Object d = configs.get("dir");
        if (d == null) {
            throw new IllegalArgumentException("rsm.config.dir is required");
        }
        dir = Path.of(d.toString()).toAbsolutePath();
        hangFrom = intOf(configs.get("hang.from.copy"));
        failFrom = intOf(configs.get("fail.from.copy"));
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static int intOf(Object v) {
        return v == null ? 0 : Integer.parseInt(v.toString().trim());
    }

    private Path partitionDir(RemoteLogSegmentMetadata m) {
        var tp = m.topicIdPartition().topicPartition();
        return dir.resolve(tp.topic() + "-" + tp.partition());
    }

    private Path file(RemoteLogSegmentMetadata m, String kind) {
        return partitionDir(m).resolve(String.format("%020d-%s.%s", m.startOffset(),
            m.remoteLogSegmentId().id(), kind));
    }

    private synchronized void journal(String event, RemoteLogSegmentMetadata m) {
        var tp = m.topicIdPartition().topicPartition();
        String line = System.currentTimeMillis() + " " + event + " " + tp.topic() + "-" + tp.partition() + " "
            + m.startOffset() + " " + m.endOffset() + " " + m.remoteLogSegmentId().id() + "\n";
        try {
            Files.writeString(dir.resolve("journal.txt"), line, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public Optional<RemoteLogSegmentMetadata.CustomMetadata> copyLogSegmentData(RemoteLogSegmentMetadata m,
                                                                                 LogSegmentData data)
        throws RemoteStorageException {
        int n = COPIES.incrementAndGet();
        journal("copy-start#" + n, m);
        if (hangFrom > 0 && n >= hangFrom) {
            journal("copy-hang", m);
            try {
                Thread.sleep(Long.MAX_VALUE);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                journal("copy-interrupted", m);
                throw new RemoteStorageException("copy interrupted while hanging (hang.from.copy=" + hangFrom + ")");
            }
        }
        if (failFrom > 0 && n >= failFrom) {
            journal("copy-fail", m);
            throw new RemoteStorageException("copy " + n + " fails (fail.from.copy=" + failFrom + ")");
        }
        try {
            Files.createDirectories(partitionDir(m));
            copy(data.logSegment(), file(m, "log"));
            copy(data.offsetIndex(), file(m, "index"));
            copy(data.timeIndex(), file(m, "timeindex"));
            copy(data.producerSnapshotIndex(), file(m, "snapshot"));
            if (data.transactionIndex().isPresent()) {
                copy(data.transactionIndex().get(), file(m, "txnindex"));
            }
            ByteBuffer epochs = data.leaderEpochIndex().duplicate();
            byte[] b = new byte[epochs.remaining()];
            epochs.get(b);
            Files.write(file(m, "leader-epoch"), b);
        } catch (IOException e) {
            throw new RemoteStorageException(e);
        }
        journal("copy-done", m);
        return Optional.empty();
    }

    private static void copy(Path from, Path to) throws IOException {
        Files.copy(from, to, StandardCopyOption.REPLACE_EXISTING);
    }

    @Override
    public InputStream fetchLogSegment(RemoteLogSegmentMetadata m, int startPosition) throws RemoteStorageException {
        return fetchLogSegment(m, startPosition, Integer.MAX_VALUE);
    }

    @Override
    public InputStream fetchLogSegment(RemoteLogSegmentMetadata m, int startPosition, int endPosition)
        throws RemoteStorageException {
        try {
            byte[] all = Files.readAllBytes(file(m, "log"));
            int from = Math.min(startPosition, all.length);
            int to = (int) Math.min((long) endPosition + 1, all.length);
            return new ByteArrayInputStream(all, from, Math.max(0, to - from));
        } catch (IOException e) {
            throw new RemoteStorageException(e);
        }
    }

    @Override
    public InputStream fetchIndex(RemoteLogSegmentMetadata m, IndexType type) throws RemoteStorageException {
        String kind = switch (type) {
            case OFFSET -> "index";
            case TIMESTAMP -> "timeindex";
            case PRODUCER_SNAPSHOT -> "snapshot";
            case TRANSACTION -> "txnindex";
            case LEADER_EPOCH -> "leader-epoch";
        };
        try {
            Path f = file(m, kind);
            if (type == IndexType.TRANSACTION && !Files.exists(f)) {
                return new ByteArrayInputStream(new byte[0]);
            }
            return new ByteArrayInputStream(Files.readAllBytes(f));
        } catch (IOException e) {
            throw new RemoteStorageException(e);
        }
    }

    @Override
    public void deleteLogSegmentData(RemoteLogSegmentMetadata m) throws RemoteStorageException {
        journal("delete", m);
        try {
            for (String kind : new String[] {"log", "index", "timeindex", "snapshot", "txnindex", "leader-epoch"}) {
                Files.deleteIfExists(file(m, kind));
            }
        } catch (IOException e) {
            throw new RemoteStorageException(e);
        }
    }

    @Override
    public void close() {
        // nothing held open
    }
}
