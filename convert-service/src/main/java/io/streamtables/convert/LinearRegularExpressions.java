package io.streamtables.convert;

import com.google.re2j.Pattern;
import com.networknt.schema.regex.RegularExpression;
import com.networknt.schema.regex.RegularExpressionFactory;
import io.streamtables.schema.SchemaPatterns;

/** The validator's {@code pattern} and {@code patternProperties} on RE2/J, in linear time ({@link SchemaPatterns}). */
final class LinearRegularExpressions implements RegularExpressionFactory {

    static final LinearRegularExpressions INSTANCE = new LinearRegularExpressions();

    private LinearRegularExpressions() {
    }

    @Override
    public RegularExpression getRegularExpression(String regex) {
        Pattern pattern = SchemaPatterns.compile(regex, "");
        return value -> pattern.matcher(value).find();
    }
}
