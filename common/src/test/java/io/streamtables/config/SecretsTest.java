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
}
