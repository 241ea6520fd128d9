package sh.karpenter.providers.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.prometheus.client.CollectorRegistry;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.providers.aws.garbagecollection.InstanceGarbageCollection;
import sh.karpenter.providers.aws.instance.InstanceProvider;
import sh.karpenter.providers.aws.interruption.InterruptionMetrics;
import sh.karpenter.providers.aws.interruption.InterruptionSamples;
import sh.karpenter.testkit.aws.AwsEmulatorTest;
import sh.karpenter.testkit.aws.AwsFaults;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.iam.IamClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.ssm.SsmClient;

/**
 * Interruption handling end to end (docs/behaviour/aws-interruption.md): EventBridge-shaped messages
 * in the emulator's SQS queue, the controller with the AWS provider on the real control plane,
 * kube-controller-manager running a Deployment. A spot interruption warning for a running instance
 * deletes its NodeClaim, marks its spot offering unavailable, and the pod runs on a replacement
 * NodeClaim of another offering while the old instance is terminated; a state change to "terminated"
 * removes the NodeClaim and its Node; a poison message is deleted and counted.
 */
@ControlPlaneTest
@AwsEmulatorTest
class AwsInterruptionE2EIT {
  private AwsE2EFixture e2e;
  private KubernetesClient client;
  private SqsClient sqs;
  private String queueUrl;

  @BeforeEach
  void start(KubernetesClient client, AwsFaults faults, Ec2Client ec2, SsmClient ssm, IamClient iam, SqsClient sqs) {
    this.client = client;
    this.sqs = sqs;
    String queue = "interruption-" + UUID.randomUUID().toString().substring(0, 8);
    queueUrl = sqs.createQueue(r -> r.queueName(queue)).queueUrl();
    e2e = new AwsE2EFixture(client, faults, ec2, ssm, iam, InstanceGarbageCollection.Settings.DEFAULT, queue);
  }

  @AfterEach
  void stop() {
    if (e2e != null) {
      e2e.close();
    }
  }

  @Test
  void aSpotInterruptionReplacesTheNodeAndMarksTheOfferingUnavailable() {
    e2e.createNodeClassAndPool(List.of("m5.large", "c5.large"), List.of("spot"), "{consolidateAfter: Never}");
    client.apps().deployments().resource(AwsE2EFixture.deployment("spotty", "500m", "512Mi")).create();
    Pod before = await().atMost(AwsE2EFixture.WAIT).until(() -> e2e.runningPod("spotty"), Optional::isPresent).get();
    NodeClaim interrupted = e2e.nodeClaimOf(before.getSpec().getNodeName());
    String instanceId = InstanceProvider.instanceId(interrupted.getStatus().getProviderID());
    String type = interrupted.getMetadata().getLabels().get(Labels.INSTANCE_TYPE);
    String zone = interrupted.getMetadata().getLabels().get(Labels.ZONE);
    assertThat(interrupted.getMetadata().getLabels()).containsEntry(Labels.CAPACITY_TYPE, "spot");

    sqs.sendMessage(r -> r.queueUrl(queueUrl).messageBody(InterruptionSamples.spotInterruption(instanceId, Instant.now())));

    await().atMost(AwsE2EFixture.WAIT).until(() -> client.resources(NodeClaim.class).withName(interrupted.getMetadata().getName()).get() == null);
    Pod after = await().atMost(AwsE2EFixture.WAIT)
        .until(() -> e2e.runningPod("spotty").filter(p -> !p.getSpec().getNodeName().equals(before.getSpec().getNodeName())), Optional::isPresent)
        .get();
    NodeClaim replacement = e2e.nodeClaimOf(after.getSpec().getNodeName());
    assertThat(replacement.getMetadata().getName()).isNotEqualTo(interrupted.getMetadata().getName());
    assertThat(ready(client.nodes().withName(after.getSpec().getNodeName()).get())).isTrue();
    assertThat(Map.of("type", replacement.getMetadata().getLabels().get(Labels.INSTANCE_TYPE),
            "zone", replacement.getMetadata().getLabels().get(Labels.ZONE)))
        .as("the interrupted offering is not launched again").isNotEqualTo(Map.of("type", type, "zone", zone));
    assertThat(e2e.aws.unavailableOfferings().unavailable(type, zone, "spot")).isTrue();
    await().atMost(AwsE2EFixture.WAIT).until(() -> client.nodes().withName(before.getSpec().getNodeName()).get() == null);
    await().atMost(AwsE2EFixture.WAIT).until(() -> e2e.karpenterInstances().stream().noneMatch(i -> i.instanceId().equals(instanceId)));

    CollectorRegistry metrics = e2e.operator.metrics().registry().orElseThrow();
    await().atMost(AwsE2EFixture.WAIT).until(() -> queueEmpty());
    assertThat(metrics.getSampleValue(InterruptionMetrics.RECEIVED, new String[] {"message_type"}, new String[] {"spot_interrupted"})).isEqualTo(1.0);
    assertThat(metrics.getSampleValue(InterruptionMetrics.DELETED)).isEqualTo(1.0);
    assertThat(metrics.getSampleValue(InterruptionMetrics.QUEUE_DURATION + "_count")).isEqualTo(1.0);
  }

