package sh.karpenter.testkit.reliability;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.internal.SSLUtils;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import javax.net.ssl.SSLContext;

/**
 * A loopback proxy between one Karpenter controller and the test's kube-apiserver that can make the
 * API slow, throttled, unreachable or gone, as the network and the API server's own overload
 * protection would. The controller speaks plain HTTP/1.1 to the proxy ({@link #client()}); the proxy
 * opens one TLS connection to the API server per client connection, authenticated with the client
 * certificate of the upstream {@link Config}, reads each request's head and body to decide what to do
 * with it, and relays the answers back byte for byte (watches included). Every fault therefore lands
 * on exactly one controller's traffic, never on the test's own client.
 *
 * <ul>
 *   <li>{@link #delay} holds every request for a while before forwarding it (a slow API server);
 *   <li>{@link #throttle} answers every n-th request with {@code 429 Too Many Requests} and {@code
 *       Retry-After: 1}, as API Priority and Fairness does when a priority level's queues are full;
 *   <li>{@link #partition} forwards nothing: requests hang until the client gives up or the partition
 *       heals, then their connection is dropped, and open connections (watches) are cut;
 *   <li>{@link #cutConnections} drops every open connection, watches included, as an API server
 *       going away does;
 *   <li>{@link #loseAnswers} lets the API server carry out the next {@code POST}s to a path but drops
 *       their connection before the answer, as a connection reset after the write does: the client
 *       cannot tell whether the object was created;
 *   <li>{@link #close} stops listening and drops everything: no request of the controller reaches the
 *       API server again, the network-side view of {@code kill -9}.
 * </ul>
 *
 * Counts of forwarded, mutating and throttled requests let a test prove a controller stopped acting;
 * {@link #gone} counts the API server's {@code 410 Gone} answers relayed to the controller (a watch or
 * list from a resourceVersion that is too old), so a test can show a re-watch had to re-list.
 */
public final class FaultProxy implements AutoCloseable {
  /** The request timeout of the clients this proxy hands out. */
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
  private static final Set<String> MUTATING = Set.of("POST", "PUT", "PATCH", "DELETE");
  private static final Duration POLL = Duration.ofMillis(50);
  private static final int MAX_HEAD = 64 * 1024;
  /** How a {@code 410 Gone} Status (a response body or a watch's ERROR event) reads in JSON. */
  private static final byte[] GONE = "\"code\":410".getBytes(StandardCharsets.US_ASCII);

  private final Config upstream;
  private final URI upstreamUri;
  private final SSLContext tls;
  private final ServerSocket server;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private final AtomicLong forwarded = new AtomicLong();
  private final AtomicLong mutations = new AtomicLong();
  private final AtomicLong throttled = new AtomicLong();
  private final AtomicLong sequence = new AtomicLong();
  private final AtomicLong gone = new AtomicLong();
  private volatile Duration delay = Duration.ZERO;
  private volatile int throttleEvery;
  private volatile boolean partitioned;
  private volatile boolean closed;
  private volatile String loseAnswersTo;
  private volatile BooleanSupplier loseAnswersDropWhen = () -> true;
  private final AtomicLong answersDroppedWhenReady = new AtomicLong();
  private final AtomicLong answersToLose = new AtomicLong();
  private final AtomicLong postsToLosePath = new AtomicLong();

