package nni.config;

import java.nio.file.Path;
import java.util.Map;

/**
 * A {@code tuner:} or {@code assessor:} section, canonical.
 *
 * @param name          the built-in algorithm name as written ({@code TPE}, {@code Random}); null for a custom class
 * @param className     a custom algorithm's class, or null
 * @param codeDirectory a custom algorithm's code directory (resolved), or null
 * @param classArgs     free-form arguments, never null (empty when absent); keys are not canonicalized
 * @param implementation which implementation the file asks for ({@code java}, {@code python}), or null
 *                       for the default: the Java one where there is one (an nni-osgi key NNI does not have)
 */
public record AlgorithmConfig(String name, String className, Path codeDirectory, Map<String, Object> classArgs,
                              String implementation) {
    public AlgorithmConfig {
        classArgs = classArgs == null ? Map.of() : classArgs;
    }

    public AlgorithmConfig(String name, String className, Path codeDirectory, Map<String, Object> classArgs) {
        this(name, className, codeDirectory, classArgs, null);
    }

    /** @return the section as the SPI carries it */
    public nni.api.tuner.AlgorithmSection section() {
        return nni.api.tuner.AlgorithmSection.builder().name(className == null ? name : null).className(className)
                .codeDirectory(codeDirectory).classArgs(classArgs).build();
    }
}
