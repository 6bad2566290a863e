package nni.manager.internal.experiment;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;

import nni.api.model.HyperParameters;
import nni.api.model.Placement;
import nni.api.model.TrialApplication;
import nni.api.model.TrialJob;
import nni.api.model.TrialStatus;
import nni.api.platform.PlatformException;
import nni.api.platform.TrainingSession;
import nni.api.platform.TransientPlatformException;
import nni.api.platform.Backoff;

/**
 * Places an experiment's trials on its members and hands them to the members' platforms. An
 * experiment has one member per training service ({@code trainingService}, or each element of a
 * list of them), each with its own {@link MemberContext} and session; the scheduler never assumes
 * there is only one. A new trial goes to a member with room ({@link TrainingSession#capacity()}:
 * its own limits, such as a remote machine's GPUs and {@code maxTrialNumberPerGpu}; members that
 * cannot tell count as having room): the one running fewest trials of the experiment, among equals
 * the one with the most free slots, then the first. So a member that knows its room is not starved
 * by one that cannot tell, and the experiment's {@code trialConcurrency} (the caller's ceiling) is
 * spread over the members. A member whose platform is away takes nothing until it is back.
 *
 * <p>Everything here runs on the experiment's thread; the platforms' answers go back to the
 * experiment through {@link Outcomes}.
 */
final class TrialScheduler {

    private static final Logger LOG = LoggerFactory.getLogger(TrialScheduler.class);

    /** Opens the platform session of a member; the manager's link to the platform registry. */
    @FunctionalInterface
    interface SessionOpener {
        TrainingSession open(MemberContext member) throws PlatformException;
    }

    /** What the experiment does with the platforms' answers. */
    interface Outcomes {
        /** A platform accepted or re-attached a trial and reported its state. */
        void reported(TrialJob job);

        /** A trial ended without its platform: refused for good, lost, or cancelled before it started. */
        void ended(Trial trial, TrialJob ended);

        /** A trial's message changed (a retry's reason); the experiment tells its listeners. */
        void messageChanged(Trial trial);

        /**
         * A trial is about to be handed to its platform ({@code launching}), or its platform refused
         * it for now (not {@code launching}): the experiment stores which, durably, before the
         * platform may start it.
         */
        void launching(Trial trial, boolean launching);

        /** The user cancels a trial: the experiment stores that before its platform is asked. */
        void cancelRequested(Trial trial);

        /** A trial took the algorithm's next parameter set (multi-phase): the experiment records it. */
        void parametersSent(String trialId, String packed);
    }

    /** One member of the experiment: its context and its session, or why its platform is away. */
    static final class Member {
        final MemberContext context;
        volatile TrainingSession session;
        volatile String away;
        /** Refused opens in a row since the platform came back (experiment thread only). */
        int refusedOpens;
        /** The next try to open a session the returned platform refused, or null (experiment thread only). */
        ScheduledFuture<?> reopen;

        Member(MemberContext context) {
            this.context = context;
        }

        void cancelReopen() {
            if (reopen != null) {
                reopen.cancel(false);
                reopen = null;
            }
        }

        int index() {
            return context.index();
        }

        /** @return how users see the member: {@code trainingService[1] (remote)} */
        String name() {
            return "trainingService[" + index() + "] (" + context.platform() + ")";
        }
    }

    private final String experimentId;
    private final List<Member> members;
    private final Trials trials;
    private final ScheduledExecutorService thread;
    private final Supplier<Integer> gpusPerTrial;
    private final BooleanSupplier submitting;
    private final Outcomes outcomes;
    private volatile SessionOpener opener;
    /** Set once the runtime lets go of the experiment: nothing is submitted any more. */
    private volatile boolean detaching;

