package io.streamtables.e2e;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A man in the middle for the client matrix's changed-body cases: relays each HTTP/1.1 request to the service, every
 * header byte as the client sent it, with {@code mx-} in the body changed to {@code MX-} (the same length), and
 * relays the answer back. One request per connection.
 */
final class TamperingProxy implements AutoCloseable {

    private final ServerSocket server;
    private final URI target;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    TamperingProxy(String target) throws IOException {
        this.target = URI.create(target);
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        threads.submit(this::accept);
    }

    String url() {
        return "http://127.0.0.1:" + server.getLocalPort();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                threads.submit(() -> relay(client));
            } catch (IOException closed) {
                return;
            }
        }
    }

    private void relay(Socket client) {
        try (client; Socket service = new Socket(target.getHost(), target.getPort())) {
            client.setSoTimeout(30_000);
            service.setSoTimeout(30_000);
            InputStream in = client.getInputStream();
            byte[] head = readHead(in);
            byte[] body = in.readNBytes(contentLength(head));
            byte[] changed = new String(body, StandardCharsets.ISO_8859_1).replace("mx-", "MX-")
                    .getBytes(StandardCharsets.ISO_8859_1);
            OutputStream toService = service.getOutputStream();
            toService.write(head);
            toService.write(changed);
            toService.flush();
            InputStream fromService = service.getInputStream();
            byte[] answerHead = readHead(fromService);
            OutputStream out = client.getOutputStream();
            out.write(answerHead);
            out.write(fromService.readNBytes(contentLength(answerHead)));
            out.flush();
        } catch (IOException e) {
            System.err.println("tampering proxy: " + e);
        }
    }

    /** The start line and headers, through the blank line. */
    private static byte[] readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("the connection closed inside a message head");
            }
            head.write(b);
            matched = b == "\r\n\r\n".charAt(matched) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        return head.toByteArray();
    }

    private static int contentLength(byte[] head) throws IOException {
        for (String line : new String(head, StandardCharsets.ISO_8859_1).split("\r\n")) {
            String lower = line.toLowerCase(Locale.ROOT);
            if (lower.startsWith("content-length:")) {
                return Integer.parseInt(line.substring("content-length:".length()).strip());
            }
            if (lower.startsWith("transfer-encoding:")) {
                throw new IOException("the proxy relays Content-Length bodies only");
            }
        }
        return 0;
    }

    @Override
    public void close() throws IOException {
        server.close();
        threads.shutdownNow();
    }
}
