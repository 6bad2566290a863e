package nni.config;

import nni.api.experiment.ErrorText;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.Yaml;

import nni.api.config.ConfigReader;

/**
 * An experiment file parsed into plain values (Map, List, String, Integer/Long, Double, Boolean,
 * null), with the line and column of every value, so that a problem found anywhere can be pointed
 * at. YAML 1.1 as PyYAML reads it ({@code yes} is true, {@code 1e-7} is a string); JSON loads
 * through the same parser, as in NNI.
 */
final class ConfigSource {

    /** A 1-based position in the file. */
    record Position(int line, int column) {
    }

    private final Path file;
    private final Object root;
    private final Map<String, Position> positions;

    private ConfigSource(Path file, Object root, Map<String, Position> positions) {
        this.file = file;
        this.root = root;
        this.positions = positions;
    }

    /**
     * @throws ConfigException when the file cannot be read or is not well-formed YAML/JSON
     */
    static ConfigSource read(Path file) throws ConfigException {
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            Node node = new Yaml(new LoaderOptions()).compose(reader);
            Map<String, Position> positions = new HashMap<>();
            Object root = node == null ? null : new Converter(positions).value(node, "");
            return new ConfigSource(file, root, positions);
        } catch (MarkedYAMLException e) {
            Mark mark = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
            String problem = e.getProblem() != null ? e.getProblem() : e.getContext();
            throw new ConfigException(List.of(new ConfigError(file, mark == null ? 1 : mark.getLine() + 1,
                    mark == null ? 1 : mark.getColumn() + 1, "", "not valid YAML or JSON: " + problem)));
        } catch (java.nio.file.NoSuchFileException e) {
            throw new ConfigException(List.of(new ConfigError(file, 1, 1, "", "no such file")));
        } catch (IOException e) {
            throw new ConfigException(List.of(new ConfigError(file, 1, 1, "", "cannot read the file: " + ErrorText.of(e))));
        } catch (RuntimeException e) {
            // SnakeYAML wraps a failed read (a directory, a permission) in its own exception
            String problem = e.getCause() instanceof IOException cause ? "cannot read the file: " + ErrorText.of(cause)
                    : "not valid YAML or JSON: " + ErrorText.of(e);
            throw new ConfigException(List.of(new ConfigError(file, 1, 1, "", problem)));
        }
    }

    /**
     * @param origins v2 key path to the key path in this file it came from ({@link nni.api.config.ConfigConversion#origins()})
     * @return the v2 form a format converted this file to, each v2 path located where its origin is in this file
     */
    ConfigSource converted(Map<String, Object> tree, Map<String, String> origins) {
        Map<String, Position> located = new HashMap<>();
        origins.forEach((path, origin) -> {
            Position position = positions.get(normalizePath(origin));
            if (position != null) {
                located.put(normalizePath(path), position);
            }
        });
        return new ConfigSource(file, tree, located);
    }

    Path file() {
        return file;
    }

    Object root() {
        return root;
    }

    /** @return the position of the value at {@code keyPath}, or of the nearest enclosing one that exists */
    Position position(String keyPath) {
        String key = normalizePath(keyPath);
        while (true) {
            Position position = positions.get(key);
            if (position != null) {
                return position;
            }
            if (key.isEmpty()) {
                return new Position(1, 1);
            }
            int cut = Math.max(key.lastIndexOf('.'), key.lastIndexOf('['));
            key = cut < 0 ? "" : key.substring(0, cut);
        }
    }

    /** @return a problem at {@code keyPath}, located in this file */
    ConfigError error(String keyPath, String message) {
        Position position = position(keyPath);
        return new ConfigError(file, position.line(), position.column(), keyPath, message);
    }

    /** @return {@code keyPath} with every key compared as NNI compares keys */
    static String normalizePath(String keyPath) {
        StringBuilder normal = new StringBuilder();
        for (String segment : keyPath.split("\\.", -1)) {
            if (normal.length() > 0) {
                normal.append('.');
            }
            normal.append(ConfigReader.normalize(segment));
        }
        return normal.toString();
    }

    static String child(String path, String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    /** Turns nodes into values, recording positions; scalars are resolved as YAML 1.1 does. */
    private static final class Converter extends SafeConstructor {
        private final Map<String, Position> positions;

        Converter(Map<String, Position> positions) {
            super(new LoaderOptions());
            this.positions = positions;
        }

        Object value(Node node, String path) {
            positions.putIfAbsent(normalizePath(path), new Position(node.getStartMark().getLine() + 1,
                    node.getStartMark().getColumn() + 1));
            if (node instanceof MappingNode mapping) {
                flattenMapping(mapping);
                Map<String, Object> map = new LinkedHashMap<>();
                for (NodeTuple tuple : mapping.getValue()) {
                    Object key = constructObject(tuple.getKeyNode());
                    String name = String.valueOf(key);
                    Node valueNode = tuple.getValueNode();
                    Node at = valueNode instanceof ScalarNode ? valueNode : tuple.getKeyNode();
                    String childPath = child(path, name);
                    positions.put(normalizePath(childPath), new Position(at.getStartMark().getLine() + 1,
                            at.getStartMark().getColumn() + 1));
                    map.put(name, value(valueNode, childPath));
                }
                return map;
            }
            if (node instanceof SequenceNode sequence) {
                List<Object> list = new ArrayList<>();
                for (Node element : sequence.getValue()) {
                    list.add(value(element, path + "[" + list.size() + "]"));
                }
                return list;
            }
            Object scalar = constructObject(node);
            if (scalar instanceof java.math.BigInteger big && big.bitLength() < 64) {
                return big.longValue();
            }
            return scalar;
        }
    }
}
