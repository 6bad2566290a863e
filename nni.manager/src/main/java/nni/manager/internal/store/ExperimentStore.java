package nni.manager.internal.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.sqlite.JDBC;
import org.sqlite.SQLiteConfig;

/**
 * One experiment's database, {@code <exp>/db/nni.sqlite}, in NNI's schema (nni-core §2.10, v3
 * columns) so that NNI's own tools can read it, plus what NNI lacks:
 * <ul>
 * <li>a unique index on {@code MetricData(trialJobId, type, sequence)}: a metric reported twice
 *     (a platform re-reading a file after a restart, a keeper re-sending) is stored once;</li>
 * <li>table {@code NniOsgiExperiment} holding the experiment definition this runtime resumes from.</li>
 * </ul>
 * SQLite in WAL mode with {@code synchronous=NORMAL}: a committed row survives the runtime being
 * killed (-9); only an operating-system crash can lose the last transactions. All methods use one
 * connection under the store's monitor; a write has been committed when it returns, so "returned"
 * means "durable". Concurrent {@link #addMetrics} calls share one transaction (group commit).
 */
public final class ExperimentStore implements AutoCloseable {

    private final Connection connection;
    private final boolean readOnly;
    private final PreparedStatement insertMetric;
    private final Queue<PendingMetrics> pendingMetrics = new ConcurrentLinkedQueue<>();

    private ExperimentStore(Connection connection, boolean readOnly) throws SQLException {
        this.connection = connection;
        this.readOnly = readOnly;
        this.insertMetric = readOnly ? null : connection.prepareStatement("insert or ignore into MetricData values (?,?,?,?,?,?)");
    }

    /** Opens (creating if needed) the store of the experiment in {@code experimentDirectory}. */
    public static ExperimentStore open(Path experimentDirectory) throws IOException {
        Path file = experimentDirectory.resolve("db").resolve("nni.sqlite");
        Files.createDirectories(file.getParent());
        try {
            SQLiteConfig config = new SQLiteConfig();
            config.setJournalMode(SQLiteConfig.JournalMode.WAL);
            config.setSynchronous(SQLiteConfig.SynchronousMode.NORMAL);
            config.setBusyTimeout(10_000);
            Connection connection = connect(file, config);
            try (Statement statement = connection.createStatement()) {
                statement.executeUpdate("create table if not exists TrialJobEvent (timestamp integer, trialJobId text, "
                        + "event text, data text, logPath text, sequenceId integer, message text, environmentId text)");
                statement.executeUpdate("create index if not exists TrialJobEvent_trialJobId on TrialJobEvent(trialJobId)");
                statement.executeUpdate("create index if not exists TrialJobEvent_event on TrialJobEvent(event)");
                statement.executeUpdate("create table if not exists MetricData (timestamp integer, trialJobId text, "
                        + "parameterId text, type text, sequence integer, data text)");
                // NNI also indexes MetricData(trialJobId): MetricData_once starts with that column and serves the same
                // lookups, and each further index costs every insert (about a fifth of the insert rate here)
                statement.executeUpdate("create index if not exists MetricData_type on MetricData(type)");
                statement.executeUpdate("create unique index if not exists MetricData_once "
                        + "on MetricData(trialJobId, type, sequence)");
                statement.executeUpdate("create table if not exists ExperimentProfile (params text, id text, "
                        + "execDuration integer, startTime integer, endTime integer, logDir text, nextSequenceId integer, "
                        + "revision integer)");
                statement.executeUpdate("create index if not exists ExperimentProfile_id on ExperimentProfile(id)");
                statement.executeUpdate("create table if not exists NniOsgiExperiment (definition text)");
            }
            return new ExperimentStore(connection, false);
        } catch (SQLException e) {
            throw new IOException("cannot open the experiment database " + file + ": " + e.getMessage(), e);
        }
    }

    /** Opens an existing store for reading only ({@code nni:view}). */
    public static ExperimentStore openReadOnly(Path experimentDirectory) throws IOException {
        Path file = experimentDirectory.resolve("db").resolve("nni.sqlite");
        if (!Files.isRegularFile(file)) {
            throw new IOException("no experiment database at " + file);
        }
        try {
            SQLiteConfig config = new SQLiteConfig();
            config.setReadOnly(true);
            return new ExperimentStore(connect(file, config), true);
        } catch (SQLException e) {
            throw new IOException("cannot open the experiment database " + file + ": " + e.getMessage(), e);
        }
    }

    // the driver class directly, not DriverManager: DriverManager does not see drivers across bundles
    private static Connection connect(Path file, SQLiteConfig config) throws SQLException {
        Properties properties = config.toProperties();
        Connection connection = new JDBC().connect(JDBC.PREFIX + file.toAbsolutePath(), properties);
        if (connection == null) {
            throw new SQLException("the SQLite driver refused " + file);
        }
        return connection;
    }

