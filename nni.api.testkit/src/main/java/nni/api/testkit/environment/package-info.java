/**
 * The conformance kit for keeper-based platforms: {@link nni.api.testkit.environment.EnvironmentLauncherContract},
 * the contract of an {@link nni.api.environment.EnvironmentLauncher} as JUnit 4 tests that start real
 * keepers through the launcher, and {@link nni.api.testkit.environment.StandInManager}, the manager's
 * side of the keeper protocol they report to, so that a cluster platform is tested without the runtime.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package nni.api.testkit.environment;
