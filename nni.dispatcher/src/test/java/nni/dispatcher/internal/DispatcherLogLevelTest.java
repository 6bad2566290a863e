package nni.dispatcher.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.List;

import org.junit.Test;

public class DispatcherLogLevelTest {

    @Test
    public void atDebugAndTraceNnisLoggerIsSetAgainAfterImportOtherwiseTheLaunchIsUnchanged() {
        List<String> plain = List.of("python3", "-m", "nni");
        assertEquals(plain, DispatcherLogLevel.apply(plain, "info"));
        assertEquals(plain, DispatcherLogLevel.apply(plain, null));
        for (String level : List.of("debug", "TRACE")) {
            List<String> debug = DispatcherLogLevel.apply(plain, level);
            assertEquals("python3", debug.get(0));
            assertEquals("-c", debug.get(1));
            assertTrue(debug.get(2), debug.get(2).contains("logging.getLogger('nni').setLevel(logging.DEBUG)")
                    && debug.get(2).contains("runpy.run_module('nni', run_name='__main__', alter_sys=True)"));
        }
        List<String> advisor = List.of("python3", "/x/log/advisor_ids.py");
        assertEquals("the advisor script sets the level itself", advisor, DispatcherLogLevel.apply(advisor, "debug"));
    }
}
