package nni.runtime.internal.config;

import java.util.List;
import java.util.Optional;

import org.osgi.service.component.annotations.Component;

import nni.api.experiment.PlatformSettingCheck;

/** {@link PlatformSettingCheck} by {@link SettingCheck}'s rule, the one {@code etc/*.cfg} files are checked by. */
@Component(service = PlatformSettingCheck.class)
public class PlatformSettingCheckComponent implements PlatformSettingCheck {

    @Override
    public Optional<String> problem(int type, List<String> options, String text) {
        return Optional.ofNullable(SettingCheck.problem(type, List.copyOf(options), text));
    }
}