    /**
     * @param gpusPerTrial the experiment's {@code trialGpuNumber} (null: none asked)
     * @param submitting   whether a retried trial may still be submitted (the experiment runs)
     */
    TrialScheduler(String experimentId, List<MemberContext> contexts, Trials trials, ScheduledExecutorService thread,
                   Supplier<Integer> gpusPerTrial, BooleanSupplier submitting, Outcomes outcomes) {
        this.experimentId = experimentId;
        this.members = contexts.stream().map(Member::new).toList();
        this.trials = trials;
        this.thread = thread;
        this.gpusPerTrial = gpusPerTrial;
        this.submitting = submitting;
        this.outcomes = outcomes;
    }

    // ------------------------------------------------------------------ sessions

    /**
     * Opens every member's session. With one member, its refusal is thrown. With several (hybrid),
     * a member that refuses is left away with the reason (it takes no trials, and opens again when
     * a platform of its name is registered) and the others run; only when every member refuses is
     * the refusal thrown, naming each member and why.
     */
    void open(SessionOpener sessionOpener) throws PlatformException {
        this.opener = sessionOpener;
        if (members.size() == 1) {
            members.get(0).session = sessionOpener.open(members.get(0).context);
            return;
        }
        List<String> refusals = new ArrayList<>();
        for (Member member : members) {
            try {
                member.session = sessionOpener.open(member.context);
            } catch (PlatformException | RuntimeException e) {
                String reason = member.name() + " could not be opened: "
                        + (e.getMessage() == null ? "its platform failed (see the log)" : e.getMessage());
                LOG.warn("experiment {}: {}; the other members run", experimentId, reason);
                member.away = reason;
                refusals.add(reason);
            }
        }
        if (refusals.size() == members.size()) {
            throw new PlatformException("no member of the hybrid experiment could be opened: " + String.join("; ", refusals));
        }
    }

    /** Closes every member's session: the user stops the experiment (their live trials are cancelled by it). */
    void closeAll() {
        for (Member member : members) {
            member.cancelReopen();
            TrainingSession session = member.session;
            if (session != null) {
                session.close();
            }
        }
    }

    /** Detaches every member's session: the runtime lets go; from now on nothing is submitted. */
    void detachAll() {
        detaching = true;
        for (Member member : members) {
            member.cancelReopen();
            TrainingSession session = member.session;
            member.session = null;
            if (session != null) {
                session.detach();
            }
        }
    }

    boolean detaching() {
        return detaching;
    }

    /**
     * A member's platform went away: it takes nothing until a platform of its name is back; its
     * live trials are left as they are, with the reason as their message.
     */
    void lost(int member, String reason) {
        Member lost = members.get(member);
        lost.cancelReopen(); // its platform's next arrival opens it
        lost.session = null;
        lost.away = reason;
        LOG.warn("experiment {}: {}; its trials are left as they are until it is back", experimentId, reason);
        for (Trial trial : trials.live()) {
            if (trial.member == member) {
                trial.job = trial.job.withMessage(reason);
                outcomes.messageChanged(trial);
            }
        }
    }

    /**
     * A platform was registered: every member of that name whose platform was away gets a new
     * session and takes its live trials back into it ({@link TrainingSession#reattach}); a trial
     * the platform no longer has is submitted again or failed, as after a restart. A platform that
     * refuses the session now is asked again with {@link Backoff} until it opens one, the member's
     * platform leaves again or the experiment stops: a platform may come back before what it needs
     * (the local platform without the keeper sessions of a bundle being updated), or be registered
     * while its component is still being activated, and the next arrival may never come.
     */
    void arrived(String platform) {
        for (Member member : members) {
            if (platform.equals(member.context.platform()) && waitsForSession(member)) {
                member.cancelReopen();
                member.refusedOpens = 0;
                reopen(member);
            }
        }
    }

    private boolean waitsForSession(Member member) {
        return member.away != null && member.session == null && !detaching;
    }

