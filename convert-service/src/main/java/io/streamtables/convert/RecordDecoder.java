package io.streamtables.convert;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.networknt.schema.Error;
import com.networknt.schema.path.NodePath;
import io.streamtables.bus.ErrorCode;
import io.streamtables.channel.Arn;
import io.streamtables.channel.Channel;
import io.streamtables.schema.ChannelSchema;
import io.streamtables.schema.JsonPointers;
import io.streamtables.schema.SchemaSource;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.LongAdder;
import org.apache.iceberg.data.Record;

/**
 * One channel's path from record bytes to an Iceberg row: size check, JSON parse, partition value, schema
 * validation (SPEC T3), conversion. Every failure is a {@link ConversionException} with a DLQ code and a
 * message that names the field and the rule but never a value.
 * <p>
 * Two paths: the {@link CompiledDecoder} (validates while it parses, no tree) takes every record it is sure of; the
 * reference (a Jackson tree validated by networknt, then converted) decides the rest, so a refused record is
 * dead-lettered with the reference's message, and a schema the compiler does not implement keeps the reference alone.
 */
final class RecordDecoder {

    /** The parser's limits (docs/OPERATING.md "Limits"): digits of a number, and depth of nesting. */
    static final int MAX_NUMBER_LENGTH = 1000;
    static final int MAX_NESTING_DEPTH = 1000;

    private final int maxRecordBytes;
    private final ObjectReader json;
    private final Channel.RecordFormat format;
    private final String schemaArn;
    private final Channel channel;
    private final SchemaSource versions;
    /** The stage's versions GSR_JSON records named: each decodes the records written with it. */
    private final DecodingVersions decoding;
    private final LookupBudget lookups;
    /** What a JSON record is decoded with: the channel's version ({@link #follow} moves it). */
    private volatile DecodingVersion current;
    private final LongAdder compiledRecords = new LongAdder();
    private final LongAdder referenceRecords = new LongAdder();

    /**
     * @param schema the version the channel decodes with: JSON records, and GSR_JSON records naming it
     * @param versions resolves the schema version a GSR_JSON record names
     * @param decoding the stage's built versions, which also say the largest record (the most a GSR body may
     *        inflate to) and whether schemas are compiled into the fast path
     */
    RecordDecoder(Channel channel, ChannelSchema schema, SchemaSource versions, DecodingVersions decoding) {
        this.maxRecordBytes = decoding.maxRecordBytes();
        this.json = reader(maxRecordBytes);
        this.format = channel.recordFormat();
        this.channel = channel;
        this.schemaArn = channel.schemaArn();
        this.versions = versions;
        this.decoding = decoding;
        this.lookups = decoding.lookupBudget();
        this.current = decoding.of(channel, schema);
    }

    /** JSON records are decoded with this version from now on (a channel that follows the latest). */
    void follow(ChannelSchema latest) {
        if (latest.versionId() == null || !latest.versionId().equals(current.schema.versionId())) {
            current = decoding.of(channel, latest);
        }
    }

    /** The first keyword of the channel's version the fast path does not implement, or null. */
    String uncompiledKeyword() {
        return current.uncompiledKeyword;
    }

    /** Records the fast path decoded. */
    long compiledRecords() {
        return compiledRecords.sum();
    }

    /** Records the reference decided (including every refused record). */
    long referenceRecords() {
        return referenceRecords.sum();
    }

    Record decode(byte[] data) {
        if (data.length > maxRecordBytes) {
            throw new ConversionException(ErrorCode.RECORD_TOO_LARGE, null, "record of " + data.length
                    + " bytes is over the limit of " + maxRecordBytes + " bytes (delivery.records.max-bytes)");
        }
        if (format == Channel.RecordFormat.GSR_JSON) {
            DecodingVersion version = gsrVersion(data);
            GsrHeader.Body body = GsrHeader.body(data, maxRecordBytes);
            return decode(version, body.array(), body.from(), body.to());
        }
        if (GsrHeader.present(data)) {
            throw new ConversionException(ErrorCode.DESERIALIZATION_ERROR, null,
                    "record carries a Glue Schema Registry header but the channel's RecordFormatType is JSON");
        }
        return decode(current, data, 0, data.length);
    }

