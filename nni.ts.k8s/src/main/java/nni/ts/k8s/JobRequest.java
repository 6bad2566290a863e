package nni.ts.k8s;

import java.util.Map;

import nni.api.environment.EnvironmentSpec;

/**
 * Everything a {@link JobKind} needs to build one environment's objects.
 *
 * @param spec       the environment the manager asks for (keeper files, code archive, mode, command)
 * @param objectName the job's name
 * @param namespace  the experiment's namespace
 * @param labels     NNI's labels for this environment's objects
 * @param placement  where the keeper's files and directory are in the containers
 * @param script     the keeper script every container runs
 * @param volume     the experiment share's pod volume ({@code nni-vol}), for kinds whose keeper is on the share;
 *                   null for kinds that place the keeper themselves
 */
public record JobRequest(EnvironmentSpec spec, String objectName, String namespace, Map<String, String> labels,
                         NniObjects.KeeperPlacement placement, String script, Map<String, Object> volume) {

    /** @return whether this environment runs one trial (its id is the trial's) */
    public boolean perTrial() {
        return spec.mode().equals("trial");
    }
}
