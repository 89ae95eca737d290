package io.streamtables.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.Map;

/** The figures of one scenario; a forked scenario prints it as one {@code RESULT {json}} line. */
public final class Result {

    static final ObjectMapper JSON = new ObjectMapper();
    public final Map<String, Object> values = new LinkedHashMap<>();

    public Result(String scenario) {
        values.put("scenario", scenario);
    }

    public Result put(String key, Object value) {
        values.put(key, value);
        return this;
    }

    public double num(String key) {
        Object v = values.get(key);
        return v instanceof Number n ? n.doubleValue() : Double.NaN;
    }

    public String line() {
        try {
            return "RESULT " + JSON.writeValueAsString(values);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    @SuppressWarnings("unchecked")
    static Result parse(String line) {
        try {
            Map<String, Object> m = JSON.readValue(line.substring("RESULT ".length()), Map.class);
            Result r = new Result((String) m.get("scenario"));
            r.values.putAll(m);
            return r;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
