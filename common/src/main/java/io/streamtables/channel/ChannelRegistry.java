package io.streamtables.channel;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtables.config.AuthConfig;
import io.streamtables.config.DeliveryConfig;
import io.streamtables.config.QuotaConfig;
import io.streamtables.state.ChannelStore;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * The channels and their lifecycle (SPEC C4), kept in the service database so that they survive restarts and
 * every stage sees them; a local view is refreshed at most every second. The file in
 * {@code delivery.channels-file} is a declarative bootstrap: its channels are created if they do not exist.
 */
@ApplicationScoped
public class ChannelRegistry {

    private static final Logger LOG = Logger.getLogger(ChannelRegistry.class);
    static final long REFRESH_MS = 1_000;
    /**
     * How recently a process must have read the channels to count among those that run with them: one that has not
     * read them for longer reads them again before it acts (its view is older than {@link #REFRESH_MS}).
     */
    static final long READERS_MS = 5 * REFRESH_MS;
    /**
     * How often the rows are read again even though their change count did not move: a writer that does not count
     * (an instance of an earlier release, during a rolling upgrade) is seen within this time.
     */
    static final long REREAD_MS = 30 * REFRESH_MS;
    /** SPEC C3: at most two channels read one stream. */
    static final int MAX_CHANNELS_PER_STREAM = 2;

    public enum Status { CREATING, ACTIVE, FAILED, SUSPENDED, DELETING }

    /** A channel with its status, creation and activation time (null until first ACTIVE). */
    /**
     * {@code schemaVersionId}: the schema version the channel decodes with, pinned when it became ACTIVE, or null;
     * {@code revision}: its last update's ({@link #readEverywhere}), 0 when never updated.
     */
    public record Entry(Channel channel, Status status, String statusReason, Instant createdAt, Instant activatedAt,
            UUID schemaVersionId, long revision) {
    }

    private final DeliveryConfig config;
    private final ChannelStore store;
    private final ObjectMapper json;
    /** Whether a channel must name the role it is delivered as ({@code delivery.auth.assume-role}). */
    private final boolean assumeRoles;
    private final int channelsPerAccount;
    private final Event<ChannelGone> gone;
    private volatile Map<String, Entry> view = Map.of();
    /**
     * Each channel as last read, by ARN: a definition read again unchanged is not parsed and validated again (every
     * stage reads every channel every second; with a thousand channels the parsing was most of the work).
     */
    private Map<String, Parsed> parsed = Map.of();
    /** This process among those that read the channels ({@code delivery_readers}). */
    private final String instance = UUID.randomUUID().toString();
    private volatile long refreshedAt;
    /** The change count ({@link ChannelStore#changes}) when the rows were last read, when, and their highest revision. */
    private long readChanges = -1;
    private long readAt;
    private long readRevision;

    public ChannelRegistry(DeliveryConfig config, AuthConfig auth, QuotaConfig quotas, ChannelStore store,
            ObjectMapper json, Event<ChannelGone> gone) {
        this.config = config;
        this.gone = gone;
        this.channelsPerAccount = quotas.channelsPerAccount();
        this.assumeRoles = auth.assumeRole();
        this.store = store;
        this.json = json;
        config.channelsFile().ifPresent(file -> bootstrap(Path.of(file)));
        refresh();
    }

    private void bootstrap(Path file) {
        for (ChannelDefinition d : read(file)) {
            try {
                if (create(d, config.accountId())) {
                    LOG.infof("Channel %s created from %s", d.channelName(), file);
                }
            } catch (ChannelException e) {
                if (e.kind() != ChannelException.Kind.IN_USE || !deleting(d)) {
                    throw new IllegalArgumentException("Channel '" + d.channelName() + "' in " + file + ": "
                            + e.getMessage(), e);
                }
                LOG.warnf("Channel %s in %s is being deleted: it is created again at the next start", d.channelName(),
                        file);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("Channel '" + d.channelName() + "' in " + file + ": "
                        + e.getMessage(), e);
            }
        }
    }

    private boolean deleting(ChannelDefinition d) {
        return view.values().stream().anyMatch(e -> e.status() == Status.DELETING
                && e.channel().name().equals(d.channelName()) && e.channel().account().equals(config.accountId()));
    }

    private List<ChannelDefinition> read(Path file) {
        try {
            String text = Files.readString(file);
            return text.trim().startsWith("[")
                    ? List.of(json.readValue(text, ChannelDefinition[].class))
                    : List.of(json.readValue(text, ChannelDefinition.class));
        } catch (IOException e) {
            throw new IllegalArgumentException("Cannot read channels file " + file
                    + " (delivery.channels-file): " + e.getMessage(), e);
        }
    }

