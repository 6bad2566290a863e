package nni.itest.conformance;

import static org.ops4j.pax.exam.CoreOptions.bundle;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
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

/** The echo test platform, a bundle written as a third party would, passes the conformance kit in the runtime. */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class EchoConformanceIT extends PlatformBundleContract {

    @Configuration
    public Option[] config() {
        return new Option[] {RuntimeTestSupport.runtime("0"),
                bundle(RuntimeTestSupport.reactorBundle("nni.api.testkit")),
                bundle(RuntimeTestSupport.echoPlatformBundle())};
    }

    @Override
    protected String platformName() {
        return "echo";
    }

    @Override
    protected Map<String, Object> section(Path codeDirectory) {
        Map<String, Object> section = new LinkedHashMap<>();
        section.put("platform", "echo");
        section.put("trialCommand", ConformanceTrial.COMMAND);
        section.put("trialCodeDirectory", codeDirectory.toString());
        section.put("echoToken", "not-for-your-eyes");
        return section;
    }

    @Override
    protected List<String> secretPaths() {
        return List.of("echoToken");
    }

    /** Echo reports one FINAL metric per finished trial, whatever the trial would have written. */
    @Override
    protected int metricsPerFinishingTrial() {
        return 1;
    }

    @Override
    protected Path scratchDirectory() {
        return Path.of(System.getProperty("nni.itest.scratch"));
    }
}
