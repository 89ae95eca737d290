package io.streamtables.bench;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.SplittableRandom;

/**
 * The benchmark data: a deterministic generator of ~1 KB JSON events of a 12-field schema (strings, long, int,
 * double, boolean, a date-time partition field spread over N hours, a nested object, an array, a map). Event
 * {@code i} depends only on (seed, i, hours), so every scenario of a run sees byte-identical records.
 */
public final class Events {

    /** JSON Schema draft-07 of the channel: 12 top-level fields. */
    public static final String SCHEMA = """
            {
              "$schema": "http://json-schema.org/draft-07/schema#",
              "title": "BenchEvent",
              "type": "object",
              "properties": {
                "event_id": {"type": "string", "maxLength": 64},
                "event_time": {"type": "string", "format": "date-time"},
                "user_id": {"type": "integer", "minimum": 0},
                "event_type": {"type": "string", "enum": ["page_view", "click", "add_to_cart", "remove_from_cart",
                  "checkout", "purchase", "search", "login"]},
                "page_url": {"type": "string", "maxLength": 2048},
                "user_agent": {"type": "string"},
                "quantity": {"type": "integer", "minimum": 0, "maximum": 100000},
                "price": {"type": "number", "minimum": 0},
                "is_mobile": {"type": "boolean"},
                "device": {
                  "type": "object",
                  "properties": {
                    "os": {"type": "string"},
                    "os_version": {"type": "string"},
                    "model": {"type": "string"},
                    "screen_width": {"type": "integer", "maximum": 100000},
                    "screen_height": {"type": "integer", "maximum": 100000},
                    "locale": {"type": "string"}
                  },
                  "required": ["os"]
                },
                "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 50},
                "attributes": {"type": "object", "additionalProperties": {"type": "string"}}
              },
              "required": ["event_id", "event_time", "user_id", "event_type"]
            }
            """;

    public static final String PARTITION_FIELD = "event_time";

    /** The first hour of the data: 2026-11-01T00:00Z. */
    public static final long BASE_MILLIS = Instant.parse("2026-11-01T00:00:00Z").toEpochMilli();

