package nni.api.config;

import java.util.Map;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * A format of experiment files other than NNI's v2 format (NNI's v1 format, for one), provided by a
 * bundle as an OSGi service. The manager reads v2 files itself; for any other file it asks every
 * registered format, binding them dynamically and never by name, whether the file is in its format,
 * and reads the v2 form the format converts it to.
 *
 * <h2>Contract</h2>
 * <ul>
 * <li>{@link #recognises} is asked of every format for every file the manager reads, with the file's
 *     top-level mapping as parsed (maps, lists, strings, numbers, booleans, null; keys as the file
 *     spells them). It decides by a mark of the format (v1: a {@code trainingServicePlatform}), not by
 *     checking the file: a file with mistakes in it is still recognised, so that {@link #convert} can
 *     report them. If more than one format recognises a file, the one the framework ranks first
 *     (higher {@code service.ranking}, then lower {@code service.id}) converts it.</li>
 * <li>{@link #convert} returns the v2 form, which the manager then checks as it checks a v2 file, with
 *     its {@linkplain ConfigConversion#origins() origins}: for each v2 key path, the key path in the
 *     file it came from. The manager turns origins into lines and columns, so that a problem it finds
 *     in the v2 form points into the file as written. Problems only the conversion can see (a key the
 *     format does not know, a value it cannot convert) are {@linkplain ConfigConversion#problems()
 *     problems} with key paths in the file's own spelling.</li>
 * <li>Both methods may be called concurrently for different files, never open files or connections,
 *     and must not change the mapping they are given. An exception from them is reported as a problem
 *     with the file, never passed on to the user as is.</li>
 * </ul>
 *
 * @since nni.api.config 1.2
 */
@ConsumerType
public interface ConfigFormat {

    /**
     * @param root the file's top-level mapping, as parsed
     * @return whether the file is in this format
     */
    boolean recognises(Map<String, Object> root);

    /**
     * @param root the file's top-level mapping, as parsed; only called when {@link #recognises} said yes
     * @return the file in the v2 form, where its values came from, and what the conversion refused
     */
    ConfigConversion convert(Map<String, Object> root);
}
