package nni.api.tuner;

import java.util.List;
import java.util.Map;

import org.osgi.annotation.versioning.ConsumerType;

import nni.api.config.ConfigProblem;

/**
 * Makes assessors of one algorithm; registered with {@value TunerProvider#ALGORITHM} like
 * {@link TunerProvider}. Methods are thread-safe and side-effect free.
 */
@ConsumerType
public interface AssessorProvider {

    /** @return every problem in an {@code assessor:} section's {@code classArgs} */
    List<ConfigProblem> checkArguments(Map<String, Object> classArgs);

    /** Creates an assessor for one experiment run, from checked {@code classArgs}. */
    Assessor create(Map<String, Object> classArgs);
}