    public boolean readOnly() {
        return readOnly;
    }

    /** Appends a trial event (NNI's {@code TrialJobEvent} row). */
    public synchronized void addEvent(TrialEvent event) {
        try (PreparedStatement insert = connection.prepareStatement(
                "insert into TrialJobEvent values (?,?,?,?,?,?,?,?)")) {
            insert.setLong(1, event.timestamp());
            insert.setString(2, event.trialId());
            insert.setString(3, event.event());
            insert.setString(4, event.data());
            insert.setString(5, event.logPath());
            if (event.sequenceId() == null) {
                insert.setNull(6, Types.INTEGER);
            } else {
                insert.setLong(6, event.sequenceId());
            }
            insert.setString(7, event.message());
            insert.setString(8, null);
            insert.executeUpdate();
        } catch (SQLException e) {
            throw new StoreException("cannot store event " + event.event() + " of trial " + event.trialId(), e);
        }
    }

    /**
     * Stores a metric unless the same trial, type and sequence is already stored.
     *
     * @return true if it was new
     */
    public boolean addMetric(MetricRecord metric) {
        return addMetrics(List.of(metric))[0];
    }

    /**
     * Stores several metrics, each at most once, committed when this returns. Concurrent callers
     * share transactions (group commit): each caller queues its metrics; whoever holds the
     * connection next inserts everything queued with one prepared batch and commits once, then
     * every caller whose metrics were in that transaction returns.
     *
     * @return for each metric, whether it was new
     */
    public boolean[] addMetrics(List<MetricRecord> metrics) {
        if (metrics.isEmpty()) {
            return new boolean[0];
        }
        PendingMetrics mine = new PendingMetrics(metrics);
        pendingMetrics.add(mine);
        synchronized (this) {
            if (!mine.committed) {
                commitPendingMetrics();
            }
        }
        if (mine.failure != null) {
            throw new StoreException("cannot store " + metrics.size() + " metrics of trial " + metrics.get(0).trialJobId(), mine.failure);
        }
        return mine.fresh;
    }

    /** One caller's metrics waiting for the next group commit; fields guarded by the store's monitor. */
    private static final class PendingMetrics {
        final List<MetricRecord> metrics;
        boolean[] fresh;
        SQLException failure;
        boolean committed;

        PendingMetrics(List<MetricRecord> metrics) {
            this.metrics = metrics;
        }
    }

    // holding this: one transaction for every queued caller
    private void commitPendingMetrics() {
        List<PendingMetrics> group = new ArrayList<>();
        for (PendingMetrics next; (next = pendingMetrics.poll()) != null; ) {
            group.add(next);
        }
        try {
            connection.setAutoCommit(false);
            for (PendingMetrics pending : group) {
                for (MetricRecord metric : pending.metrics) {
                    insertMetric.setLong(1, metric.timestamp());
                    insertMetric.setString(2, metric.trialJobId());
                    insertMetric.setString(3, metric.parameterId());
                    insertMetric.setString(4, metric.type());
                    insertMetric.setLong(5, metric.sequence());
                    insertMetric.setString(6, metric.data());
                    insertMetric.addBatch();
                }
            }
            int[] changed = insertMetric.executeBatch();
            connection.commit();
            int row = 0;
            for (PendingMetrics pending : group) {
                pending.fresh = new boolean[pending.metrics.size()];
                for (int i = 0; i < pending.fresh.length; i++) {
                    pending.fresh[i] = changed[row++] == 1;
                }
            }
        } catch (SQLException e) {
            try {
                insertMetric.clearBatch();
                connection.rollback();
            } catch (SQLException ignored) {
                // the connection is broken; every caller gets the exception below
            }
            for (PendingMetrics pending : group) {
                pending.failure = e;
            }
        } finally {
            for (PendingMetrics pending : group) {
                pending.committed = true;
            }
            try {
                connection.setAutoCommit(true);
            } catch (SQLException ignored) {
                // the connection is broken; the next call reports it
            }
        }
    }

    /** Appends a profile row with the next revision. */
    public synchronized void saveProfile(Profile profile) {
        try (PreparedStatement insert = connection.prepareStatement(
                "insert into ExperimentProfile values (?,?,?,?,?,?,?,"
                        + "coalesce((select max(revision) from ExperimentProfile where id = ?), 0) + 1)")) {
            insert.setString(1, profile.params());
            insert.setString(2, profile.id());
            insert.setLong(3, profile.execDurationSeconds());
            insert.setLong(4, profile.startTime());
            if (profile.endTime() == null) {
                insert.setNull(5, Types.INTEGER);
            } else {
                insert.setLong(5, profile.endTime());
            }
            insert.setString(6, profile.logDir());
            insert.setLong(7, profile.nextSequenceId());
            insert.setString(8, profile.id());
            insert.executeUpdate();
        } catch (SQLException e) {
            throw new StoreException("cannot store the profile of experiment " + profile.id(), e);
        }
    }

