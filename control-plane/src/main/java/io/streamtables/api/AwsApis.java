package io.streamtables.api;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import java.util.HashMap;
import java.util.Map;

/** The APIs served on {@code POST /}, by the {@code X-Amz-Target} prefix that routes to each. */
@ApplicationScoped
public class AwsApis {

    private final Map<String, AwsApi> byPrefix = new HashMap<>();

    public AwsApis(Instance<AwsApi> apis) {
        apis.forEach(api -> byPrefix.put(api.targetPrefix(), api));
    }

    /** An operation a target names: the API that owns its prefix, and the part after the dot. */
    public record Target(AwsApi api, String operation) {
    }

    /** @throws AwsApiException {@code UnknownOperationException} when no API owns the target's prefix */
    public Target route(String target) {
        int dot = target == null ? -1 : target.indexOf('.');
        AwsApi api = dot < 0 ? null : byPrefix.get(target.substring(0, dot));
        if (api == null) {
            throw new AwsApiException("UnknownOperationException", 400,
                    "X-Amz-Target '" + target + "' names no operation of this service");
        }
        return new Target(api, target.substring(dot + 1));
    }
}