  @Test
  void aTerminatedStateChangeRemovesTheNodeClaimAndNodeAndAPoisonMessageIsDeleted() {
    e2e.createNodeClassAndPool(List.of("m5.large"), "{consolidateAfter: Never}");
    client.apps().deployments().resource(AwsE2EFixture.deployment("stateful", "500m", "512Mi")).create();
    Pod pod = await().atMost(AwsE2EFixture.WAIT).until(() -> e2e.runningPod("stateful"), Optional::isPresent).get();
    String nodeName = pod.getSpec().getNodeName();
    NodeClaim claim = e2e.nodeClaimOf(nodeName);
    String instanceId = InstanceProvider.instanceId(claim.getStatus().getProviderID());
    CollectorRegistry metrics = e2e.operator.metrics().registry().orElseThrow();

    sqs.sendMessage(r -> r.queueUrl(queueUrl).messageBody("{\"version\":\"0\",\"detail-type\":"));
    sqs.sendMessage(r -> r.queueUrl(queueUrl).messageBody(InterruptionSamples.stateChange(instanceId, "terminated", Instant.now())));

    await().atMost(AwsE2EFixture.WAIT).until(() -> client.resources(NodeClaim.class).withName(claim.getMetadata().getName()).get() == null);
    await().atMost(AwsE2EFixture.WAIT).until(() -> client.nodes().withName(nodeName).get() == null);
    await().atMost(AwsE2EFixture.WAIT).until(() -> queueEmpty());
    assertThat(metrics.getSampleValue(InterruptionMetrics.DELETED)).isEqualTo(2.0);
    assertThat(metrics.getSampleValue(InterruptionMetrics.RECEIVED, new String[] {"message_type"}, new String[] {"instance_terminated"}))
        .isEqualTo(1.0);
    assertThat(metrics.getSampleValue("karpenter_nodeclaims_disrupted_total",
        new String[] {"reason", "nodepool", "capacity_type", "consolidation_policy", "termination_mode"},
        new String[] {"instance_terminated", "default", "on-demand", "", "graceful"})).isEqualTo(1.0);
    assertThat(e2e.aws.unavailableOfferings().seq()).as("a state change marks no offering").isZero();
  }

  private boolean queueEmpty() {
    Map<QueueAttributeName, String> attributes = sqs.getQueueAttributes(r -> r.queueUrl(queueUrl)
        .attributeNames(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES, QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE))
        .attributes();
    return "0".equals(attributes.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES))
        && "0".equals(attributes.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE));
  }

  private static boolean ready(Node node) {
    return node != null && node.getStatus().getConditions().stream().anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }
}