  private FaultProxy(Config upstream) {
    this.upstream = upstream;
    this.upstreamUri = URI.create(upstream.getMasterUrl());
    try {
      this.tls = SSLUtils.sslContext(SSLUtils.keyManagers(upstream), SSLUtils.trustManagers(upstream));
      this.server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException("starting the fault proxy", e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("reading the admin credentials for the fault proxy: " + e.getMessage(), e);
    }
    Thread.ofVirtual().name("fault-proxy-accept").start(this::accept);
  }

  /** A proxy in front of the API server {@code upstream} (an admin config with client certificates). */
  public static FaultProxy start(Config upstream) {
    return new FaultProxy(upstream);
  }

  /** A new client that reaches the API server only through this proxy; the caller closes it. */
  public KubernetesClient client() {
    Config config = new ConfigBuilder(Config.empty())
        .withMasterUrl("http://127.0.0.1:" + server.getLocalPort())
        .withNamespace(upstream.getNamespace())
        .withRequestTimeout((int) REQUEST_TIMEOUT.toMillis())
        .withConnectionTimeout(5_000)
        .withHttp2Disable(true)
        .build();
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  /** Holds every request for {@code pause} before forwarding it; {@link Duration#ZERO} for none. */
  public FaultProxy delay(Duration pause) {
    this.delay = pause;
    return this;
  }

  /** Answers every {@code n}-th request with 429 and {@code Retry-After: 1}; 0 to stop. */
  public FaultProxy throttle(int n) {
    this.throttleEvery = n;
    return this;
  }

  /** Cuts the controller off (true) or heals the partition (false); requests held meanwhile are dropped. */
  public FaultProxy partition(boolean cut) {
    partitioned = cut;
    if (cut) {
      cutConnections();
    }
    return this;
  }

  /**
   * The next {@code count} {@code POST}s whose path contains {@code pathPart} reach the API server,
   * which carries them out, but the controller never gets the answer: its connection stays open until
   * {@code dropWhen} holds (polled; at most the client's 10 s request timeout), then is closed, as a
   * connection reset after the write is. The controller's retry thus comes after whatever the answer
   * set off meanwhile (a NodeClaim launched, say).
   */
  public FaultProxy loseAnswers(String pathPart, int count, BooleanSupplier dropWhen) {
    loseAnswersTo = pathPart;
    loseAnswersDropWhen = dropWhen;
    answersToLose.set(count);
    return this;
  }

  /** Lost answers whose connection was dropped once {@code dropWhen} held (not on the time limit). */
  public long answersDroppedWhenReady() {
    return answersDroppedWhenReady.get();
  }

  /** {@code POST}s to the {@link #loseAnswers} path so far, the ones whose answer was lost included. */
  public long postsToLosePath() {
    return postsToLosePath.get();
  }

  /** Drops every open connection (watches included), as an API server going away does. */
  public void cutConnections() {
    for (Socket socket : sockets) {
      closeQuietly(socket);
    }
  }

  /** Requests forwarded to the API server so far. */
  public long forwarded() {
    return forwarded.get();
  }

  /** Mutating requests (POST, PUT, PATCH, DELETE) forwarded to the API server so far. */
  public long mutations() {
    return mutations.get();
  }

  /** Requests answered 429 so far. */
  public long throttled() {
    return throttled.get();
  }

  /**
   * {@code 410 Gone} Statuses relayed to the controller so far: answers to watches (an ERROR event)
   * or lists whose resourceVersion the API server no longer has ("too old resource version").
   */
  public long gone() {
    return gone.get();
  }

  /** Stops listening and drops every connection: the controller cannot reach the API server again. */
  @Override
  public void close() {
    closed = true;
    closeQuietly(server);
    cutConnections();
  }

  private void accept() {
    while (!closed) {
      try {
        Socket client = server.accept();
        if (closed) {
          closeQuietly(client);
          return;
        }
        sockets.add(client);
        Thread.ofVirtual().name("fault-proxy-connection").start(() -> serve(client));
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void serve(Socket client) {
    Socket api = null;
    try (client) {
      InputStream fromClient = client.getInputStream();
      OutputStream toClient = client.getOutputStream();
      api = tls.getSocketFactory().createSocket(upstreamUri.getHost(), upstreamUri.getPort());
      sockets.add(api);
      Socket upstreamSocket = api;
      Thread.ofVirtual().name("fault-proxy-response").start(() -> relay(upstreamSocket, client, gone));
      OutputStream toApi = api.getOutputStream();
      while (!closed) {
        byte[] head = readHead(fromClient);
        if (head == null) {
          return;
        }
        String text = new String(head, StandardCharsets.ISO_8859_1);
        String method = text.substring(0, Math.max(0, text.indexOf(' '))).toUpperCase(Locale.ROOT);
        byte[] body = readBody(fromClient, text);
        if (!admit()) {
          return; // partitioned: the request is lost with its connection
        }
        int every = throttleEvery;
        if (every > 0 && sequence.incrementAndGet() % every == 0) {
          throttled.incrementAndGet();
          byte[] status = ("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\"too many requests (fault proxy)\","
              + "\"reason\":\"TooManyRequests\",\"code\":429}").getBytes(StandardCharsets.UTF_8);
          toClient.write(("HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nRetry-After: 1\r\nConnection: close\r\n"
              + "Content-Length: " + status.length + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
          toClient.write(status);
          toClient.flush();
          return;
        }
        forwarded.incrementAndGet();
        if (MUTATING.contains(method)) {
          mutations.incrementAndGet();
        }
        String lose = loseAnswersTo;
        boolean postToLosePath = lose != null && method.equals("POST") && text.substring(0, text.indexOf('\r')).contains(lose);
        if (postToLosePath) {
          postsToLosePath.incrementAndGet();
        }
        if (postToLosePath && answersToLose.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
          forwardAndDropAnswer(head, body);
          awaitDrop(loseAnswersDropWhen);
          return;
        }
        toApi.write(head);
        toApi.write(body);
        toApi.flush();
      }
    } catch (IOException | RuntimeException e) {
      // either side went away, or the fault cut the connection
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      sockets.remove(client);
      if (api != null) {
        sockets.remove(api);
        closeQuietly(api);
      }
    }
  }

  /** Waits until {@code dropWhen} holds or {@link #REQUEST_TIMEOUT} (after which the client gives up by itself) passes. */
  private void awaitDrop(BooleanSupplier dropWhen) throws InterruptedException {
    long deadline = System.nanoTime() + REQUEST_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (dropWhen.getAsBoolean()) {
        answersDroppedWhenReady.incrementAndGet();
        return;
      }
      Thread.sleep(POLL);
    }
  }

  /** Sends one request on a connection of its own and waits for the start of the answer, which nobody gets. */
  private void forwardAndDropAnswer(byte[] head, byte[] body) throws IOException {
    try (Socket api = tls.getSocketFactory().createSocket(upstreamUri.getHost(), upstreamUri.getPort())) {
      api.getOutputStream().write(head);
      api.getOutputStream().write(body);
      api.getOutputStream().flush();
      api.getInputStream().read(); // the API server has answered: the request was carried out
    }
  }

  /** Copies the API server's answers to the client until either side closes, counting 410 Statuses in {@code gone}. */
  private static void relay(Socket api, Socket client, AtomicLong gone) {
    try {
      InputStream in = api.getInputStream();
      OutputStream out = client.getOutputStream();
      byte[] buffer = new byte[16 * 1024];
      Occurrences gones = new Occurrences(GONE);
      int read;
      while ((read = in.read(buffer)) >= 0) {
        out.write(buffer, 0, read);
        out.flush();
        gone.addAndGet(gones.in(buffer, read));
      }
    } catch (IOException e) {
      // cut
    } finally {
      closeQuietly(client);
      closeQuietly(api);
    }
  }

  /**
   * Counts a byte pattern in a stream read in pieces: the last {@code pattern.length - 1} bytes of one
   * piece are kept in front of the next, so a match split between two reads is found once.
   */
  static final class Occurrences {
    private final byte[] pattern;
    private byte[] window = new byte[0];
    private int carried;

    Occurrences(byte[] pattern) {
      this.pattern = pattern.clone();
    }

    /** Matches that end in the first {@code length} bytes of {@code piece}, the next piece of the stream. */
    int in(byte[] piece, int length) {
      int total = carried + length;
      if (window.length < total) {
        window = Arrays.copyOf(window, total);
      }
      System.arraycopy(piece, 0, window, carried, length);
      int count = 0;
      for (int i = 0; i + pattern.length <= total; i++) {
        if (Arrays.equals(window, i, i + pattern.length, pattern, 0, pattern.length)) {
          count++;
        }
      }
      carried = Math.min(pattern.length - 1, total);
      System.arraycopy(window, total - carried, window, 0, carried);
      return count;
    }
  }

  /** Waits out the delay and any partition; false when the request is to be dropped. */
  private boolean admit() throws InterruptedException {
    Duration pause = delay;
    if (!pause.isZero()) {
      Thread.sleep(pause);
    }
    if (!partitioned) {
      return !closed;
    }
    while (partitioned && !closed) {
      Thread.sleep(POLL);
    }
    return false;
  }

  /** The request line and headers up to the blank line, or null at the end of the stream. */
  private static byte[] readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    while (matched < 4) {
      int b = in.read();
      if (b < 0) {
        return null;
      }
      head.write(b);
      matched = (b == '\r' && (matched == 0 || matched == 2)) || (b == '\n' && (matched == 1 || matched == 3)) ? matched + 1 : 0;
      if (head.size() > MAX_HEAD) {
        throw new IOException("request head too long");
      }
    }
    return head.toByteArray();
  }

  /** The request's body as it was sent (Content-Length or chunked), so it can be forwarded unchanged. */
  private static byte[] readBody(InputStream in, String head) throws IOException {
    String lower = head.toLowerCase(Locale.ROOT);
    int length = headerInt(lower, "content-length");
    if (length > 0) {
      return in.readNBytes(length);
    }
    if (!lower.contains("transfer-encoding: chunked")) {
      return new byte[0];
    }
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    while (true) {
      String sizeLine = readLine(in, body);
      int size = Integer.parseInt(sizeLine.split(";")[0].trim(), 16);
      if (size == 0) {
        while (!readLine(in, body).isEmpty()) {
          // trailers
        }
        return body.toByteArray();
      }
      body.write(in.readNBytes(size));
      readLine(in, body);
    }
  }

  private static String readLine(InputStream in, ByteArrayOutputStream copy) throws IOException {
    StringBuilder line = new StringBuilder();
    int b;
    while ((b = in.read()) >= 0) {
      copy.write(b);
      if (b == '\n') {
        break;
      }
      if (b != '\r') {
        line.append((char) b);
      }
    }
    return line.toString();
  }

  private static int headerInt(String lowerHead, String name) {
    for (String line : lowerHead.split("\r\n")) {
      if (line.startsWith(name + ":")) {
        return Integer.parseInt(line.substring(name.length() + 1).trim());
      }
    }
    return -1;
  }

  private static void closeQuietly(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception ignored) {
      // already closed
    }
  }
}
