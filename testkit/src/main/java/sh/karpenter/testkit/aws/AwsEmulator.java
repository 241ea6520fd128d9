package sh.karpenter.testkit.aws;

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
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.opentest4j.TestAbortedException;
import sh.karpenter.testkit.scripts.ProjectScript;
import sh.karpenter.testkit.scripts.StartedOnce;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.iam.IamClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.ssm.SsmClient;

/**
 * A running AWS API emulator (moto's server on loopback, started by {@code scripts/aws-emulator up})
 * and real AWS SDK for Java v2 clients to it. No test double stands in for the SDK: requests go
 * through the SDK's marshalling, signing and HTTP client to a server that speaks the AWS protocols.
 *
 * <p>One instance serves the whole JVM ({@link #shared()}): an emulator already started by hand in
 * {@code $KARPENTER_AWS_EMU_DIR} (default {@value #DEFAULT_RUN_DIR}) is reused and left running;
 * otherwise this JVM starts its own in a private run directory, on a port of its own, and stops it at
 * exit. When moto is not installed ({@code scripts/aws-emulator ensure}), {@link #shared()} aborts the
 * calling test, which JUnit reports as skipped; with {@code CI=true} it fails the test instead.
 *
 * <p>What moto 5.2.5 implements and lacks for the AWS provider: docs/aws-emulator.md.
 */
public final class AwsEmulator {

  static final String DEFAULT_RUN_DIR = "/tmp/karpenter-aws-emulator";
  /** The region {@code scripts/aws-emulator} exports and the clients use. */
  public static final Region REGION = Region.US_WEST_2;
  /**
   * Where tests put the SSM parameters the provider reads from {@code /aws/service/...} in AWS: moto
   * refuses to create parameters under {@code /aws/} and serves only a few of AWS's public ones, so a
   * provider under test is configured to read {@code <prefix>/aws/service/...} instead.
   */
  public static final String SSM_PARAMETER_PREFIX = "/karpenter-emulator";

  private static final String SCRIPT = "scripts/aws-emulator";
  private static final String PART = "AWS emulator (moto)";
  /** Exit status of {@code up} when moto is not installed. */
  private static final int EXIT_NOT_INSTALLED = 3;
  private static final int LOG_TAIL_LINES = 40;
  private static final Pattern ENDPOINT = Pattern.compile("(?m)^export AWS_ENDPOINT_URL=(\\S+)$");

  private static final StartedOnce<AwsEmulator> SHARED = new StartedOnce<>(AwsEmulator::attachOrStart);

  private final Path runDir;
  private final AwsClients clients;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final Ec2Client ec2;
  private final SsmClient ssm;
  private final IamClient iam;
  private final SqsClient sqs;

  private AwsEmulator(Path runDir, URI endpoint) {
    this.runDir = runDir;
    this.clients = new AwsClients(endpoint, REGION);
    this.ec2 = clients.ec2();
    this.ssm = clients.ssm();
    this.iam = clients.iam();
    this.sqs = clients.sqs();
  }

  /**
   * The emulator of this JVM, started on first use.
   *
   * @throws TestAbortedException when moto is not installed, so the calling test is skipped
   * @throws IllegalStateException instead when moto is not installed and {@code CI=true}
   * @throws IllegalStateException when the emulator fails to start; the message carries the
   *     script's output including the server's log tail
   */
  public static AwsEmulator shared() {
    return SHARED.get();
  }

  private static AwsEmulator attachOrStart() {
    Path root = ProjectScript.repositoryRoot(SCRIPT, PART);
    Path existing = Path.of(System.getenv().getOrDefault("KARPENTER_AWS_EMU_DIR", DEFAULT_RUN_DIR));
    ProjectScript.Result env = runScript(root, existing, "env");
    if (env.exitCode() == 0) {
      return new AwsEmulator(existing, endpoint(env.output()));
    }
    Path own = Path.of(System.getProperty("java.io.tmpdir"), "karpenter-aws-emulator-" + ProcessHandle.current().pid());
    ProjectScript.Result up = runScript(root, own, "up");
    if (up.exitCode() == EXIT_NOT_INSTALLED) {
      throw unavailable(up.output().strip(), System.getenv());
    }
    if (up.exitCode() != 0) {
      throw new IllegalStateException(SCRIPT + " up failed (exit " + up.exitCode() + "):\n" + up.output());
    }
    ProjectScript.downAtExit(root, SCRIPT, Map.of("KARPENTER_AWS_EMU_DIR", own.toString()));
    env = runScript(root, own, "env");
    if (env.exitCode() != 0) {
      throw new IllegalStateException(SCRIPT + " env failed after up (exit " + env.exitCode() + "):\n" + env.output());
    }
    return new AwsEmulator(own, endpoint(env.output()));
  }

  /** The {@code AWS_ENDPOINT_URL} line of {@code scripts/aws-emulator env}. */
  static URI endpoint(String envOutput) {
    Matcher matcher = ENDPOINT.matcher(envOutput);
    if (!matcher.find()) {
      throw new IllegalStateException(SCRIPT + " env printed no AWS_ENDPOINT_URL line:\n" + envOutput);
    }
    return URI.create(matcher.group(1));
  }

  /**
   * What {@link #shared()} throws when moto is not installed: a skip on a developer's machine, a
   * failure under {@code CI=true}.
   */
  static RuntimeException unavailable(String reason, Map<String, String> environment) {
    return ProjectScript.unavailable(PART, reason, environment);
  }

  /** Where the emulator serves every service, e.g. {@code http://127.0.0.1:20526}. */
  public URI endpoint() {
    return clients.endpoint();
  }

  /** Builds new clients to the emulator (close them), or any other SDK client through {@link AwsClients#build}. */
  public AwsClients clients() {
    return clients;
  }

  /** The shared EC2 client; never close it. */
  public Ec2Client ec2() {
    return ec2;
  }

  /** The shared SSM client; never close it. */
  public SsmClient ssm() {
    return ssm;
  }

  /** The shared IAM client; never close it. */
  public IamClient iam() {
    return iam;
  }

  /** The shared SQS client; never close it. */
  public SqsClient sqs() {
    return sqs;
  }

  /**
   * Forgets every resource of every service and region ({@code POST /moto-api/reset}): instances,
   * VPCs, launch templates, parameters, roles, queues. Built-in data (instance types, offerings, public
   * AMIs and the SSM parameters moto ships) comes back, and so do the default VPC and its subnets.
   */
  public void reset() {
    HttpRequest request = HttpRequest.newBuilder(endpoint().resolve("/moto-api/reset"))
        .timeout(Duration.ofSeconds(30))
        .POST(HttpRequest.BodyPublishers.noBody())
        .build();
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() / 100 != 2) {
        throw new IllegalStateException("POST " + request.uri() + " answered " + response.statusCode() + ": " + response.body());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("resetting the AWS emulator at " + endpoint(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while resetting the AWS emulator", e);
    }
  }

  /** The last lines of moto's log, for failure reports. */
  public String logTail() {
    Path log = runDir.resolve("logs/moto.log");
    StringBuilder report = new StringBuilder("AWS emulator log ").append(log).append(" (last ").append(LOG_TAIL_LINES).append(" lines)\n");
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size())
          .forEach(line -> report.append("    ").append(line).append('\n'));
    } catch (IOException | UncheckedIOException e) {
      report.append("(log unreadable: ").append(e).append(")\n");
    }
    return report.toString();
  }

  private static ProjectScript.Result runScript(Path root, Path runDir, String command) {
    return ProjectScript.run(root, SCRIPT, command, Map.of("KARPENTER_AWS_EMU_DIR", runDir.toString()));
  }
}
