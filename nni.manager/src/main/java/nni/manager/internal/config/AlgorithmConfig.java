package nni.manager.internal.config;

import java.nio.file.Path;
import java.util.Map;

/**
 * A {@code tuner:} or {@code assessor:} section, canonical.
 *
 * @param name          the built-in algorithm name as written ({@code TPE}, {@code Random}); null for a custom class
 * @param className     a custom algorithm's class, or null
 * @param codeDirectory a custom algorithm's code directory (resolved), or null
 * @param classArgs     free-form arguments, never null (empty when absent); keys are not canonicalized
 */
public record AlgorithmConfig(String name, String className, Path codeDirectory, Map<String, Object> classArgs) {
    public AlgorithmConfig {
        classArgs = classArgs == null ? Map.of() : classArgs;
    }
}
