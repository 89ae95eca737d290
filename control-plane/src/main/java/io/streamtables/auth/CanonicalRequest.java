package io.streamtables.auth;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The SigV4 canonical request of a request as received, built from what the client listed in {@code SignedHeaders}
 * and nothing else, as the protocol defines it for every service but S3: the path normalized and URI-encoded once
 * more (the clients encode the already-encoded path), the query parameters decoded, encoded and sorted, each signed
 * header as {@code name:value} with values trimmed, inner whitespace collapsed and repeated headers joined by commas.
 */
final class CanonicalRequest {

    private static final Pattern WHITESPACE = Pattern.compile("\\s+");

    private CanonicalRequest() {
    }

    /** Why a request cannot be canonicalized: a signed header it lacks, a query that does not decode. */
    static final class Unsignable extends RuntimeException {
        Unsignable(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * @param signedHeaders the client's {@code SignedHeaders}, lower case, in its order
     * @param payloadHash the hex SHA-256 of the body (or the {@code x-amz-content-sha256} the client signed)
     */
    static String of(ReceivedRequest request, List<String> signedHeaders, String payloadHash) {
        StringBuilder out = new StringBuilder(256)
                .append(request.method()).append('\n')
                .append(uri(request.rawPath())).append('\n')
                .append(query(request.rawQuery())).append('\n');
        for (String name : signedHeaders) {
            out.append(name).append(':').append(headerValue(request.headers(), name)).append('\n');
        }
        return out.append('\n').append(String.join(";", signedHeaders)).append('\n').append(payloadHash).toString();
    }

    /** The path with empty and dot segments removed, each segment encoded (a {@code %} becomes {@code %25}). */
    static String uri(String rawPath) {
        if (rawPath == null || rawPath.isEmpty()) {
            return "/";
        }
        List<String> segments = new ArrayList<>();
        for (String segment : rawPath.split("/")) {
            if (segment.equals("..")) {
                if (!segments.isEmpty()) {
                    segments.remove(segments.size() - 1);
                }
            } else if (!segment.isEmpty() && !segment.equals(".")) {
                segments.add(encode(segment));
            }
        }
        String joined = String.join("/", segments);
        boolean trailingSlash = rawPath.endsWith("/") && !segments.isEmpty();
        return "/" + joined + (trailingSlash ? "/" : "");
    }

    /** {@code name=value} pairs decoded, then encoded the one canonical way, sorted by name and then value. */
    static String query(String rawQuery) {
        if (rawQuery == null || rawQuery.isEmpty()) {
            return "";
        }
        List<String[]> pairs = new ArrayList<>();
        for (String pair : rawQuery.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String name = eq < 0 ? pair : pair.substring(0, eq);
            String value = eq < 0 ? "" : pair.substring(eq + 1);
            pairs.add(new String[] {encode(decode(name)), encode(decode(value))});
        }
        pairs.sort(Comparator.<String[], String>comparing(p -> p[0]).thenComparing(p -> p[1]));
        StringBuilder out = new StringBuilder();
        for (String[] p : pairs) {
            out.append(out.isEmpty() ? "" : "&").append(p[0]).append('=').append(p[1]);
        }
        return out.toString();
    }

    /** Every value of the header, trimmed and with inner whitespace collapsed, joined by commas. */
    static String headerValue(Map<String, List<String>> headers, String name) {
        List<String> values = headers.get(name);
        if (values == null || values.isEmpty()) {
            throw new Unsignable("SignedHeaders names " + name + ", which the request does not carry");
        }
        StringBuilder out = new StringBuilder();
        for (String value : values) {
            out.append(out.isEmpty() ? "" : ",").append(WHITESPACE.matcher(value.strip()).replaceAll(" "));
        }
        return out.toString();
    }

    /** RFC 3986 encoding of every byte but the unreserved characters, hex digits in upper case. */
    static String encode(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_'
                    || c == '.' || c == '~') {
                out.append(c);
            } else {
                out.append('%').append(Character.toUpperCase(Character.forDigit((b >> 4) & 0xf, 16)))
                        .append(Character.toUpperCase(Character.forDigit(b & 0xf, 16)));
            }
        }
        return out.toString();
    }

    /** Percent-decoding only ({@code +} stays a plus, as the SDKs write a space {@code %20}). */
    static String decode(String s) {
        if (s.indexOf('%') < 0) {
            return s;
        }
        byte[] in = s.getBytes(StandardCharsets.UTF_8); // '%' and hex digits are ASCII: decoded byte by byte
        ByteArrayOutputStream out = new ByteArrayOutputStream(in.length);
        for (int i = 0; i < in.length; i++) {
            if (in[i] != '%') {
                out.write(in[i]);
                continue;
            }
            int hi = i + 2 < in.length ? Character.digit(in[i + 1], 16) : -1;
            int lo = hi < 0 ? -1 : Character.digit(in[i + 2], 16);
            if (lo < 0) {
                throw new Unsignable("the query string has a malformed escape at byte " + i
                        + ": each % must be followed by two hex digits");
            }
            out.write(hi << 4 | lo);
            i += 2;
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
