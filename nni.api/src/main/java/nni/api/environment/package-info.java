/**
 * Trials through the trial keeper: what a platform implements to start one keeper process
 * somewhere ({@link nni.api.environment.EnvironmentLauncher}) and what the manager provides to
 * schedule trials onto such keepers ({@link nni.api.environment.KeeperSessions}), in reuse mode
 * (long-lived environments running trials one after another) or one keeper per trial.
 *
 * <h2>The keeper and its protocol</h2>
 * There are two keepers with the same protocol ({@link nni.api.environment.KeeperRuntime}): a
 * standalone jar needing only a Java 17 runtime on the worker, and a single Python file needing
 * only Python 3.7 ({@link nni.api.environment.KeeperSessions#keeperFile}). It talks to the manager's one HTTP endpoint under
 * {@code /api/v1/nni-trial/<experiment>/<keeper id>/}: {@code handshake}, {@code reports}
 * (batches of numbered reports: started, metric, ended, log, ready), {@code commands}
 * (long poll: new-trial, kill, send-parameter, log-tail, stop). Every request carries the keeper's
 * secret token; a request without the right one gets 401 and changes nothing.
 *
 * <h2>Versions</h2>
 * Keeper and manager exchange their versions and the protocol version at the handshake. The
 * manager accepts the protocols it lists (today: 1); the keeper accepts a manager only if it
 * answers with the keeper's own protocol. Product versions may differ; a protocol mismatch is
 * refused on both sides with a message naming both versions and telling the user to run the
 * keeper the manager ships.
 *
 * <h2>Transports</h2>
 * Since 1.1 the same protocol also runs over files on a storage that the manager and the workers
 * share ({@link nni.api.environment.KeeperTransport#sharedFiles}), for workers that cannot open a
 * connection to the manager: a platform chooses it with
 * {@link nni.api.environment.KeeperOptions.Builder#transport}.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.2.0")
package nni.api.environment;
