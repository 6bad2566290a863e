package nni.shell.internal.console;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.apache.felix.service.command.Descriptor;
import org.apache.felix.service.command.Parameter;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;

/**
 * The Gogo commands registered now, as {@code help} lists them: {@code scope:function} with the
 * description of the function's {@link Descriptor}. Read from the service registry each time, so a
 * bundle's commands come and go with it.
 */
final class CommandHelp {

    private final BundleContext context;

    CommandHelp(BundleContext context) {
        this.context = context;
    }

    /** @return every command as {@code scope:function}, with its description (empty when it has none), by name */
    Map<String, String> commands() {
        Map<String, String> commands = new TreeMap<>();
        ServiceReference<?>[] references;
        try {
            references = context.getServiceReferences((String) null, "(&(osgi.command.scope=*)(osgi.command.function=*))");
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException(e);
        }
        for (ServiceReference<?> reference : references == null ? new ServiceReference<?>[0] : references) {
            String scope = String.valueOf(reference.getProperty("osgi.command.scope"));
            Object service = context.getService(reference);
            try {
                for (String function : functions(reference.getProperty("osgi.command.function"))) {
                    commands.put(scope + ":" + function, service == null ? "" : description(service.getClass(), function));
                }
            } finally {
                if (service != null) {
                    context.ungetService(reference);
                }
            }
        }
        return commands;
    }

    /**
     * @param name a command as {@code scope:function}
     * @return the options its methods take ({@link Parameter} names), empty when it has none or is not registered
     */
    Set<String> options(String name) {
        int colon = name.indexOf(':');
        if (colon < 0 || !name.substring(colon + 1).matches("[A-Za-z_][\\w]*")) {
            return Set.of();
        }
        String scope = name.substring(0, colon);
        String function = name.substring(colon + 1);
        ServiceReference<?>[] references;
        try {
            references = context.getServiceReferences((String) null, "(&(osgi.command.scope=" + scope
                    + ")(osgi.command.function=" + function + "))");
        } catch (InvalidSyntaxException e) {
            return Set.of();
        }
        Set<String> options = new TreeSet<>();
        for (ServiceReference<?> reference : references == null ? new ServiceReference<?>[0] : references) {
            Object service = context.getService(reference);
            if (service == null) {
                continue;
            }
            try {
                for (Method method : service.getClass().getMethods()) {
                    if (method.getName().equals(function) || method.getName().equals("_" + function)) {
                        for (Annotation[] annotations : method.getParameterAnnotations()) {
                            for (Annotation annotation : annotations) {
                                if (annotation instanceof Parameter parameter) {
                                    options.addAll(List.of(parameter.names()));
                                }
                            }
                        }
                    }
                }
            } finally {
                context.ungetService(reference);
            }
        }
        return options;
    }

    /** @return the listing {@code help} shows: NNI's commands with their descriptions, then the others by scope */
    String listing() {
        Map<String, String> commands = commands();
        StringBuilder text = new StringBuilder("NNI commands (name --help, or help name, shows one in full):\n");
        int width = commands.keySet().stream().filter(n -> n.startsWith("nni:")).mapToInt(String::length).max().orElse(0);
        commands.forEach((name, description) -> {
            if (name.startsWith("nni:") && !name.equals("nni:_import")) {
                text.append(String.format("  %-" + width + "s  %s%n", name, firstSentence(description)));
            }
        });
        Map<String, List<String>> others = new TreeMap<>();
        commands.keySet().stream().filter(n -> !n.startsWith("nni:")).forEach(name -> {
            int colon = name.indexOf(':');
            others.computeIfAbsent(name.substring(0, colon), s -> new ArrayList<>()).add(name.substring(colon + 1));
        });
        text.append("Other commands, by scope (stop 0 stops the runtime):\n");
        others.forEach((scope, names) -> text.append("  ").append(scope).append(": ").append(String.join(" ", names)).append('\n'));
        return text.toString();
    }

    private static String firstSentence(String description) {
        int end = description.indexOf(": ");
        return description.isEmpty() ? "" : end > 0 && end < 70 ? description.substring(0, end) : description;
    }

    private static List<String> functions(Object property) {
        if (property instanceof String[] all) {
            return List.of(all);
        }
        if (property instanceof java.util.Collection<?> all) {
            return all.stream().map(String::valueOf).toList();
        }
        return List.of(String.valueOf(property));
    }

    private static String description(Class<?> type, String function) {
        String wanted = function.equals("import") ? "importdata" : function;
        for (Method method : type.getMethods()) {
            Descriptor descriptor = method.getAnnotation(Descriptor.class);
            if (descriptor != null && (method.getName().equals(wanted) || method.getName().equals("_" + wanted)
                    || method.getName().equalsIgnoreCase("get" + wanted))) {
                return descriptor.value();
            }
        }
        return "";
    }
}
