package io.streamtables.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;

/**
 * The operation's JSON request from the flags' text. Like the AWS CLI, a value {@code file://PATH} is the
 * contents of that file (relative to the working directory, {@code ~} for the home directory); structures are
 * JSON in the API's own shape, passed on as they are, so the service judges their members.
 */
final class RequestBuilder {

    private final ObjectMapper json;
    private final Path workingDirectory;

    RequestBuilder(ObjectMapper json, Path workingDirectory) {
        this.json = json;
        this.workingDirectory = workingDirectory;
    }

    ObjectNode build(Map<Parameter, String> values) throws UsageException {
        ObjectNode request = json.createObjectNode();
        for (Map.Entry<Parameter, String> e : values.entrySet()) {
            request.set(e.getKey().member(), value(e.getKey(), e.getValue()));
        }
        return request;
    }

    private JsonNode value(Parameter parameter, String text) throws UsageException {
        String value = text.startsWith("file://") ? read(parameter, text.substring("file://".length())) : text;
        return switch (parameter.kind()) {
            case STRING -> json.getNodeFactory().textNode(value);
            case INTEGER -> {
                try {
                    yield json.getNodeFactory().numberNode(Integer.parseInt(value.trim()));
                } catch (NumberFormatException e) {
                    throw error(parameter, "'" + value + "' is not an integer");
                }
            }
            case STRUCTURE -> {
                JsonNode node = parse(parameter, value);
                if (!node.isObject()) {
                    throw error(parameter, "expected a JSON object {...}, got " + kindOf(node));
                }
                yield node;
            }
            case LIST -> {
                JsonNode node = parse(parameter, value);
                if (node.isObject()) {
                    yield json.createArrayNode().add(node);
                }
                if (!node.isArray()) {
                    throw error(parameter, "expected a JSON array [...], got " + kindOf(node));
                }
                yield node;
            }
        };
    }

    private String read(Parameter parameter, String name) throws UsageException {
        Path path = name.startsWith("~/") ? Path.of(System.getProperty("user.home"), name.substring(2))
                : workingDirectory.resolve(name);
        try {
            return Files.readString(path, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw error(parameter, "unable to load file://" + name + ": " + path.toAbsolutePath() + " does not exist");
        } catch (IOException e) {
            throw error(parameter, "unable to load file://" + name + ": " + e.getMessage());
        }
    }

    private JsonNode parse(Parameter parameter, String value) throws UsageException {
        try {
            JsonNode node = json.readTree(value);
            if (node == null || node.isMissingNode()) {
                throw error(parameter, "the value is empty, expected JSON");
            }
            return node;
        } catch (JsonProcessingException e) {
            String where = e.getLocation() == null ? ""
                    : " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr();
            throw error(parameter, "invalid JSON" + where + ": " + e.getOriginalMessage());
        }
    }

    private static String kindOf(JsonNode node) {
        return node.isArray() ? "an array" : node.isObject() ? "an object" : node.getNodeType().name().toLowerCase() + " " + node;
    }

    private static UsageException error(Parameter parameter, String problem) {
        return new UsageException("cannot read " + parameter.flag() + ": " + problem);
    }
}
