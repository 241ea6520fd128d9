package sh.karpenter.providers.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.core.cloudprovider.NodeClassRef;
import sh.karpenter.providers.aws.garbagecollection.InstanceGarbageCollection;
import sh.karpenter.testkit.aws.AwsEmulatorTest;
import sh.karpenter.testkit.aws.AwsFaults;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;
import sh.karpenter.testkit.fixtures.TestObjects;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.Instance;
import software.amazon.awssdk.services.iam.IamClient;
import software.amazon.awssdk.services.ssm.SsmClient;

/**
 * Insufficient capacity end to end: the provider talks to the emulator through an {@link AwsFaults}
 * proxy that answers CreateFleet's on-demand c5.large overrides (the cheapest allowed type) with
 * {@code InsufficientInstanceCapacity} in every zone; the pod still runs, on an m5.large, and the
 * c5.large on-demand offerings are reported unavailable (docs/behaviour/aws-launch.md#unavailable-offerings).
 */
@ControlPlaneTest
@AwsEmulatorTest
class AwsInsufficientCapacityE2EIT {
  private AwsE2EFixture e2e;
  private KubernetesClient client;
  private AwsFaults faults;

  @BeforeEach
  void start(KubernetesClient client, AwsFaults faults, Ec2Client ec2, SsmClient ssm, IamClient iam) {
    this.client = client;
    this.faults = faults;
    faults.insufficientCapacity("c5.large", null, AwsFaults.CapacityType.ON_DEMAND);
    e2e = new AwsE2EFixture(client, faults, ec2, ssm, iam, InstanceGarbageCollection.Settings.DEFAULT);
  }

  @AfterEach
  void stop() {
    if (e2e != null) {
      e2e.close();
    }
  }

  @Test
  void anInsufficientCapacityErrorForTheCheapestTypeLaunchesTheNextAndMarksTheOfferingUnavailable() {
    e2e.createNodeClassAndPool(List.of("c5.large", "m5.large"), "{consolidateAfter: 0s}");
    Pod pod = TestObjects.pausePod("app-0", "app", "1", "1Gi");
    client.resource(pod).create();

    await().atMost(AwsE2EFixture.WAIT).until(() -> TestObjects.running(client.pods().withName("app-0").get()));

    assertThat(faults.requests("ec2", "CreateFleet")).isNotEmpty();
    List<Instance> instances = e2e.karpenterInstances();
    assertThat(instances).extracting(Instance::instanceTypeAsString).containsExactly("m5.large");
    List<NodeClaim> claims = client.resources(NodeClaim.class).list().getItems();
    assertThat(claims).hasSize(1);
    assertThat(claims.get(0).getMetadata().getLabels()).containsEntry(Labels.INSTANCE_TYPE, "m5.large");
    InstanceType c5 = e2e.aws.cloudProvider().instanceTypes("default", new NodeClassRef(EC2NodeClass.GROUP, EC2NodeClass.KIND, "default")).stream()
        .filter(t -> t.name().equals("c5.large")).findFirst().orElseThrow();
    assertThat(c5.offerings()).filteredOn(o -> o.capacityType().equals(Labels.CAPACITY_TYPE_ON_DEMAND))
        .isNotEmpty().noneMatch(o -> o.available());
  }
}
