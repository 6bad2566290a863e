package nni.ts.openpai.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

import nni.api.environment.EnvironmentSpec;
import nni.ts.cloud.KeeperCommand;
import nni.ts.cloud.SharedStorage;
import nni.ts.cloud.Shell;

/**
 * The OpenPAI job (protocol version 2) that runs one environment, as NNI builds it.
 *
 * <p>Without {@code openpaiConfig}: one task role {@code taskrole}, one instance with the
 * configured CPU, memory and GPUs, running the keeper. With {@code openpaiConfig} (or the file): a
 * copy of that protocol, renamed, whose first task role's first instance runs the keeper with that
 * role's commands (joined with {@code &&}) as the trial command; every other instance and role runs
 * its own commands in the experiment's environment, from a copy of the trial code (with a job per
 * trial: after the trial's {@code parameter.cfg} is written, with {@code NNI_SYS_DIR} at the trial's
 * directory; in reuse mode once per environment). The storage named {@code storageConfigName} and
 * {@code virtualCluster} are added when the protocol does not give them.
 *
 * <p>The keeper's token travels as the protocol's secret {@value #TOKEN_SECRET}, which OpenPAI
 * renders into the command ({@code <% $secrets.nni_keeper_token %>}) and keeps from other users.
 */
final class OpenpaiJob {

    static final String TOKEN_SECRET = "nni_keeper_token";
    /** The platform name the trials see in {@code NNI_PLATFORM}, as NNI sets it on OpenPAI. */
    static final String NNI_PLATFORM = "pai";
    private static final String INDEX = "${PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX:-0}";
    private static final ObjectMapper COPIER = new ObjectMapper();

    private OpenpaiJob() {
    }

    /** @return NNI's job name: {@code nni_exp_<exp>_trial_<trial>} with a job per trial, else {@code nni_exp_<exp>_env_<env>} */
    static String name(EnvironmentSpec spec) {
        return "nni_exp_" + spec.experimentId() + (spec.mode().equals("trial") ? "_trial_" : "_env_") + spec.environmentId();
    }

    /** @return the keeper's directory in the container: the trial's directory with a job per trial, else the environment's */
    static String workDirectory(SharedStorage storage, EnvironmentSpec spec) {
        return storage.container((spec.mode().equals("trial") ? "trials/" : "envs/") + spec.environmentId());
    }

    /**
     * @param keeper the keeper's command, for the workers' paths
     * @return the job protocol as a YAML-ready tree
     */
    static Map<String, Object> protocol(OpenpaiSection.Settings settings, EnvironmentSpec spec, SharedStorage storage,
                                        KeeperCommand keeper, String pythonCommand) {
        String work = workDirectory(storage, spec);
        String token = "export " + EnvironmentSpec.TOKEN_VARIABLE + "='<% $secrets." + TOKEN_SECRET + " %>' && ";
        Map<String, Object> job;
        if (settings.openpaiConfig() == null) {
            job = defaultJob(settings, spec);
            role(job, "taskrole").put("commands", List.of(token + keeper.line(storage.codeOnWorker(), work,
                    storage.sdkOnWorker(), null, List.of())));
        } else {
            job = COPIER.convertValue(settings.openpaiConfig(), new TypeReference<LinkedHashMap<String, Object>>() { });
            job.put("name", name(spec));
            boolean chief = true;
            for (String roleName : roles(job).keySet()) {
                Map<String, Object> role = role(job, roleName);
                List<String> commands = commands(role);
                String joined = String.join(" && ", commands.stream().map(String::strip).toList());
                String companion = companion(spec, storage, work, roleName, joined, pythonCommand);
                String line;
                if (chief) {
                    String keeperLine = token + keeper.line(storage.codeOnWorker(), work, storage.sdkOnWorker(), joined, List.of());
                    line = instances(role) == 1 ? keeperLine
                            : "if [ \"" + INDEX + "\" = 0 ]; then " + keeperLine + "; else " + companion + "; fi";
                    chief = false;
                } else {
                    line = companion;
                }
                role.put("commands", List.of(line));
            }
            addStorage(job, settings.storageConfigName());
            if (settings.virtualCluster() != null && !(job.get("defaults") instanceof Map<?, ?> d && d.get("virtualCluster") != null)) {
                mapping(job, "defaults").put("virtualCluster", settings.virtualCluster());
            }
        }
        mapping(job, "secrets").put(TOKEN_SECRET, spec.token());
        return job;
    }

