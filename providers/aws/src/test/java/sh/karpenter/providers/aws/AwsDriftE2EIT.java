package sh.karpenter.providers.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.aws.v1.AMISelectorTerm;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.providers.aws.cloudprovider.AwsCloudProvider;
import sh.karpenter.providers.aws.garbagecollection.InstanceGarbageCollection;
import sh.karpenter.providers.aws.instance.InstanceProvider;
import sh.karpenter.testkit.aws.AwsEmulatorTest;
import sh.karpenter.testkit.aws.AwsFaults;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;
import sh.karpenter.testkit.fixtures.TestObjects;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.Image;
import software.amazon.awssdk.services.ec2.model.Instance;
import software.amazon.awssdk.services.iam.IamClient;
import software.amazon.awssdk.services.ssm.SsmClient;

/**
 * Drift end to end: with the EC2NodeClass Ready and a Deployment's pod running on a launched
 * instance, a change of the class makes the NodeClaim {@code Drifted} at once (the class's change
 * has its NodeClaims judged again, not only at the five-minute recheck); the disruption controller
 * replaces it with a new instance, terminates the old one, and the pod runs again on the new node.
 * A change of {@code spec.tags} (in the static hash) drifts as {@code NodeClassDrift}; a change of
 * the AMI selector to another image (not in the hash; the class's resolved AMIs change) as
 * {@code AMIDrift}.
 */
@ControlPlaneTest
@AwsEmulatorTest
class AwsDriftE2EIT {
  private AwsE2EFixture e2e;
  private KubernetesClient client;
  private Ec2Client ec2;

  @BeforeEach
  void start(KubernetesClient client, AwsFaults faults, Ec2Client ec2, SsmClient ssm, IamClient iam) {
    this.client = client;
    this.ec2 = ec2;
    e2e = new AwsE2EFixture(client, faults, ec2, ssm, iam, InstanceGarbageCollection.Settings.DEFAULT);
  }

  @AfterEach
  void stop() {
    if (e2e != null) {
      e2e.close();
    }
  }

  @Test
  void changedTagsDriftTheNodeClaimWhichIsReplacedByAnInstanceWithTheNewTags() {
    String original = runOnePod();
    Instance replacement = replaceAfter(AwsCloudProvider.NODE_CLASS_DRIFT, original, nodeClass -> nodeClass.getSpec().setTags(Map.of("team", "b")));
    assertThat(AwsE2EFixture.tags(replacement)).containsEntry("team", "b");
  }

  @Test
  void anotherAmiDriftsTheNodeClaimWhichIsReplacedByAnInstanceOfThatAmi() {
    String original = runOnePod();
    String launchedImage = ec2.describeInstances(r -> r.instanceIds(original)).reservations().get(0).instances().get(0).imageId();
    String other = ec2.describeImages(r -> r.owners("amazon").filters(f -> f.name("architecture").values("x86_64"))).images().stream()
        .map(Image::imageId).filter(id -> !id.equals(launchedImage)).findFirst().orElseThrow();
    Instance replacement = replaceAfter(AwsCloudProvider.AMI_DRIFT, original, nodeClass -> {
      nodeClass.getSpec().setAmiFamily("AL2023");
      AMISelectorTerm byId = new AMISelectorTerm();
      byId.setId(other);
      nodeClass.getSpec().setAmiSelectorTerms(List.of(byId));
    });
    assertThat(replacement.imageId()).isEqualTo(other);
  }

  /** A NodePool of two small types and a Deployment of one pod, running; the instance it runs on. */
  private String runOnePod() {
    e2e.createNodeClassAndPool(List.of("c5.large", "m5.large"), "{consolidateAfter: Never, budgets: [{nodes: \"100%\"}]}");
    client.apps().deployments().resource(AwsE2EFixture.deployment("drifting", "1", "1Gi")).create();
    await().atMost(AwsE2EFixture.WAIT).until(() -> pods().size() == 1 && pods().stream().allMatch(TestObjects::running));
    List<NodeClaim> claims = client.resources(NodeClaim.class).list().getItems();
    assertThat(claims).hasSize(1);
    return InstanceProvider.instanceId(claims.get(0).getStatus().getProviderID());
  }

  /**
   * Edits the class, waits until the NodeClaim on {@code original} was Drifted for {@code reason} and
   * is gone, and until the pod runs again on the one instance left, which is returned.
   */
  private Instance replaceAfter(String reason, String original, Consumer<EC2NodeClass> edit) {
    NodeClaim drifting = client.resources(NodeClaim.class).list().getItems().get(0);
    String name = drifting.getMetadata().getName();
    Map<String, Set<String>> driftReasons = new ConcurrentHashMap<>();
    client.resources(EC2NodeClass.class).withName("default").edit(nodeClass -> {
      edit.accept(nodeClass);
      return nodeClass;
    });
    // well within the five-minute recheck: the class's change has its NodeClaims judged again
    await().atMost(AwsE2EFixture.WAIT).pollInterval(Duration.ofMillis(200)).until(() -> {
      recordDrift(driftReasons);
      return client.resources(NodeClaim.class).withName(name).get() == null;
    });
    assertThat(driftReasons).containsEntry(name, Set.of(reason));
    await().atMost(AwsE2EFixture.WAIT).until(() -> {
      recordDrift(driftReasons);
      return pods().size() == 1 && pods().stream().allMatch(TestObjects::running) && e2e.karpenterInstances().size() == 1;
    });
    // the replacement was launched from the changed class, with the class's security groups from
    // launch on: it never looked drifted
    List<NodeClaim> after = client.resources(NodeClaim.class).list().getItems();
    assertThat(after).hasSize(1);
    recordDrift(driftReasons);
    assertThat(driftReasons).as("drift reasons seen").containsOnlyKeys(name);
    assertThat(Conditions.isTrue(after.get(0).getStatus().getConditions(), "Drifted")).isFalse();
    String replacement = InstanceProvider.instanceId(after.get(0).getStatus().getProviderID());
    assertThat(replacement).isNotEqualTo(original);
    assertThat(pods().get(0).getSpec().getNodeName()).isEqualTo(replacement);
    List<Instance> live = e2e.karpenterInstances();
    assertThat(live).extracting(Instance::instanceId).containsExactly(replacement);
    return live.get(0);
  }

  /** Adds each NodeClaim's {@code Drifted=True} reason, if any, to {@code reasons} by NodeClaim name. */
  private void recordDrift(Map<String, Set<String>> reasons) {
    for (NodeClaim claim : client.resources(NodeClaim.class).list().getItems()) {
      if (claim.getStatus() != null && claim.getStatus().getConditions() != null) {
        claim.getStatus().getConditions().stream().filter(c -> "Drifted".equals(c.getType()) && "True".equals(c.getStatus()))
            .forEach(c -> reasons.computeIfAbsent(claim.getMetadata().getName(), k -> ConcurrentHashMap.newKeySet()).add(c.getReason()));
      }
    }
  }

  private List<Pod> pods() {
    return client.pods().withLabel("app", "drifting").list().getItems().stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null).toList();
  }
}
