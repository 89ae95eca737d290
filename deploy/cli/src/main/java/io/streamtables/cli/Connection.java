package io.streamtables.cli;

import java.net.URI;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.ServiceMetadata;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;

/**
 * Where requests go and how they are signed, found the way the AWS CLI finds them, so the same command works
 * against this service and against AWS Kinesis.
 *
 * @param credentials null for {@code --no-sign-request}
 */
record Connection(URI endpoint, String region, AwsCredentials credentials) {

    /** The global options as given; null where not given. */
    record Options(String region, String endpointUrl, String profile, boolean signed) {
    }

    static Connection resolve(Options options, Map<String, String> env) throws ConfigurationException, UsageException {
        String region = options.region() != null ? options.region() : defaultRegion(options.profile());
        return new Connection(endpoint(options, env, region), region, options.signed() ? credentials(options.profile()) : null);
    }

    /** --endpoint-url, else the endpoint variables the AWS CLI reads, else the Region's Kinesis endpoint. */
    private static URI endpoint(Options options, Map<String, String> env, String region) throws UsageException {
        String url = options.endpointUrl() != null ? options.endpointUrl()
                : firstSet(env.get("AWS_ENDPOINT_URL_KINESIS"), env.get("AWS_ENDPOINT_URL"));
        if (url == null) {
            return URI.create("https://" + ServiceMetadata.of("kinesis").endpointFor(Region.of(region)));
        }
        try {
            URI uri = URI.create(url);
            if (uri.getHost() == null || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
                throw new IllegalArgumentException("not an http(s) URL with a host");
            }
            return uri;
        } catch (IllegalArgumentException e) {
            throw new UsageException("endpoint URL '" + url + "' is not valid (expected e.g. http://127.0.0.1:8080): "
                    + e.getMessage());
        }
    }

    private static String defaultRegion(String profile) throws ConfigurationException {
        try {
            return DefaultAwsRegionProviderChain.builder().profileName(profile).build().getRegion().id();
        } catch (SdkClientException e) {
            throw new ConfigurationException("no region: pass --region, or set AWS_REGION, or a region in the AWS "
                    + "config profile" + (profile == null ? "" : " " + profile));
        }
    }

    private static AwsCredentials credentials(String profile) throws ConfigurationException {
        try (DefaultCredentialsProvider provider = DefaultCredentialsProvider.builder().profileName(profile).build()) {
            return provider.resolveCredentials();
        } catch (SdkClientException e) {
            throw new ConfigurationException("no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or "
                    + "configure a profile, or pass --no-sign-request for a service that does not check signatures ("
                    + e.getMessage() + ")");
        }
    }

    private static String firstSet(String... values) {
        for (String v : values) {
            if (v != null && !v.isBlank()) {
                return v;
            }
        }
        return null;
    }
}
