package nni.api.experiment;

import java.util.List;
import java.util.Optional;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Whether the text of a platform's setting fits the setting's type and options: the one rule the
 * runtime applies to {@code etc/*.cfg} files, for a face that edits platform configurations (the
 * web UI's forms) to refuse what the runtime would. One service, registered by the manager.
 *
 * <p>The type is Metatype's ({@code org.osgi.service.metatype.AttributeDefinition#INTEGER} and the
 * others) as its int, so that this API needs no Metatype; a Metatype definition's own
 * {@code validate} is the caller's to apply after this check. Stateless: may be called from any
 * thread.
 *
 * @since 1.5
 */
@ProviderType
public interface PlatformSettingCheck {

    /**
     * @param type    the setting's Metatype type
     * @param options the values allowed; empty for any value
     * @param text    the setting's text
     * @return what the setting expects ({@code expected an integer ...}, {@code expected one of a, b}),
     *         or empty when the text fits
     */
    Optional<String> problem(int type, List<String> options, String text);
}
