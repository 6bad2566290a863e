package nni.itest.conformance;

import java.nio.file.Path;
import java.util.Map;

import org.junit.runner.RunWith;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;

/** The remote platform in reuse mode (long-lived keepers running trials one after another) passes the conformance kit too. */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class RemoteReuseConformanceIT extends RemoteConformanceIT {

    @Override
    protected Map<String, Object> section(Path codeDirectory) {
        Map<String, Object> section = super.section(codeDirectory);
        section.put("reuseMode", true);
        return section;
    }
}
