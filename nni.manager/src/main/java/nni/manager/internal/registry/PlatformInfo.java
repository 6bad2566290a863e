package nni.manager.internal.registry;

/**
 * One installed platform as {@code nni:platforms} and {@code /api/v1/nni/platforms} show it.
 *
 * @param name     the platform name experiments use
 * @param bundle   symbolic name of the bundle that provides it
 * @param version  that bundle's version
 * @param state    {@code active}, or {@code shadowed} when another service answers to the name
 * @param sessions how many experiment sessions it serves now
 */
public record PlatformInfo(String name, String bundle, String version, String state, int sessions) {
    @Override
    public String toString() {
        return String.format("%-22s %-34s %-16s %-9s %d", name, bundle, version, state, sessions);
    }
}
