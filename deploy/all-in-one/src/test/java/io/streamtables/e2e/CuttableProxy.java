package io.streamtables.e2e;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A byte-forwarding TCP proxy this test owns, in front of a shared peer (PostgreSQL, S3Proxy) that must not be
 * stopped: {@link #cut} plays the peer's outage for the services behind it — open connections are reset and new
 * ones refused (the listening socket is closed) — and {@link #restore} listens again on the same port. The peer
 * itself keeps running, so other tests on the machine do not notice.
 */
final class CuttableProxy implements AutoCloseable {

    private final InetSocketAddress target;
    private final int port;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile ServerSocket server;
    private volatile boolean closed;

    CuttableProxy(String host, int targetPort) throws IOException {
        this.target = new InetSocketAddress(host, targetPort);
        this.port = Ports.free();
        listen();
    }

    int port() {
        return port;
    }

    private void listen() throws IOException {
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 100);
        server = s;
        Thread accept = new Thread(() -> accept(s), "cuttable-proxy-" + port);
        accept.setDaemon(true);
        accept.start();
    }

    private void accept(ServerSocket s) {
        while (!s.isClosed()) {
            try {
                Socket client = s.accept();
                Socket upstream;
                try {
                    upstream = new Socket(target.getAddress(), target.getPort());
                } catch (IOException e) {
                    reset(client);
                    continue;
                }
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                open.add(client);
                open.add(upstream);
                pipe(client, upstream);
                pipe(upstream, client);
            } catch (IOException e) {
                // closed by cut() or close()
            }
        }
    }

    private void pipe(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[64 * 1024];
            try {
                var in = from.getInputStream();
                var out = to.getOutputStream();
                int n;
                while ((n = in.read(buf)) >= 0) {
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException gone) {
                // either side went away, or cut() reset both
            } finally {
                close(from);
                close(to);
            }
        }, "cuttable-proxy-conn");
        t.setDaemon(true);
        t.start();
    }

    /** The outage: resets every open connection and refuses new ones until {@link #restore}. */
    synchronized void cut() throws IOException {
        server.close();
        for (Socket s : open) {
            reset(s);
        }
    }

    /** The peer is back: new connections reach it again. */
    synchronized void restore() throws IOException {
        if (server.isClosed() && !closed) {
            listen();
        }
    }

    private void reset(Socket s) {
        try {
            s.setSoLinger(true, 0); // RST, as a stopped peer's kernel would answer
        } catch (SocketException ignored) {
            // already closed
        }
        close(s);
    }

    private void close(Socket s) {
        open.remove(s);
        try {
            s.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public synchronized void close() throws IOException {
        closed = true;
        server.close();
        for (Socket s : open) {
            close(s);
        }
    }
}