    private static final String[] TYPES = {"page_view", "click", "add_to_cart", "remove_from_cart", "checkout",
        "purchase", "search", "login"};
    private static final String[] OS = {"Android", "iOS", "Windows", "macOS", "Linux", "ChromeOS"};
    private static final String[] MODELS = {"Pixel 8", "Pixel 7a", "iPhone 15", "iPhone 14 Pro", "Galaxy S24",
        "ThinkPad X1", "MacBook Air", "Surface Pro 9", "XPS 13", "Chromebook 514"};
    private static final String[] LOCALES = {"en-US", "en-GB", "de-DE", "fr-FR", "es-ES", "ja-JP", "pt-BR", "it-IT"};
    private static final String[] AGENTS = {
        "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.82 Mobile Safari/537.36",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.2478.67",
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4_1) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Safari/605.1.15",
        "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0"};
    private static final String[] CATEGORIES = {"shoes", "shirts", "outdoor", "kitchen", "garden", "books", "toys",
        "electronics", "beauty", "sports", "music", "office"};
    private static final String[] CAMPAIGNS = {"spring-sale-2026", "newsletter-weekly", "retargeting-q4",
        "brand-search", "affiliate-partner-17", "social-organic"};
    private static final String[] TAGS = {"new-customer", "returning", "vip", "mobile-app", "web", "promo",
        "a-b-test-7", "free-shipping", "gift", "bundle", "clearance", "loyalty"};
    private static final DateTimeFormatter ISO = DateTimeFormatter.ISO_INSTANT;

    private Events() {
    }

    /** Event {@code i}: its time is in one of {@code hours} consecutive hours from {@link #BASE_MILLIS}. */
    public static byte[] event(long seed, long i, int hours) {
        SplittableRandom r = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + i);
        StringBuilder sb = new StringBuilder(1200);
        long hi = r.nextLong();
        long lo = r.nextLong();
        long time = BASE_MILLIS + r.nextInt(hours) * 3_600_000L + r.nextInt(3_600_000);
        sb.append("{\"event_id\":\"").append(uuid(hi, lo)).append('"');
        sb.append(",\"event_time\":\"").append(ISO.format(Instant.ofEpochMilli(time))).append('"');
        sb.append(",\"user_id\":").append(1_000_000_000L + r.nextInt(50_000_000));
        String type = TYPES[r.nextInt(TYPES.length)];
        sb.append(",\"event_type\":\"").append(type).append('"');
        String category = CATEGORIES[r.nextInt(CATEGORIES.length)];
        int product = r.nextInt(1_000_000);
        String campaign = CAMPAIGNS[r.nextInt(CAMPAIGNS.length)];
        sb.append(",\"page_url\":\"https://shop.example.com/catalog/").append(category).append("/product-")
                .append(product).append("?ref=").append(campaign).append("&utm_source=newsletter&utm_medium=email&sid=")
                .append(Long.toHexString(r.nextLong())).append('"');
        int agent = r.nextInt(AGENTS.length);
        sb.append(",\"user_agent\":\"").append(AGENTS[agent]).append('"');
        sb.append(",\"quantity\":").append(1 + r.nextInt(20));
        sb.append(",\"price\":").append(r.nextInt(100_000) / 100.0);
        boolean mobile = agent < 2;
        sb.append(",\"is_mobile\":").append(mobile);
        sb.append(",\"device\":{\"os\":\"").append(OS[agent < 2 ? agent : 2 + r.nextInt(4)]).append('"')
                .append(",\"os_version\":\"").append(10 + r.nextInt(8)).append('.').append(r.nextInt(10)).append('"')
                .append(",\"model\":\"").append(MODELS[r.nextInt(MODELS.length)]).append('"')
                .append(",\"screen_width\":").append(mobile ? 1080 : 1920 + 640 * r.nextInt(3))
                .append(",\"screen_height\":").append(mobile ? 2400 : 1080 + 360 * r.nextInt(3))
                .append(",\"locale\":\"").append(LOCALES[r.nextInt(LOCALES.length)]).append("\"}");
        sb.append(",\"tags\":[");
        int tags = 2 + r.nextInt(5);
        for (int t = 0; t < tags; t++) {
            sb.append(t == 0 ? "\"" : ",\"").append(TAGS[r.nextInt(TAGS.length)]).append('"');
        }
        sb.append("],\"attributes\":{\"campaign\":\"").append(campaign).append('"')
                .append(",\"referrer\":\"https://www.search.example.org/results?q=").append(category).append("+deals+")
                .append(r.nextInt(10_000)).append('"')
                .append(",\"experiment\":\"exp-").append(r.nextInt(40)).append("-variant-").append((char) ('a' + r.nextInt(4))).append('"')
                .append(",\"session_id\":\"").append(Long.toHexString(r.nextLong())).append(Long.toHexString(r.nextLong())).append('"')
                .append(",\"cart_id\":\"cart-").append(r.nextInt(1 << 30)).append('"')
                .append(",\"currency\":\"").append(r.nextInt(3) == 0 ? "EUR" : "USD").append('"')
                .append(",\"country\":\"").append(LOCALES[r.nextInt(LOCALES.length)].substring(3)).append('"')
                .append(",\"ab_bucket\":\"").append(r.nextInt(100)).append('"')
                .append(",\"store_id\":\"store-").append(r.nextInt(500)).append('"')
                .append(",\"checkout_step\":\"").append(type.equals("checkout") ? "payment" : "none").append("\"}");
        sb.append('}');
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String uuid(long hi, long lo) {
        return new java.util.UUID((hi & ~0xF000L) | 0x4000L, (lo & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L).toString();
    }

    /** Events 0..n-1, generated once (the generation is never timed). */
    public static byte[][] generate(long seed, int n, int hours) {
        byte[][] out = new byte[n][];
        for (int i = 0; i < n; i++) {
            out[i] = event(seed, i, hours);
        }
        return out;
    }

    public static long totalBytes(byte[][] events) {
        long total = 0;
        for (byte[] e : events) {
            total += e.length;
        }
        return total;
    }
}
