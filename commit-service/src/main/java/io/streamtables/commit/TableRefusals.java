package io.streamtables.commit;

import io.streamtables.channel.Channel;
import io.streamtables.config.Secrets;
import org.jboss.logging.Logger;

/**
 * Why a channel fails when its table bucket's catalog refuses to create its table (the managed feature leaves such a
 * channel ACTIVE: "namespace created, table never created"). The reason is the tenant's to read: an Amazon S3 Tables
 * bucket's refusal is its owner's to fix, and is told; a catalog the operator configured is the operator's (its
 * settings, hosts and errors), which the log names instead.
 */
final class TableRefusals {

    private static final Logger LOG = Logger.getLogger(TableRefusals.class);

    private TableRefusals() {
    }

    /**
     * @param s3Tables whether the bucket is in Amazon S3 Tables ({@code Catalogs.maintainsItsTables})
     * @param catalog where the bucket's catalog comes from ({@code Catalogs.describe}), for the log
     */
    static String reason(Channel channel, boolean s3Tables, String catalog, RuntimeException refusal) {
        String field = "S3TablesConfigurationList[0].TableBucketARN " + channel.tableBucketArn();
        String message = Secrets.redact(refusal.getMessage());
        if (s3Tables) {
            String grants = channel.kmsKeyArn() == null ? "s3tables:CreateNamespace and s3tables:CreateTable"
                    : "s3tables:CreateNamespace, s3tables:CreateTable and s3tables:PutTableEncryption (the table "
                    + "takes the channel's key " + channel.kmsKeyArn() + ", which S3 Tables must be allowed to use)";
            return field + ": S3 Tables refused to create table " + channel.table() + " (" + message + "): the "
                    + "table bucket must let the service call " + grants + ", then delete the channel and create it "
                    + "again";
        }
        LOG.errorf("Channel %s: the catalog of table bucket %s (%s) refused to create table %s: %s", channel.arn(),
                channel.tableBucketArn(), catalog, channel.table(), message);
        return field + ": the table bucket's catalog refused to create table " + channel.table() + "; ask the "
                + "operator (the service's log names the cause)";
    }
}
