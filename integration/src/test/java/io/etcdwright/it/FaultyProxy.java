package io.etcdwright.it;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy in front of a real S3 server (S3Proxy) that makes it fail the way stores fail: its
 * port refuses connections ({@link #down()}), a request matching a rule is answered with an HTTP
 * error without reaching the server, cut by a connection reset after some of its body, or makes
 * the test kill the server mid-body. Everything else passes byte for byte, so signatures, the
 * Host header and the server's answers are the real ones. For tests only, on loopback or the
 * testbed bridge.
 */
final class FaultyProxy implements AutoCloseable {
    /** What a matching request gets. */
    sealed interface Fault permits Answer, ResetAfter, RunAfter {
    }

    /** An HTTP error with an S3 error document, the request never reaching the server. */
    record Answer(int status, String code) implements Fault {
    }

    /** The request and this many bytes of its body reach the server, then both connections are reset. */
    record ResetAfter(long bodyBytes) implements Fault {
    }

    /** The request and this many bytes of its body reach the server, then {@code action} runs (kill the server). */
    record RunAfter(long bodyBytes, Runnable action) implements Fault {
    }

    /** A request whose method is {@code method} and whose path ends with {@code pathSuffix} gets {@code fault}. */
    record Rule(String method, String pathSuffix, Fault fault) {
        boolean matches(String requestMethod, String path) {
            return requestMethod.equals(method) && path.endsWith(pathSuffix);
        }
    }

    private final InetAddress address;
    private final int port;
    private final URI upstream;
    private final List<Rule> rules = new CopyOnWriteArrayList<>();
    private final List<String> log = new CopyOnWriteArrayList<>();
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile ServerSocket server;

    private FaultyProxy(InetAddress address, int port, URI upstream) {
        this.address = address;
        this.port = port;
        this.upstream = upstream;
    }

    /** Listens on a free port of {@code address} and passes everything to {@code upstream} (http://host:port). */
    static FaultyProxy start(String address, URI upstream) throws IOException {
        InetAddress at = InetAddress.getByName(address);
        int port;
        try (ServerSocket probe = new ServerSocket()) {
            probe.bind(new InetSocketAddress(at, 0));
            port = probe.getLocalPort();
        }
        FaultyProxy proxy = new FaultyProxy(at, port, upstream);
        proxy.up();
        return proxy;
    }

    URI endpoint() {
        return URI.create("http://" + address.getHostAddress() + ":" + port);
    }

    /** The requests seen so far: "METHOD path -> what happened". */
    List<String> log() {
        return List.copyOf(log);
    }

    void fail(String method, String pathSuffix, Fault fault) {
        rules.add(new Rule(method, pathSuffix, fault));
    }

    void clearFaults() {
        rules.clear();
    }

    /** Listens again, on the same port. */
    synchronized void up() throws IOException {
        if (server != null) {
            return;
        }
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(address, port));
        server = s;
        Thread accept = new Thread(() -> acceptLoop(s), "faulty-proxy-accept");
        accept.setDaemon(true);
        accept.start();
    }

    /** Refuses connections from now on (the port closes) and resets every open one, as a dead server's host does. */
    synchronized void down() {
        ServerSocket s = server;
        server = null;
        if (s != null) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
        for (Socket socket : List.copyOf(open)) {
            reset(socket);
        }
    }

    @Override
    public void close() {
        down();
    }

    private void acceptLoop(ServerSocket s) {
        while (!s.isClosed()) {
            try {
                Socket client = s.accept();
                open.add(client);
                Thread t = new Thread(() -> serve(client), "faulty-proxy-conn");
                t.setDaemon(true);
                t.start();
            } catch (IOException closed) {
                return;
            }
        }
    }

    private void serve(Socket client) {
        Socket server;
        try {
            server = new Socket(upstream.getHost(), upstream.getPort());
        } catch (IOException e) {
            log.add("(connection) -> upstream refused: " + e.getMessage());
            reset(client);
            return;
        }
        open.add(server);
        Thread back = new Thread(() -> pump(server, client), "faulty-proxy-back");
        back.setDaemon(true);
        back.start();
        try {
            InputStream in = client.getInputStream();
            OutputStream up = server.getOutputStream();
            while (true) {
                byte[] head = readHead(in);
                if (head == null) {
                    break;
                }
                String text = new String(head, StandardCharsets.ISO_8859_1);
                String[] requestLine = text.substring(0, text.indexOf("\r\n")).split(" ");
                String method = requestLine[0];
                String path = requestLine.length > 1 ? requestLine[1].replaceFirst("\\?.*", "") : "";
                long length = header(text, "content-length").map(Long::parseLong).orElse(0L);
                Rule rule = rules.stream().filter(r -> r.matches(method, path)).findFirst().orElse(null);
                if (rule != null && rule.fault() instanceof Answer a) {
                    log.add(method + " " + path + " -> answered " + a.status());
                    OutputStream out = client.getOutputStream();
                    if (header(text, "expect").map(v -> v.equalsIgnoreCase("100-continue")).orElse(false)) {
                        out.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                        out.flush();
                    }
                    in.skipNBytes(length);
                    String body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>" + a.code() + "</Code><Message>injected by"
                            + " the test's faulty proxy</Message></Error>";
                    out.write(("HTTP/1.1 " + a.status() + " " + a.code() + "\r\nContent-Type: application/xml\r\nContent-Length: "
                            + body.length() + "\r\nConnection: close\r\n\r\n" + body).getBytes(StandardCharsets.ISO_8859_1));
                    out.flush();
                    break;
                }
                up.write(head);
                up.flush();
                if (header(text, "transfer-encoding").isPresent()) {
                    // No request boundaries to find: the rest of this connection passes as it is.
                    log.add(method + " " + path + " -> passed (chunked; not inspected)");
                    in.transferTo(up);
                    break;
                }
                long limit = length;
                if (rule != null && rule.fault() instanceof ResetAfter r) {
                    limit = Math.min(r.bodyBytes(), length);
                } else if (rule != null && rule.fault() instanceof RunAfter r) {
                    limit = Math.min(r.bodyBytes(), length);
                }
                copy(in, up, limit);
                if (rule == null) {
                    log.add(method + " " + path + " -> passed");
                    continue;
                }
                if (rule.fault() instanceof RunAfter r) {
                    log.add(method + " " + path + " -> " + limit + " of " + length + " body bytes passed, then the test's action");
                    r.action().run();
                } else {
                    log.add(method + " " + path + " -> " + limit + " of " + length + " body bytes passed, then reset");
                }
                break;
            }
        } catch (IOException e) {
            // the client or the server went away: so does the other side
        } finally {
            reset(client);
            reset(server);
        }
    }

    private void pump(Socket from, Socket to) {
        try {
            from.getInputStream().transferTo(to.getOutputStream());
        } catch (IOException ignored) {
            // one side closed
        } finally {
            reset(to);
            reset(from);
        }
    }

    private void reset(Socket socket) {
        open.remove(socket);
        try {
            socket.setSoLinger(true, 0); // RST, as a connection cut by a dying peer
            socket.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    private static void copy(InputStream in, OutputStream out, long bytes) throws IOException {
        byte[] buffer = new byte[64 * 1024];
        long left = bytes;
        while (left > 0) {
            int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
            if (n < 0) {
                throw new SocketException("the client closed mid-body");
            }
            out.write(buffer, 0, n);
            left -= n;
        }
        out.flush();
    }

    /** The request line and headers up to the empty line; null at the end of the connection. */
    private static byte[] readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        byte[] end = {'\r', '\n', '\r', '\n'};
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                return null;
            }
            head.write(b);
            matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        return head.toByteArray();
    }

    private static java.util.Optional<String> header(String head, String name) {
        List<String> values = new ArrayList<>();
        for (String line : head.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).trim().toLowerCase(Locale.ROOT).equals(name)) {
                values.add(line.substring(colon + 1).trim());
            }
        }
        return values.stream().findFirst();
    }
}
