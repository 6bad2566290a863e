package nni.trialkeeper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The keeper's command line ({@link #USAGE}). The token is never taken from the command line,
 * where other users of the machine could read it.
 */
record KeeperOptions(String mode, String managerUrl, Path channel, String experimentId, String keeperId, String platform,
                     Path codeArchive, String command, Path workDirectory, String token, long giveUpSeconds,
                     long killGraceSeconds, long spoolLimitBytes, CodeArchive.Limits codeLimits) {

    static final String TOKEN_VARIABLE = "NNI_KEEPER_TOKEN";

    /**
     * What {@code --help} prints; the Python keeper prints the same text, word for word, with
     * {@code python3 nni-trialkeeper.py} in place of {@code java -jar nni-trialkeeper.jar}.
     */
    static final String USAGE = String.join("\n",
            "usage: %1$s trial  --manager URL --experiment ID --trial ID       --platform NAME --code ARCHIVE --command CMD [options]",
            "       %1$s runner --manager URL --experiment ID --environment ID --platform NAME --code ARCHIVE --command CMD [options]",
            "       %1$s --help | --version",
            "Runs trials for an NNI experiment on this machine and reports them to the manager's HTTP endpoint.",
            "options:",
            "  --work-dir DIR            where trials run (default: the current directory)",
            "  --token-file FILE         the keeper's secret; otherwise the environment variable NNI_KEEPER_TOKEN",
            "  --channel DIR             talk to the manager through files in DIR, a folder the manager made on a",
            "                            storage both share, instead of HTTP (then --manager is not needed)",
            "  --give-up-seconds N       how long an unreachable or unusable manager is retried (3600)",
            "  --kill-grace-seconds N    SIGTERM to SIGKILL of a cancelled trial's process group (5)",
            "  --spool-limit-mb N        unacknowledged reports kept on disk before output reading pauses (64)",
            "  --max-code-mb N           largest unpacked size of the code archive (512)",
            "  --max-code-entries N      most entries in the code archive (20000)",
            "exit codes: the trial's code (trial mode), 0 (stopped, also when refused after), 2 (bad command line),",
            "  3 (refused by the manager: token, protocol version, session gone), 4 (manager unreachable or",
            "  answering unusably for longer than --give-up-seconds)",
            "");

    /** A command line that cannot be run; the message says which argument and why. */
    static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    boolean runner() {
        return mode.equals("runner");
    }

    static KeeperOptions parse(List<String> args, Map<String, String> environment) throws UsageException {
        if (args.isEmpty() || !(args.get(0).equals("trial") || args.get(0).equals("runner"))) {
            throw new UsageException("the first argument must be the mode, 'trial' or 'runner'");
        }
        String mode = args.get(0);
        Map<String, String> values = new HashMap<>();
        for (int i = 1; i < args.size(); i++) {
            String name = args.get(i);
            if (!name.startsWith("--")) {
                throw new UsageException("unexpected argument '" + name + "'");
            }
            if (i + 1 >= args.size()) {
                throw new UsageException(name + " needs a value");
            }
            values.put(name.substring(2), args.get(++i));
        }
        String idOption = mode.equals("runner") ? "environment" : "trial";
        for (String required : List.of("manager", "experiment", idOption, "platform", "code", "command")) {
            if (required.equals("manager") && values.containsKey("channel")) {
                continue;
            }
            if (!values.containsKey(required) || values.get(required).isBlank()) {
                throw new UsageException("--" + required + " is required in " + mode + " mode");
            }
        }
        String token;
        if (values.containsKey("token-file")) {
            try {
                token = Files.readString(Path.of(values.get("token-file"))).trim();
            } catch (IOException e) {
                throw new UsageException("--token-file: cannot read " + values.get("token-file") + ": " + e.getMessage());
            }
        } else {
            token = environment.get(TOKEN_VARIABLE);
        }
        if (token == null || token.isBlank()) {
            throw new UsageException("no token: give --token-file or set " + TOKEN_VARIABLE);
        }
        for (String name : values.keySet()) {
            if (!KNOWN.contains(name)) {
                throw new UsageException("unknown option --" + name + " (see --help)");
            }
        }
        if (values.containsKey("channel") && values.get("channel").isBlank()) {
            throw new UsageException("--channel needs a folder");
        }
        return new KeeperOptions(mode, values.get("manager"),
                values.containsKey("channel") ? Path.of(values.get("channel")).toAbsolutePath().normalize() : null, values.get("experiment"), values.get(idOption),
                values.get("platform"), Path.of(values.get("code")).toAbsolutePath(), values.get("command"),
                Path.of(values.getOrDefault("work-dir", ".")).toAbsolutePath().normalize(), token,
                number(values, "give-up-seconds", 3600), number(values, "kill-grace-seconds", 5),
                megabytes(values, "spool-limit-mb", 64),
                new CodeArchive.Limits(megabytes(values, "max-code-mb", CodeArchive.Limits.DEFAULT.maxBytes() >> 20),
                        number(values, "max-code-entries", CodeArchive.Limits.DEFAULT.maxEntries())));
    }

    private static final java.util.Set<String> KNOWN = java.util.Set.of("manager", "channel", "experiment", "trial", "environment",
            "platform", "code", "command", "work-dir", "token-file", "give-up-seconds", "kill-grace-seconds", "spool-limit-mb",
            "max-code-mb", "max-code-entries");

    private static long megabytes(Map<String, String> values, String name, long fallback) throws UsageException {
        long megabytes = number(values, name, fallback);
        if (megabytes > Long.MAX_VALUE >> 20) {
            throw new UsageException("--" + name + " is too large: " + megabytes);
        }
        return megabytes << 20;
    }

    private static long number(Map<String, String> values, String name, long fallback) throws UsageException {
        String value = values.get(name);
        if (value == null) {
            return fallback;
        }
        try {
            long n = Long.parseLong(value);
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new UsageException("--" + name + " must be a non-negative whole number, got '" + value + "'");
        }
    }
}
