package nni.ts.remote.internal.schedule;

import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;

/** Reads the output of {@code nvidia-smi -q -x}. */
public final class NvidiaSmi {

    /** The command run on a machine (after {@code pythonPath} is put on PATH). */
    public static final String COMMAND = "nvidia-smi -q -x";

    private NvidiaSmi() {
    }

    /**
     * @return the GPUs, in the order listed
     * @throws IllegalArgumentException when the text is not nvidia-smi's XML; the message says why
     */
    public static List<GpuInfo> parse(String xml) {
        Document document;
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            // nvidia-smi names a DTD it does not ship: never fetch it, never expand entities
            factory.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
            factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            factory.setExpandEntityReferences(false);
            factory.setXIncludeAware(false);
            DocumentBuilder builder = factory.newDocumentBuilder();
            builder.setErrorHandler(null);
            document = builder.parse(new InputSource(new StringReader(xml)));
        } catch (ParserConfigurationException | SAXException | IOException e) {
            throw new IllegalArgumentException("nvidia-smi output is not XML: " + e.getMessage(), e);
        }
        Element root = document.getDocumentElement();
        if (!"nvidia_smi_log".equals(root.getTagName())) {
            throw new IllegalArgumentException("nvidia-smi output has root <" + root.getTagName() + ">, expected <nvidia_smi_log>");
        }
        List<GpuInfo> gpus = new ArrayList<>();
        NodeList nodes = root.getChildNodes();
        int position = 0;
        for (int i = 0; i < nodes.getLength(); i++) {
            if (!(nodes.item(i) instanceof Element gpu) || !gpu.getTagName().equals("gpu")) {
                continue;
            }
            String minor = text(gpu, "minor_number");
            int index = minor == null || minor.isBlank() || minor.equals("N/A") ? position : Integer.parseInt(minor.strip());
            int processes = 0;
            Element list = child(gpu, "processes");
            if (list != null) {
                NodeList infos = list.getElementsByTagName("process_info");
                processes = infos.getLength();
            }
            Element utilization = child(gpu, "utilization");
            int util = utilization == null ? 0 : percent(text(utilization, "gpu_util"));
            Element memory = child(gpu, "fb_memory_usage");
            gpus.add(new GpuInfo(index, processes, util, memory == null ? null : mebibytes(text(memory, "used")),
                    memory == null ? null : mebibytes(text(memory, "total"))));
            position++;
        }
        return gpus;
    }

    private static int percent(String text) {
        if (text == null) {
            return 0;
        }
        String digits = text.replace("%", "").strip();
        try {
            return Integer.parseInt(digits);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** @return {@code 1024 MiB}'s number, or null when absent or not a number ("N/A") */
    private static Long mebibytes(String text) {
        if (text == null) {
            return null;
        }
        try {
            return Long.parseLong(text.replace("MiB", "").strip());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static Element child(Element parent, String tag) {
        for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element element && element.getTagName().equals(tag)) {
                return element;
            }
        }
        return null;
    }

    private static String text(Element parent, String tag) {
        Element element = child(parent, tag);
        return element == null ? null : element.getTextContent();
    }
}
