package nni.config;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;


/**
 * The experiment's config file as the user wrote it (comments, order, v1 spelling and all), beside
 * the canonical form the runtime works from: kept in the experiment's folder as
 * {@code given/<the file's name>}, written once when the experiment is created and never touched
 * by a resume. Its secrets are masked before it is written, as the stored definition's are: every
 * place where a secret's value appears reads {@link ExperimentConfig#MASK}, also where the text
 * does not show it as such (YAML escapes such as {@code "p\u0061ss"}, a folded string); the real
 * values stay only in {@code secrets.json}.
 *
 * @param fileName the name the file had ({@code config.yml})
 * @param text     its text
 */
public record GivenConfig(String fileName, String text) {

    static final String FOLDER = "given";

    /** @return the file's name and text, read now (just after the config was loaded from it) */
    public static GivenConfig read(Path file) throws IOException {
        return new GivenConfig(file.getFileName().toString(), Files.readString(file, StandardCharsets.UTF_8));
    }

    /**
     * @return this text with each YAML value carrying a secret of {@code config} written again, double
     *         quoted, with the secret masked (whatever escapes or folding the user wrote it with; the
     *         result stays valid YAML, as a bare {@code ********} would not be), then every secret still
     *         in the text (a comment) replaced by the mask; longest first, as one may contain another
     */
    public GivenConfig masked(ExperimentConfig config) {
        List<String> secrets = config.secretValues().values().stream().filter(value -> !value.isEmpty())
                .sorted(Comparator.comparingInt(String::length).reversed()).toList();
        if (secrets.isEmpty()) {
            return this;
        }
        String masked = maskValuesCarrying(text, secrets);
        for (String secret : secrets) {
            masked = masked.replace(secret, ExperimentConfig.MASK);
        }
        return new GivenConfig(fileName, masked);
    }

    private static String maskValuesCarrying(String yaml, List<String> secrets) {
        List<ScalarNode> carrying = new ArrayList<>();
        try {
            for (Node document : new Yaml(new LoaderOptions()).composeAll(new StringReader(yaml))) {
                collect(document, secrets, carrying, new IdentityHashMap<>());
            }
        } catch (YAMLException e) {
            return yaml; // it was read as YAML before; text replacement is all that can be done here
        }
        StringBuilder out = new StringBuilder(yaml);
        carrying.sort(Comparator.comparingInt((ScalarNode scalar) -> scalar.getStartMark().getIndex()).reversed());
        for (ScalarNode scalar : carrying) {
            // marks count code points; a block scalar's span ends with its line break, which stays
            int start = yaml.offsetByCodePoints(0, scalar.getStartMark().getIndex());
            int end = yaml.offsetByCodePoints(0, scalar.getEndMark().getIndex());
            String value = scalar.getValue();
            for (String secret : secrets) {
                value = value.replace(secret, ExperimentConfig.MASK);
            }
            out.replace(start, end, doubleQuoted(value) + (yaml.substring(start, end).endsWith("\n") ? "\n" : ""));
        }
        return out.toString();
    }

    private static String doubleQuoted(String value) {
        StringBuilder quoted = new StringBuilder("\"");
        value.codePoints().forEach(c -> {
            switch (c) {
                case '"' -> quoted.append("\\\"");
                case '\\' -> quoted.append("\\\\");
                case '\n' -> quoted.append("\\n");
                case '\t' -> quoted.append("\\t");
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        quoted.append(String.format("\\x%02x", c));
                    } else {
                        quoted.appendCodePoint(c);
                    }
                }
            }
        });
        return quoted.append('"').toString();
    }

    private static void collect(Node node, List<String> secrets, List<ScalarNode> carrying, Map<Node, Boolean> seen) {
        if (node == null || seen.put(node, Boolean.TRUE) != null) {
            return;
        }
        if (node instanceof ScalarNode scalar) {
            if (secrets.stream().anyMatch(scalar.getValue()::contains)) {
                carrying.add(scalar);
            }
        } else if (node instanceof SequenceNode sequence) {
            sequence.getValue().forEach(item -> collect(item, secrets, carrying, seen));
        } else if (node instanceof MappingNode mapping) {
            for (NodeTuple tuple : mapping.getValue()) {
                collect(tuple.getKeyNode(), secrets, carrying, seen);
                collect(tuple.getValueNode(), secrets, carrying, seen);
            }
        }
    }

    /** Writes the text as {@code <experiment>/given/<name>}, readable by the owner only (it is the user's file). */
    public void store(Path experimentDirectory) throws IOException {
        Path folder = Files.createDirectories(experimentDirectory.resolve(FOLDER));
        FileAttribute<?>[] ownerOnly = FileSystems.getDefault().supportedFileAttributeViews().contains("posix")
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))}
                : new FileAttribute<?>[0];
        Files.writeString(Files.createFile(folder.resolve(fileName), ownerOnly), text, StandardCharsets.UTF_8);
    }

    /** @return the text kept in the experiment's folder; empty for an experiment created before it was kept */
    public static Optional<GivenConfig> stored(Path experimentDirectory) throws IOException {
        Path folder = experimentDirectory.resolve(FOLDER);
        if (!Files.isDirectory(folder)) {
            return Optional.empty();
        }
        try (var files = Files.list(folder)) {
            Optional<Path> file = files.filter(Files::isRegularFile).findFirst();
            if (file.isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(new GivenConfig(file.get().getFileName().toString(),
                    Files.readString(file.get(), StandardCharsets.UTF_8)));
        } catch (NoSuchFileException deleted) {
            return Optional.empty();
        }
    }
}
