package io.streamtables.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * The regular expressions of a JSON Schema ({@code pattern}, {@code patternProperties}) run on RE2/J, whose matching
 * time is linear in the input: anyone can register a schema, and a backtracking engine takes minutes on
 * {@code ^(a+)+$} against 40 {@code a}s and a {@code b}. A pattern RE2 cannot run (lookaround, backreferences) is
 * refused with the schema, when it is registered and when a channel starts.
 */
public final class SchemaPatterns {

    /** Keywords whose values are instance data, not schemas: a "pattern" member there is not a pattern. */
    private static final Set<String> DATA = Set.of("enum", "const", "default", "examples");

    private SchemaPatterns() {
    }

    /** @throws UnsupportedSchemaException naming the pointer when RE2 cannot run the pattern */
    public static Pattern compile(String regex, String pointer) {
        try {
            return Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            throw new UnsupportedSchemaException(pointer, "the pattern cannot run in linear time (RE2 syntax: no "
                    + "lookahead, lookbehind or backreferences): " + e.getDescription());
        }
    }

    /** Checks every pattern of the schema. */
    public static void check(JsonNode schema) {
        check(schema, "");
    }

    private static void check(JsonNode node, String pointer) {
        if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                check(node.get(i), pointer + "/" + i);
            }
            return;
        }
        if (!node.isObject()) {
            return;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> e = it.next();
            String child = pointer + "/" + JsonPointers.token(e.getKey());
            if (e.getKey().equals("pattern") && e.getValue().isTextual()) {
                compile(e.getValue().textValue(), child);
            } else if (e.getKey().equals("patternProperties") && e.getValue().isObject()) {
                e.getValue().fieldNames().forEachRemaining(regex -> compile(regex, child));
            }
            if (!DATA.contains(e.getKey())) {
                check(e.getValue(), child);
            }
        }
    }
}
