package nni.shell.internal.nnictl;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;

import nni.api.experiment.ExperimentsRoot;
import nni.api.experiment.NnictlRegistry;

/**
 * NNI's experiment registry file under the experiments' root, read as {@code nnictl} reads it: the
 * {@link NnictlRegistry} service. It needs no other service, so the engine can read how stored
 * experiments ended from it (the experiments list) while {@link NnictlBridge}, which writes the
 * entries, needs the engine: neither reaches itself through its references. The one
 * {@link ExperimentRegistry} of this process, which the bridge writes through too: the registry's
 * lock file is named by the pid, so two instances in one process would not exclude each other.
 */
@Component(service = {NnictlRegistry.class, NnictlRegistryFile.class})
public class NnictlRegistryFile implements NnictlRegistry {

    /** How an experiment ended for good: kept in the registry when it closes or its process goes. */
    static final Set<String> OUTCOMES = Set.of("DONE", "ERROR");
    static final String STOPPED = "STOPPED";

    private final ExperimentRegistry registry;

    @Activate
    public NnictlRegistryFile(BundleContext context) {
        this.registry = new ExperimentRegistry(ExperimentsRoot.of(context.getProperty(ExperimentsRoot.PROPERTY)));
    }

    /** @return the registry file, for the bridge's writes */
    ExperimentRegistry registry() {
        return registry;
    }

    /**
     * @return the registry's entries, experiments whose pid is gone marked STOPPED, as NNI's manager
     * does, except those that ended DONE or ERROR: they keep their outcome (and lose their port)
     */
    @Override
    public List<Map<String, Object>> entries() throws IOException, InterruptedException {
        return registry.update(entries -> {
            for (Map<String, Object> entry : entries.values()) {
                if (!STOPPED.equals(entry.get("status")) && !alive(entry.get("pid"))) {
                    entry.put("status", afterExit(entry.get("status")));
                    entry.remove("port");
                }
            }
            return new ArrayList<>(entries.values());
        });
    }

    /**
     * @return each registered experiment's status as {@link #entries} shows it, read without writing the
     * registry (the web UI lists experiments every second)
     */
    @Override
    public Map<String, String> statuses() throws IOException, InterruptedException {
        Map<String, String> statuses = new LinkedHashMap<>();
        registry.read().forEach((id, entry) -> statuses.put(id, alive(entry.get("pid")) ? String.valueOf(entry.get("status"))
                : afterExit(entry.get("status"))));
        return statuses;
    }

    /** @return the registry entry of an experiment */
    @Override
    public Optional<Map<String, Object>> entry(String id) throws IOException, InterruptedException {
        return entries().stream().filter(entry -> id.equals(entry.get("id"))).findFirst();
    }

    /**
     * @return the status an experiment whose process is gone keeps: the outcome it ended with (DONE,
     * ERROR), else STOPPED (it was running, or being looked at, when the runtime went)
     */
    static String afterExit(Object recorded) {
        return OUTCOMES.contains(String.valueOf(recorded)) ? String.valueOf(recorded) : STOPPED;
    }

    private static boolean alive(Object pid) {
        return pid instanceof Number number && ProcessHandle.of(number.longValue()).map(ProcessHandle::isAlive).orElse(false);
    }
}
