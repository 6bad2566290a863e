/**
 * The conformance kit inside a real OSGi framework: {@link nni.api.testkit.paxexam.PlatformBundleContract},
 * a Pax Exam base that runs the platform contract against the registered service and checks the
 * platform's bundle (one service, no exports, components satisfied, stop and start).
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package nni.api.testkit.paxexam;
