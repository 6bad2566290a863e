package nni.keeper.internal.reuse;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.function.Supplier;

import nni.api.platform.PlatformException;

/**
 * The one place that decides the URL keepers call the manager back at, for every keeper platform
 * (local reuse, remote, the clusters and clouds): always an address where the port really listens.
 * <ol>
 * <li>{@code nniManagerIp}, when the experiment gives it (the user knows how the workers reach
 *     this machine: a NAT, a tunnel);</li>
 * <li>else the address the port is bound to ({@code --host}, Felix HTTP's host), as the HTTP
 *     runtime publishes it ({@code osgi.http.endpoint}): a port bound to 127.0.0.2 is called at
 *     127.0.0.2, never at 127.0.0.1 where nothing listens;</li>
 * <li>a port bound to every address (0.0.0.0): keepers on this machine use loopback; keepers
 *     elsewhere the address this machine reaches the outside from (as NNI guesses it), else the
 *     first address the runtime publishes.</li>
 * </ol>
 */
final class ManagerAddress {

    /** What the decision says, and why, for the session's log. */
    record Decision(String url, String why) {
    }

    private ManagerAddress() {
    }

    /**
     * @param nniManagerIp the experiment's {@code nniManagerIp}, or null/blank
     * @param endpoints    the HTTP runtime's endpoints ({@code http://host:port/}), in its order
     * @param boundToAll   whether the port is bound to every address (host 0.0.0.0, ::, or none)
     * @param sameMachine  whether the keepers run on this machine (local reuse)
     * @param outward      this machine's address towards the outside, or null; asked only when needed
     * @throws PlatformException when there is no endpoint to take the port from
     */
    static Decision decide(String nniManagerIp, List<String> endpoints, boolean boundToAll, boolean sameMachine,
                           Supplier<String> outward) throws PlatformException {
        if (endpoints.isEmpty()) {
            throw new PlatformException("the manager's HTTP port publishes no address yet; keepers would have nowhere to report");
        }
        URI first = URI.create(endpoints.get(0));
        String host;
        String why;
        if (nniManagerIp != null && !nniManagerIp.isBlank()) {
            host = nniManagerIp.strip();
            why = "nniManagerIp";
        } else if (!boundToAll && first.getHost() != null) {
            host = first.getHost();
            why = "the address the port is bound to";
        } else if (sameMachine) {
            host = "127.0.0.1";
            why = "loopback: the port is bound to every address and the keepers run on this machine";
        } else {
            String guess = outward.get();
            host = guess != null ? guess : first.getHost();
            why = "nniManagerIp is not set and the port is bound to every address: "
                    + (guess != null ? "the address this machine reaches the outside from" : "the first address the port publishes");
        }
        if (host == null) {
            throw new PlatformException("cannot tell where keepers reach the manager from " + endpoints + "; set nniManagerIp");
        }
        String literal = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
        return new Decision((first.getScheme() == null ? "http" : first.getScheme()) + "://" + literal + ":" + first.getPort() + "/", why);
    }

    /** @return whether a configured host binds every address */
    static boolean bindsAll(String configuredHost) {
        return configuredHost == null || configuredHost.isBlank() || List.of("0.0.0.0", "::", "[::]", "0:0:0:0:0:0:0:0")
                .contains(configuredHost.strip());
    }

    /** @return whether the URL's host is a loopback address (literal addresses and localhost only: no name is looked up) */
    static boolean loopback(String url) {
        String host = URI.create(url).getHost();
        if (host == null) {
            return false;
        }
        String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        try {
            return bare.equalsIgnoreCase("localhost") || bare.matches("[0-9a-fA-F:.]+") && InetAddress.getByName(bare).isLoopbackAddress();
        } catch (IOException e) {
            return false;
        }
    }

    /** @return the address this machine sends from towards the outside (no packet is sent), or null */
    static String outwardAddress() {
        try (DatagramSocket socket = new DatagramSocket()) {
            socket.connect(new InetSocketAddress(InetAddress.getByName("192.0.2.0"), 1));
            InetAddress local = socket.getLocalAddress();
            return local == null || local.isAnyLocalAddress() ? null : local.getHostAddress();
        } catch (IOException e) {
            return null; // no route
        }
    }
}
