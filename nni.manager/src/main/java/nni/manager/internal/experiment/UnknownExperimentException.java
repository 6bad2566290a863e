package nni.manager.internal.experiment;

import java.io.IOException;

/** No experiment of that id is stored under the experiments root. */
public final class UnknownExperimentException extends IOException {
    private static final long serialVersionUID = 1L;

    UnknownExperimentException(String message) {
        super(message);
    }
}
