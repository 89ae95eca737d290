package io.streamtables.config;

import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;

/**
 * Sets what the JDK's HTTP client reads once per process ({@link AwsClients#closeAnswersCutShort}) as the service
 * starts, before any of its URL-connection clients reads an answer: the S3 client Quarkus builds does not pass through
 * {@link AwsClients}.
 */
@ApplicationScoped
class JdkHttpSettings {

    void set(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) StartupEvent event) {
        AwsClients.closeAnswersCutShort();
    }
}
