package nni.api.experiment;

import java.nio.file.Path;
import java.util.Map;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The configuration files (Config Admin's, as FileInstall reads them from {@code etc/} and
 * {@code deploy/}) whose values the runtime refused: a face that waits for the runtime to become
 * ready tells from them that it never will with these files. One service, registered by the
 * manager's configuration check. May be called from any thread.
 *
 * @since 1.5
 */
@ProviderType
public interface ConfigurationRefusals {

    /**
     * @return each file whose latest values were refused, with what was wrong in it in words for the
     *         user (its keys and what they accept); a copy taken at one moment, empty when none was
     */
    Map<Path, String> refusals();
}
