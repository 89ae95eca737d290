package io.streamtables.e2e;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy in front of S3Proxy that records the head of every HTTP request passing through, bytes unchanged
 * (SigV4 signatures stay valid). S3Proxy accepts SSE headers but reports AES256 for every object on HEAD, so
 * whether the service asked for encryption is checked on the requests it sent (ARCHITECTURE "S3 API").
 *
 * <p>It also plays one part of S3 that S3Proxy lacks: a bucket given an owner here answers a request whose
 * {@code x-amz-expected-bucket-owner} names another account with 403 AccessDenied, as S3 does.
 */
final class RecordingS3Proxy implements AutoCloseable {

    /** One request as the service sent it: method, path with query, headers by lower-case name. */
    record Request(String method, String target, Map<String, String> headers) {

        String bucket() {
            String path = URI.create(target).getPath();
            int slash = path.indexOf('/', 1);
            return slash < 0 ? path.substring(1) : path.substring(1, slash);
        }

        String key() {
            String path = URI.create(target).getRawPath();
            int slash = path.indexOf('/', 1);
            return slash < 0 ? "" : java.net.URLDecoder.decode(path.substring(slash + 1), StandardCharsets.UTF_8);
        }

        String query() {
            String q = URI.create(target).getRawQuery();
            return q == null ? "" : q;
        }

        /** PutObject or CreateMultipartUpload: the requests that create an object and carry its encryption. */
        boolean createsObject() {
            return !key().isEmpty() && (("PUT".equals(method) && !query().contains("uploadId")
                    && !headers.containsKey("x-amz-copy-source"))
                    || ("POST".equals(method) && query().matches("(.*&)?uploads(=.*)?(&.*)?")));
        }

        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    private final ServerSocket server;
    private final InetSocketAddress target;
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private final Map<String, String> owners = new ConcurrentHashMap<>();
    private final Map<String, java.util.concurrent.atomic.AtomicInteger> refusals = new ConcurrentHashMap<>();
    private volatile boolean open = true;
    private volatile boolean refusesTableCreation;

    RecordingS3Proxy(String targetEndpoint) throws IOException {
        URI uri = URI.create(targetEndpoint);
        this.target = new InetSocketAddress(uri.getHost(), uri.getPort());
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread accept = new Thread(this::accept, "s3-recording-proxy");
        accept.setDaemon(true);
        accept.start();
    }

    String endpoint() {
        return "http://127.0.0.1:" + server.getLocalPort();
    }

    List<Request> requests() {
        return List.copyOf(requests);
    }

    /** From now on, requests to the bucket expecting another owner than this account are refused. */
    void owner(String bucket, String account) {
        owners.put(bucket, account);
    }

    /** The next {@code count} objects written to the bucket are refused 403 AccessDenied, as an expired session is. */
    void refuseWrites(String bucket, int count) {
        refusals.put(bucket, new java.util.concurrent.atomic.AtomicInteger(count));
    }

    /**
     * From now on, the Iceberg REST catalog behind it refuses to create tables with 403, as S3 Tables refuses a caller
     * that may not create them.
     */
    void refuseTableCreation() {
        refusesTableCreation = true;
    }

    private boolean refusesTableCreation(Request request) {
        return refusesTableCreation && "POST".equals(request.method())
                && URI.create(request.target()).getPath().matches(".*/namespaces/[^/]+/tables");
    }

    private boolean refusesWrite(Request request) {
        var left = refusals.get(request.bucket());
        return request.createsObject() && left != null && left.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
    }

