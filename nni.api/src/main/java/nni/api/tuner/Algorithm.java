package nni.api.tuner;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.osgi.service.component.annotations.ComponentPropertyType;

/**
 * Component property type naming the algorithm a {@link TunerProvider} or {@link AssessorProvider}
 * service provides: {@code @Algorithm("TPE")} registers {@value TunerProvider#ALGORITHM}{@code =TPE}.
 * Names are NNI's {@code builtinTunerName} / {@code builtinAssessorName}; the manager matches them
 * ignoring case.
 */
@ComponentPropertyType
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.TYPE)
public @interface Algorithm {
    String PREFIX_ = "nni.";

    String value();
}
