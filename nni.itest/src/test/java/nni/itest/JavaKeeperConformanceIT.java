package nni.itest;

import org.junit.runner.RunWith;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;

import nni.itest.keeper.KeeperKind;

/** The keeper conformance suite ({@link KeeperConformance}) against the Java keeper. */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class JavaKeeperConformanceIT extends KeeperConformance {

    @Override
    protected KeeperKind kind() {
        return KeeperKind.JAVA;
    }
}
