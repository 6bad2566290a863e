package nni.runtime.internal.config;

import java.util.List;

import org.osgi.service.metatype.AttributeDefinition;

/**
 * Whether a setting's text fits its Metatype: its type, its options and Metatype's own validation.
 * One rule for the web UI's platform forms and for {@code etc/*.cfg} ({@link ConfigurationCheck}).
 */
public final class SettingCheck {

    private SettingCheck() {
    }

    /** @return what the setting expects ({@code expected an integer ...}), or null when the text fits */
    public static String problem(AttributeDefinition attribute, String text) {
        String[] options = attribute.getOptionValues();
        String problem = problem(attribute.getType(), options == null ? List.of() : List.of(options), text);
        if (problem != null) {
            return problem;
        }
        problem = attribute.validate(text);
        return problem == null || problem.isEmpty() ? null : problem;
    }

    /**
     * @param type    Metatype's type of the setting ({@link AttributeDefinition#INTEGER}, ...)
     * @param options the values allowed, empty for any
     * @return what the setting expects by its type and options, or null when the text fits them
     */
    public static String problem(int type, List<String> options, String text) {
        try {
            switch (type) {
                case AttributeDefinition.INTEGER -> Integer.parseInt(text);
                case AttributeDefinition.LONG -> Long.parseLong(text);
                case AttributeDefinition.SHORT -> Short.parseShort(text);
                case AttributeDefinition.BYTE -> Byte.parseByte(text);
                case AttributeDefinition.DOUBLE, AttributeDefinition.FLOAT -> {
                    if (!Double.isFinite(Double.parseDouble(text))) {
                        throw new NumberFormatException();
                    }
                }
                case AttributeDefinition.BOOLEAN -> {
                    if (!text.equals("true") && !text.equals("false")) {
                        throw new NumberFormatException();
                    }
                }
                default -> {
                    // text
                }
            }
        } catch (NumberFormatException e) {
            return "expected " + typeName(type);
        }
        if (!options.isEmpty() && !options.contains(text)) {
            return "expected one of " + String.join(", ", options);
        }
        return null;
    }

    private static String typeName(int type) {
        return switch (type) {
            case AttributeDefinition.INTEGER -> "an integer " + Integer.MIN_VALUE + "-" + Integer.MAX_VALUE;
            case AttributeDefinition.LONG -> "an integer " + Long.MIN_VALUE + "-" + Long.MAX_VALUE;
            case AttributeDefinition.SHORT -> "an integer " + Short.MIN_VALUE + "-" + Short.MAX_VALUE;
            case AttributeDefinition.BYTE -> "an integer " + Byte.MIN_VALUE + "-" + Byte.MAX_VALUE;
            case AttributeDefinition.DOUBLE, AttributeDefinition.FLOAT -> "a finite number";
            case AttributeDefinition.BOOLEAN -> "true or false";
            default -> "text";
        };
    }
}
