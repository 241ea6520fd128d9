package sh.karpenter.providers.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.providers.aws.garbagecollection.InstanceGarbageCollection;
import sh.karpenter.providers.aws.instance.InstanceProvider;
import sh.karpenter.testkit.aws.AwsEmulatorTest;
import sh.karpenter.testkit.aws.AwsFaults;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.Instance;
import software.amazon.awssdk.services.ec2.model.ResourceType;
import software.amazon.awssdk.services.ec2.model.Tag;
import software.amazon.awssdk.services.ec2.model.TagSpecification;
import software.amazon.awssdk.services.iam.IamClient;
import software.amazon.awssdk.services.ssm.SsmClient;

/**
 * Leaked-instance garbage collection end to end ({@link InstanceGarbageCollection}, docs/behaviour/aws.md#garbage-collection):
 * an instance launched behind Karpenter's back with Karpenter's tags and no NodeClaim is terminated
 * and its Node deleted; an instance without Karpenter's tags is left alone. The loop runs every second
 * and collects instances older than 5 s here (upstream: 10 s, then 2 min; 30 s).
 */
@ControlPlaneTest
@AwsEmulatorTest
class AwsGarbageCollectionE2EIT {
  private static final InstanceGarbageCollection.Settings FAST =
      new InstanceGarbageCollection.Settings(Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(5));

  private AwsE2EFixture e2e;
  private KubernetesClient client;
  private Ec2Client ec2;

  @BeforeEach
  void start(KubernetesClient client, AwsFaults faults, Ec2Client ec2, SsmClient ssm, IamClient iam) {
    this.client = client;
    this.ec2 = ec2;
    e2e = new AwsE2EFixture(client, faults, ec2, ssm, iam, FAST);
  }

  @AfterEach
  void stop() {
    if (e2e != null) {
      e2e.close();
    }
  }

  @Test
  void anInstanceWithKarpentersTagsAndNoNodeClaimIsTerminatedWithItsNode() {
    Instance leaked = launch(Map.of("karpenter.sh/nodepool", "default", "karpenter.k8s.aws/ec2nodeclass", "default",
        "eks:eks-cluster-name", AwsE2EFixture.CLUSTER, "kubernetes.io/cluster/" + AwsE2EFixture.CLUSTER, "owned"));
    Instance foreign = launch(Map.of("eks:eks-cluster-name", AwsE2EFixture.CLUSTER, "Name", "not-karpenters"));
    String providerId = InstanceProvider.providerId(leaked.placement().availabilityZone(), leaked.instanceId());
    Map<String, Quantity> capacity = Map.of("cpu", new Quantity("2"), "memory", new Quantity("8Gi"), "pods", new Quantity("29"));
    client.nodes().resource(AwsE2EFixture.kwokNode(leaked.instanceId(), providerId, Map.of("kubernetes.io/hostname", leaked.instanceId()),
        List.of(), capacity, capacity)).create();

    await().atMost(AwsE2EFixture.WAIT).until(() -> !state(leaked.instanceId()).matches("pending|running"));
    await().atMost(AwsE2EFixture.WAIT).until(() -> client.nodes().withName(leaked.instanceId()).get() == null);
    assertThat(state(foreign.instanceId())).isIn("pending", "running");
  }

  private Instance launch(Map<String, String> tags) {
    String ami = ec2.describeImages(r -> r.owners("amazon").filters(f -> f.name("architecture").values("x86_64"))).images().get(0).imageId();
    List<Tag> ec2Tags = tags.entrySet().stream().map(e -> Tag.builder().key(e.getKey()).value(e.getValue()).build()).toList();
    return ec2.runInstances(r -> r.imageId(ami).instanceType("m5.large").minCount(1).maxCount(1)
            .tagSpecifications(TagSpecification.builder().resourceType(ResourceType.INSTANCE).tags(ec2Tags).build()))
        .instances().get(0);
  }

  private String state(String instanceId) {
    return ec2.describeInstances(r -> r.instanceIds(instanceId)).reservations().get(0).instances().get(0).state().nameAsString();
  }
}
