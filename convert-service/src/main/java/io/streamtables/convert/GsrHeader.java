package io.streamtables.convert;

/** The Glue Schema Registry wire header (SPEC F2): version byte 3, compression byte 0 or 5, 16-byte UUID. */
final class GsrHeader {

    static final int LENGTH = 18;

    private GsrHeader() {
    }

    static boolean looksLikeGsr(byte[] data) {
        return data.length >= LENGTH && data[0] == 3 && (data[1] == 0 || data[1] == 5);
    }
}
