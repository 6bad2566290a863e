/**
 * The base of the runtime's JSON servlets, shared by the bundles that serve on the manager's
 * endpoint (NNI's REST routes of {@code nni.web}, the web UI's of {@code nni.ui}, the keeper routes of
 * {@code nni.keeper}, the console's of {@code nni.shell}): a
 * {@link nni.http.JsonServlet} with its {@link nni.http.Router}, request bodies admitted and read
 * within the limits of the one {@link nni.http.RequestBodies} service (configuration
 * {@code nni.manager.http}), refusals as {@link nni.http.HttpError} answered in JSON, and the
 * {@link nni.http.TokenFile} that keeps an access token (the login's, the console's).
 *
 * <p>A library of the runtime's own bundles, not an API for outside ones: it is exported (so that
 * every bundle shares one class space and the one {@code RequestBodies} service, which a private
 * copy in each bundle could not) but not baselined, and may change with the bundles that use it.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.3.0")
package nni.http;
