package nni.manager.internal.report;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

/**
 * Every keeper the manager expects to hear from, by experiment and keeper id. A session registers
 * a link (with a fresh secret token) before it starts the keeper and closes it when the keeper's
 * environment is gone; requests for unknown links are refused like wrong tokens.
 */
@Component(service = KeeperLinks.class)
public class KeeperLinks {

    /** The trial-route protocols this manager accepts at the handshake. */
    public static final java.util.Set<Integer> ACCEPTED_PROTOCOLS = java.util.Set.of(1);

    private static final SecureRandom RANDOM = new SecureRandom();

    private final Map<String, KeeperLink> links = new ConcurrentHashMap<>();
    private final String managerVersion;

    @Activate
    public KeeperLinks(BundleContext context) {
        this.managerVersion = context.getBundle().getVersion().toString();
    }

    /** For tests outside a framework. */
    public KeeperLinks(String managerVersion) {
        this.managerVersion = managerVersion;
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

    /** Forgets every link of an experiment that has stopped: its keepers are refused from now on. */
    public void unregisterExperiment(String experimentId) {
        for (KeeperLink link : List.copyOf(links.values())) {
            if (link.experimentId().equals(experimentId)) {
                unregister(link);
            }
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
        links.remove(key(link.experimentId(), link.keeperId()), link);
        link.close();
    }

    KeeperLink find(String experimentId, String keeperId) {
        return links.get(key(experimentId, keeperId));
    }

    @Deactivate
    void deactivate() {
        links.values().forEach(KeeperLink::close);
        links.clear();
    }

    private static String key(String experimentId, String keeperId) {
        return experimentId + '/' + keeperId;
    }
}
