package io.streamtables.convert;

import com.networknt.schema.format.Format;
import com.networknt.schema.regex.RegularExpression;
import java.util.Base64;

/**
 * A string's keywords, checked as the validator checks them: lengths in code points, {@code pattern} on the
 * reference's RE2/J factory ({@code find}, not a full match), {@code format} by the validator's own format, and
 * {@code contentEncoding} base64 by the JDK decoder it uses.
 */
final class StringRule {

    int minLength;
    int maxLength = Integer.MAX_VALUE;
    RegularExpression pattern;
    Format format;
    boolean base64;

    void check(String text) {
        checkLength(text.codePointCount(0, text.length()));
        if (pattern != null && !pattern.matches(text) || format != null && !format.matches(null, text)) {
            throw CompiledDecoder.NotSure.INSTANCE;
        }
        if (base64) {
            Base64.getDecoder().decode(text); // throws on what the validator refuses
        }
    }

    /** Whether the lengths are all there is to check: no pattern, format or encoding needs the text as a String. */
    boolean lengthsOnly() {
        return pattern == null && format == null && !base64;
    }

    void checkLength(int codePoints) {
        if (codePoints < minLength || codePoints > maxLength) {
            throw CompiledDecoder.NotSure.INSTANCE;
        }
    }
}