    /**
     * Validates and stores a new channel of {@code account} in CREATING; ingest then checks what it needs and
     * activates it.
     *
     * @return false when the account has a channel of that name with the same definition (an idempotent bootstrap)
     * @throws ChannelException when the name is taken by another definition or the stream has its two channels
     * @throws IllegalArgumentException naming the field and the rule when the definition is invalid
     */
    public synchronized boolean create(ChannelDefinition d, String account) {
        Channel channel = validate(d, account);
        refresh();
        Entry existing = view.get(channel.arn());
        if (existing != null && existing.status() == Status.DELETING) {
            throw new ChannelException(ChannelException.Kind.IN_USE, "channel " + channel.arn() + " is being deleted: "
                    + "create it again once DescribeChannel answers ResourceNotFoundException");
        }
        if (existing != null) {
            if (existing.channel().definition().equals(d)) {
                return false;
            }
            throw new ChannelException(ChannelException.Kind.IN_USE, "a channel named " + channel.name()
                    + " exists already (" + channel.arn() + "): choose another ChannelName or delete it first");
        }
        long sameStream = view.values().stream()
                .filter(e -> e.channel().streamArn().toString().equals(channel.streamArn().toString())).count();
        if (sameStream >= MAX_CHANNELS_PER_STREAM) {
            throw new ChannelException(ChannelException.Kind.LIMIT_EXCEEDED, "stream " + channel.streamArn()
                    + " has " + sameStream + " channels already, the most it may have");
        }
        switch (store.insert(new ChannelStore.Row(channel.arn(), channel.name(), write(d), Status.CREATING.name(),
                null, System.currentTimeMillis(), null), account, channelsPerAccount)) {
            case OVER_QUOTA -> throw new ChannelException(ChannelException.Kind.LIMIT_EXCEEDED, "account " + account
                    + " has " + channelsPerAccount + " channels already, its quota "
                    + "(delivery.quotas.channels-per-account): delete one first");
            case EXISTS -> throw new ChannelException(ChannelException.Kind.IN_USE, "a channel named " + channel.name()
                    + " exists already");
            case CREATED -> { }
        }
        refreshed();
        return true;
    }

    /**
     * The channel a definition makes, in this service's Region and the given account.
     *
     * @throws IllegalArgumentException naming the field and the rule when the definition is invalid
     */
    public Channel validate(ChannelDefinition d, String account) {
        Channel channel = Channel.of(d, config, account);
        Channel.checkLengths(d);
        Channel.checkRole(d.serviceExecutionRoleArn(), assumeRoles);
        return channel;
    }

    /** SPEC C5: only the freshness and the logging change; the change takes effect without a restart. */
    public synchronized Entry update(String arn, Integer freshnessSeconds, ChannelDefinition.LoggingConfiguration logging) {
        Entry e = entry(arn);
        if (e.status() == Status.DELETING) {
            throw new ChannelException(ChannelException.Kind.IN_USE, "channel " + arn + " is being deleted");
        }
        ChannelDefinition d = e.channel().definition();
        ChannelDefinition.S3TablesDestinationConfiguration dest = d.destination();
        if (freshnessSeconds != null) {
            dest = new ChannelDefinition.S3TablesDestinationConfiguration(freshnessSeconds, dest.deadLetterQueue(),
                    dest.tables());
        }
        ChannelDefinition updated = new ChannelDefinition(d.channelName(), d.serviceExecutionRoleArn(),
                d.streamConfigurationList(), dest, logging != null ? logging : d.loggingConfiguration(),
                d.encryptionConfiguration(), d.tags());
        validate(updated, e.channel().account()); // the same rules as at creation
        store.updateDefinition(arn, write(updated));
        refreshed();
        return entry(arn);
    }

    /**
     * SPEC C6: delivery stops; the table and the DLQ keep what was delivered. The channel is DELETING (SPEC C4) until
     * every stage has stopped it and released its leases ({@link #removeIfReleased}), whatever its status was.
     */
    public synchronized void delete(String arn) {
        Entry e = entry(arn);
        if (e.status() == Status.DELETING) {
            return;
        }
        LOG.infof("Channel %s is DELETING", arn);
        store.setDeleting(arn);
        refreshed();
        DeliveryLog.log(e.channel(), DeliveryLog.Event.DELETING, Map.of());
    }

    /** Removes a DELETING channel once no stage holds a lease of it; true when it is gone. */
    public synchronized boolean removeIfReleased(String arn) {
        if (store.leased(arn, System.currentTimeMillis())) {
            return false;
        }
        store.delete(arn);
        refreshed();
        LOG.infof("Channel %s is deleted: every stage has stopped it", arn);
        return true;
    }

    /**
     * ACTIVE, decoding with the given schema version from now on: the first one given stays, so a channel
     * keeps the version its table was built from.
     */
    public void activate(String arn, UUID schemaVersionId) {
        if (schemaVersionId != null) {
            store.pinSchemaVersion(arn, schemaVersionId.toString());
        }
        setStatus(arn, Status.ACTIVE, null);
    }

    /** FAILED is final (SPEC C4): delivery stops and the reason says what to fix. */
    public void fail(String arn, String reason) {
        setStatus(arn, Status.FAILED, reason);
    }

