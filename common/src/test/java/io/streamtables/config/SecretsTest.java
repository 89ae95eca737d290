package io.streamtables.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class SecretsTest {

    @Test
    void passwordsInUrlsAreMasked() {
        assertEquals("jdbc:postgresql://h:5432/db?user=u&password=***&ssl=true",
                Secrets.redact("jdbc:postgresql://h:5432/db?user=u&password=s3cr3t&ssl=true"));
        assertEquals("jdbc:mysql://h/db;PWD=***;user=u", Secrets.redact("jdbc:mysql://h/db;PWD=x;user=u"));
        assertEquals("Cannot connect to postgresql://admin:***@db.internal/x: refused",
                Secrets.redact("Cannot connect to postgresql://admin:pa:ss@db.internal/x: refused"));
        assertEquals("https://host:8443/path", Secrets.redact("https://host:8443/path"));
        assertEquals("no url here", Secrets.redact("no url here"));
        assertNull(Secrets.redact(null));
    }

    @Test
    void tokensCredentialsAndSignaturesAreMasked() {
        assertEquals("GET https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=***"
                        + "&X-Amz-Security-Token=***&X-Amz-Signature=*** failed",
                Secrets.redact("GET https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential="
                        + "ASIAX%2F20261203%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Security-Token=IQoJb3JpZ2luX2VjE"
                        + "&X-Amz-Signature=0123abcd failed"));
        assertEquals("refused: Authorization: ***\nnext line", Secrets.redact(
                "refused: Authorization: AWS4-HMAC-SHA256 Credential=AKID/20261203/us-east-1/kinesis/aws4_request, "
                        + "SignedHeaders=host, Signature=abcd\nnext line"));
        assertEquals("x-amz-security-token: ***", Secrets.redact("x-amz-security-token: FwoGZXIvYXdzE"));
        assertEquals("jdbc:x://h/db?token=***&session-token=***", Secrets.redact("jdbc:x://h/db?token=t1&session-token=t2"));
        assertEquals("a token of trust, a signature line", Secrets.redact("a token of trust, a signature line"));
    }
}
