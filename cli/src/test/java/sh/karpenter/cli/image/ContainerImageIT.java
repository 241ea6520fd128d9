package sh.karpenter.cli.image;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import sh.karpenter.cli.VersionCommand;
import sh.karpenter.testkit.controlplane.ControlPlane;
import sh.karpenter.testkit.scripts.ProjectScript;

/**
 * Verifies the container image itself, not the jar: builds it twice with {@code scripts/image}
 * (the second time with a freshly linked JRE) and compares the digests, unpacks the OCI layout's
 * layers into a directory, and runs the image's entrypoint there in a mount and PID namespace with
 * the unpacked root mounted read-only and a tmpfs on /tmp, as the image's user (see {@link ImageSandbox}):
 * {@code karpenter version}, then the controller against the real control plane until it holds the
 * leader Lease and answers {@code /readyz}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ContainerImageIT {

  private static final ObjectMapper JSON = new ObjectMapper();

  private Path repository;
  private Path work;
  private Path rootfs;
  private JsonNode config;
  private String firstDigest;

  @BeforeAll
  void buildAndUnpack() throws Exception {
    repository = ProjectScript.repositoryRoot("scripts/image", "image build");
    ImageSandbox.checkAvailable();
    ProjectScript.Result build = ProjectScript.run(repository, "scripts/image", "--no-build", java.util.Map.of());
    assertThat(build.exitCode()).as("scripts/image --no-build:\n%s", build.output()).isZero();
    System.out.println(build.output());
    firstDigest = Files.readString(repository.resolve("target/image/karpenter-controller.digest")).strip();
    work = Files.createDirectories(Path.of("target/image-it")).toAbsolutePath();
    ImageSandbox.deleteTree(work.resolve("rootfs"));
    OciLayout layout = OciLayout.unpack(repository.resolve("target/image/karpenter-controller.oci.tar"), work.resolve("layout"));
    assertThat("sha256:" + layout.manifestDigest()).isEqualTo(firstDigest);
    config = layout.config();
    rootfs = layout.extractLayers(work.resolve("rootfs"));
  }

  @Test
  void twoBuildsGiveTheSameDigest() {
    ProjectScript.Result again = ProjectScript.run(repository, "scripts/image", "--no-build", java.util.Map.of("IMAGE_FRESH_JRE", "true"));
    assertThat(again.exitCode()).as("second scripts/image --no-build:\n%s", again.output()).isZero();
    assertThat(again.output()).contains("jlink");
    assertThat(again.output()).contains("digest  " + firstDigest);
  }

  @Test
  void configDeclaresTheNonRootUserTheControllerEntrypointAndContainerAwareHeapFlags() throws IOException {
    JsonNode c = config.get("config");
    assertThat(c.get("User").asText()).isEqualTo("65532:65532");
    List<String> entrypoint = strings(c.get("Entrypoint"));
    assertThat(entrypoint.get(0)).isEqualTo("/opt/karpenter/jre/bin/java");
    assertThat(entrypoint.getLast()).isEqualTo("controller");
    assertThat(strings(c.get("Env"))).anySatisfy(env -> assertThat(env)
        .startsWith("JAVA_TOOL_OPTIONS=").contains("-XX:MaxRAMPercentage=75").contains("-XX:+ExitOnOutOfMemoryError"));
    assertThat(Files.readString(rootfs.resolve("etc/passwd"), java.nio.charset.StandardCharsets.UTF_8).lines())
        .contains("nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin");
  }

  @Test
  void entrypointPrintsTheVersion() throws Exception {
    List<String> command = new ArrayList<>(strings(config.get("config").get("Entrypoint")));
    command.set(command.size() - 1, "version");
    ImageSandbox.Run run = ImageSandbox.run(rootfs, config, null, command, Duration.ofSeconds(60), output -> false);
    assertThat(run.exit()).as("karpenter version in the image:\n%s", run.output()).isZero();
    assertThat(run.output()).contains(new VersionCommand.Provider().getVersion()[0]).contains("java ");
  }

  @Test
  void controllerFromTheImageBecomesLeaderAndReady() throws Exception {
    ControlPlane controlPlane = ControlPlane.shared();
    int metricsPort = ImageSandbox.freePort();
    int healthPort = ImageSandbox.freePort();
    String lease = "karpenter-image-it-" + ProcessHandle.current().pid();
    List<String> command = new ArrayList<>(strings(config.get("config").get("Entrypoint")));
    command.addAll(List.of("--kubeconfig", ImageSandbox.KUBECONFIG_IN_IMAGE, "--metrics-port", String.valueOf(metricsPort),
        "--health-probe-port", String.valueOf(healthPort), "--leader-election-name", lease));
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    boolean[] ready = {false};
    ImageSandbox.Run run = ImageSandbox.run(rootfs, config, controlPlane.kubeconfig(), command, Duration.ofSeconds(120), output -> {
      Lease held = controlPlane.client().leases().inNamespace("kube-system").withName(lease).get();
      boolean leader = held != null && held.getSpec().getHolderIdentity() != null && !held.getSpec().getHolderIdentity().isEmpty();
      ready[0] = leader && status(http, "http://127.0.0.1:" + healthPort + "/readyz") == 200
          && status(http, "http://127.0.0.1:" + healthPort + "/healthz") == 200;
      return ready[0];
    });
    assertThat(ready[0]).as("the controller in the image held Lease kube-system/%s and answered /readyz within 120 s; "
        + "exit %s, output:\n%s\n%s", lease, run.exit(), run.output(), controlPlane.logTails()).isTrue();
    assertThat(run.output()).doesNotContain("Read-only file system");
    controlPlane.client().leases().inNamespace("kube-system").withName(lease).delete();
  }

  private static int status(HttpClient http, String url) {
    try {
      return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2)).build(),
          HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(node -> out.add(node.asText()));
    return out;
  }

  static ObjectMapper json() {
    return JSON;
  }
}