    /** @return whether the member has a session again; if not, another try is scheduled */
    private boolean reopen(Member member) {
        String platform = member.context.platform();
        try {
            member.session = opener.open(member.context);
        } catch (PlatformException | RuntimeException e) {
            member.refusedOpens++;
            Duration wait = Backoff.delay(member.refusedOpens);
            LOG.warn("experiment {}: platform '{}' is back but refused a session; {}", experimentId, platform,
                    Backoff.message(wait, e.getMessage() == null ? e.toString() : e.getMessage()));
            member.reopen = thread.schedule(() -> {
                member.reopen = null;
                if (waitsForSession(member) && submitting.getAsBoolean() && reopen(member)) {
                    member.context.capacityChanged(); // the experiment fills the member's room
                }
            }, wait.toMillis(), TimeUnit.MILLISECONDS);
            return false;
        }
        member.refusedOpens = 0;
        String away = member.away;
        member.away = null;
        LOG.info("experiment {}: platform '{}' is back; taking its trials back", experimentId, platform);
        for (Trial trial : trials.ordered()) {
            if (trial.member == member.index() && trial.live()) {
                if (trial.job.message().equals(away)) {
                    trial.job = trial.job.withMessage("");
                    outcomes.messageChanged(trial);
                }
                takeBack(trial, "platform '" + platform + "' came back without this trial (" + away + ")");
            }
        }
        return true;
    }

    /** @return why the trial's member has no session now (its platform is away), or empty */
    Optional<String> awayReason(Trial trial) {
        Member member = members.get(trial.member);
        return member.session == null ? Optional.ofNullable(member.away) : Optional.empty();
    }

    /** @return why the experiment submits nothing now on some members (each away one's reason, joined); or empty */
    Optional<String> awayReason() {
        List<String> reasons = members.stream().map(member -> member.away).filter(reason -> reason != null).toList();
        return reasons.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", reasons));
    }

    /** @return each member as it is now: its session, or why its platform is away */
    List<MemberState> memberStates() {
        return members.stream().map(member -> new MemberState(member.index(), member.context.platform(),
                Optional.ofNullable(member.session), Optional.ofNullable(member.away))).toList();
    }

    /** @return the platform name of a member ({@code trainingService[i].platform}) */
    String platformOf(int member) {
        return members.get(member).context.platform();
    }

    /** @return whether a member of that platform name waits for its platform to come back */
    boolean waitsFor(String platform) {
        return members.stream().anyMatch(member -> member.away != null && platform.equals(member.context.platform()));
    }

    /** @return the session running the trial, or empty while its member's platform is away */
    Optional<TrainingSession> sessionOf(Trial trial) {
        return Optional.ofNullable(members.get(trial.member).session);
    }

    /** NNI's {@code SP}: hands a running trial the algorithm's next parameter set (multi-phase). */
    void deliverParameters(String packed) {
        JsonNode node;
        try {
            node = Experiment.JSON.readTree(packed);
        } catch (JsonProcessingException e) {
            LOG.warn("experiment {}: the algorithm sent parameters that are not JSON, ignored", experimentId);
            return;
        }
        String trialId = node.path("trial_job_id").asText("");
        int index = node.path("parameter_index").asInt(-1);
        Trial trial = trials.get(trialId);
        if (trial == null || index < 1) {
            LOG.warn("experiment {}: the algorithm sent parameters for trial '{}' index {}, ignored", experimentId, trialId, index);
            return;
        }
        try {
            TrainingSession session = sessionOf(trial).orElseThrow(() -> new PlatformException("the platform is away"));
            session.sendParameters(trialId, HyperParameters.of(packed, index));
        } catch (PlatformException | RuntimeException e) {
            LOG.warn("experiment {}: parameters {} not delivered to trial {}: {}", experimentId, index, trialId, e.getMessage());
            return;
        }
        if (!node.path("parameters").isNull()) {
            outcomes.parametersSent(trialId, packed);
        }
    }

    /** @return whether any member has a session (trials can be submitted somewhere) */
    boolean attached() {
        return !detaching && members.stream().anyMatch(member -> member.session != null);
    }

    // ------------------------------------------------------------------ placement

    /** The members' room for one turn of submissions: capacities read once, counted down as trials are placed. */
    final class Turn {
        private final int[] free = new int[members.size()];

