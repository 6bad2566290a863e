package nni.api.searchspace;

/**
 * One option of a {@code choice}.
 *
 * @param value    the option as written (a number, string, boolean, null, or a mapping); for a nested
 *                 option the mapping with {@code _name}
 * @param name     a nested option's {@code _name}, or null for a plain option
 * @param subSpace a nested option's parameters (every key but {@code _name}), or null for a plain option
 */
public record Option(Object value, String name, SearchSpace subSpace) {

    /** @return whether choosing this option activates a sub-space */
    public boolean nested() {
        return name != null;
    }
}