    /** SUSPENDED is final: the destination changed behind the channel's back. */
    public void suspend(String arn, String reason) {
        setStatus(arn, Status.SUSPENDED, reason);
    }

    private void setStatus(String arn, Status status, String reason) {
        Entry e = get(arn).orElse(null);
        if (e == null || e.status() == status || (e.status() == Status.FAILED || e.status() == Status.SUSPENDED
                || e.status() == Status.DELETING)) {
            return;
        }
        if (status == Status.ACTIVE) {
            LOG.infof("Channel %s is ACTIVE: stream %s → table %s", arn, e.channel().streamArn(), e.channel().table());
        } else {
            LOG.errorf("Channel %s is %s: %s", arn, status, reason);
        }
        if (!store.setStatus(arn, status.name(), reason, System.currentTimeMillis())) {
            return; // deleted, failed or suspended meanwhile (by another instance): those are final
        }
        refreshed();
        DeliveryLog.log(e.channel(), DeliveryLog.Event.valueOf(status.name()),
                reason == null ? Map.of() : Map.of("reason", reason));
    }

    public Collection<Entry> all() {
        return current().values();
    }

    public Optional<Entry> get(String arn) {
        return Optional.ofNullable(current().get(arn));
    }

    public Channel channel(String arn) {
        return entry(arn).channel();
    }

    public boolean isActive(String arn) {
        return get(arn).map(e -> e.status() == Status.ACTIVE).orElse(false);
    }

    /**
     * The revision every process that reads the channels has read: a channel updated later is UPDATING (some stage
     * may still run with its settings before the update). {@code Long.MAX_VALUE} when no process has read them lately.
     */
    public long readEverywhere() {
        return store.readByAll(System.currentTimeMillis() - READERS_MS).orElse(Long.MAX_VALUE);
    }

    /** @throws ChannelException NOT_FOUND when there is no such channel */
    public Entry entry(String arn) {
        return get(arn).orElseThrow(() -> new ChannelException(ChannelException.Kind.NOT_FOUND,
                "no channel " + arn));
    }

    private Map<String, Entry> current() {
        if (stale()) {
            refreshIfStale();
        }
        return view;
    }

    /**
     * Threads that find the view stale at once (the shard readers, each step) refresh it once: the others find it
     * fresh when they get the lock, instead of each reading the database again in turn.
     */
    private synchronized void refreshIfStale() {
        if (stale()) {
            refresh();
        }
    }

    private boolean stale() {
        return System.currentTimeMillis() - refreshedAt > REFRESH_MS;
    }

    private void refreshed() {
        refreshedAt = 0;
    }

    /** A channel's definition as stored, and what it makes. */
    private record Parsed(String definition, Channel channel) {
    }

    /**
     * Reads the rows again when their change count moved since the last read (or {@link #REREAD_MS} passed), and
     * records that this process has read them: that record is what {@link #readEverywhere} counts, so it is made at
     * every refresh, rows read or not.
     */
    private synchronized void refresh() {
        long now = System.currentTimeMillis();
        long changes = store.changes();
        if (changes != readChanges || now - readAt >= REREAD_MS) {
            read();
            readChanges = changes;
            readAt = now;
        }
        refreshedAt = now;
        try {
            store.read(instance, readRevision, refreshedAt);
        } catch (RuntimeException e) { // the channels were read: only an UpdateChannel's UPDATING lasts longer
            LOG.debugf("Recording what this process read failed: %s", e.getMessage());
        }
    }

    private void read() {
        Map<String, Entry> fresh = new LinkedHashMap<>();
        Map<String, Parsed> channels = new HashMap<>();
        long revision = 0;
        for (ChannelStore.Row row : store.all()) {
            revision = Math.max(revision, row.revision());
            try {
                Parsed known = parsed.get(row.arn());
                if (known == null || !known.definition().equals(row.definition())) {
                    ChannelDefinition d = json.readValue(row.definition(), ChannelDefinition.class);
                    known = new Parsed(row.definition(), Channel.of(d, config, Arn.accountOf(row.arn())));
                }
                channels.put(row.arn(), known);
                fresh.put(row.arn(), new Entry(known.channel(),
                        Status.valueOf(row.status()), row.statusReason(), Instant.ofEpochMilli(row.createdAt()),
                        row.activatedAt() == null ? null : Instant.ofEpochMilli(row.activatedAt()),
                        row.schemaVersionId() == null ? null : UUID.fromString(row.schemaVersionId()), row.revision()));
            } catch (IOException | IllegalArgumentException e) {
                LOG.errorf("Channel %s in the service database is unreadable: %s", row.arn(), e.getMessage());
            }
        }
        Map<String, Entry> before = view;
        parsed = channels;
        view = Collections.unmodifiableMap(fresh);
        readRevision = revision;
        before.keySet().stream().filter(arn -> !fresh.containsKey(arn)).forEach(arn -> gone.fire(new ChannelGone(arn)));
    }

    private String write(ChannelDefinition d) {
        try {
            return json.writeValueAsString(d);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
