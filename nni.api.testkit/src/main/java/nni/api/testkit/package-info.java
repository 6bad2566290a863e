/**
 * The conformance kit for platform bundles, published with the API: what a third party writing a
 * {@link nni.api.platform.TrainingPlatform} runs to know it keeps the contract the manager relies on.
 * <ul>
 * <li>{@link nni.api.testkit.PlatformContract}: the contract as JUnit 4 tests a platform's test
 *     class inherits (reporting order, cancel, close, detach, reattach, section checks and secrets);</li>
 * <li>{@link nni.api.testkit.RecordingSessionContext}: the manager's side of a session, recording
 *     what the platform reports and every breach of the reporting contract;</li>
 * <li>{@link nni.api.testkit.ConformanceTrial}: the trial script the tests run;</li>
 * <li>{@code nni.api.testkit.paxexam}: the same contract plus bundle-level checks inside a real
 *     OSGi framework;</li>
 * <li>{@code nni.api.testkit.environment}: for keeper-based platforms, the contract of their
 *     {@link nni.api.environment.EnvironmentLauncher}, with a stand-in for the manager's side of the
 *     keeper protocol.</li>
 * </ul>
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package nni.api.testkit;
