package nni.ui.internal;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardResource;

/**
 * {@code /ui/lib/*}: the libraries the pages use, embedded from their WebJars at the WebJars' own
 * paths ({@code /ui/lib/echarts/<version>/dist/echarts.esm.min.js}).
 */
@Component(service = WebJarFiles.class)
@HttpWhiteboardResource(pattern = WebUi.PATH + "lib/*", prefix = "/META-INF/resources/webjars")
public class WebJarFiles {
}
