package nni.dispatcher.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The experiment's {@code logLevel} in NNI's dispatcher. NNI 3.0 pins its {@code nni} logger at
 * INFO when it is imported ({@code nni.runtime.log}) and sets the level it is given on the root
 * logger only, so {@code logLevel: debug} brings the debug lines of other libraries into
 * {@code dispatcher.log} but none of NNI's own (such as each command the dispatcher processes).
 * At debug or trace the dispatcher is therefore started through a few lines that import NNI's
 * logging, set the {@code nni} logger to DEBUG and run {@code nni} as {@code -m} would.
 */
final class DispatcherLogLevel {

    private static final Set<String> DEBUG = Set.of("debug", "trace");

    /** Run by {@code python -c}: a stand-in {@code nni} package without NNI's logging module still starts. */
    static final String DEBUG_LAUNCH = String.join("\n",
            "import logging, runpy",
            "try:",
            "    import nni.runtime.log",
            "    logging.getLogger('nni').setLevel(logging.DEBUG)",
            "except ImportError:",
            "    pass",
            "runpy.run_module('nni', run_name='__main__', alter_sys=True)",
            "");

    private DispatcherLogLevel() {
    }

    /**
     * @param launch   the interpreter's arguments that start the dispatcher ({@link AdvisorIds#launch})
     * @param logLevel the experiment's {@code logLevel}
     * @return {@code launch}, or at debug and trace {@code python -c <DEBUG_LAUNCH>} in place of {@code python -m nni}
     */
    static List<String> apply(List<String> launch, String logLevel) {
        boolean plain = launch.size() == 3 && launch.get(1).equals("-m") && launch.get(2).equals("nni");
        if (!plain || logLevel == null || !DEBUG.contains(logLevel.toLowerCase(Locale.ROOT))) {
            return launch;
        }
        List<String> debug = new ArrayList<>();
        debug.add(launch.get(0));
        debug.add("-c");
        debug.add(DEBUG_LAUNCH);
        return debug;
    }
}
