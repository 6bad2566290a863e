/** Real sshd servers on loopback for tests of the remote platform. */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package nni.itest.sshd;