    /** The JSON document in {@code data[from, to)}: the fast path's row, else the reference's row or refusal. */
    private Record decode(DecodingVersion version, byte[] data, int from, int to) {
        if (version.refusal != null) { // a new exception each time: each record is its own dead letter
            throw new ConversionException(version.refusal.code(), version.refusal.field(), version.refusal.getMessage());
        }
        CompiledDecoder compiled = version.compiled;
        Record row = compiled == null ? null : compiled.decode(data, from, to);
        if (row != null) {
            compiledRecords.increment();
            return row;
        }
        referenceRecords.increment();
        JsonNode document = parse(data, from, to);
        RefusedValues.check(document, version.jsonSchema); // before validation: multipleOf would divide by a huge number
        String partitionSource = version.partitionSource;
        JsonNode partition = document.get(partitionSource);
        if (document.isObject() && (partition == null || partition.isNull())) {
            throw new ConversionException(ErrorCode.MISSING_PARTITION_VALUE, "/" + partitionSource,
                    "partition field /" + partitionSource + " is missing");
        }
        List<Error> errors = version.validator.validate(document);
        if (!errors.isEmpty()) {
            Error e = errors.get(0);
            String pointer = pointer(version.jsonSchema, e.getInstanceLocation());
            String rule = e.getKeyword();
            if ("required".equals(rule) && e.getProperty() != null) {
                pointer = pointer + "/" + e.getProperty();
            } else if ("format".equals(rule) && e.getArguments() != null && e.getArguments().length > 0) {
                rule = "format " + e.getArguments()[0];
            }
            throw new ConversionException(ErrorCode.SCHEMA_VALIDATION_FAILED, pointer,
                    (pointer.isEmpty() ? "record" : pointer) + " fails rule '" + rule + "'"
                            + (errors.size() > 1 ? " (and " + (errors.size() - 1) + " more)" : ""));
        }
        return version.converter.convert(document);
    }

    /**
     * SPEC F2/F3: the record must name a version of the channel's schema, and is decoded with that version
     * (whether the table takes its rows is the commit stage's to decide). A version whose partition field is not as
     * the channel's must be (SPEC S8), or that does not map to Iceberg, has each of its records refused.
     *
     * @throws SchemaSource.RegistryUnavailableException when the registry cannot be reached: the chunk is retried
     */
    private DecodingVersion gsrVersion(byte[] data) {
        if (!GsrHeader.present(data)) {
            throw new ConversionException(ErrorCode.INVALID_SCHEMA, null,
                    "record has no Glue Schema Registry header but the channel's RecordFormatType is GSR_JSON");
        }
        UUID versionId = GsrHeader.schemaVersionId(data);
        DecodingVersion known = decoding.cached(channel, versionId);
        if (known != null) {
            return known;
        }
        if (lookups.spent()) {
            throw new ConversionException(ErrorCode.INVALID_SCHEMA, null, "schema version " + versionId + " was not "
                    + "looked up: the channel's records named more versions the schema registry does not hold than "
                    + "delivery.schema-registry.misses-per-channel (" + lookups.perSecond() + ") in this second");
        }
        SchemaSource.SchemaVersion version;
        try {
            version = versions.version(versionId, channel);
        } catch (SchemaSource.SchemaNotFoundException e) {
            lookups.missed();
            throw new ConversionException(ErrorCode.INVALID_SCHEMA, null,
                    "schema version " + versionId + " is not in the schema registry");
        }
        if (!schemaArn.equals(version.schemaArn())) {
            // another account's schema is not this tenant's to learn of, not even its name
            boolean ours = Arn.accountOf(version.schemaArn()).equals(channel.account());
            throw new ConversionException(ErrorCode.INVALID_SCHEMA, null, "schema version " + versionId
                    + " belongs to " + (ours ? version.schemaArn() : "another account's schema")
                    + ", not to the channel's schema " + schemaArn);
        }
        DecodingVersion built;
        try {
            built = decoding.build(ChannelSchema.of(version, channel.partitionSource()));
        } catch (ChannelSchema.PartitionFieldException e) {
            built = new DecodingVersion(new ConversionException(ErrorCode.INCOMPATIBLE_PARTITION_CHANGE,
                    "/" + channel.partitionSource(), "schema version " + versionId + " changes the partition field: "
                            + e.getMessage()));
        } catch (IllegalArgumentException e) {
            built = new DecodingVersion(new ConversionException(ErrorCode.INVALID_SCHEMA, null, "schema version "
                    + versionId + " cannot be delivered: " + e.getMessage()));
        } catch (RuntimeException e) { // the validator's or the compiler's own failure: remembered as well
            built = new DecodingVersion(new ConversionException(ErrorCode.INVALID_SCHEMA, null, "schema version "
                    + versionId + " cannot be delivered (" + e.getClass().getSimpleName() + ")"));
        }
        decoding.put(channel, versionId, built);
        return built;
    }