        Turn() {
            for (Member member : members) {
                TrainingSession session = member.session;
                free[member.index()] = session == null ? 0 : freeSlots(session);
            }
        }

        /** @return whether some member has room for a trial */
        boolean any() {
            for (int room : free) {
                if (room > 0) {
                    return true;
                }
            }
            return false;
        }

        /** @return the trial slots free on all members together ({@link Integer#MAX_VALUE}: some cannot tell) */
        int free() {
            long total = 0;
            for (int room : free) {
                total += Math.max(0, room);
            }
            return (int) Math.min(Integer.MAX_VALUE, total);
        }

        /** @return the member the next trial goes to, or null when no member has room */
        Member place() {
            Member best = null;
            int bestLive = 0;
            for (Member member : members) {
                int room = free[member.index()];
                if (room <= 0) {
                    continue;
                }
                int live = trials.liveOn(member.index());
                if (best == null || live < bestLive || (live == bestLive && room > free[best.index()])) {
                    best = member;
                    bestLive = live;
                }
            }
            if (best != null && free[best.index()] != Integer.MAX_VALUE) {
                free[best.index()]--;
            }
            return best;
        }
    }

    private int freeSlots(TrainingSession session) {
        try {
            return session.capacity().freeTrialSlots().orElse(Integer.MAX_VALUE);
        } catch (RuntimeException e) {
            LOG.warn("experiment {}: a platform failed to tell its capacity", experimentId, e);
            return Integer.MAX_VALUE;
        }
    }

    // ------------------------------------------------------------------ submitting

