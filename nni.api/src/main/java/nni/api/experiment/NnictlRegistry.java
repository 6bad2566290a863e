package nni.api.experiment;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.osgi.annotation.versioning.ProviderType;

/**
 * NNI's experiment registry, the file {@code nnictl experiment list} and NNI's web UI read, as the
 * runtime keeps it: one entry per experiment, in NNI's keys ({@code id}, {@code status},
 * {@code port}, {@code pid}, {@code prefixUrl}, ...). One service, registered by the manager; NNI's
 * REST routes answer {@code /experiments-info} and {@code /experiment-metadata} from it (since 1.4).
 *
 * <p>Every method may be called from any thread; each answers copies read from the file then.
 */
@ProviderType
public interface NnictlRegistry {

    /** The URL prefix of one experiment's REST API, {@code /experiments/<id>/api/v1/nni/...}: its entry's {@code prefixUrl}. */
    String PREFIX = "experiments/";

    /**
     * @return every entry, oldest first; an experiment whose process is gone shows STOPPED, as NNI's
     *         manager marks it, unless it ended DONE or ERROR
     * @throws IOException          the registry file cannot be read or written
     * @throws InterruptedException interrupted while waiting for the file
     */
    List<Map<String, Object>> entries() throws IOException, InterruptedException;

    /**
     * @return the entry of the experiment {@code id}, as {@link #entries} shows it; empty when it has none
     * @throws IOException          the registry file cannot be read or written
     * @throws InterruptedException interrupted while waiting for the file
     */
    Optional<Map<String, Object>> entry(String id) throws IOException, InterruptedException;

    /**
     * Reads the registry without changing it: an experiment whose process is gone shows the status
     * it keeps after exit (DONE or ERROR as it ended, else STOPPED), as {@link #entries} would mark it.
     *
     * @return each entry's id to its status, in the registry's order (since 1.5)
     * @throws IOException          the registry file cannot be read
     * @throws InterruptedException interrupted while waiting for the file
     */
    Map<String, String> statuses() throws IOException, InterruptedException;
}
