package nni.config.v1.internal;

import java.util.Map;

import org.osgi.service.component.annotations.Component;

import nni.api.config.ConfigConversion;
import nni.api.config.ConfigFormat;

/** NNI's v1 experiment file format, converted to v2 by {@link V1Converter}. Stateless and thread-safe. */
@Component(service = ConfigFormat.class)
public class V1Format implements ConfigFormat {

    @Override
    public boolean recognises(Map<String, Object> root) {
        return V1Converter.isV1(root);
    }

    @Override
    public ConfigConversion convert(Map<String, Object> root) {
        return V1Converter.convert(root);
    }
}
