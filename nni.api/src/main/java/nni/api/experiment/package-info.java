/**
 * Experiments as a service: what the runtime's faces (NNI's REST routes, the console, the web UI)
 * and outside bundles use to create, run, change and read experiments, without reaching into the
 * manager.
 *
 * <ul>
 * <li>{@link nni.api.experiment.ExperimentService}: the operations, each answering an
 *     {@link nni.api.experiment.Outcome}: a value, or a {@link nni.api.experiment.Refusal} saying
 *     why not (not found, conflicting with the experiment's state, invalid input naming the field),
 *     which each face maps once to its own answer (an HTTP status, a console message).</li>
 * <li>{@link nni.api.experiment.ExperimentUpdate}: what can change while an experiment runs, typed
 *     and checked once where the request enters.</li>
 * <li>{@link nni.api.experiment.ExperimentInfo}, {@link nni.api.experiment.TrialInfo},
 *     {@link nni.api.experiment.MetricInfo}: read-only views at one moment; the fuller ones NNI's
 *     REST routes answer, {@link nni.api.experiment.ExperimentProfile} and
 *     {@link nni.api.experiment.TrialDetail} (since 1.3).</li>
 * <li>{@link nni.api.experiment.ExperimentListener}: a whiteboard; register one as a service to be
 *     told of experiment and trial changes.</li>
 * <li>{@link nni.api.experiment.ExperimentsRoot}: where experiments live, for every bundle that
 *     finds an experiment's folder by its id (since 1.2).</li>
 * <li>{@link nni.api.experiment.NnictlRegistry}: NNI's experiment registry as {@code nnictl} reads
 *     it, for NNI's REST routes outside the manager (since 1.4).</li>
 * <li>{@link nni.api.experiment.InstalledPlatforms}: the training platforms installed, each a
 *     {@link nni.api.experiment.PlatformView}, listed without activating any (since 1.5).</li>
 * <li>{@link nni.api.experiment.TrialSummary}: trials with their intermediate results counted, for
 *     views over many trials such as the web UI's table and charts; {@link nni.api.experiment.ExperimentReading}:
 *     an experiment read for looking at, open or only stored, without opening it, with the
 *     {@link nni.api.experiment.GivenConfigFile} it was created from, and its
 *     {@link nni.api.experiment.ExperimentSummary} for an overview, its
 *     {@link nni.api.experiment.ExperimentMember}s with their sessions and its trials'
 *     {@link nni.api.experiment.TrialEvent}s (since 1.5).</li>
 * <li>{@link nni.api.experiment.ConfigurationRefusals}: the configuration files whose values the
 *     runtime refused, and {@link nni.api.experiment.ProviderIntake}: whether it took in the
 *     platforms and algorithms registered, for a face waiting for it to be ready (since 1.5).</li>
 * <li>{@link nni.api.experiment.ExperimentEntry}: one experiment of the list of every one under the
 *     root, open or stored, with its status and summary, for lists of experiments (since 1.5).</li>
 * <li>{@link nni.api.experiment.PlatformSettingCheck}: the rule a platform's setting is checked by,
 *     for a face that edits platform configurations (since 1.5).</li>
 * <li>{@link nni.api.experiment.ExperimentService#create(java.nio.file.Path, java.util.function.BiConsumer)}:
 *     an experiment created with its id told before anything of it is written, and
 *     {@link nni.api.experiment.ExperimentService#settled(String)}: when one settles, for a face that
 *     follows an experiment to its end; {@link nni.api.experiment.ExperimentInfo#trialsWhenOpened()}
 *     (since 1.5).</li>
 * </ul>
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.5.0")
package nni.api.experiment;
