package nni.manager.internal.service;

import nni.api.experiment.ConfigCheck;
import nni.config.ConfigError;
import nni.config.ValidationReport;

/** The loader's {@link ValidationReport} as the API's {@link ConfigCheck}: the same lines, word for word. */
final class ConfigChecks {

    private ConfigChecks() {
    }

    static ConfigCheck of(ValidationReport report) {
        ConfigCheck.Builder check = ConfigCheck.builder(report.file());
        report.errors().stream().map(ConfigError::toString).forEach(check::error);
        report.unchecked().forEach(check::unchecked);
        report.notes().forEach(check::note);
        return check.build();
    }
}
