/**
 * One experiment's database: {@link nni.store.ExperimentStore} opens {@code <exp>/db/nni.sqlite} in
 * NNI's schema, writes trial events, metrics (in group commits), the profile and the definition, and
 * reads them back; {@code WalCheckpointer} keeps the write-ahead log short from a thread of its own.
 *
 * <p>The engine's persistence, exported for {@code nni.manager} (and the tests that read a run's
 * database afterwards), not an SPI: the types are the engine's records and may change with a minor
 * version. Faces never use it; they read experiments through {@code nni.api.experiment}.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package nni.store;
