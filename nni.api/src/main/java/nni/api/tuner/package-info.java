@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.3.0")
package nni.api.tuner;
