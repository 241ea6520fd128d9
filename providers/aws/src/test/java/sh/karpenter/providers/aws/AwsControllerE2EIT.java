package sh.karpenter.providers.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.controller.nodeclaim.garbagecollection.GarbageCollection;
import sh.karpenter.providers.aws.garbagecollection.InstanceGarbageCollection;
import sh.karpenter.providers.aws.instance.InstanceProvider;
import sh.karpenter.testkit.aws.AwsEmulatorTest;
import sh.karpenter.testkit.aws.AwsFaults;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;
import sh.karpenter.testkit.controlplane.KwokNodes;
import sh.karpenter.testkit.fixtures.TestObjects;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.Instance;
import software.amazon.awssdk.services.iam.IamClient;
import software.amazon.awssdk.services.ssm.SsmClient;

/**
 * The controller with the AWS provider, end to end, on the real control plane and the AWS emulator:
 * an EC2NodeClass with tag selectors becomes Ready; pending pods become NodeClaims, CreateFleet
 * launches instances of the right type, zone, capacity type and tags; a stand-in kubelet registers a
 * KWOK Node for each instance (nodes cannot boot here), the pods run; once the pods are gone the empty
 * nodes are consolidated away and their instances terminated; an instance terminated behind
 * Karpenter's back is garbage collected. The setup is {@link AwsE2EFixture}.
 */
@ControlPlaneTest
@AwsEmulatorTest
class AwsControllerE2EIT {
  private AwsE2EFixture e2e;
  private KubernetesClient client;

  @BeforeEach
  void start(KubernetesClient client, AwsFaults faults, Ec2Client ec2, SsmClient ssm, IamClient iam) {
    this.client = client;
    e2e = new AwsE2EFixture(client, faults, ec2, ssm, iam, InstanceGarbageCollection.Settings.DEFAULT);
  }

  @AfterEach
  void stop() {
    if (e2e != null) {
      e2e.close();
    }
  }

  @Test
  void pendingPodsLaunchInstancesThatRunThemAndEmptyNodesAreTerminated() {
    e2e.createNodeClassAndPool(List.of("c5.large", "c5.xlarge", "m5.large"), "{consolidateAfter: 0s}");
    List<String> pods = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Pod pod = TestObjects.pausePod("app-" + i, "app", "1", "1Gi");
      client.resource(pod).create();
      pods.add(pod.getMetadata().getName());
    }

    await().atMost(AwsE2EFixture.WAIT).until(() -> pods.stream()
        .allMatch(name -> TestObjects.running(client.pods().withName(name).get())));

    List<NodeClaim> claims = client.resources(NodeClaim.class).list().getItems();
    List<Instance> instances = e2e.karpenterInstances();
    assertThat(instances).hasSameSizeAs(claims);
    for (Instance instance : instances) {
      Map<String, String> tags = AwsE2EFixture.tags(instance);
      assertThat(instance.instanceTypeAsString()).isIn("c5.large", "c5.xlarge", "m5.large");
      assertThat(instance.placement().availabilityZone()).isIn(AwsE2EFixture.ZONES);
      assertThat(tags).containsEntry("karpenter.sh/nodepool", "default").containsEntry("karpenter.k8s.aws/ec2nodeclass", "default")
          .containsEntry("kubernetes.io/cluster/" + AwsE2EFixture.CLUSTER, "owned");
    }
    assertThat(claims).allSatisfy(claim -> assertThat(claim.getStatus().getProviderID()).startsWith("aws:///"));

    // an instance terminated behind Karpenter's back: its NodeClaim is garbage collected
    NodeClaim victim = claims.get(0);
    String victimInstance = InstanceProvider.instanceId(victim.getStatus().getProviderID());
    e2e.ec2.terminateInstances(r -> r.instanceIds(victimInstance));
    KwokNodes.stopKubelet(client, victim.getStatus().getNodeName());
    // core's nodeclaim.garbagecollection looks every two minutes (upstream's period)
    await().atMost(GarbageCollection.PERIOD.plus(AwsE2EFixture.WAIT))
        .until(() -> client.resources(NodeClaim.class).withName(victim.getMetadata().getName()).get() == null);

    // no pods left: the empty nodes go, and their instances are terminated
    pods.forEach(name -> client.pods().withName(name).withGracePeriod(0).delete());
    await().atMost(AwsE2EFixture.WAIT).until(() -> client.resources(NodeClaim.class).list().getItems().isEmpty());
    await().atMost(AwsE2EFixture.WAIT).until(() -> e2e.karpenterInstances().isEmpty());
  }
}
