package sh.karpenter.controller.health;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.controller.metrics.Metrics;

/**
 * The controller's HTTP endpoints, as upstream's manager serves them: {@code /metrics} (the
 * Prometheus text format 0.0.4 from {@link Metrics#scrape()}) on the metrics port, and the kubelet
 * probes on the health-probe port: {@code /healthz} answers 200 "ok" while the server runs, {@code
 * /readyz} 200 "ok" when the readiness check says so and 503 with a short reason otherwise (e.g.
 * before the informers have synced).
 *
 * <p>Uses the JDK's {@code com.sun.net.httpserver} with a virtual thread per request, so it adds no
 * dependency. A port of 0 picks a free port ({@link #metricsPort()} and {@link #healthProbePort()}
 * tell which after {@link #start()}), {@value #DISABLED} turns that listener off, and equal non-zero
 * ports serve all three paths from one listener.
 */
public final class HealthServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HealthServer.class);

  /** Listen on every interface, as upstream's {@code --metrics-port}/{@code --health-probe-port}. */
  public static final String DEFAULT_BIND_ADDRESS = "0.0.0.0";

  /** The port value that turns a listener off. */
  public static final int DISABLED = -1;

  static final String PROBE_CONTENT_TYPE = "text/plain; charset=utf-8";

  private final String bindAddress;
  private final int requestedMetricsPort;
  private final int requestedHealthProbePort;
  private final Metrics metrics;
  private final BooleanSupplier ready;

  private ExecutorService executor;
  private HttpServer metricsServer;
  private HttpServer probeServer; // the same object as metricsServer when the ports are equal
  private volatile boolean running;
  private boolean started;
  private boolean failed;
  private boolean closed;

  /**
   * @param bindAddress the address to listen on; null or blank means {@value #DEFAULT_BIND_ADDRESS}
   * @param metricsPort port of {@code /metrics}, 0 for any free port, {@value #DISABLED} for none
   * @param healthProbePort port of {@code /healthz} and {@code /readyz}, 0 for any free port,
   *     {@value #DISABLED} for none
   * @param ready whether the controller is ready to serve (answers {@code /readyz})
   */
  public HealthServer(String bindAddress, int metricsPort, int healthProbePort, Metrics metrics, BooleanSupplier ready) {
    if (metricsPort < DISABLED || metricsPort > 65535) throw new IllegalArgumentException("metrics port " + metricsPort);
    if (healthProbePort < DISABLED || healthProbePort > 65535) {
      throw new IllegalArgumentException("health probe port " + healthProbePort);
    }
    this.bindAddress = bindAddress == null || bindAddress.isBlank() ? DEFAULT_BIND_ADDRESS : bindAddress.strip();
    this.requestedMetricsPort = metricsPort;
    this.requestedHealthProbePort = healthProbePort;
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.ready = Objects.requireNonNull(ready, "ready");
  }

  /** Listens on {@value #DEFAULT_BIND_ADDRESS}. */
  public HealthServer(int metricsPort, int healthProbePort, Metrics metrics, BooleanSupplier ready) {
    this(DEFAULT_BIND_ADDRESS, metricsPort, healthProbePort, metrics, ready);
  }

  /**
   * Binds both ports and starts serving.
   *
   * @throws UncheckedIOException when a port cannot be bound (nothing stays bound then)
   * @throws IllegalStateException when already started or closed
   */
  public synchronized void start() {
    if (closed || started) throw new IllegalStateException("HealthServer can be started once");
    started = true;
    executor = Executors.newVirtualThreadPerTaskExecutor();
    try {
      boolean shared = requestedMetricsPort > 0 && requestedMetricsPort == requestedHealthProbePort;
      if (requestedMetricsPort != DISABLED) {
        metricsServer = listen(requestedMetricsPort, true, shared);
      }
      if (shared) {
        probeServer = metricsServer;
      } else if (requestedHealthProbePort != DISABLED) {
        probeServer = listen(requestedHealthProbePort, false, true);
      }
    } catch (IOException e) {
      stopServers();
      failed = true;
      closed = true;
      throw new UncheckedIOException(
          "binding " + bindAddress + " ports " + requestedMetricsPort + "/" + requestedHealthProbePort, e);
    }
    running = true;
    if (metricsServer != null) metricsServer.start();
    if (probeServer != null && probeServer != metricsServer) probeServer.start();
    LOG.info(
        "serving /metrics on {}:{} and /healthz, /readyz on {}:{} (-1: off)",
        bindAddress,
        metricsPort(),
        bindAddress,
        healthProbePort());
  }

  private HttpServer listen(int port, boolean servesMetrics, boolean servesProbes) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(bindAddress, port), 0);
    server.createContext("/", exchange -> handle(exchange, servesMetrics, servesProbes));
    server.setExecutor(executor);
    return server;
  }

  /** The bound metrics port (the chosen one when 0 was asked for), or {@value #DISABLED}. */
  public synchronized int metricsPort() {
    return boundPort(metricsServer);
  }

  /** The bound health-probe port (the chosen one when 0 was asked for), or {@value #DISABLED}. */
  public synchronized int healthProbePort() {
    return boundPort(probeServer);
  }

  private int boundPort(HttpServer server) {
    if (!started || failed) throw new IllegalStateException(failed ? "start failed" : "not started");
    return server == null ? DISABLED : server.getAddress().getPort();
  }

  /** Stops serving and frees the ports; idempotent. */
  @Override
  public synchronized void close() {
    if (closed) return;
    closed = true;
    running = false;
    stopServers();
  }

  private void stopServers() {
    if (probeServer != null && probeServer != metricsServer) stop(probeServer);
    if (metricsServer != null) stop(metricsServer);
    if (executor != null) executor.close();
  }

  private static void stop(HttpServer server) {
    try {
      server.stop(0);
    } catch (RuntimeException e) {
      LOG.debug("stopping {}", server.getAddress(), e); // e.g. never started after a failed bind
    }
  }

  private void handle(HttpExchange exchange, boolean servesMetrics, boolean servesProbes) throws IOException {
    try (exchange) {
      String method = exchange.getRequestMethod();
      if (!"GET".equals(method) && !"HEAD".equals(method)) {
        exchange.getResponseHeaders().set("Allow", "GET, HEAD");
        respond(exchange, 405, PROBE_CONTENT_TYPE, "method not allowed\n");
        return;
      }
      String path = exchange.getRequestURI().getPath();
      if (servesMetrics && "/metrics".equals(path)) {
        serveMetrics(exchange);
      } else if (servesProbes && "/healthz".equals(path)) {
        if (running) respond(exchange, 200, PROBE_CONTENT_TYPE, "ok");
        else respond(exchange, 503, PROBE_CONTENT_TYPE, "shutting down");
      } else if (servesProbes && "/readyz".equals(path)) {
        serveReadiness(exchange);
      } else {
        respond(exchange, 404, PROBE_CONTENT_TYPE, "not found\n");
      }
    }
  }

  private void serveMetrics(HttpExchange exchange) throws IOException {
    String body;
    try {
      body = metrics.scrape();
    } catch (RuntimeException e) {
      LOG.warn("scraping metrics failed", e);
      respond(exchange, 500, PROBE_CONTENT_TYPE, "scrape failed: " + e.getClass().getSimpleName() + "\n");
      return;
    }
    respond(exchange, 200, Metrics.CONTENT_TYPE, body);
  }

  private void serveReadiness(HttpExchange exchange) throws IOException {
    if (!running) {
      respond(exchange, 503, PROBE_CONTENT_TYPE, "shutting down");
      return;
    }
    boolean isReady;
    String reason = "not ready";
    try {
      isReady = ready.getAsBoolean();
    } catch (RuntimeException e) {
      LOG.warn("readiness check failed", e);
      isReady = false;
      reason = "readiness check failed: " + e.getClass().getSimpleName();
    }
    if (isReady) respond(exchange, 200, PROBE_CONTENT_TYPE, "ok");
    else respond(exchange, 503, PROBE_CONTENT_TYPE, reason);
  }

  private static void respond(HttpExchange exchange, int status, String contentType, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", contentType);
    if ("HEAD".equals(exchange.getRequestMethod())) {
      exchange.sendResponseHeaders(status, -1);
      return;
    }
    exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}
