package io.streamtables.auth;

import java.util.List;
import java.util.Map;

/**
 * A request as it arrived, the parts a SigV4 signature covers: the path and query as sent (still encoded), the
 * headers by lower-case name, the body's bytes.
 */
public record ReceivedRequest(String method, String rawPath, String rawQuery, Map<String, List<String>> headers,
        byte[] body) {

    /** The header's first value, or null; {@code name} in lower case. */
    public String header(String name) {
        List<String> values = headers.get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }
}
