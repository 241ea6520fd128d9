package sh.karpenter.providers.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.prometheus.client.CollectorRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.providers.aws.garbagecollection.InstanceGarbageCollection;
import sh.karpenter.providers.aws.instance.InstanceProvider;
import sh.karpenter.providers.aws.interruption.InstanceStatusController;
import sh.karpenter.providers.aws.interruption.InstanceStatusMetrics;
import sh.karpenter.providers.aws.operator.AwsProvider;
import sh.karpenter.testkit.aws.AwsEmulatorTest;
import sh.karpenter.testkit.aws.AwsFaults;
import sh.karpenter.testkit.aws.AwsRequest;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.InstanceStatus;
import software.amazon.awssdk.services.iam.IamClient;
import software.amazon.awssdk.services.ssm.SsmClient;

/**
 * The instance-status health checks end to end (docs/behaviour/aws-interruption.md#instance-status-checks):
 * the controller with the AWS provider on the real control plane, its EC2 calls through the {@code
 * AwsFaults} proxy in front of the emulator, polling every second. moto reports every instance healthy,
 * so the proxy answers DescribeInstanceStatus with an impaired system status for one instance (the
 * SDK parses EC2's XML): that instance's NodeClaim is deleted through the normal termination path and
 * its pod moves to a new node, the unhealthy counter counts it once, and the other instance is left
 * alone. An {@code UnauthorizedOperation} answer is logged once and never asked again, while the loop
 * and the rest of the controller keep running.
 */
@ControlPlaneTest
@AwsEmulatorTest
class AwsInstanceStatusE2EIT {
  private static final AwsProvider.Tuning FAST = new AwsProvider.Tuning(InstanceGarbageCollection.Settings.DEFAULT, Duration.ofSeconds(1),
      Duration.ofSeconds(1));
  private static final String RECONCILES = "controller_runtime_reconcile_total";

  private AwsE2EFixture e2e;
  private ListAppender<ILoggingEvent> logs;

  @AfterEach
  void stop() {
    if (e2e != null) {
      e2e.close();
    }
    if (logs != null) {
      ((Logger) LoggerFactory.getLogger(InstanceStatusController.class)).detachAppender(logs);
    }
  }

  @Test
  void anImpairedInstanceIsReplacedAndAHealthyOneIsLeftAlone(KubernetesClient client, AwsFaults faults, Ec2Client ec2, SsmClient ssm,
      IamClient iam) {
    e2e = new AwsE2EFixture(client, faults, ec2, ssm, iam, FAST, "");
    e2e.createNodeClassAndPool(List.of("m5.large"), "{consolidateAfter: Never}");
    client.apps().deployments().resource(deployment("impaired")).create();
    client.apps().deployments().resource(deployment("healthy")).create();
    Pod impairedPod = await().atMost(AwsE2EFixture.WAIT).until(() -> e2e.runningPod("impaired"), Optional::isPresent).get();
    Pod healthyPod = await().atMost(AwsE2EFixture.WAIT).until(() -> e2e.runningPod("healthy"), Optional::isPresent).get();
    assertThat(impairedPod.getSpec().getNodeName()).as("a pod of 1.5 CPUs per m5.large").isNotEqualTo(healthyPod.getSpec().getNodeName());
    NodeClaim impaired = e2e.nodeClaimOf(impairedPod.getSpec().getNodeName());
    NodeClaim healthy = e2e.nodeClaimOf(healthyPod.getSpec().getNodeName());
    String impairedId = InstanceProvider.instanceId(impaired.getStatus().getProviderID());
    String healthyId = InstanceProvider.instanceId(healthy.getStatus().getProviderID());
    CollectorRegistry metrics = e2e.operator.metrics().registry().orElseThrow();
    assertThat(unhealthy(metrics)).as("moto's statuses are all ok").isZero();

    Instant since = Instant.now().minus(Duration.ofMinutes(10));
    faults.instanceStatuses(List.of(
        InstanceStatus.builder().instanceId(impairedId)
            .systemStatus(s -> s.status("impaired").details(d -> d.name("reachability").status("failed").impairedSince(since)))
            .instanceStatus(s -> s.status("ok").details(d -> d.name("reachability").status("passed")))
            .build(),
        InstanceStatus.builder().instanceId(healthyId)
            .systemStatus(s -> s.status("ok").details(d -> d.name("reachability").status("passed")))
            .instanceStatus(s -> s.status("ok").details(d -> d.name("reachability").status("passed")))
            .build()));

    await().atMost(AwsE2EFixture.WAIT).until(() -> client.resources(NodeClaim.class).withName(impaired.getMetadata().getName()).get() == null);
    await().atMost(AwsE2EFixture.WAIT).until(() -> client.nodes().withName(impairedPod.getSpec().getNodeName()).get() == null);
    await().atMost(AwsE2EFixture.WAIT).until(() -> e2e.karpenterInstances().stream().noneMatch(i -> i.instanceId().equals(impairedId)));
    Pod moved = await().atMost(AwsE2EFixture.WAIT)
        .until(() -> e2e.runningPod("impaired").filter(p -> !p.getSpec().getNodeName().equals(impairedPod.getSpec().getNodeName())),
            Optional::isPresent)
        .get();
    assertThat(moved.getSpec().getNodeName()).isNotEqualTo(healthyPod.getSpec().getNodeName());

    long polls = faults.requests("ec2", "DescribeInstanceStatus").size();
    await().atMost(AwsE2EFixture.WAIT).until(() -> faults.requests("ec2", "DescribeInstanceStatus").size() >= polls + 6);
    assertThat(unhealthy(metrics)).as("counted once, although still reported impaired").isEqualTo(1.0);
    assertThat(metrics.getSampleValue("karpenter_nodeclaims_disrupted_total",
        new String[] {"reason", "nodepool", "capacity_type", "consolidation_policy", "termination_mode"},
        new String[] {"system_status", "default", "on-demand", "", "graceful"})).isEqualTo(1.0);
    NodeClaim stillThere = client.resources(NodeClaim.class).withName(healthy.getMetadata().getName()).get();
    assertThat(stillThere).isNotNull();
    assertThat(stillThere.getMetadata().getDeletionTimestamp()).isNull();
    assertThat(client.pods().withName(healthyPod.getMetadata().getName()).get().getMetadata().getDeletionTimestamp()).isNull();

    List<AwsRequest> first = faults.requests("ec2", "DescribeInstanceStatus").subList(0, 3);
    assertThat(first).extracting(r -> r.parameters().get("Filter.1.Name"))
        .containsExactly("instance-status.status", "system-status.status", "event.code");
    assertThat(first.get(2).parameters()).containsEntry("Filter.1.Value.1", "instance-reboot").containsEntry("Filter.1.Value.5", "instance-stop");
  }

