package nni.keeper.internal.report;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

import nni.api.experiment.ExperimentInfo;
import nni.api.experiment.ExperimentListener;
import nni.api.experiment.ExperimentsRoot;
import nni.http.HttpError;

/**
 * Every keeper the manager expects to hear from, by experiment and keeper id. A session registers
 * a link (with a fresh secret token) before it starts the keeper and closes it when the keeper's
 * environment is gone; requests for unknown links are refused like wrong tokens.
 *
 * <p>It hears the engine through the {@link ExperimentListener} whiteboard (the engine does not know
 * it): when an experiment stops, its keepers are forgotten and its link file deleted; an experiment
 * detached (the runtime stops) keeps both, so that a resume takes its keepers back.
 */
@Component(service = {KeeperLinks.class, ExperimentListener.class})
public class KeeperLinks implements ExperimentListener {

    /** The trial-route protocols this manager accepts at the handshake. */
    public static final java.util.Set<Integer> ACCEPTED_PROTOCOLS = java.util.Set.of(1);

    private static final SecureRandom RANDOM = new SecureRandom();
    /** How many stopped keepers are remembered to be told so; the oldest are forgotten first. */
    private static final int STOPPED_REMEMBERED = 4096;

    private final Map<String, KeeperLink> links = new ConcurrentHashMap<>();
    private final String managerVersion;
    /** Where experiments live, to recognise the keepers of one not resumed yet; null: none are. */
    private final Path experimentsRoot;
    /**
     * The folders of the experiments open to run (not only viewed), by id, as the engine last told
     * them: where their link files are. A viewed experiment closed to be resumed keeps its file.
     */
    private final Map<String, Path> directories = new ConcurrentHashMap<>();
    /**
     * The keepers whose links closed after a stop was sent to them, by key: the check of their
     * token. Such a keeper may be refused before it has taken its stop (a session stops its
     * keepers and forgets them at once); told so, it ends as the stop would have ended it. Kept
     * past the experiment's stop, since that is when every session stops its keepers.
     */
    private final Map<String, Predicate<String>> stopped = java.util.Collections.synchronizedMap(
            new LinkedHashMap<>() {
                private static final long serialVersionUID = 1L;

                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Predicate<String>> eldest) {
                    return size() > STOPPED_REMEMBERED;
                }
            });

    @Activate
    public KeeperLinks(BundleContext context) {
        this.managerVersion = context.getBundle().getVersion().toString();
        this.experimentsRoot = ExperimentsRoot.of(context.getProperty(ExperimentsRoot.PROPERTY));
    }

    /** For tests outside a framework. */
    public KeeperLinks(String managerVersion) {
        this.managerVersion = managerVersion;
        this.experimentsRoot = null;
    }

    public String managerVersion() {
        return managerVersion;
    }

    /** @return a new secret: 256 random bits, URL-safe Base64 */
    public static String newToken() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /**
     * @throws IllegalStateException if the experiment already has a link with this id
     */
    public KeeperLink register(String experimentId, String keeperId, String token, KeeperPeer peer) {
        KeeperLink link = new KeeperLink(experimentId, keeperId, token, peer);
        if (links.putIfAbsent(key(experimentId, keeperId), link) != null) {
            throw new IllegalStateException("keeper " + keeperId + " of experiment " + experimentId + " is already registered");
        }
        stopped.remove(key(experimentId, keeperId));
        return link;
    }

    /**
     * Registers the link of a keeper that a runtime before a restart started: its token and the
     * last report sequence that runtime applied, so that the keeper's reports continue where they were.
     *
     * @throws IllegalStateException if the experiment already has a link with this id
     */
    public KeeperLink restore(String experimentId, String keeperId, String token, long applied, KeeperPeer peer) {
        KeeperLink link = register(experimentId, keeperId, token, peer);
        synchronized (link.reportLock()) {
            link.applied(applied);
        }
        link.numberCommandsFromNow();
        return link;
    }

    /**
     * Gives the link of a keeper that a detached session left running to a new owner.
     *
     * @return the link, or empty when no such keeper is registered
     */
    public Optional<KeeperLink> adopt(String experimentId, String keeperId, KeeperPeer peer) {
        KeeperLink link = links.get(key(experimentId, keeperId));
        if (link != null) {
            link.adopt(peer);
        }
        return Optional.ofNullable(link);
    }

    @Override
    public void experimentChanged(ExperimentInfo experiment) {
        if (!experiment.readOnly() && experiment.directory() != null) {
            directories.put(experiment.id(), experiment.directory());
        }
    }

    /**
     * Told on the thread that stopped the experiment, after its sessions stopped its keepers: a stopped
     * experiment's links and link file go; a detached one keeps them for its resume, and so does a
     * viewed one (never told as open to run here), closed to be resumed.
     */
    @Override
    public void experimentClosed(String experimentId, boolean stopped) {
        Path directory = directories.remove(experimentId);
        if (stopped) {
            unregisterExperiment(experimentId, directory);
        }
    }

    /**
     * Forgets every link of an experiment that has stopped, here and in its link file: its keepers
     * are refused from now on, not told to wait for a resume.
     *
     * @param experimentDirectory where its link file is, or null to keep the file
     */
    public void unregisterExperiment(String experimentId, Path experimentDirectory) {
        for (KeeperLink link : List.copyOf(links.values())) {
            if (link.experimentId().equals(experimentId)) {
                unregister(link);
            }
        }
        if (experimentDirectory != null) {
            KeeperLinkFile.delete(experimentDirectory);
        }
    }

    /** Forgets the link of one keeper, if there is one: the keeper is refused from now on. */
    public void unregister(String experimentId, String keeperId) {
        KeeperLink link = links.get(key(experimentId, keeperId));
        if (link != null) {
            unregister(link);
        }
    }

    public void unregister(KeeperLink link) {
        String key = key(link.experimentId(), link.keeperId());
        // remembered before the link goes, not after: a request of this keeper that finds no link
        // (TrialReportServlet asks links first, then this memory) must find its stop, never neither
        if (link.stopSent() && links.get(key) == link) {
            stopped.put(key, link.tokenCheck());
        }
        links.remove(key, link);
        link.close(true);
    }

    /**
     * @return the refusal for a keeper without a link that presents the token of one told to stop
     *         before its link closed: 410 with {@code "stopped": true}, the end it was asked for;
     *         empty for any other keeper or token (refused as unknown, telling nothing)
     */
    Optional<HttpError> stoppedRefusal(String experimentId, String keeperId, String presented) {
        Predicate<String> token = stopped.get(key(experimentId, keeperId));
        if (token == null || !token.test(presented)) {
            return Optional.empty();
        }
        return Optional.of(new HttpError(410, "the manager ended the session of keeper " + keeperId + " of experiment "
                + experimentId + " after telling it to stop", Map.of("stopped", true)));
    }

    /** @return the link registered for this keeper of the experiment, or null */
    public KeeperLink find(String experimentId, String keeperId) {
        return links.get(key(experimentId, keeperId));
    }

    /**
     * @return whether a keeper without a link here, presenting this token, belongs to an experiment
     *         of this runtime's root that may take it back once resumed (its link file lists it):
     *         such a keeper is told to try later rather than refused for good
     */
    boolean awaitsResume(String experimentId, String keeperId, String token) {
        if (experimentsRoot == null || token == null || !experimentId.matches("[A-Za-z0-9_-]+")
                || !keeperId.matches("[A-Za-z0-9_-]+")) {
            return false;
        }
        return KeeperLinkFile.lists(experimentsRoot.resolve(experimentId), keeperId, token);
    }

    @Deactivate
    void deactivate() {
        links.values().forEach(link -> link.close(false));
        links.clear();
        stopped.clear();
    }

    private static String key(String experimentId, String keeperId) {
        return experimentId + '/' + keeperId;
    }
}
