package io.streamtables.convert;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import io.streamtables.schema.ChannelSchema;
import io.streamtables.schema.VersionCaches;

/**
 * One schema version's decoding: its validator, converter and fast path; or, for a version the channel cannot take
 * (its partition field changed, or it does not map), the refusal of each of its records. Immutable once built: the
 * channels of one schema share it.
 */
final class DecodingVersion {

    // Schemas never reach the network: the default loader has no remote resource loader. Patterns run on RE2/J.
    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_7,
            b -> b.schemaRegistryConfig(SchemaRegistryConfig.builder().formatAssertionsEnabled(true)
                    .regularExpressionFactory(LinearRegularExpressions.INSTANCE).build()));
    /**
     * What a built version takes, per character of its definition: the tree, the validator, the fast path and the
     * converter (bench "versions" measures it).
     */
    static final int BYTES_PER_CHAR = 3 * VersionCaches.TREE_BYTES_PER_CHAR;
    private static final long REFUSAL_BYTES = 1024;

    final ChannelSchema schema;
    final Schema validator;
    final JsonNode jsonSchema;
    final RowConverter converter;
    final String partitionSource;
    /** The fast path, or null: turned off, or a keyword it does not compile ({@link #uncompiledKeyword}). */
    final CompiledDecoder compiled;
    final String uncompiledKeyword;
    final ConversionException refusal;
    /** Its estimated memory, for the cache's bound. */
    final long bytes;

    DecodingVersion(ChannelSchema schema, boolean compile, int maxRecordBytes) {
        this.schema = schema;
        this.jsonSchema = schema.json();
        this.validator = REGISTRY.getSchema(schema.json());
        this.validator.initializeValidators();
        this.converter = new RowConverter(schema.iceberg(), schema.json());
        this.partitionSource = schema.partitionSource();
        CompiledDecoder.Compilation compilation = compile ? CompiledDecoder.compile(schema, maxRecordBytes) : null;
        this.compiled = compilation == null ? null : compilation.decoder();
        this.uncompiledKeyword = compilation == null ? null : compilation.unsupported();
        this.refusal = null;
        this.bytes = (long) BYTES_PER_CHAR * schema.json().toString().length();
    }

    DecodingVersion(ConversionException refusal) {
        this.schema = null;
        this.jsonSchema = null;
        this.validator = null;
        this.converter = null;
        this.partitionSource = null;
        this.compiled = null;
        this.uncompiledKeyword = null;
        this.refusal = refusal;
        this.bytes = REFUSAL_BYTES;
    }
}
