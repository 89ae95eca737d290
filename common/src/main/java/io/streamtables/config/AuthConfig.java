package io.streamtables.config;

import io.quarkus.arc.Unremovable;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.util.Map;
import java.util.Optional;

/**
 * Who may call the AWS-protocol API (the channel operations and the schema registry): every request is
 * SigV4-signed by one of these principals, as AWS checks its callers (docs/OPERATING.md "Authentication").
 */
@Unremovable // registered in every service: one configuration file serves all of them
@ConfigMapping(prefix = "delivery.auth")
public interface AuthConfig {

    /**
     * The principal our own stages sign their schema lookups with: besides its own account's, it reads (never
     * changes) every account's schemas, since it decodes every account's channels.
     */
    String SERVICE_PRINCIPAL = "service";

    /** {@code sigv4} (the default) checks every request; {@code none} serves anyone, and must be chosen. */
    @WithDefault("sigv4")
    Mode mode();

    /** The callers, by a name of the operator's choice: {@code delivery.auth.principals.<name>.access-key-id}, ... */
    Map<String, Principal> principals();

    /**
     * Whether a CreateChannel may name a stream, schema, table bucket, DLQ bucket owner or KMS key of another
     * account than the caller's. Off by default: a caller can deliver only from and into what its account owns.
     */
    @WithDefault("false")
    boolean crossAccountDestinations();

    /**
     * Whether each channel's Kinesis, S3 (DLQ), Glue and catalog/FileIO calls use credentials from an STS
     * AssumeRole of its {@code ServiceExecutionRoleARN} (as the managed feature does) rather than the service's own.
     */
    @WithDefault("false")
    boolean assumeRole();

    /**
     * The names callers reach this service by (host names or addresses, no port). When set, a request signed for
     * another host is refused: a signature captured on its way to another service is not one for this one.
     */
    Optional<java.util.List<String>> hostNames();

    /** The external id every AssumeRole of a channel's role passes, when the roles' trust policies ask for one. */
    Optional<String> externalId();

    enum Mode {
        SIGV4, NONE
    }

    /** One caller's keys and the account it acts for. */
    interface Principal {

        String accessKeyId();

        /** Never logged; set it from the environment ({@code ${SECRET_VARIABLE}}) rather than in a file. */
        String secretAccessKey();

        /** The 12-digit account whose channels and schemas this caller owns. */
        String accountId();

        /**
         * When set, the key is a temporary one (STS-style): a request must carry this session token in
         * {@code X-Amz-Security-Token}, and is refused without it.
         */
        Optional<String> sessionToken();
    }
}
