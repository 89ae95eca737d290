package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * What an operator watches, on one all-in-one with a delivering channel and a failed one:
 * <ul>
 * <li>a real Prometheus (Debian's, installed by scripts/tools.sh) scrapes /q/metrics every second and evaluates
 * deploy/prometheus/alerts.yml: every rule evaluates without error, the failed channel fires DeliveryChannelFailed
 * (the delivering one does not), and every query of the Grafana dashboard (deploy/grafana) runs, the delivering
 * channel's freshness, rows and interval among the answers;</li>
 * <li>the status console in headless Chromium driven by Selenium: both channels with their state and reason, the
 * freshness chart, the rows the table holds (read back from it), the failure among the errors, no payload, and a
 * screenshot (target/console.png);</li>
 * <li>the service's own log as JSON lines (quarkus.log.console.json.enabled): every line it printed is a JSON
 * object, and the delivery log's lines are as they always are.</li>
 * </ul>
 */
class OperatorViewsIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    void prometheusTheConsoleAndTheLogShowWhatHappened() throws Exception {
        assertTrue(Files.isExecutable(Path.of("/usr/bin/prometheus")), "prometheus is missing: run scripts/tools.sh");
        try (DeliveryFixture fixture = new DeliveryFixture("prom", DeliveryFixture.CatalogKind.SQLITE, 2);
                DeliveryFixture failing = new DeliveryFixture("prom-failing", DeliveryFixture.CatalogKind.SQLITE, 2);
                AllInOneProcess app = new AllInOneProcess(fixture.workDir, withJsonLog(fixture.appConfig)).start()) {
            fixture.awaitActive(app);
            fixture.produce(new Events(38, 1).next(300, 10));
            fixture.awaitDelivered(120, app);
            DeliveryFixture.Summary delivered = fixture.verify();
            failing.s3.deleteBucket(r -> r.bucket(failing.dlqBucket)); // its checks fail: no DLQ bucket
            failing.createChannel(app, 60);
            failing.awaitStatus(app, "FAILED");
            console(app, fixture, failing, delivered);

            int port;
            try (ServerSocket free = new ServerSocket(0)) {
                port = free.getLocalPort();
            }
            Path dir = fixture.workDir.resolve("prometheus");
            Files.createDirectories(dir);
            Files.writeString(dir.resolve("prometheus.yml"), """
                    global:
                      scrape_interval: 1s
                      evaluation_interval: 1s
                    rule_files:
                      - %s
                    scrape_configs:
                      - job_name: all-in-one
                        metrics_path: /q/metrics
                        static_configs:
                          - targets: ['%s']
                    """.formatted(Path.of("../prometheus/alerts.yml").toAbsolutePath().normalize(),
                    URI.create(app.managementUrl()).getAuthority()));
            Process prometheus = new ProcessBuilder("/usr/bin/prometheus", "--config.file=" + dir.resolve("prometheus.yml"),
                    "--storage.tsdb.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + port)
                    .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
            String api = "http://127.0.0.1:" + port + "/api/v1/";
            try {
                JsonNode firing = await(api + "alerts", 60, alerts -> firing(alerts, "DeliveryChannelFailed",
                        failing.channelArn()) != null);
                assertEquals("FAILED", firing(firing, "DeliveryChannelFailed", failing.channelArn())
                        .path("labels").path("status").asText());
                assertTrue(firing(firing, "DeliveryChannelFailed", fixture.channelArn()) == null,
                        "the delivering channel does not fire");

                JsonNode rules = get(api + "rules");
                List<String> evaluated = new ArrayList<>();
                rules.path("data").path("groups").forEach(g -> g.path("rules").forEach(r -> {
                    assertEquals("ok", r.path("health").asText(), r.toString());
                    evaluated.add(r.path("name").asText());
                }));
                assertEquals(List.of("DeliveryFreshnessOverInterval", "DeliveryChannelFailed",
                        "DeliveryDeadLettersRising", "DeliveryCommitsFailing", "DeliveryMaintenanceNotRunning",
                        "DeliveryMaintenanceFailing"),
                        evaluated);

                // rates and increases need two scrapes of a counter: asked again until they have them (30 s at most)
                List<String> series = List.of("delivery_data_freshness_seconds",
                        "delivery_channel_freshness_interval_seconds", "delivery_records_delivered_total");
                long deadline = System.currentTimeMillis() + 30_000;
                List<String> answered = dashboardQueries(api, fixture.channelArn());
                while (!series.stream().allMatch(m -> answered.stream().anyMatch(q -> q.contains(m)))
                        && System.currentTimeMillis() < deadline) {
                    Thread.sleep(1_000);
                    answered.clear();
                    answered.addAll(dashboardQueries(api, fixture.channelArn()));
                }
                System.out.printf("prometheus: %d rules evaluated, DeliveryChannelFailed firing for %s; dashboard "
                        + "queries answered with the channel: %s%n", evaluated.size(), failing.channelArn(), answered);
                for (String metric : series) {
                    assertTrue(answered.stream().anyMatch(q -> q.contains(metric)), metric + " not answered");
                }
            } finally {
                prometheus.destroy();
                prometheus.waitFor();
            }
            assertJsonLines(app.log(), fixture.channelArn());
        }
    }

    /** The console as a browser shows it, once its counters have seen every row the table holds (30 s at most). */
    private static void console(AllInOneProcess app, DeliveryFixture fixture, DeliveryFixture failing,
            DeliveryFixture.Summary delivered) throws Exception {
        assertTrue(Files.isExecutable(Path.of("/usr/bin/chromedriver")), "chromedriver is missing: run scripts/tools.sh");
        ChromeOptions options = new ChromeOptions().setBinary("/usr/bin/chromium")
                .addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1100");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new java.io.File("/usr/bin/chromedriver")).build();
        WebDriver browser = new ChromeDriver(service, options);
        try {
            String rowsText = delivered.rows() + " rows, " + delivered.deadLetters() + " dead letters";
            long deadline = System.currentTimeMillis() + 30_000;
            String hours = "";
            do {
                browser.get(app.managementUrl() + "/console");
                Thread.sleep(1_000); // the page's script fetches status.json and draws
                List<WebElement> chart = browser.findElements(By.cssSelector(
                        "svg.hours[data-arn='" + fixture.channelArn() + "'] text"));
                hours = chart.isEmpty() ? "" : chart.get(0).getText();
            } while (!hours.startsWith(rowsText) && System.currentTimeMillis() < deadline);
            assertTrue(hours.startsWith(rowsText), "the console's rows per hour: '" + hours + "', the table: "
                    + rowsText);
            assertFalse(browser.findElements(By.cssSelector("svg.hours[data-arn='" + fixture.channelArn()
                    + "'] rect.rows")).isEmpty(), "no bar of rows");

            WebElement delivering = browser.findElement(By.cssSelector("#channels tr[data-arn='"
                    + fixture.channelArn() + "']"));
            assertEquals("ACTIVE", delivering.findElement(By.cssSelector(".status")).getText());
            WebElement failed = browser.findElement(By.cssSelector("#channels tr[data-arn='"
                    + failing.channelArn() + "']"));
            assertEquals("FAILED", failed.findElement(By.cssSelector(".status")).getText());
            assertTrue(failed.findElement(By.cssSelector(".reason")).getText().contains("does not exist"),
                    failed.getText());
            String points = browser.findElement(By.cssSelector("svg.freshness[data-arn='" + fixture.channelArn()
                    + "'] polyline")).getAttribute("points");
            assertFalse(points.isBlank(), "no freshness point drawn");
            assertTrue(browser.findElements(By.cssSelector("#errors li")).stream()
                    .anyMatch(li -> li.getText().contains(failing.streamName + " FAILED")), "the failure is not "
                    + "among the errors: " + browser.findElement(By.id("errors")).getText());
            assertFalse(browser.getPageSource().contains(Events.SECRET), "a record payload on the console");
            Path shot = Path.of("target/console.png");
            Files.write(shot, ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
            System.out.printf("console: %s; %d freshness points; screenshot %s%n", hours,
                    points.trim().split(" ").length, shot.toAbsolutePath());
        } finally {
            browser.quit();
        }
    }

    private static java.util.Map<String, String> withJsonLog(java.util.Map<String, String> config) {
        config.put("quarkus.log.console.json.enabled", "true");
        return config;
    }

    /**
     * Every line is a JSON object: the service's own with level and message, the delivery log's as it always is;
     * no record payload in either.
     */
    private static void assertJsonLines(String log, String channel) throws Exception {
        assertFalse(log.contains(Events.SECRET), "a record payload in the log");
        int own = 0;
        int delivery = 0;
        for (String line : log.split("\n")) {
            if (line.isBlank() || line.startsWith("OpenJDK ") || line.startsWith("WARNING: ")) {
                continue; // the JVM's own warnings, not the service's log
            }
            JsonNode parsed;
            try {
                parsed = JSON.readTree(line);
            } catch (java.io.IOException e) {
                throw new AssertionError("not a JSON line: " + line, e);
            }
            if (parsed.has("event")) { // the delivery log: its own fields at the top, never wrapped
                assertTrue(parsed.has("channelArn") && parsed.has("logGroupName"), line);
                delivery += channel.equals(parsed.path("channelArn").asText()) ? 1 : 0;
            } else {
                assertTrue(parsed.has("level") && parsed.has("message") && parsed.has("loggerName"), line);
                own++;
            }
        }
        System.out.printf("json log: %d lines of the service's own, %d delivery log lines of the channel%n", own,
                delivery);
        assertTrue(own > 10 && delivery > 0, own + " own lines, " + delivery + " delivery lines");
    }

    /**
     * Runs every query of the dashboard (its variables as Grafana fills them: every channel, a 1 m rate window);
     * each must succeed. Returns those whose answer has a series of the channel.
     */
    private static List<String> dashboardQueries(String api, String channel) throws Exception {
        JsonNode dashboard = JSON.readTree(Path.of("../grafana/streaming-table-delivery.json").toFile());
        List<String> answered = new ArrayList<>();
        int queries = 0;
        for (JsonNode panel : dashboard.path("panels")) {
            for (JsonNode target : panel.path("targets")) {
                String expr = target.path("expr").asText().replace("$channel", ".*")
                        .replace("$__rate_interval", "1m");
                JsonNode answer = get(api + "query?query=" + URLEncoder.encode(expr, StandardCharsets.UTF_8));
                assertEquals("success", answer.path("status").asText(), panel.path("title") + ": " + expr + " → "
                        + answer);
                queries++;
                for (JsonNode series : answer.path("data").path("result")) {
                    if (channel.equals(series.path("metric").path("channel").asText())) {
                        answered.add(expr);
                        break;
                    }
                }
            }
        }
        assertFalse(queries == 0, "the dashboard has no queries");
        return answered;
    }

    private static JsonNode firing(JsonNode alerts, String name, String channel) {
        for (JsonNode alert : alerts.path("data").path("alerts")) {
            if (name.equals(alert.path("labels").path("alertname").asText())
                    && channel.equals(alert.path("labels").path("channel").asText())
                    && "firing".equals(alert.path("state").asText())) {
                return alert;
            }
        }
        return null;
    }

    private static JsonNode await(String url, int seconds, java.util.function.Predicate<JsonNode> done)
            throws Exception {
        long deadline = System.currentTimeMillis() + seconds * 1000L;
        JsonNode last = null;
        while (System.currentTimeMillis() < deadline) {
            try {
                last = get(url);
                if (done.test(last)) {
                    return last;
                }
            } catch (java.io.IOException starting) {
                // Prometheus is not listening yet
            }
            Thread.sleep(500);
        }
        throw new AssertionError(url + " did not answer as expected in " + seconds + " s: " + last);
    }

    private static JsonNode get(String url) throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(),
                HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(response.body());
    }
}
