/**
 * NNI's experiment files as the engine reads them: {@link nni.config.ExperimentConfigLoader} loads a
 * v2 file (or one a {@link nni.api.config.ConfigFormat} converts), canonicalizes it as NNI does and
 * reports every problem with file, line, column and key path; {@link nni.config.ExperimentConfig} is
 * the typed result, {@link nni.config.ConfigCodec} its stored form, {@link nni.config.GivenConfig} the
 * file as written, secrets masked.
 *
 * <p>Exported for {@code nni.manager}, which makes the loader with its registries, not as an SPI: the
 * types may change with a minor version. Faces never use it; they check and create experiments
 * through {@code nni.api.experiment}.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package nni.config;
