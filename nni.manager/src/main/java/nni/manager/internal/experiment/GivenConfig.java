package nni.manager.internal.experiment;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.Optional;

import nni.manager.internal.config.ExperimentConfig;

/**
 * The experiment's config file as the user wrote it (comments, order, v1 spelling and all), beside
 * the canonical form the runtime works from: kept in the experiment's folder as
 * {@code given/<the file's name>}, written once when the experiment is created and never touched
 * by a resume. Its secrets are masked before it is written, as the stored definition's are: every
 * place where a secret's value appears in the text reads {@link ExperimentConfig#MASK}; the real
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

    /** @return this text with every secret of {@code config} replaced by the mask, longest first (one may contain another) */
    public GivenConfig masked(ExperimentConfig config) {
        String masked = text;
        for (String secret : config.secretValues().values().stream().filter(value -> !value.isEmpty())
                .sorted(Comparator.comparingInt(String::length).reversed()).toList()) {
            masked = masked.replace(secret, ExperimentConfig.MASK);
        }
        return new GivenConfig(fileName, masked);
    }

    /** Writes the text as {@code <experiment>/given/<name>}, readable by the owner only (it is the user's file). */
    void store(Path experimentDirectory) throws IOException {
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