    /**
     * Hands a WAITING trial to its member's platform. A transient refusal keeps it WAITING and
     * schedules another try (backoff, or the platform's {@code retryAfter}); a permanent one fails
     * it; with the platform away it waits for the platform's return.
     */
    void send(Trial trial) {
        TrainingSession session = members.get(trial.member).session;
        if (session == null || detaching) {
            trial.submitWhenBack = true;
            return;
        }
        try {
            outcomes.launching(trial, true);
            TrialJob accepted = session.submit(application(trial));
            trial.failedSubmits = 0;
            outcomes.reported(accepted);
        } catch (TransientPlatformException e) {
            outcomes.launching(trial, false);
            if (detaching) {
                trial.submitWhenBack = true; // the runtime is letting go: resume submits it
                return;
            }
            trial.failedSubmits++;
            Duration wait = Backoff.delay(trial.failedSubmits, e);
            String message = Backoff.message(wait, e.getMessage());
            LOG.info("experiment {}: trial {} not accepted yet, {}", experimentId, trial.id, message);
            trial.job = trial.job.withMessage(message);
            outcomes.messageChanged(trial);
            trial.retry = thread.schedule(() -> {
                trial.retry = null;
                if (trial.live() && submitting.getAsBoolean()) {
                    send(trial);
                }
            }, wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (PlatformException | RuntimeException e) {
            LOG.warn("experiment {}: trial {} could not be submitted: {}", experimentId, trial.id, e.getMessage());
            outcomes.ended(trial, trial.job.ended(TrialStatus.FAILED, Instant.now(), e.getMessage()));
        }
    }

    TrialApplication application(Trial trial) {
        Integer gpus = gpusPerTrial.get();
        return TrialApplication.builder(trial.id).sequenceId(trial.sequenceId).hyperParameters(HyperParameters.of(trial.packed, 0))
                .placement(gpus == null ? Placement.none() : Placement.gpus(gpus)).build();
    }

    /**
     * Takes back a live trial into its member's new session: re-attached when the platform still
     * has it, submitted again when it never started (with its id, sequence id and parameters; NNI
     * v3 re-queues too), else FAILED with {@code lostWhy}. Only a trial whose hand-over was stored
     * ({@link Trial#launched}) is asked for: the platform may have started it, and then has it (a
     * platform answers empty only for a trial it never started, see
     * {@link TrainingSession#reattach}); one never handed over is submitted without asking.
     */
    void takeBack(Trial trial, String lostWhy) {
        Optional<TrialJob> attached = Optional.empty();
        TrainingSession session = members.get(trial.member).session;
        if (!trial.waitsForSubmit() && session != null && trial.launched) {
            try {
                attached = session.reattach(trial.job);
            } catch (RuntimeException e) {
                LOG.warn("experiment {}: re-attaching trial {} failed", experimentId, trial.id, e);
            }
        }
        if (attached.isPresent()) {
            LOG.info("experiment {}: trial {} re-attached ({})", experimentId, trial.id, attached.get().status());
            outcomes.reported(attached.get());
        } else if (trial.job.status() == TrialStatus.WAITING) {
            LOG.info("experiment {}: trial {} had not started{}; submitting it again", experimentId, trial.id,
                    trial.launched ? " (its platform never started it)" : " (it was never handed to its platform)");
            trial.cancelRetry();
            send(trial);
        } else {
            outcomes.ended(trial, trial.job.ended(TrialStatus.FAILED, Instant.now(), lostWhy));
        }
    }

    /**
     * Cancels a live trial on the user's behalf: the cancel is stored first; a trial not submitted
     * yet ends USER_CANCELED at once, the others are cancelled on their platform.
     *
     * @throws IllegalStateException when the trial runs on a member whose platform is away: nobody can kill it now
     */
    void cancelForUser(Trial trial) {
        Optional<String> away = awayReason(trial);
        if (!trial.waitsForSubmit() && away.isPresent()) {
            throw new IllegalStateException("cannot cancel trial " + trial.id + " now: " + away.get());
        }
        outcomes.cancelRequested(trial);
        if (trial.waitsForSubmit()) {
            outcomes.ended(trial, trial.job.ended(TrialStatus.USER_CANCELED, Instant.now(), "cancelled before it started"));
        } else {
            cancel(trial, false);
        }
    }

    /**
     * Ends a live trial because the user stops the experiment: one not submitted yet ends
     * USER_CANCELED at once, one whose member's platform is away SYS_CANCELED at once (nobody can
     * kill it now), the others are cancelled on their platform.
     */
    void cancelForStop(Trial trial) {
        Optional<String> away = awayReason(trial);
        if (trial.waitsForSubmit()) {
            trial.cancelRetry();
            outcomes.ended(trial, trial.job.ended(TrialStatus.USER_CANCELED, Instant.now(), "cancelled before it started"));
        } else if (away.isPresent()) {
            outcomes.ended(trial, trial.job.ended(TrialStatus.SYS_CANCELED, Instant.now(), "the experiment stopped while "
                    + away.get() + "; the trial's processes may still run"));
        } else {
            // stored before the platform is asked: a stop that the runtime's own stop cuts short
            // (SIGTERM ends both) still leaves the trial USER_CANCELED, never FAILED by the signal
            outcomes.cancelRequested(trial);
            cancel(trial, false);
        }
    }

    /**
     * On resume: every trial the stored history leaves unfinished is taken back from its platform
     * ({@link #takeBack}); one whose member could not be opened waits for it, as for a platform
     * that went away.
     */
    void takeBackAfterRestart() {
        for (Trial trial : trials.ordered()) {
            if (trial.job.status().isTerminal()) {
                continue;
            }
            Optional<String> away = awayReason(trial);
            if (away.isPresent()) {
                trial.job = trial.job.withMessage(away.get());
                continue;
            }
            takeBack(trial, "the runtime stopped while the trial was " + trial.job.status().name().toLowerCase()
                    + " and the platform no longer has it");
        }
    }

    /** Asks the trial's platform to cancel it; nothing happens while its member's platform is away. */
    void cancel(Trial trial, boolean earlyStopped) {
        TrainingSession session = members.get(trial.member).session;
        if (session == null) {
            return;
        }
        try {
            session.cancel(trial.id, earlyStopped);
        } catch (RuntimeException e) {
            LOG.warn("experiment {}: cancelling trial {} failed", experimentId, trial.id, e);
        }
    }
}