    private void accept() {
        while (open) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket(target.getAddress(), target.getPort());
                start(() -> pipe(upstream, client));
                start(() -> forwardRequests(client, upstream));
            } catch (IOException e) {
                if (open) {
                    System.err.println("recording proxy: " + e);
                }
            }
        }
    }

    private static void start(Runnable r) {
        Thread t = new Thread(r, "s3-recording-proxy-conn");
        t.setDaemon(true);
        t.start();
    }

    /** Upstream answers go back unchanged. */
    private static void pipe(Socket from, Socket to) {
        try (from; to) {
            from.getInputStream().transferTo(to.getOutputStream());
        } catch (IOException closed) {
            // either side went away
        }
    }

    /** Reads each request head, records it, and forwards head and body byte for byte. */
    private void forwardRequests(Socket client, Socket upstream) {
        try (client; upstream) {
            InputStream in = client.getInputStream();
            OutputStream out = upstream.getOutputStream();
            byte[] head;
            while ((head = readHead(in)) != null) {
                Request request = parse(head);
                requests.add(request);
                String owner = owners.get(request.bucket());
                String expected = request.header("x-amz-expected-bucket-owner");
                if (owner != null && expected != null && !owner.equals(expected)) {
                    refuse(client.getOutputStream());
                    return;
                }
                if (refusesTableCreation(request)) {
                    if ("chunked".equalsIgnoreCase(request.header("transfer-encoding"))) {
                        copyChunked(in, OutputStream.nullOutputStream());
                    } else if (request.header("content-length") != null) {
                        long length = Long.parseLong(request.header("content-length").trim());
                        copy(in, OutputStream.nullOutputStream(), length);
                    }
                    refuseCreation(client.getOutputStream());
                    return;
                }
                if (refusesWrite(request)) {
                    String length = request.header("content-length");
                    if (length != null) { // read, so that the client sees the answer rather than a broken pipe
                        copy(in, OutputStream.nullOutputStream(), Long.parseLong(length.trim()));
                    }
                    refuse(client.getOutputStream());
                    return;
                }
                out.write(head);
                String length = request.header("content-length");
                if ("chunked".equalsIgnoreCase(request.header("transfer-encoding"))) {
                    copyChunked(in, out);
                } else if (length != null) {
                    copy(in, out, Long.parseLong(length.trim()));
                }
                out.flush();
            }
        } catch (IOException closed) {
            // the client closed the connection
        }
    }

    /** S3's AccessDenied answer. */
    private static void refuse(OutputStream client) throws IOException {
        forbidden(client, "application/xml", "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
                + "<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>");
    }

    /** An Iceberg REST error answer, as S3 Tables' endpoint gives it. */
    private static void refuseCreation(OutputStream client) throws IOException {
        forbidden(client, "application/json", "{\"error\":{\"message\":\"User is not authorized to perform: "
                + "s3tables:CreateTable\",\"type\":\"ForbiddenException\",\"code\":403}}");
    }

    private static void forbidden(OutputStream client, String contentType, String text) throws IOException {
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        client.write(("HTTP/1.1 403 Forbidden\r\nContent-Type: " + contentType + "\r\nContent-Length: " + body.length
                + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        client.write(body);
        client.flush();
    }

    private static Request parse(byte[] head) {
        String[] lines = new String(head, StandardCharsets.ISO_8859_1).split("\r\n");
        String[] requestLine = lines[0].split(" ");
        Map<String, String> headers = new TreeMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
            }
        }
        return new Request(requestLine[0], requestLine[1], headers);
    }

    /** The bytes up to and including the blank line, or null at the end of the stream. */
    private static byte[] readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int state = 0;
        int b;
        while ((b = in.read()) >= 0) {
            head.write(b);
            state = switch (state) {
                case 0, 2 -> b == '\r' ? state + 1 : 0;
                case 1 -> b == '\n' ? 2 : b == '\r' ? 1 : 0;
                case 3 -> b == '\n' ? 4 : b == '\r' ? 1 : 0;
                default -> 0;
            };
            if (state == 4) {
                return head.toByteArray();
            }
        }
        return null;
    }

    private static void copy(InputStream in, OutputStream out, long n) throws IOException {
        byte[] buf = new byte[64 * 1024];
        while (n > 0) {
            int r = in.read(buf, 0, (int) Math.min(buf.length, n));
            if (r < 0) {
                throw new IOException("request body ended early");
            }
            out.write(buf, 0, r);
            n -= r;
        }
    }

    private static void copyChunked(InputStream in, OutputStream out) throws IOException {
        while (true) {
            String sizeLine = readLine(in, out);
            long size = Long.parseLong(sizeLine.split(";")[0].trim(), 16);
            if (size == 0) {
                String trailer;
                do {
                    trailer = readLine(in, out);
                } while (!trailer.isEmpty());
                return;
            }
            copy(in, out, size);
            readLine(in, out); // the CRLF after the chunk
        }
    }

    private static String readLine(InputStream in, OutputStream out) throws IOException {
        StringBuilder line = new StringBuilder();
        int b;
        while ((b = in.read()) >= 0) {
            out.write(b);
            if (b == '\n') {
                break;
            }
            if (b != '\r') {
                line.append((char) b);
            }
        }
        return line.toString();
    }

    @Override
    public void close() throws IOException {
        open = false;
        server.close();
    }
}