    private static ObjectReader reader(int maxRecordBytes) {
        JsonFactory factory = JsonFactory.builder().streamReadConstraints(StreamReadConstraints.builder()
                .maxDocumentLength(maxRecordBytes).maxStringLength(maxRecordBytes)
                .maxNumberLength(MAX_NUMBER_LENGTH).maxNestingDepth(MAX_NESTING_DEPTH).build()).build();
        return new ObjectMapper(factory)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION) // which one counts is up to each reader
                .setNodeFactory(RefusedValues.FACTORY)
                .readerFor(JsonNode.class);
    }

    private JsonNode parse(byte[] data, int from, int to) {
        // Jackson's byte parser lets overlong and out-of-range UTF-8 through, changing the text: check strictly first
        if (!Utf8.valid(data, from, to)) {
            throw new ConversionException(ErrorCode.DESERIALIZATION_ERROR, null, "record is not valid UTF-8");
        }
        if (plainUtf8(data, from, to)) {
            try {
                JsonNode node = json.readValue(data, from, to - from);
                if (node != null && !node.isMissingNode()) {
                    return node;
                }
            } catch (IOException e) {
                // the text parser below reports it, with the position counted in characters as it always was
            }
        }
        return parse(new String(data, from, to - from, StandardCharsets.UTF_8));
    }

    /**
     * True when Jackson's byte parser reads the text as UTF-8 without a byte order mark, as the text parser does:
     * it would take a BOM, or NUL bytes among the first four, as a sign of another encoding.
     */
    static boolean plainUtf8(byte[] data, int from, int to) {
        return to - from >= 4 && (data[from] & 0xFF) != 0xEF
                && data[from] != 0 && data[from + 1] != 0 && data[from + 2] != 0 && data[from + 3] != 0;
    }

    private JsonNode parse(String text) {
        try {
            JsonNode node = json.readValue(text);
            if (node == null || node.isMissingNode()) {
                throw new ConversionException(ErrorCode.DESERIALIZATION_ERROR, null, "record is empty");
            }
            return node;
        } catch (StreamConstraintsException e) {
            throw new ConversionException(ErrorCode.DESERIALIZATION_ERROR, null, "record is over a parser limit: "
                    + limit(e) + " (docs/OPERATING.md \"Limits\")");
        } catch (JsonProcessingException e) {
            // Jackson's own message quotes the offending token (or the repeated name): report only where it is.
            JsonLocation at = e.getLocation();
            String what = String.valueOf(e.getOriginalMessage()).startsWith("Duplicate field")
                    ? "record has a member name twice in one object" : "record is not valid JSON";
            throw new ConversionException(ErrorCode.DESERIALIZATION_ERROR, null, what
                    + (at == null ? "" : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")"));
        } catch (IOException e) {
            throw new ConversionException(ErrorCode.DESERIALIZATION_ERROR, null, "record is not valid UTF-8 JSON");
        }
    }

    /** Which limit, in the parser's words without its figures from the record. */
    private String limit(StreamConstraintsException e) {
        String m = String.valueOf(e.getOriginalMessage());
        if (m.startsWith("Number value length")) {
            return "a number of more than " + MAX_NUMBER_LENGTH + " characters";
        } else if (m.startsWith("String value length") || m.startsWith("Document length")) {
            return "a text of more than " + maxRecordBytes + " bytes";
        } else if (m.startsWith("Document nesting depth")) {
            return "nesting deeper than " + MAX_NESTING_DEPTH;
        }
        return "a name or document too large";
    }

    /**
     * The JSON pointer of an instance location, with every name the schema does not declare (a map key, an
     * unknown property) written {@code *}: such names are record content, which never reaches the DLQ.
     */
    private static String pointer(JsonNode jsonSchema, NodePath path) {
        StringBuilder sb = new StringBuilder();
        JsonNode schema = jsonSchema;
        for (int i = 0; i < path.getNameCount(); i++) {
            Object segment = path.getElement(i);
            String name = String.valueOf(segment);
            JsonNode next = null;
            if (segment instanceof Integer) {
                next = schema == null ? null : schema.get("items");
            } else if (schema != null && schema.path("properties").has(name)) {
                next = schema.path("properties").get(name);
            } else {
                name = "*";
                next = schema == null ? null : schema.get("additionalProperties");
            }
            sb.append('/').append(JsonPointers.token(name));
            schema = next != null && next.isObject() ? next : null;
        }
        return sb.toString();
    }
}
