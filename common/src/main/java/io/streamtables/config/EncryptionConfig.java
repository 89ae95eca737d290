package io.streamtables.config;

import io.quarkus.arc.Unremovable;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** Server-side encryption of what the service writes to S3 (SPEC E1). */
@Unremovable // registered in every service: one configuration file serves all of them
@ConfigMapping(prefix = "delivery.encryption")
public interface EncryptionConfig {

    /**
     * Send SSE headers (SSE-S3, or SSE-KMS with the channel's key) on every write. Turn off only for an
     * S3-compatible store that refuses them; the data is then stored as the store's defaults say.
     */
    @WithDefault("true")
    boolean sseHeaders();

    /**
     * How DLQ objects are encrypted: {@code bucket-default} (no SSE header: the DLQ bucket's default encryption
     * applies, which a bucket policy demanding its own KMS key needs; S3 encrypts every new object), {@code sse-s3},
     * {@code channel} (the channel's key, SSE-S3 without one: how data files are written), or a KMS key ARN.
     */
    @WithDefault("bucket-default")
    String deadLetters();
}