  @Test
  void anUnauthorizedOperationIsLoggedOnceAndNotAskedAgain(KubernetesClient client, AwsFaults faults, Ec2Client ec2, SsmClient ssm,
      IamClient iam) {
    logs = new ListAppender<>();
    logs.start();
    ((Logger) LoggerFactory.getLogger(InstanceStatusController.class)).addAppender(logs);
    faults.error("ec2", "DescribeInstanceStatus", 403, "UnauthorizedOperation", "You are not authorized to perform this operation.", 1);

    e2e = new AwsE2EFixture(client, faults, ec2, ssm, iam, FAST, "");
    CollectorRegistry metrics = e2e.operator.metrics().registry().orElseThrow();
    await().atMost(AwsE2EFixture.WAIT).until(() -> reconciles(metrics) >= 5);

    assertThat(faults.requests("ec2", "DescribeInstanceStatus")).as("not asked again after the denial").hasSize(1);
    assertThat(logs.list).filteredOn(e -> e.getFormattedMessage().contains("ec2:DescribeInstanceStatus permission is not allowed")).hasSize(1);
    assertThat(metrics.getSampleValue(RECONCILES, new String[] {"controller", "result"},
        new String[] {InstanceStatusController.NAME, "error"})).as("the denial is not a reconcile error").isNull();

    e2e.createNodeClassAndPool(List.of("m5.large"), "{consolidateAfter: Never}");
    client.apps().deployments().resource(deployment("after-denial")).create();
    await().atMost(AwsE2EFixture.WAIT).until(() -> e2e.runningPod("after-denial"), Optional::isPresent);
    assertThat(faults.requests("ec2", "DescribeInstanceStatus")).hasSize(1);
  }

  private static double reconciles(CollectorRegistry metrics) {
    Double value = metrics.getSampleValue(RECONCILES, new String[] {"controller", "result"}, new String[] {InstanceStatusController.NAME, "success"});
    return value == null ? 0 : value;
  }

  private static double unhealthy(CollectorRegistry metrics) {
    Double value = metrics.getSampleValue(InstanceStatusMetrics.UNHEALTHY, new String[] {"category"}, new String[] {"SystemStatus"});
    return value == null ? 0 : value;
  }

  /** One pause pod of 1.5 CPUs, so that each gets an m5.large of its own. */
  private static Deployment deployment(String app) {
    return AwsE2EFixture.deployment(app, "1500m", "512Mi");
  }
}
