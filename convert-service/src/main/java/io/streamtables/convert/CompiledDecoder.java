package io.streamtables.convert;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import io.streamtables.schema.ChannelSchema;
import java.io.IOException;
import org.apache.iceberg.data.Record;

/**
 * One channel's fast path from JSON bytes to a row: the schema compiled into checks that run while Jackson's
 * streaming parser reads the record, writing each value straight into the row, without a tree.
 * <p>
 * {@link RecordDecoder} stays the reference. This path only has to be right when it accepts: whenever it meets
 * anything it does not handle exactly as the reference does (invalid UTF-8, a parser error, a value the schema or the
 * column refuses, a number that needs care), {@link #decode} answers null and the caller runs the reference, which
 * names the error as it always did. It never accepts a record the reference refuses, and when both accept, the rows
 * are equal.
 */
final class CompiledDecoder {

    /** The compiled decoder, or the first keyword the compiler does not implement (the channel keeps the reference). */
    record Compilation(CompiledDecoder decoder, String unsupported) {
    }

    /**
     * "Not sure": the reference decides. Thrown without a message or a stack trace: it is control flow, and it must
     * carry nothing of the record.
     */
    static final class NotSure extends RuntimeException {
        static final NotSure INSTANCE = new NotSure();

        private NotSure() {
            super(null, null, false, false);
        }
    }

    private final JsonFactory json;
    private final int maxRecordBytes;
    private final CompiledNode root;

    private CompiledDecoder(CompiledNode root, int maxRecordBytes) {
        this.root = root;
        this.maxRecordBytes = maxRecordBytes;
        // the reference's limits: a limit it hits is a refusal. Names twice are found by CompiledNode, more cheaply.
        this.json = JsonFactory.builder().streamReadConstraints(StreamReadConstraints.builder()
                .maxDocumentLength(maxRecordBytes).maxStringLength(maxRecordBytes)
                .maxNumberLength(RecordDecoder.MAX_NUMBER_LENGTH)
                .maxNestingDepth(RecordDecoder.MAX_NESTING_DEPTH).build()).build();
    }

    /**
     * Compiles the channel's schema. The partition field needs no check of its own: {@link ChannelSchema} makes it a
     * required column, and a required column without a value is never accepted here.
     */
    static Compilation compile(ChannelSchema schema, int maxRecordBytes) {
        try {
            CompiledNode root = new SchemaCompiler(schema.json()).compileRoot(schema.iceberg());
            return new Compilation(new CompiledDecoder(root, maxRecordBytes), null);
        } catch (SchemaCompiler.UnsupportedKeywordException e) {
            return new Compilation(null, e.keyword());
        }
    }

    /**
     * The row of the JSON document in {@code data[from, to)}, or null when the reference must decide. The caller has
     * made the reference's checks of the record as a whole (its size, a GSR header) and passes the JSON body.
     */
    Record decode(byte[] data, int from, int to) {
        // the reference's order: its text parser takes over where the byte parser would guess another encoding,
        // and Jackson's byte parser lets overlong UTF-8 through
        if (to - from > maxRecordBytes || !RecordDecoder.plainUtf8(data, from, to) || !Utf8.valid(data, from, to)) {
            return null;
        }
        try (JsonParser parser = json.createParser(data, from, to - from)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            Object row = root.read(parser, JsonToken.START_OBJECT);
            return parser.nextToken() == null ? (Record) row : null; // trailing tokens: the reference refuses them
        } catch (IOException | RuntimeException e) {
            return null; // NotSure, a parser error or limit, a value no column takes: the reference names it
        }
    }
}
