package nni.api.experiment;

import java.util.Objects;

/**
 * The configuration file an experiment was created from, as the user wrote it (comments, order,
 * v1 or v2), kept beside the experiment with its secrets masked. Read-only. Made with
 * {@link #builder(String, String)}; fields may be added in minor versions (since 1.5).
 */
public final class GivenConfigFile {

    private final String fileName;
    private final String text;

    private GivenConfigFile(Builder b) {
        this.fileName = Objects.requireNonNull(b.fileName, "fileName");
        this.text = Objects.requireNonNull(b.text, "text");
    }

    /**
     * @param fileName the file's name as given ({@code config.yml}), without its folder
     * @param text     its text, secrets masked
     */
    public static Builder builder(String fileName, String text) {
        return new Builder(fileName, text);
    }

    /** @return the file's name as given, without its folder */
    public String fileName() {
        return fileName;
    }

    /** @return its text as the user wrote it, secrets masked */
    public String text() {
        return text;
    }

    @Override
    public String toString() {
        return "given config " + fileName;
    }

    public static final class Builder {
        private final String fileName;
        private final String text;

        private Builder(String fileName, String text) {
            this.fileName = fileName;
            this.text = text;
        }

        public GivenConfigFile build() {
            return new GivenConfigFile(this);
        }
    }
}