    /** NNI's job for one instance of {@code dockerImage} with the configured resources. */
    private static Map<String, Object> defaultJob(OpenpaiSection.Settings settings, EnvironmentSpec spec) {
        Map<String, Object> job = new LinkedHashMap<>();
        job.put("protocolVersion", 2);
        job.put("name", name(spec));
        job.put("type", "job");
        job.put("jobRetryCount", 0);
        job.put("prerequisites", List.of(map("type", "dockerimage", "uri", settings.dockerImage(), "name", "docker_image_0")));
        Map<String, Object> role = map("instances", 1,
                "completion", map("minFailedInstances", 1, "minSucceededInstances", -1),
                "taskRetryCount", 0,
                "dockerImage", "docker_image_0",
                "resourcePerInstance", map("gpu", settings.trialGpuNumber(), "cpu", settings.trialCpuNumber(),
                        "memoryMB", settings.memoryMB()));
        job.put("taskRoles", map("taskrole", role));
        job.put("secrets", new LinkedHashMap<>());
        job.put("extras", map("storages", new ArrayList<>(List.of(map("name", settings.storageConfigName()))),
                "submitFrom", "submit-job-v2"));
        if (settings.virtualCluster() != null) {
            job.put("defaults", map("virtualCluster", settings.virtualCluster()));
        }
        return job;
    }

    /**
     * The command of an instance that does not run the keeper: its role's commands in a copy of the
     * code, with the experiment's environment (and with a job per trial, the trial's, once its
     * parameters are written).
     */
    private static String companion(EnvironmentSpec spec, SharedStorage storage, String work, String roleName, String joined,
                                    String pythonCommand) {
        boolean perTrial = spec.mode().equals("trial");
        StringBuilder line = new StringBuilder("NNI_ROLE_DIR=").append(Shell.quote(work + "/roles/" + roleName + "_"))
                .append('"').append(INDEX).append('"')
                .append(" && mkdir -p \"$NNI_ROLE_DIR\" && cd \"$NNI_ROLE_DIR\" && tar -xzf ").append(Shell.quote(storage.codeOnWorker()))
                .append(" && ").append(KeeperCommand.pythonPath(pythonCommand, storage.sdkOnWorker()))
                .append(" && export NNI_PLATFORM=").append(NNI_PLATFORM).append(" NNI_EXP_ID=").append(spec.experimentId());
        if (perTrial) {
            line.append(" NNI_TRIAL_JOB_ID=").append(spec.environmentId()).append(" NNI_SYS_DIR=").append(Shell.quote(work))
                    .append(" NNI_OUTPUT_DIR=").append(Shell.quote(work + "/nnioutput"))
                    .append(" && { i=0; while [ ! -f ").append(Shell.quote(work + "/parameter.cfg"))
                    .append(" ] && [ $i -lt 600 ]; do sleep 1; i=$((i+1)); done; }");
        }
        return line.append(" && ").append(joined).toString();
    }

    /** Adds the experiment's storage to {@code extras.storages} unless the protocol mounts it already. */
    @SuppressWarnings("unchecked")
    private static void addStorage(Map<String, Object> job, String storageName) {
        Map<String, Object> extras = mapping(job, "extras");
        List<Object> storages = extras.get("storages") instanceof List<?> list ? new ArrayList<>(list) : new ArrayList<>();
        boolean mounted = storages.stream().anyMatch(s -> s instanceof Map<?, ?> m && storageName.equals(m.get("name")));
        if (!mounted) {
            storages.add(map("name", storageName));
        }
        extras.put("storages", storages);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> roles(Map<String, Object> job) {
        return (Map<String, Object>) job.get("taskRoles");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> role(Map<String, Object> job, String name) {
        return (Map<String, Object>) roles(job).get(name);
    }

    @SuppressWarnings("unchecked")
    private static List<String> commands(Map<String, Object> role) {
        return (List<String>) role.get("commands");
    }

    private static int instances(Map<String, Object> role) {
        return role.get("instances") instanceof Integer n ? n : 1;
    }

    /** @return the mapping at {@code key} of {@code parent}, created (or copied to a mutable one) as needed */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> mapping(Map<String, Object> parent, String key) {
        Map<String, Object> child = parent.get(key) instanceof Map<?, ?> m ? new LinkedHashMap<>((Map<String, Object>) m)
                : new LinkedHashMap<>();
        parent.put(key, child);
        return child;
    }

    private static Map<String, Object> map(Object... pairs) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            map.put((String) pairs[i], pairs[i + 1]);
        }
        return map;
    }
}
