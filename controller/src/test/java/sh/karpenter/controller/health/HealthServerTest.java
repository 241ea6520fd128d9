package sh.karpenter.controller.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prometheus.client.CollectorRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.controller.metrics.Metrics;

/** Serves over real loopback HTTP. */
class HealthServerTest {
  private static final String LOOPBACK = "127.0.0.1";

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30)).build();
  private final Metrics metrics = new Metrics(new CollectorRegistry());
  private final AtomicBoolean ready = new AtomicBoolean(false);
  private final List<HealthServer> servers = new ArrayList<>();

  @AfterEach
  void tearDown() {
    servers.forEach(HealthServer::close);
    http.close();
  }

  private HealthServer started(String address, int metricsPort, int probePort) {
    HealthServer server = new HealthServer(address, metricsPort, probePort, metrics, ready::get);
    servers.add(server);
    server.start();
    return server;
  }

  private HttpResponse<String> send(String method, int port, String path) throws IOException, InterruptedException {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + LOOPBACK + ":" + port + path))
        .method(method, HttpRequest.BodyPublishers.noBody())
        .timeout(Duration.ofSeconds(30))
        .build();
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
    return send("GET", port, path);
  }

  @Test
  void servesTheScrapeOnTheMetricsPort() throws Exception {
    metrics.nodeClaimCreated("default", "provisioning", false);
    HealthServer server = started(LOOPBACK, 0, 0);

    HttpResponse<String> response = get(server.metricsPort(), "/metrics");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
        type -> assertThat(type).startsWith("text/plain; version=0.0.4"));
    assertThat(response.body())
        .contains("karpenter_nodeclaims_created_total{reason=\"provisioning\",nodepool=\"default\",min_values_relaxed=\"false\",} 1.0");
  }

  @Test
  void healthzAnswersOkWhileRunning() throws Exception {
    HealthServer server = started(LOOPBACK, 0, 0);

    HttpResponse<String> response = get(server.healthProbePort(), "/healthz");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).isEqualTo("ok");
  }

  @Test
  void readyzFollowsTheReadinessCheck() throws Exception {
    HealthServer server = started(LOOPBACK, 0, 0);

    HttpResponse<String> notReady = get(server.healthProbePort(), "/readyz");
    ready.set(true);
    HttpResponse<String> isReady = get(server.healthProbePort(), "/readyz");

    assertThat(notReady.statusCode()).isEqualTo(503);
    assertThat(notReady.body()).isEqualTo("not ready");
    assertThat(isReady.statusCode()).isEqualTo(200);
    assertThat(isReady.body()).isEqualTo("ok");
  }

  @Test
  void aFailingReadinessCheckIsNotReady() throws Exception {
    HealthServer server = new HealthServer(LOOPBACK, 0, 0, metrics, () -> {
      throw new IllegalStateException("informers gone");
    });
    servers.add(server);
    server.start();

    HttpResponse<String> response = get(server.healthProbePort(), "/readyz");

    assertThat(response.statusCode()).isEqualTo(503);
    assertThat(response.body()).isEqualTo("readiness check failed: IllegalStateException");
    assertThat(get(server.healthProbePort(), "/healthz").statusCode()).isEqualTo(200);
  }

  @Test
  void eachPortServesOnlyItsOwnPaths() throws Exception {
    HealthServer server = started(LOOPBACK, 0, 0);

    assertThat(server.metricsPort()).isNotEqualTo(server.healthProbePort());
    assertThat(get(server.healthProbePort(), "/metrics").statusCode()).isEqualTo(404);
    assertThat(get(server.metricsPort(), "/healthz").statusCode()).isEqualTo(404);
    assertThat(get(server.metricsPort(), "/readyz").statusCode()).isEqualTo(404);
    assertThat(get(server.metricsPort(), "/metrics/extra").statusCode()).isEqualTo(404);
    assertThat(get(server.healthProbePort(), "/").statusCode()).isEqualTo(404);
  }

  @Test
  void equalPortsServeEverythingFromOneListener() throws Exception {
    HealthServer first = started(LOOPBACK, 0, 0);
    int port = first.metricsPort();
    first.close();
    HealthServer server = started(LOOPBACK, port, port);

    assertThat(server.healthProbePort()).isEqualTo(port);
    assertThat(get(port, "/metrics").statusCode()).isEqualTo(200);
    assertThat(get(port, "/healthz").statusCode()).isEqualTo(200);
    assertThat(get(port, "/readyz").statusCode()).isEqualTo(503);
  }

  @Test
  void minusOneTurnsAListenerOff() throws Exception {
    HealthServer probesOnly = started(LOOPBACK, HealthServer.DISABLED, 0);
    HealthServer metricsOnly = started(LOOPBACK, 0, HealthServer.DISABLED);

    assertThat(probesOnly.metricsPort()).isEqualTo(-1);
    assertThat(get(probesOnly.healthProbePort(), "/healthz").statusCode()).isEqualTo(200);
    assertThat(metricsOnly.healthProbePort()).isEqualTo(-1);
    assertThat(get(metricsOnly.metricsPort(), "/metrics").statusCode()).isEqualTo(200);
    assertThat(get(metricsOnly.metricsPort(), "/healthz").statusCode()).isEqualTo(404);
  }

  @Test
  void onlyGetAndHeadAreAllowed() throws Exception {
    HealthServer server = started(LOOPBACK, 0, 0);

    HttpResponse<String> post = send("POST", server.healthProbePort(), "/healthz");
    HttpResponse<String> head = send("HEAD", server.metricsPort(), "/metrics");

    assertThat(post.statusCode()).isEqualTo(405);
    assertThat(post.headers().firstValue("Allow")).contains("GET, HEAD");
    assertThat(head.statusCode()).isEqualTo(200);
    assertThat(head.body()).isEmpty();
  }

  @Test
  void defaultBindAddressIsEveryInterface() throws Exception {
    HealthServer server = new HealthServer(0, 0, metrics, ready::get);
    servers.add(server);
    server.start();

    assertThat(get(server.healthProbePort(), "/healthz").statusCode()).isEqualTo(200);
    assertThat(new HealthServer(null, 0, 0, metrics, ready::get)).isNotNull();
  }

  @Test
  void closeFreesThePortsAndIsIdempotent() throws Exception {
    HealthServer server = started(LOOPBACK, 0, 0);
    int metricsPort = server.metricsPort();
    int probePort = server.healthProbePort();

    server.close();
    server.close();

    assertThatThrownBy(() -> get(probePort, "/healthz")).isInstanceOf(IOException.class);
    HealthServer again = started(LOOPBACK, metricsPort, probePort);
    assertThat(get(again.healthProbePort(), "/healthz").statusCode()).isEqualTo(200);
  }

  @Test
  void aPortInUseFailsStartAndLeavesNothingBound() throws Exception {
    HealthServer first = started(LOOPBACK, 0, 0);
    HealthServer second = new HealthServer(LOOPBACK, 0, first.healthProbePort(), metrics, ready::get);
    servers.add(second);

    assertThatThrownBy(second::start).isInstanceOf(UncheckedIOException.class);
    assertThatThrownBy(second::metricsPort).isInstanceOf(IllegalStateException.class);
    assertThat(get(first.healthProbePort(), "/healthz").statusCode()).isEqualTo(200);
  }

  @Test
  void portsAreKnownOnlyAfterStartAndStartWorksOnce() {
    HealthServer server = new HealthServer(LOOPBACK, 0, 0, metrics, ready::get);
    servers.add(server);

    assertThatThrownBy(server::metricsPort).isInstanceOf(IllegalStateException.class);
    server.start();
    assertThatThrownBy(server::start).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> new HealthServer(LOOPBACK, -2, 0, metrics, ready::get))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new HealthServer(LOOPBACK, 0, 65536, metrics, ready::get))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
