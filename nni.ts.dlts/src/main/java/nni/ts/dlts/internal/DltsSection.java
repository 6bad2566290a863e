package nni.ts.dlts.internal;

import java.nio.file.Path;
import java.util.Map;
import java.util.function.UnaryOperator;

import nni.api.config.ConfigReader;
import nni.api.config.SectionCheck;
import nni.api.platform.PlatformException;

/**
 * NNI's {@code dltsConfig} with its {@code trial} fields, as the v1 converter turns a
 * {@code trainingServicePlatform: dlts} file into a {@code platform: dlts} section
 * ({@code dashboard}, {@code cluster}, {@code team}, {@code email}, {@code password}, {@code image},
 * with the common {@code trialCommand}, {@code trialCodeDirectory}, {@code trialGpuNumber}). Email,
 * password and team may come from the environment instead, as NNI reads them inside a DLTS job.
 */
final class DltsSection {

    static final String EMAIL_VARIABLE = "DLWS_USER_EMAIL";
    static final String PASSWORD_VARIABLE = "DLTS_JOB_TOKEN";
    static final String TEAM_VARIABLE = "DLWS_VC_NAME";
    /** Set in a DLTS job: the manager runs in that job ("job mode" in NNI). */
    static final String JOB_VARIABLE = "DLTS_JOB_ID";

    /** A checked section with the environment's fallbacks applied. */
    record Settings(String dashboard, String cluster, String team, String email, String password, String image,
                    int gpuNumber, String nniManagerIp, String managerJob) {

        /**
         * @return the DLTS job whose endpoints expose the manager's port to the trials' jobs: the job
         *         the manager runs in, when the experiment gives no {@code nniManagerIp}; else null
         */
        String exposingJob() {
            return managerJob != null && (nniManagerIp == null || nniManagerIp.isBlank()) ? managerJob : null;
        }

        /** @return how messages name the cluster and the user: never the password */
        String service() {
            return "DLTS at " + dashboard + " (" + email + ", team " + team + ")";
        }
    }

    private DltsSection() {
    }

    static SectionCheck check(Map<String, Object> section, Path baseDirectory) {
        ConfigReader reader = ConfigReader.of(section, baseDirectory);
        reader.trainingServiceFields(true);
        if (reader.canonical("trialGpuNumber") == null && reader.problems().stream()
                .noneMatch(p -> p.path().equals("trialGpuNumber"))) {
            reader.problem("trialGpuNumber", "trialGpuNumber (v1: trial.gpuNum) is required on DLTS");
        }
        String dashboard = reader.requiredString("dashboard");
        if (dashboard != null) {
            if (!dashboard.startsWith("http://") && !dashboard.startsWith("https://")) {
                reader.problem("dashboard", "expected the dashboard's URL (http:// or https://), got \"" + dashboard + "\"");
            } else if (!dashboard.endsWith("/")) {
                reader.set("dashboard", dashboard + "/"); // NNI appends the API paths to it
            }
        }
        reader.string("cluster", ".default");
        reader.string("team");
        reader.string("email");
        reader.secret("password", false);
        reader.requiredString("image");
        return reader.check();
    }

    /**
     * @param environment the manager's environment variables ({@code System::getenv})
     * @throws PlatformException naming each missing field with the variable that could have given it
     */
    static Settings settings(Map<String, Object> section, UnaryOperator<String> environment) throws PlatformException {
        String email = orElse(section.get("email"), environment.apply(EMAIL_VARIABLE));
        String password = orElse(section.get("password"), environment.apply(PASSWORD_VARIABLE));
        String team = orElse(section.get("team"), environment.apply(TEAM_VARIABLE));
        StringBuilder missing = new StringBuilder();
        if (email == null) {
            missing.append("; email (or the environment variable ").append(EMAIL_VARIABLE).append(')');
        }
        if (password == null) {
            missing.append("; password (or the environment variable ").append(PASSWORD_VARIABLE).append(')');
        }
        if (team == null) {
            missing.append("; team (or the environment variable ").append(TEAM_VARIABLE).append(')');
        }
        if (missing.length() > 0) {
            throw new PlatformException("dlts: not set:" + missing.substring(1));
        }
        Object gpus = section.get("trialGpuNumber");
        return new Settings(String.valueOf(section.get("dashboard")), String.valueOf(section.get("cluster")), team, email, password,
                String.valueOf(section.get("image")), gpus == null ? 0 : ((Number) gpus).intValue(),
                (String) section.get("nniManagerIp"), orElse(null, environment.apply(JOB_VARIABLE)));
    }

    private static String orElse(Object configured, String fromEnvironment) {
        String value = configured == null ? null : configured.toString();
        return value != null && !value.isBlank() ? value : fromEnvironment == null || fromEnvironment.isBlank() ? null : fromEnvironment;
    }
}
