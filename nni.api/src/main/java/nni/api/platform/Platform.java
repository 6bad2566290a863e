package nni.api.platform;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.osgi.service.component.annotations.ComponentPropertyType;

/**
 * Component property type that names the platform a {@link TrainingPlatform} service provides.
 * Put it on the component class: {@code @Platform("remote")} registers the service property
 * {@value TrainingPlatform#PLATFORM}{@code =remote}.
 */
@ComponentPropertyType
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.TYPE)
public @interface Platform {
    String PREFIX_ = "nni.";

    /** @return the platform name experiments use in {@code trainingService.platform} */
    String value();
}
