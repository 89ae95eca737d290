package io.streamtables.storage;

import java.time.Instant;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.NoSuchUploadException;

/**
 * Aborts the multipart uploads under a prefix that were started before a threshold and never completed: a writer
 * that crashed half way through a large file leaves its parts stored, and billed, until someone aborts them.
 * The table maintenance does it for a table's folder (S3FileIO uploads a large data file in parts); the threshold
 * (days) is far above any upload still in progress. Not for the DLQ: its objects (at most
 * {@code delivery.commit.max-dead-letter-batch-bytes}) are single PUTs, and the uploads under a user's error output
 * prefix are other writers'.
 */
public final class IncompleteUploads {

    private IncompleteUploads() {
    }

    /**
     * @return the uploads aborted
     */
    public static int abort(S3Client s3, String bucket, String prefix, Instant startedBefore) {
        int aborted = 0;
        for (MultipartUpload upload : s3.listMultipartUploadsPaginator(b -> b.bucket(bucket).prefix(prefix))
                .uploads()) {
            if (upload.initiated() != null && upload.initiated().isBefore(startedBefore)) {
                try {
                    s3.abortMultipartUpload(b -> b.bucket(bucket).key(upload.key()).uploadId(upload.uploadId()));
                    aborted++;
                } catch (NoSuchUploadException completedOrAbortedMeanwhile) {
                    // nothing left to abort
                }
            }
        }
        return aborted;
    }

    /** s3://bucket/key (or s3a://, s3n://) → bucket and key; null when the location is not in S3. */
    public static String[] bucketAndKey(String location) {
        int scheme = location.indexOf("://");
        if (scheme < 0 || !location.substring(0, scheme).matches("s3[an]?")) {
            return null;
        }
        String rest = location.substring(scheme + 3);
        int slash = rest.indexOf('/');
        return slash < 0 ? new String[] {rest, ""} : new String[] {rest.substring(0, slash), rest.substring(slash + 1)};
    }
}
