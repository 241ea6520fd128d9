package sh.karpenter.testkit.controlplane;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.opentest4j.TestAbortedException;
import sh.karpenter.testkit.scripts.ProjectScript;
import sh.karpenter.testkit.scripts.StartedOnce;

/**
 * A running real control plane (etcd, kube-apiserver, kube-controller-manager, kube-scheduler and
 * KWOK on loopback) started by {@code scripts/control-plane up}, with an admin client to it.
 *
 * <p>One instance serves the whole JVM ({@link #shared()}): a control plane already started by hand
 * in {@code $KARPENTER_CP_DIR} (default {@value #DEFAULT_RUN_DIR}) is reused and left running;
 * otherwise this JVM starts its own in a private run directory and stops it at exit. A user's
 * {@code KUBECONFIG} is never used, so tests cannot touch a real cluster. When the binaries have not
 * been built ({@code scripts/control-plane ensure}), {@link #shared()} aborts the calling test, which
 * JUnit reports as skipped; with {@code CI=true} in the environment ({@code .ci/run} sets it) it fails
 * the test instead, so that a CI run cannot pass by skipping its integration tests.
 */
public final class ControlPlane {

  static final String DEFAULT_RUN_DIR = "/tmp/karpenter-control-plane";
  private static final String SCRIPT = "scripts/control-plane";
  /** Exit status of {@code up} when the binaries are not in the cache. */
  private static final int EXIT_NOT_BUILT = 3;
  private static final int LOG_TAIL_LINES = 40;
  private static final String ETCD_CLIENT_URLS = "--listen-client-urls=";

  private static final StartedOnce<ControlPlane> SHARED = new StartedOnce<>(ControlPlane::attachOrStart);

  private final Path runDir;
  private final KubernetesClient client;

