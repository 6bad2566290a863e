@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.1.0")
package nni.api.platform;
