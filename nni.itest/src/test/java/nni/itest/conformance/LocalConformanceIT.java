package nni.itest.conformance;

import static org.ops4j.pax.exam.CoreOptions.bundle;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;

import nni.api.testkit.ConformanceTrial;
import nni.api.testkit.paxexam.PlatformBundleContract;
import nni.itest.RuntimeTestSupport;

/** The local platform's bundle, as the runtime installs it, passes the conformance kit with real trial processes. */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class LocalConformanceIT extends PlatformBundleContract {

    @Configuration
    public Option[] config() {
        return new Option[] {RuntimeTestSupport.runtime("0"), bundle(RuntimeTestSupport.reactorBundle("nni.api.testkit"))};
    }

    @Override
    protected String platformName() {
        return "local";
    }

    @Override
    protected Map<String, Object> section(Path codeDirectory) {
        Map<String, Object> section = new LinkedHashMap<>();
        section.put("platform", "local");
        section.put("trialCommand", ConformanceTrial.COMMAND);
        section.put("trialCodeDirectory", codeDirectory.toString());
        return section;
    }

    @Override
    protected Path scratchDirectory() {
        return Path.of(System.getProperty("nni.itest.scratch"));
    }
}
