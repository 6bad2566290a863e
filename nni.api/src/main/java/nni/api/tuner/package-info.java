@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.2.0")
package nni.api.tuner;
