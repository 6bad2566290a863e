package nni.api.environment;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One keeper process to start.
 *
 * @param environmentId the keeper's id: the environment id in reuse mode, the trial id with one
 *                      keeper per trial
 * @param mode          {@code runner} (reuse mode) or {@code trial}
 * @param platform      the platform name the trial sees in {@code NNI_PLATFORM}
 * @param experimentId  the experiment
 * @param managerUrl    the manager's endpoint as the worker reaches it ({@code http://host:port/})
 * @param token         the keeper's secret: pass it in {@link #TOKEN_VARIABLE} or a file only the
 *                      keeper can read; never log it
 * @param keeperJar     the keeper jar on the manager's machine
 * @param codeArchive   the trial code as tar.gz on the manager's machine
 * @param trialCommand  the experiment's trial command
 */
public record EnvironmentSpec(String environmentId, String mode, String platform, String experimentId,
                              String managerUrl, String token, Path keeperJar, Path codeArchive, String trialCommand) {

    /** The environment variable the keeper reads its token from. */
    public static final String TOKEN_VARIABLE = "NNI_KEEPER_TOKEN";

    public EnvironmentSpec {
        Objects.requireNonNull(environmentId, "environmentId");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(token, "token");
    }

    /**
     * @param codeArchiveOnWorker where the platform put the code archive on the worker
     * @param workDirectory       the keeper's directory on the worker (trials go below it)
     * @return the arguments after {@code java -jar <keeper jar>}
     */
    public List<String> arguments(String codeArchiveOnWorker, String workDirectory) {
        List<String> args = new ArrayList<>(List.of(mode, "--manager", managerUrl, "--experiment", experimentId,
                mode.equals("runner") ? "--environment" : "--trial", environmentId, "--platform", platform,
                "--code", codeArchiveOnWorker, "--command", trialCommand, "--work-dir", workDirectory));
        return List.copyOf(args);
    }

    @Override
    public String toString() {
        return "EnvironmentSpec[" + environmentId + ", " + mode + ", " + platform + "]"; // without the token
    }
}