  private ControlPlane(Path runDir) {
    this.runDir = runDir;
    this.client = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(kubeconfig().toFile())).build();
  }

  /**
   * The control plane of this JVM, started (and its CRDs installed) on first use.
   *
   * @throws TestAbortedException when the binaries are absent, so the calling test is skipped
   * @throws IllegalStateException instead when the binaries are absent and {@code CI=true}
   * @throws IllegalStateException when the control plane fails to start; the message carries the
   *     script's output including the failing component's log tail
   */
  public static ControlPlane shared() {
    return SHARED.get();
  }

  private static ControlPlane attachOrStart() {
    Path root = ProjectScript.repositoryRoot(SCRIPT, "real control plane");
    Path existing = Path.of(System.getenv().getOrDefault("KARPENTER_CP_DIR", DEFAULT_RUN_DIR));
    ControlPlane controlPlane;
    if (runScript(root, existing, "env").exitCode() == 0) {
      controlPlane = new ControlPlane(existing);
    } else {
      Path own = Path.of(System.getProperty("java.io.tmpdir"), "karpenter-control-plane-" + ProcessHandle.current().pid());
      ProjectScript.Result up = runScript(root, own, "up");
      if (up.exitCode() == EXIT_NOT_BUILT) {
        throw unavailable(up.output().strip(), System.getenv());
      }
      if (up.exitCode() != 0) {
        throw new IllegalStateException("scripts/control-plane up failed (exit " + up.exitCode() + "):\n" + up.output());
      }
      ProjectScript.downAtExit(root, SCRIPT, Map.of("KARPENTER_CP_DIR", own.toString()));
      controlPlane = new ControlPlane(own);
    }
    ClusterReset.purge(controlPlane.client);
    CustomResourceDefinitions.install(controlPlane.client, root.resolve("api/src/main/resources/crds"));
    return controlPlane;
  }

  /** The admin client (cluster scope, namespace {@code default}); shared, never close it. */
  public KubernetesClient client() {
    return client;
  }

  /** The admin kubeconfig, with certificates embedded. */
  public Path kubeconfig() {
    return runDir.resolve("kubeconfig");
  }

  /**
   * The API server's audit log: one JSON line per request made with a ServiceAccount token (the audit
   * policy of {@code scripts/control-plane up}; requests of the admin user are not logged).
   */
  public Path auditLog() {
    return runDir.resolve("logs/audit.jsonl");
  }

  /**
   * Kills one component ({@code etcd}, {@code kube-apiserver}, {@code kube-controller-manager}, {@code
   * kube-scheduler} or {@code kwok}) with SIGKILL, waits {@code downtime}, and starts it again with the
   * same command line, environment and log file (appended), recording its new PID where {@code
   * scripts/control-plane down} finds it. Returns once the API server answers {@code /readyz} again.
   * Other tests of this JVM share the control plane: call it only from a test that owns the JVM's
   * attention (IT classes run one after the other).
   */
  public void restart(String component, Duration downtime) {
    Path pidFile = runDir.resolve(component + ".pid");
    try {
      long pid = Long.parseLong(Files.readString(pidFile).strip());
      ProcessHandle process = ProcessHandle.of(pid)
          .orElseThrow(() -> new IllegalStateException(component + " (pid " + pid + ") is not running"));
      List<String> command = readNulSeparated(Path.of("/proc", Long.toString(pid), "cmdline"));
      Map<String, String> environment = new HashMap<>();
      for (String entry : readNulSeparated(Path.of("/proc", Long.toString(pid), "environ"))) {
        int eq = entry.indexOf('=');
        if (eq > 0) {
          environment.put(entry.substring(0, eq), entry.substring(eq + 1));
        }
      }
      process.destroyForcibly();
      process.onExit().get(30, TimeUnit.SECONDS);
      Thread.sleep(downtime);
      ProcessBuilder builder = new ProcessBuilder(command)
          .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(runDir.resolve("logs/" + component + ".log").toFile()));
      builder.environment().clear();
      builder.environment().putAll(environment);
      Process started = builder.start();
      Files.writeString(pidFile, started.pid() + "\n");
      awaitReady(component, started);
    } catch (IOException e) {
      throw new UncheckedIOException("restarting " + component, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted restarting " + component, e);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException(component + " did not exit after SIGKILL", e);
    }
  }

  /**
   * etcd's client URL ({@code http://127.0.0.1:<port>}), read from the running etcd's command line
   * ({@code --listen-client-urls} of {@code scripts/control-plane up}), so it stays right after {@link
   * #restart}. etcd serves its gRPC gateway JSON API there; loopback only.
   */
  public URI etcdUrl() {
    try {
      long pid = Long.parseLong(Files.readString(runDir.resolve("etcd.pid")).strip());
      return readNulSeparated(Path.of("/proc", Long.toString(pid), "cmdline")).stream()
          .filter(arg -> arg.startsWith(ETCD_CLIENT_URLS))
          .map(arg -> URI.create(arg.substring(ETCD_CLIENT_URLS.length()).split(",")[0]))
          .findFirst()
          .orElseThrow(() -> new IllegalStateException("etcd (pid " + pid + ") was started without " + ETCD_CLIENT_URLS));
    } catch (IOException e) {
      throw new UncheckedIOException("reading etcd's command line in " + runDir, e);
    }
  }

  /**
   * Compacts etcd to its current revision (physically, as kube-apiserver's own compactor does every 5
   * minutes) and returns that revision: from now on a watch or list of etcd from an older revision
   * fails, which kube-apiserver reports as {@code 410 Gone} (resourceVersion too old). Uses etcd's
   * JSON gateway: {@code POST /v3/kv/range} for the revision, {@code POST /v3/kv/compaction}.
   */
  public long compactEtcd() {
    URI etcd = etcdUrl();
    try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
      // Any key will do: the answer's header carries the store's current revision. "AA==" is the key "\0".
      JsonNode range = etcdPost(http, etcd, "/v3/kv/range", "{\"key\":\"AA==\"}");
      long revision = range.path("header").path("revision").asLong(0);
      if (revision <= 0) {
        throw new IllegalStateException("etcd's /v3/kv/range answer has no header.revision: " + range);
      }
      etcdPost(http, etcd, "/v3/kv/compaction", "{\"revision\":\"" + revision + "\",\"physical\":true}");
      return revision;
    } catch (IOException e) {
      throw new UncheckedIOException("compacting etcd at " + etcd, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted compacting etcd at " + etcd, e);
    }
  }

  private static JsonNode etcdPost(HttpClient http, URI etcd, String path, String body) throws IOException, InterruptedException {
    HttpRequest request = HttpRequest.newBuilder(etcd.resolve(path))
        .timeout(Duration.ofSeconds(30))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body))
        .build();
    HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IllegalStateException("etcd " + path + " answered " + response.statusCode() + ": " + response.body());
    }
    return new ObjectMapper().readTree(response.body());
  }

  private void awaitReady(String component, Process started) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (System.nanoTime() < deadline) {
      if (!started.isAlive()) {
        throw new IllegalStateException(component + " exited after its restart; " + logTails());
      }
      try {
        String ready = client.raw("/readyz");
        if (ready != null && ready.strip().equals("ok")) {
          return;
        }
      } catch (RuntimeException notYet) {
        // the API server or its storage is still coming up
      }
      Thread.sleep(250);
    }
    throw new IllegalStateException("the API server was not ready 2 minutes after restarting " + component + "; " + logTails());
  }

  private static List<String> readNulSeparated(Path file) throws IOException {
    String content = new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
    return java.util.Arrays.stream(content.split("\0")).filter(s -> !s.isEmpty()).toList();
  }

  /** The last lines of each component's log, for failure reports. */
  public String logTails() {
    StringBuilder report = new StringBuilder("control plane logs in ").append(runDir.resolve("logs")).append('\n');
    try (Stream<Path> logs = Files.list(runDir.resolve("logs"))) {
      for (Path log : logs.filter(p -> p.toString().endsWith(".log")).sorted().toList()) {
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        report.append("--- ").append(log.getFileName()).append(" (last ").append(LOG_TAIL_LINES).append(" lines)\n");
        lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size())
            .forEach(line -> report.append("    ").append(line).append('\n'));
      }
    } catch (IOException | UncheckedIOException e) {
      report.append("(logs unreadable: ").append(e).append(")\n");
    }
    return report.toString();
  }

  /**
   * What {@link #shared()} throws when there is no control plane to be had: an abort, which JUnit
   * reports as a skip, on a developer's machine; a failure when {@code CI=true}, where a skipped
   * integration test would let the run pass without testing anything.
   */
  static RuntimeException unavailable(String reason, Map<String, String> environment) {
    return ProjectScript.unavailable("real control plane", reason, environment);
  }

  private static ProjectScript.Result runScript(Path root, Path runDir, String command) {
    return ProjectScript.run(root, SCRIPT, command, Map.of("KARPENTER_CP_DIR", runDir.toString()));
  }
}
