package nni.dispatcher.internal;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import nni.api.tuner.DispatcherException;

/**
 * How one command travels in one WebSocket text message, by the version of the installed nni
 * (nni-core §2.5): v3.0 and later {@code {"type": "XX", "content": "..."}} with the control types
 * {@code _nop_} (keep-alive) and {@code _bye_} (graceful close); v2.8 to v2.10 {@code XX} followed by
 * the payload. Older versions talk over pipes, not WebSockets, and are refused.
 */
enum Framing {

    JSON {
        @Override
        String encode(String type, String content) {
            ObjectNode command = MAPPER.createObjectNode().put("type", type);
            if (content != null) {
                command.put("content", content);
            }
            return command.toString();
        }

        @Override
        Command decode(String text) {
            JsonNode node;
            try {
                node = MAPPER.readTree(text);
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException("not a JSON command: " + abbreviate(text));
            }
            if (node == null || !node.path("type").isTextual()) {
                throw new IllegalArgumentException("a command without a type: " + abbreviate(text));
            }
            JsonNode content = node.get("content");
            return new Command(node.get("type").asText(), content == null || content.isNull() ? ""
                    : content.isTextual() ? content.asText() : content.toString());
        }
    },

    PLAIN {
        @Override
        String encode(String type, String content) {
            return content == null ? type : type + content;
        }

        @Override
        Command decode(String text) {
            if (text.length() < 2) {
                throw new IllegalArgumentException("a command shorter than its type: " + abbreviate(text));
            }
            return new Command(text.substring(0, 2), text.substring(2));
        }
    };

    /** One command: NNI's two-letter type (or a control type) and its payload. */
    record Command(String type, String content) {
    }

    static final String KEEP_ALIVE = "_nop_";
    static final String BYE = "_bye_";

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Pattern VERSION = Pattern.compile("^\\s*v?(\\d+)\\.(\\d+)");

    abstract String encode(String type, String content);

    /** @throws IllegalArgumentException when the text is not a command of this framing */
    abstract Command decode(String text);

    /**
     * @param version what {@code nni.__version__} says ({@code 3.0}, {@code 2.10}, {@code 999.dev0})
     * @throws DispatcherException for a version without the WebSocket channel (before 2.8)
     */
    static Framing forVersion(String version) throws DispatcherException {
        Matcher m = VERSION.matcher(version);
        if (!m.find()) {
            return JSON; // a development build: the current protocol
        }
        int major = Integer.parseInt(m.group(1));
        int minor = Integer.parseInt(m.group(2));
        if (major >= 3) {
            return JSON;
        }
        if (major == 2 && minor >= 8) {
            return PLAIN;
        }
        throw new DispatcherException("the installed nni is " + version.strip() + ", whose dispatcher talks over pipes;"
                + " nni-osgi speaks the WebSocket channel of nni 2.8 and later: upgrade it (pip install -U nni)");
    }

    static String abbreviate(String text) {
        return text.length() > 200 ? text.substring(0, 200) + "..." : text;
    }
}
