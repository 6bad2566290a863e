package nni.ts.cloud;

/**
 * Where a cluster's jobs could call the manager, for a platform's {@code keeper.transport = auto}:
 * the file transport is chosen when nothing outside this machine can reach it for sure.
 *
 * @param nniManagerIp the experiment's {@code nniManagerIp}, or null
 * @param httpHost     the host the manager's port is bound to ({@code org.apache.felix.http.host}), or null (every address)
 */
public record ManagerAddress(String nniManagerIp, String httpHost) {

    /** The framework property that names the host the manager's port is bound to (Felix HTTP's). */
    public static final String HTTP_HOST = "org.apache.felix.http.host";

    /** @return whether no address of the manager is reachable from elsewhere: no nniManagerIp and the port on loopback only */
    public boolean unreachable() {
        return (nniManagerIp == null || nniManagerIp.isBlank()) && loopback(httpHost);
    }

    /** @return where the jobs call the manager, for messages */
    public String describe() {
        if (nniManagerIp != null && !nniManagerIp.isBlank()) {
            return "nniManagerIp " + nniManagerIp.strip();
        }
        if (httpHost == null || httpHost.isBlank() || httpHost.strip().matches("0\\.0\\.0\\.0|::|\\[::]")) {
            return "this machine's outward address (nniManagerIp is not set and the port is bound to every address)";
        }
        return "the address the port is bound to, " + httpHost.strip();
    }

    /** @return whether the host is a loopback address (a literal or localhost; nothing is looked up) */
    public static boolean loopback(String host) {
        if (host == null || host.isBlank()) {
            return false;
        }
        String bare = host.strip();
        return bare.equalsIgnoreCase("localhost") || bare.startsWith("127.") || bare.equals("::1") || bare.equals("[::1]");
    }
}
