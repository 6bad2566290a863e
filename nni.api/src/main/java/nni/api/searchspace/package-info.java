/**
 * NNI's search space ({@code {"lr": {"_type": "loguniform", "_value": [1e-4, 0.1]}}}) parsed and
 * checked, so that tuners get a typed model instead of raw JSON.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package nni.api.searchspace;
