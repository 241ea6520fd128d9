package sh.karpenter.providers.aws;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import sh.karpenter.providers.aws.garbagecollection.InstanceGarbageCollection;
import sh.karpenter.providers.aws.operator.AwsProvider;
import sh.karpenter.testkit.aws.AwsEmulatorTest;
import sh.karpenter.testkit.aws.AwsFaults;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;
import sh.karpenter.testkit.fixtures.TestObjects;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.iam.IamClient;
import software.amazon.awssdk.services.ssm.SsmClient;

/**
 * Measures the whole path from pending pods to instances: N pods (default 500) that each need a node
 * of their own (hostname anti-affinity) are created at once on the real control plane; the controller
 * with the AWS provider batches them, solves, creates N NodeClaims and launches them through
 * {@code AwsCloudProvider.create} and the CreateFleet batcher against the emulator. Prints, does not
 * assert: the time from the first pod to N instances launched (every NodeClaim has its provider ID,
 * which it gets from the instance CreateFleet returned) and to every pod Running on its node (the
 * stand-in kubelet registers the Nodes), the CreateFleet calls made and every AWS call by operation
 * (counted by testkit's {@code AwsFaults} proxy, which injects nothing here), progress every 30 s,
 * and at the end the cluster's live instances in EC2. The NodePool's budget allows no voluntary
 * disruption while measuring. The provider's leaked-instance GC and instance status checks run every 10 minutes
 * here (see {@link #QUIET}). Off unless {@code -Dkarpenter.aws.provisioningScale=true}
 * ({@code -Dkarpenter.aws.provisioningScale.count=N}); excluded from the normal Failsafe run by name.
 * See BENCHMARKS.md.
 */
@ControlPlaneTest
@AwsEmulatorTest
@EnabledIfSystemProperty(named = "karpenter.aws.provisioningScale", matches = "true")
class AwsProvisioningScaleIT {
  private static final Duration LIMIT = Duration.ofMinutes(20);
  /**
   * The provider's periodic whole-account listings (leaked-instance GC, instance status checks) every
   * 10 minutes instead of 2 and 1: against hundreds of instances each one keeps the emulator busy for
   * many seconds, and they are not part of the launch path measured here.
   */
  private static final AwsProvider.Tuning QUIET = new AwsProvider.Tuning(
      new InstanceGarbageCollection.Settings(Duration.ofMinutes(10), Duration.ofMinutes(10), Duration.ofSeconds(30)), Duration.ofSeconds(1),
      Duration.ofMinutes(10));

  private AwsE2EFixture e2e;
  private AwsFaults faults;
  private KubernetesClient client;
  private ScheduledExecutorService progress;

  @BeforeEach
  void start(KubernetesClient client, AwsFaults faults, Ec2Client ec2, SsmClient ssm, IamClient iam) {
    this.client = client;
    this.faults = faults;
    e2e = new AwsE2EFixture(client, faults, ec2, ssm, iam, QUIET, "");
  }

  @AfterEach
  void stop() {
    if (progress != null) {
      progress.shutdownNow();
    }
    if (e2e != null) {
      e2e.close();
    }
  }

  @Test
  void pendingPodsToInstances() throws Exception {
    int count = Integer.getInteger("karpenter.aws.provisioningScale.count", 500);
    // no voluntary disruption while measuring
    e2e.createNodeClassAndPool(List.of("c5.large", "m5.large"), "{consolidateAfter: Never, budgets: [{nodes: \"0\"}]}");

    long start = System.nanoTime();
    var informers = e2e.operator.informers();
    progress = Executors.newSingleThreadScheduledExecutor();
    progress.scheduleAtFixedRate(() -> System.out.printf("PROVISIONING-SCALE progress at %d s: %d NodeClaims, %d launched, %d Nodes,"
        + " %d pods Running; calls %s%n",
        millisSince(start) / 1000, informers.nodeClaims().getStore().list().size(),
        informers.nodeClaims().getStore().list().stream().filter(c -> c.getStatus() != null && c.getStatus().getProviderID() != null).count(),
        informers.nodes().getStore().list().size(), informers.pods().getStore().list().stream().filter(TestObjects::running).count(),
        callsByOperation()), 30, 30, TimeUnit.SECONDS);
    ExecutorService creators = Executors.newFixedThreadPool(16);
    try {
      List<Future<?>> created = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        Pod pod = TestObjects.awayFrom("scale", TestObjects.pausePod("scale-" + i, "scale", "1", "1Gi"));
        created.add(creators.submit(() -> client.resource(pod).create()));
      }
      for (Future<?> f : created) {
        f.get();
      }
    } finally {
      creators.shutdownNow();
    }
    long podsCreated = millisSince(start);

    // read from the controller's informer caches: listing 500 objects every poll would load the API server
    long launched = waitFor(start, () -> informers.nodeClaims().getStore().list().stream()
        .filter(c -> c.getStatus() != null && c.getStatus().getProviderID() != null).count() >= count);
    int fleetsAtLaunch = faults.requests("ec2", "CreateFleet").size();
    System.out.printf("PROVISIONING-SCALE: %d pods (one per node) created in %d ms; %d NodeClaims launched %d ms after the first pod;"
        + " %d CreateFleet calls (%.1f instances per call)%n",
        count, podsCreated, count, launched, fleetsAtLaunch, (double) count / Math.max(1, fleetsAtLaunch));
    long running = waitFor(start, () -> informers.pods().getStore().list().stream()
        .filter(p -> "scale".equals(p.getMetadata().getLabels() == null ? null : p.getMetadata().getLabels().get("app")))
        .filter(TestObjects::running).count() >= count);
    System.out.printf("PROVISIONING-SCALE: all %d pods Running %d ms after the first pod; %d NodeClaims in all%n",
        count, running, informers.nodeClaims().getStore().list().size());
    // one DescribeInstances of hundreds of instances keeps the emulator busy for a long time: asked once, at the end
    System.out.printf("PROVISIONING-SCALE: %d live instances tagged for the cluster in EC2%n", e2e.karpenterInstances().size());
    System.out.println("PROVISIONING-SCALE: AWS calls by operation " + callsByOperation());
  }

  /** The AWS calls the proxy has seen so far, by service and operation, most frequent first. */
  private String callsByOperation() {
    Map<String, Long> counts = faults.requests().stream()
        .collect(Collectors.groupingBy(r -> r.service() + ":" + r.operation(), Collectors.counting()));
    return counts.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(", "));
  }

  private static long waitFor(long start, BooleanSupplier condition) {
    await().atMost(LIMIT).pollInterval(Duration.ofSeconds(1)).ignoreExceptions().until(condition::getAsBoolean);
    return millisSince(start);
  }

  private static long millisSince(long start) {
    return Duration.ofNanos(System.nanoTime() - start).toMillis();
  }
}
