package io.streamtables.cli;

import static io.streamtables.cli.Parameter.Kind.INTEGER;
import static io.streamtables.cli.Parameter.Kind.LIST;
import static io.streamtables.cli.Parameter.Kind.STRING;
import static io.streamtables.cli.Parameter.Kind.STRUCTURE;
import static io.streamtables.cli.Parameter.optional;
import static io.streamtables.cli.Parameter.required;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/** The channel operations of the Kinesis API, with the flags of their AWS CLI commands. */
enum Operation {
    CREATE_CHANNEL("create-channel", "CreateChannel",
            required("--channel-name", "ChannelName", STRING),
            optional("--service-execution-role-arn", "ServiceExecutionRoleARN", STRING),
            required("--stream-configuration-list", "StreamConfigurationList", LIST),
            optional("--s3-tables-destination-configuration", "S3TablesDestinationConfiguration", STRUCTURE),
            optional("--s3-destination-configuration", "S3DestinationConfiguration", STRUCTURE),
            optional("--encryption-configuration", "EncryptionConfiguration", STRUCTURE),
            optional("--logging-configuration", "LoggingConfiguration", STRUCTURE),
            optional("--tags", "Tags", STRUCTURE)),
    DESCRIBE_CHANNEL("describe-channel", "DescribeChannel",
            required("--channel-arn", "ChannelARN", STRING)),
    LIST_CHANNELS("list-channels", "ListChannels",
            optional("--stream-filter", "StreamFilter", LIST),
            optional("--max-results", "MaxResults", INTEGER),
            optional("--next-token", "NextToken", STRING)),
    UPDATE_CHANNEL("update-channel", "UpdateChannel",
            required("--channel-arn", "ChannelARN", STRING),
            optional("--s3-tables-destination-configuration", "S3TablesDestinationConfiguration", STRUCTURE),
            optional("--s3-destination-configuration", "S3DestinationConfiguration", STRUCTURE),
            optional("--logging-configuration", "LoggingConfiguration", STRUCTURE)),
    DELETE_CHANNEL("delete-channel", "DeleteChannel",
            required("--channel-arn", "ChannelARN", STRING));

    final String command;
    /** The operation of {@code X-Amz-Target: Kinesis_20131202.<name>}. */
    final String apiName;
    final List<Parameter> parameters;

    Operation(String command, String apiName, Parameter... parameters) {
        this.command = command;
        this.apiName = apiName;
        this.parameters = List.of(parameters);
    }

    static Optional<Operation> named(String command) {
        return Arrays.stream(values()).filter(o -> o.command.equals(command)).findFirst();
    }

    Optional<Parameter> parameter(String flag) {
        return parameters.stream().filter(p -> p.flag().equals(flag)).findFirst();
    }
}
