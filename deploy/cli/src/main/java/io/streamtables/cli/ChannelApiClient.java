package io.streamtables.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;

/**
 * Calls an operation on the Kinesis wire protocol: {@code POST /}, AWS JSON 1.1, {@code X-Amz-Target:
 * Kinesis_20131202.<operation>}, signed with SigV4 for service {@code kinesis} like the AWS SDKs sign it.
 */
final class ChannelApiClient implements AutoCloseable {

    static final String TARGET_PREFIX = "Kinesis_20131202.";
    static final String CONTENT_TYPE = "application/x-amz-json-1.1";

    private final Connection connection;
    private final ObjectMapper json;
    private final SdkHttpClient http = UrlConnectionHttpClient.builder()
            .connectionTimeout(Duration.ofSeconds(10)).socketTimeout(Duration.ofSeconds(60)).build();
    private final AwsV4HttpSigner signer = AwsV4HttpSigner.create();

    ChannelApiClient(Connection connection, ObjectMapper json) {
        this.connection = connection;
        this.json = json;
    }

    /** The response's JSON; an error response as a {@link ServiceException}, no answer as an IOException. */
    JsonNode call(String operation, ObjectNode request) throws ServiceException, IOException {
        byte[] body = json.writeValueAsBytes(request);
        SdkHttpRequest unsigned = SdkHttpRequest.builder()
                .method(SdkHttpMethod.POST)
                .uri(connection.endpoint().resolve("/"))
                .putHeader("Content-Type", CONTENT_TYPE)
                .putHeader("X-Amz-Target", TARGET_PREFIX + operation)
                .putHeader("Content-Length", Integer.toString(body.length))
                .build();
        ContentStreamProvider payload = ContentStreamProvider.fromByteArray(body);
        SdkHttpRequest toSend = unsigned;
        if (connection.credentials() != null) {
            SignedRequest signed = signer.sign(r -> r.identity(connection.credentials()).request(unsigned).payload(payload)
                    .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "kinesis")
                    .putProperty(AwsV4HttpSigner.REGION_NAME, connection.region()));
            toSend = signed.request();
        }
        HttpExecuteResponse response = http.prepareRequest(HttpExecuteRequest.builder().request(toSend)
                .contentStreamProvider(payload).build()).call();
        byte[] answer;
        try (InputStream in = response.responseBody().map(InputStream.class::cast).orElse(InputStream.nullInputStream())) {
            answer = in.readAllBytes();
        }
        int status = response.httpResponse().statusCode();
        if (status / 100 == 2) {
            return answer.length == 0 ? json.createObjectNode() : json.readTree(answer);
        }
        throw error(status, response.httpResponse().firstMatchingHeader("x-amzn-ErrorType").orElse(null), answer);
    }

    /** The error type and message as the AWS SDKs read them: header or {@code __type}, without namespace or suffix. */
    private ServiceException error(int status, String typeHeader, byte[] answer) {
        JsonNode body;
        try {
            body = json.readTree(answer);
        } catch (IOException notJson) {
            body = null;
        }
        String type = typeHeader != null ? typeHeader : body == null ? null : body.path("__type").asText(null);
        if (type != null) {
            type = type.substring(type.indexOf('#') + 1);
            int colon = type.indexOf(':');
            type = colon < 0 ? type : type.substring(0, colon);
        }
        String message = body == null ? null : body.hasNonNull("message") ? body.get("message").asText()
                : body.path("Message").asText(null);
        if (message == null) {
            String text = new String(answer, StandardCharsets.UTF_8).strip();
            message = text.isEmpty() ? "HTTP " + status + " with no body" : text.substring(0, Math.min(200, text.length()));
        }
        return new ServiceException(type == null ? "HTTP" + status : type, status, message);
    }

    @Override
    public void close() {
        http.close();
    }
}
