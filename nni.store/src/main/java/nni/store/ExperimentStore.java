package nni.store;

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
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.Properties;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import org.sqlite.JDBC;
import org.sqlite.SQLiteConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * One experiment's database, {@code <exp>/db/nni.sqlite}, in NNI's schema (nni-core §2.10, v3
 * columns) so that NNI's own tools can read it, plus what NNI lacks:
 * <ul>
 * <li>a unique index on {@code MetricData(trialJobId, type, sequence)}: a metric reported twice
 *     (a platform re-reading a file after a restart, a keeper re-sending) is stored once;</li>
 * <li>table {@code NniOsgiExperiment} holding the experiment definition this runtime resumes from;</li>
 * <li>table {@code TrialPlatform} holding, per trial, the platform's handle on it, its host and
 *     display attributes ({@link TrialPlatformRecord}), which a platform needs to re-attach the
 *     trial and users see in the trial's record.</li>
 * </ul>
 * SQLite in WAL mode with {@code synchronous=NORMAL}: a committed row survives the runtime being
 * killed (-9); only an operating-system crash can lose the last transactions. All methods use one
 * connection under the store's monitor; a write has been committed when it returns, so "returned"
 * means "durable". Concurrent {@link #addMetrics} calls share one transaction (group commit), and
 * wait for their own batch's commit rather than for the monitor.
 * Checkpoints (copying the WAL into the database file, with its fsync) run on a thread of the
 * store's own, see {@link WalCheckpointer}.
 */
public final class ExperimentStore implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ExperimentStore.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CREATE_TRIAL_PLATFORM = "create table if not exists TrialPlatform "
            + "(trialJobId text primary key, handle text, host text, attributes text)";
    private static final String CREATE_TRIAL_MEMBER = "create table if not exists TrialMember "
            + "(trialJobId text primary key, member integer)";
    private static final String CREATE_TRIAL_LAUNCH = "create table if not exists TrialLaunch "
            + "(trialJobId text primary key, timestamp integer)";

    private final Connection connection;
    private final boolean readOnly;
    private final PreparedStatement insertMetric;
    private final Queue<PendingMetrics> pendingMetrics = new ConcurrentLinkedQueue<>();
    /** Whether a caller of {@link #addMetrics} commits the queued metrics now or is about to. */
    private final AtomicBoolean leading = new AtomicBoolean();
    private final WalCheckpointer checkpointer;

    /**
     * @param checkpointConnection the checkpoints' own connection to {@code database}, null to open
     *                             the store for reading only
     */
    private ExperimentStore(Connection connection, Connection checkpointConnection, Path database) throws SQLException {
        this.connection = connection;
        this.readOnly = checkpointConnection == null;
        this.insertMetric = readOnly ? null : connection.prepareStatement("insert or ignore into MetricData values (?,?,?,?,?,?)");
        // the store's monitor is the lock every write holds
        this.checkpointer = readOnly ? null : new WalCheckpointer(checkpointConnection, database, this);
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
                // the WalCheckpointer keeps the WAL short; SQLite's own checkpoint inside a commit stays as a backstop
                statement.execute("PRAGMA wal_autocheckpoint=" + WalCheckpointer.BACKSTOP_PAGES);
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
                statement.executeUpdate(CREATE_TRIAL_PLATFORM);
                statement.executeUpdate(CREATE_TRIAL_MEMBER);
                statement.executeUpdate(CREATE_TRIAL_LAUNCH);
            }
            return new ExperimentStore(connection, connect(file, config), file);
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
            return new ExperimentStore(connect(file, config), null, file);
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
            checkpointer.committed();
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
     * share transactions (group commit): each caller queues its metrics; one caller at a time
     * leads, taking the store's monitor to insert everything queued with one prepared batch and
     * commit once, then wakes every caller whose metrics were in that transaction and, if more were
     * queued meanwhile, one of their callers to lead next. The others wait for their own batch
     * only: while they queued for the monitor itself, a committed batch's caller still had to take
     * the monitor in turn to learn so, and under CPU load these hand-overs, one after the other,
     * were most of a slow batch's wait.
     *
     * @return for each metric, whether it was new
     */
    public boolean[] addMetrics(List<MetricRecord> metrics) {
        if (metrics.isEmpty()) {
            return new boolean[0];
        }
        PendingMetrics mine = new PendingMetrics(metrics, Thread.currentThread());
        pendingMetrics.add(mine);
        boolean interrupted = false;
        while (!mine.committed) {
            if (leading.compareAndSet(false, true)) {
                try {
                    synchronized (this) {
                        if (!mine.committed) {
                            commitPendingMetrics();
                        }
                    }
                } finally {
                    leading.set(false);
                }
                // batches queued after this group's were taken wait for a leader; a caller queuing
                // after this point finds no leader and leads itself
                PendingMetrics next = pendingMetrics.peek();
                if (next != null) {
                    LockSupport.unpark(next.caller);
                }
            } else {
                LockSupport.park(this);
                // uninterruptible like the monitor it replaces: the batch may be committed anyway
                interrupted |= Thread.interrupted();
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (mine.failure != null) {
            throw new StoreException("cannot store " + metrics.size() + " metrics of trial " + metrics.get(0).trialJobId(), mine.failure);
        }
        return mine.fresh;
    }

    /**
     * One caller's metrics waiting for the next group commit; {@code fresh} and {@code failure} are
     * written by the leader before {@code committed}, and read by the caller after it.
     */
    private static final class PendingMetrics {
        final List<MetricRecord> metrics;
        final Thread caller;
        boolean[] fresh;
        SQLException failure;
        volatile boolean committed;

        PendingMetrics(List<MetricRecord> metrics, Thread caller) {
            this.metrics = metrics;
            this.caller = caller;
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
            // the driver keeps each row's parameters as objects: setLong would box every timestamp,
            // while the metrics of a batch mostly share theirs (taken when the batch arrived)
            Long timestamp = null;
            for (PendingMetrics pending : group) {
                for (MetricRecord metric : pending.metrics) {
                    if (timestamp == null || timestamp != metric.timestamp()) {
                        timestamp = metric.timestamp();
                    }
                    insertMetric.setObject(1, timestamp);
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
            checkpointer.committed();
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
            try {
                connection.setAutoCommit(true);
            } catch (SQLException ignored) {
                // the connection is broken; the next call reports it
            }
            for (PendingMetrics pending : group) {
                pending.committed = true;
                if (pending.caller != Thread.currentThread()) {
                    LockSupport.unpark(pending.caller);
                }
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

    /** Stores (replacing) what the platform told about where a trial runs. */
    public synchronized void saveTrialPlatform(TrialPlatformRecord record) {
        try (PreparedStatement insert = connection.prepareStatement("insert or replace into TrialPlatform values (?,?,?,?)")) {
            insert.setString(1, record.trialId());
            insert.setString(2, record.handle());
            insert.setString(3, record.host());
            insert.setString(4, JSON.writeValueAsString(record.attributes()));
            insert.executeUpdate();
            checkpointer.committed();
        } catch (SQLException | JsonProcessingException e) {
            throw new StoreException("cannot store the platform facts of trial " + record.trialId(), e);
        }
    }

    /** @return whether the database has the table (one written by an older version may not) */
    private static boolean tableExists(Statement query, String name) throws SQLException {
        try (ResultSet table = query.executeQuery("select 1 from sqlite_master where type = 'table' and name = '" + name + "'")) {
            return table.next();
        }
    }

    /** Stores on which member of a hybrid experiment a trial was placed (its position in {@code trainingService}). */
    public synchronized void saveTrialMember(String trialId, int member) {
        try (PreparedStatement insert = connection.prepareStatement("insert or replace into TrialMember values (?,?)")) {
            insert.setString(1, trialId);
            insert.setInt(2, member);
            insert.executeUpdate();
            checkpointer.committed();
        } catch (SQLException e) {
            throw new StoreException("cannot store the member of trial " + trialId, e);
        }
    }

    /**
     * Records that a trial is handed to its platform to be started, before its process may start:
     * a trial with this record that a resume finds neither running nor ended is not started again
     * (it may have run while nobody watched), so that no trial runs twice.
     */
    public synchronized void saveTrialLaunch(String trialId, long timestamp) {
        try (PreparedStatement insert = connection.prepareStatement("insert or replace into TrialLaunch values (?,?)")) {
            insert.setString(1, trialId);
            insert.setLong(2, timestamp);
            insert.executeUpdate();
            checkpointer.committed();
        } catch (SQLException e) {
            throw new StoreException("cannot store the launch of trial " + trialId, e);
        }
    }

    /** Forgets a trial's launch: its platform refused it for now, so it certainly did not start. */
    public synchronized void forgetTrialLaunch(String trialId) {
        try (PreparedStatement delete = connection.prepareStatement("delete from TrialLaunch where trialJobId = ?")) {
            delete.setString(1, trialId);
            delete.executeUpdate();
            checkpointer.committed();
        } catch (SQLException e) {
            throw new StoreException("cannot forget the launch of trial " + trialId, e);
        }
    }

    /** @return the trials whose launch {@link #saveTrialLaunch} recorded; none for a database older than the table */
    public synchronized Set<String> launchedTrials() {
        Set<String> launched = new HashSet<>();
        try (Statement query = connection.createStatement()) {
            if (!tableExists(query, "TrialLaunch")) {
                return launched;
            }
            try (ResultSet rows = query.executeQuery("select trialJobId from TrialLaunch")) {
                while (rows.next()) {
                    launched.add(rows.getString(1));
                }
            }
            return launched;
        } catch (SQLException e) {
            throw new StoreException("cannot read the trials' launches", e);
        }
    }

    /**
     * @return the member of each trial stored by {@link #saveTrialMember}, by trial id; trials not
     *         listed (and every trial of a database written before the table existed) ran on member 0
     */
    public synchronized Map<String, Integer> trialMembers() {
        Map<String, Integer> members = new LinkedHashMap<>();
        try (Statement query = connection.createStatement()) {
            if (!tableExists(query, "TrialMember")) {
                return members;
            }
            try (ResultSet rows = query.executeQuery("select trialJobId, member from TrialMember")) {
                while (rows.next()) {
                    members.put(rows.getString(1), rows.getInt(2));
                }
            }
            return members;
        } catch (SQLException e) {
            throw new StoreException("cannot read the trials' members", e);
        }
    }

    /**
     * @return what platforms told about each trial, by trial id; empty for a database written
     *         before the table existed
     */
    public synchronized Map<String, TrialPlatformRecord> trialPlatforms() {
        Map<String, TrialPlatformRecord> records = new LinkedHashMap<>();
        try (Statement query = connection.createStatement()) {
            if (!tableExists(query, "TrialPlatform")) {
                return records;
            }
            try (ResultSet rows = query.executeQuery("select trialJobId, handle, host, attributes from TrialPlatform")) {
                while (rows.next()) {
                    Map<String, String> attributes;
                    try {
                        attributes = rows.getString(4) == null ? Map.of()
                                : JSON.readValue(rows.getString(4), new TypeReference<LinkedHashMap<String, String>>() { });
                    } catch (JsonProcessingException e) {
                        LOG.warn("trial {}: unreadable attributes in the store, ignored: {}", rows.getString(1), e.getOriginalMessage());
                        attributes = Map.of();
                    }
                    records.put(rows.getString(1), new TrialPlatformRecord(rows.getString(1), rows.getString(2), rows.getString(3),
                            attributes));
                }
            }
            return records;
        } catch (SQLException e) {
            throw new StoreException("cannot read the trials' platform facts", e);
        }
    }

    /**
     * @return the parameter sets added to running trials (NNI's {@code ADD_HYPERPARAMETER} events'
     *         packed parameters, multi-phase), by trial id, in the order they were given
     */
    public Map<String, List<String>> addedHyperParameters() {
        return addedHyperParameters(null);
    }

    /**
     * @param trialId null for every trial's
     * @return the trial's parameter sets added while it ran (multi-phase), per trial in insertion order
     */
    public synchronized Map<String, List<String>> addedHyperParameters(String trialId) {
        Map<String, List<String>> added = new LinkedHashMap<>();
        String sql = "select trialJobId, data from TrialJobEvent where event = 'ADD_HYPERPARAMETER'"
                + (trialId == null ? "" : " and trialJobId = ?") + " order by rowid";
        try (PreparedStatement query = connection.prepareStatement(sql)) {
            if (trialId != null) {
                query.setString(1, trialId);
            }
            try (ResultSet rows = query.executeQuery()) {
                while (rows.next()) {
                    if (rows.getString(2) != null) {
                        added.computeIfAbsent(rows.getString(1), id -> new ArrayList<>()).add(rows.getString(2));
                    }
                }
            }
            return added;
        } catch (SQLException e) {
            throw new StoreException("cannot read the trials' added parameters", e);
        }
    }

    /** @return every event in insertion order */
    public List<TrialEvent> events() {
        return events(null);
    }

    /**
     * @param trialId null for every trial's
     * @return the trial's events (its index finds them) in insertion order
     */
    public synchronized List<TrialEvent> events(String trialId) {
        List<TrialEvent> events = new ArrayList<>();
        try (PreparedStatement query = connection.prepareStatement("select timestamp, trialJobId, event, data, logPath, "
                + "sequenceId, message from TrialJobEvent" + (trialId == null ? "" : " where trialJobId = ?1") + " order by rowid")) {
            if (trialId != null) {
                query.setString(1, trialId);
            }
            try (ResultSet rows = query.executeQuery()) {
                while (rows.next()) {
                    long sequence = rows.getLong(6);
                    Long sequenceId = rows.wasNull() ? null : sequence;
                    events.add(new TrialEvent(rows.getLong(1), rows.getString(2), rows.getString(3), rows.getString(4),
                            rows.getString(5), sequenceId, rows.getString(7)));
                }
            }
            return events;
        } catch (SQLException e) {
            throw new StoreException("cannot read trial events", e);
        }
    }

    /**
     * Hands every stored metric to {@code action} in the order they were stored, one row at a time:
     * an experiment's million metrics are never held in a list at once.
     */
    public synchronized void forEachMetric(Consumer<MetricRecord> action) {
        try (Statement query = connection.createStatement();
             ResultSet rows = query.executeQuery("select timestamp, trialJobId, parameterId, type, sequence, data from MetricData order by rowid")) {
            while (rows.next()) {
                action.accept(new MetricRecord(rows.getLong(1), rows.getString(2), rows.getString(3), rows.getString(4),
                        rows.getLong(5), rows.getString(6)));
            }
        } catch (SQLException e) {
            throw new StoreException("cannot read metrics", e);
        }
    }

    /**
     * @param trialId null for every trial
     * @param type    null for every type
     * @return the metrics in the order they were stored
     */
    public synchronized List<MetricRecord> metrics(String trialId, String type) {
        List<MetricRecord> metrics = new ArrayList<>();
        // only the conditions given: SQLite uses no index for "(?1 is null or trialJobId = ?1)", and a
        // million metrics were scanned for one trial's hundred
        List<String> conditions = new ArrayList<>();
        if (trialId != null) {
            conditions.add("trialJobId = ?");
        }
        if (type != null) {
            conditions.add("type = ?");
        }
        try (PreparedStatement query = connection.prepareStatement("select timestamp, trialJobId, parameterId, type, "
                + "sequence, data from MetricData" + (conditions.isEmpty() ? "" : " where " + String.join(" and ", conditions))
                + " order by rowid")) {
            int parameter = 0;
            if (trialId != null) {
                query.setString(++parameter, trialId);
            }
            if (type != null) {
                query.setString(++parameter, type);
            }
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
        return replay(events());
    }

    /** @return one trial as {@link #trials()} has it, from its own events only */
    public Optional<TrialRecord> trial(String trialId) {
        return replay(events(trialId)).stream().findFirst();
    }

    private static List<TrialRecord> replay(List<TrialEvent> events) {
        Map<String, TrialRecord> trials = new LinkedHashMap<>();
        for (TrialEvent event : events) {
            if (event.trialId() == null || event.trialId().isEmpty()) {
                continue;
            }
            TrialRecord known = trials.get(event.trialId());
            trials.put(event.trialId(), known == null ? TrialRecord.first(event) : known.apply(event));
        }
        return new ArrayList<>(trials.values());
    }

    @Override
    public void close() {
        // first, not holding the monitor: a checkpoint under way may be waiting for it
        if (checkpointer != null) {
            checkpointer.close();
        }
        synchronized (this) {
            try {
                connection.close();
            } catch (SQLException e) {
                throw new StoreException("cannot close the experiment database", e);
            }
        }
    }

    /** @return how many checkpoints started the WAL over (see {@link WalCheckpointer}); 0 when read-only */
    long completedCheckpoints() {
        return checkpointer == null ? 0 : checkpointer.completedCheckpoints();
    }
}