    public synchronized Optional<Profile> latestProfile() {
        try (Statement query = connection.createStatement();
             ResultSet rows = query.executeQuery("select params, id, execDuration, startTime, endTime, logDir, "
                     + "nextSequenceId, revision from ExperimentProfile order by revision desc limit 1")) {
            if (!rows.next()) {
                return Optional.empty();
            }
            long end = rows.getLong(5);
            Long endTime = rows.wasNull() ? null : end;
            return Optional.of(new Profile(rows.getString(1), rows.getString(2), rows.getLong(3), rows.getLong(4),
                    endTime, rows.getString(6), rows.getLong(7), rows.getLong(8)));
        } catch (SQLException e) {
            throw new StoreException("cannot read the experiment profile", e);
        }
    }

    /** Stores the experiment definition this runtime resumes from (replacing an older one). */
    public synchronized void saveDefinition(String json) {
        try (Statement delete = connection.createStatement();
             PreparedStatement insert = connection.prepareStatement("insert into NniOsgiExperiment values (?)")) {
            connection.setAutoCommit(false);
            delete.executeUpdate("delete from NniOsgiExperiment");
            insert.setString(1, json);
            insert.executeUpdate();
            connection.commit();
        } catch (SQLException e) {
            throw new StoreException("cannot store the experiment definition", e);
        } finally {
            try {
                connection.setAutoCommit(true);
            } catch (SQLException ignored) {
                // the connection is broken; the next call reports it
            }
        }
    }

    public synchronized Optional<String> definition() {
        try (Statement query = connection.createStatement();
             ResultSet rows = query.executeQuery("select definition from NniOsgiExperiment limit 1")) {
            return rows.next() ? Optional.of(rows.getString(1)) : Optional.empty();
        } catch (SQLException e) {
            throw new StoreException("cannot read the experiment definition", e);
        }
    }

    /** @return every event in insertion order */
    public synchronized List<TrialEvent> events() {
        List<TrialEvent> events = new ArrayList<>();
        try (Statement query = connection.createStatement();
             ResultSet rows = query.executeQuery("select timestamp, trialJobId, event, data, logPath, sequenceId, "
                     + "message from TrialJobEvent order by rowid")) {
            while (rows.next()) {
                long sequence = rows.getLong(6);
                Long sequenceId = rows.wasNull() ? null : sequence;
                events.add(new TrialEvent(rows.getLong(1), rows.getString(2), rows.getString(3), rows.getString(4),
                        rows.getString(5), sequenceId, rows.getString(7)));
            }
            return events;
        } catch (SQLException e) {
            throw new StoreException("cannot read trial events", e);
        }
    }

    /**
     * @param trialId null for every trial
     * @param type    null for every type
     * @return the metrics in the order they were stored
     */
    public synchronized List<MetricRecord> metrics(String trialId, String type) {
        List<MetricRecord> metrics = new ArrayList<>();
        try (PreparedStatement query = connection.prepareStatement("select timestamp, trialJobId, parameterId, type, "
                + "sequence, data from MetricData where (?1 is null or trialJobId = ?1) and (?2 is null or type = ?2) "
                + "order by rowid")) {
            query.setString(1, trialId);
            query.setString(2, type);
            try (ResultSet rows = query.executeQuery()) {
                while (rows.next()) {
                    metrics.add(new MetricRecord(rows.getLong(1), rows.getString(2), rows.getString(3),
                            rows.getString(4), rows.getLong(5), rows.getString(6)));
                }
            }
            return metrics;
        } catch (SQLException e) {
            throw new StoreException("cannot read metrics", e);
        }
    }

    /**
     * Rebuilds the trial list by replaying the events, as NNI's data store does: status = last status
     * event, start = RUNNING time, end = terminal time, parameters = data of the first event that has one.
     */
    public List<TrialRecord> trials() {
        Map<String, TrialRecord> trials = new LinkedHashMap<>();
        for (TrialEvent event : events()) {
            if (event.trialId() == null || event.trialId().isEmpty()) {
                continue;
            }
            TrialRecord known = trials.get(event.trialId());
            trials.put(event.trialId(), known == null ? TrialRecord.first(event) : known.apply(event));
        }
        return new ArrayList<>(trials.values());
    }

    @Override
    public synchronized void close() {
        try {
            connection.close();
        } catch (SQLException e) {
            throw new StoreException("cannot close the experiment database", e);
        }
    }
}
