package sh.karpenter.providers.aws.nodeclass;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.prometheus.client.CollectorRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.aws.v1.AwsAnnotations;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.api.aws.v1.EC2NodeClassConditions;
import sh.karpenter.api.aws.v1.EC2NodeClassHash;
import sh.karpenter.api.aws.v1.SubnetSelectorTerm;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.operator.Operator;
import sh.karpenter.controller.operator.options.Options;
import sh.karpenter.controller.runtime.TestingEventRecorder;
import sh.karpenter.core.cloudprovider.CloudProvider;
import sh.karpenter.core.cloudprovider.Instance;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.cloudprovider.LaunchRequest;
import sh.karpenter.core.cloudprovider.NodeClaimNotFoundException;
import sh.karpenter.core.cloudprovider.NodeClassRef;
import sh.karpenter.providers.aws.TestNodeClasses;
import sh.karpenter.providers.aws.ami.AmiProvider;
import sh.karpenter.providers.aws.ami.KubernetesVersion;
import sh.karpenter.providers.aws.ami.SsmParameters;
import sh.karpenter.providers.aws.instanceprofile.InstanceProfileProvider;
import sh.karpenter.providers.aws.securitygroup.SecurityGroupProvider;
import sh.karpenter.providers.aws.subnet.SubnetProvider;
import sh.karpenter.testkit.aws.AwsEmulator;
import sh.karpenter.testkit.aws.AwsEmulatorTest;
import sh.karpenter.testkit.aws.ClusterNetwork;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.Filter;
import software.amazon.awssdk.services.ec2.model.Image;
import software.amazon.awssdk.services.iam.IamClient;
import software.amazon.awssdk.services.iam.model.InstanceProfile;
import software.amazon.awssdk.services.iam.model.NoSuchEntityException;
import software.amazon.awssdk.services.iam.model.Tag;
import software.amazon.awssdk.services.ssm.SsmClient;
import software.amazon.awssdk.services.ssm.model.ParameterType;

/**
 * The EC2NodeClass controllers in a whole Operator (through its {@code OperatorExtension}) against a
 * real API server and the AWS emulator: a class with tag selectors resolves and becomes Ready, one
 * whose selector matches nothing is not Ready with the reason, and the termination finalizer holds a
 * deleted class until its NodeClaims are gone, then deletes the instance profile Karpenter made.
 */
@ControlPlaneTest
@AwsEmulatorTest
class NodeClassControllerIT {
  private static final String CLUSTER = "it-cluster";
  private static final String ROLE = "KarpenterNodeRole-it";
  private static final Duration WAIT = Duration.ofSeconds(60);

  private KubernetesClient client;
  private IamClient iam;
  private ClusterNetwork network;
  private String amiId;
  private Operator operator;
  private String kubernetesVersion;
  private final TestingEventRecorder events = new TestingEventRecorder();

  @BeforeEach
  void start(KubernetesClient client, Ec2Client ec2, SsmClient ssm, IamClient iam) {
    this.client = client;
    this.iam = iam;
    kubernetesVersion = KubernetesVersion.of(client);
    network = ClusterNetwork.create(ec2, CLUSTER, List.of("us-west-2a", "us-west-2b"));
    Image image = ec2.describeImages(r -> r.owners("amazon").filters(Filter.builder().name("architecture").values("x86_64").build()))
        .images().getFirst();
    amiId = image.imageId();
    ssm.putParameter(r -> r.name(AwsEmulator.SSM_PARAMETER_PREFIX + "/aws/service/eks/optimized-ami/" + kubernetesVersion
        + "/amazon-linux-2023/x86_64/standard/recommended/image_id").value(amiId).type(ParameterType.STRING));
    iam.createRole(r -> r.roleName(ROLE).assumeRolePolicyDocument(
        "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Allow\",\"Principal\":{\"Service\":\"ec2.amazonaws.com\"},\"Action\":\"sts:AssumeRole\"}]}"));

    Clock clock = Clock.systemUTC();
    NodeClassExtension extension = new NodeClassExtension(new NodeClassProviders(
        new SubnetProvider(ec2, clock), new SecurityGroupProvider(ec2, clock),
        new AmiProvider(ec2, new SsmParameters(ssm, AwsEmulator.SSM_PARAMETER_PREFIX, clock), () -> kubernetesVersion, clock),
        new InstanceProfileProvider(iam, clock)),
        new NodeClassSettings(CLUSTER, AwsEmulator.REGION.id(), Optional.empty()), List.of());
    Options options = Options.defaults().withPorts(0, 0).withLeaderElection(false, "unused", "default");
    operator = new Operator(client, new LaunchesNothing(), options, clock, new Metrics(new CollectorRegistry()), events, List.of(extension));
    operator.start();
  }

  @AfterEach
  void stop() {
    if (operator != null) {
      operator.close();
    }
  }

  @Test
  void aClassWithTagSelectorsResolvesAndBecomesReady() {
    create(TestNodeClasses.nodeClass("default", CLUSTER, "al2023@latest", ROLE));

    EC2NodeClass ready = awaitCondition("default", EC2NodeClassConditions.READY, Conditions.TRUE);

    var status = ready.getStatus();
    assertThat(status.getSubnets()).extracting(s -> s.getId() + "/" + s.getZone() + "/" + s.getZoneID()).containsExactlyInAnyOrder(
        network.subnet("us-west-2a") + "/us-west-2a/usw2-az2", network.subnet("us-west-2b") + "/us-west-2b/usw2-az1");
    assertThat(status.getSecurityGroups()).singleElement().satisfies(group -> {
      assertThat(group.getId()).isEqualTo(network.securityGroupId());
      assertThat(group.getName()).isEqualTo(CLUSTER + "-nodes");
    });
    assertThat(status.getAmis()).singleElement().satisfies(ami -> {
      assertThat(ami.getId()).isEqualTo(amiId);
      assertThat(ami.getRequirements()).extracting(r -> r.getKey() + " " + r.getOperator() + " " + r.getValues()).containsExactly(
          "kubernetes.io/arch In [amd64]",
          "karpenter.k8s.aws/instance-gpu-count DoesNotExist []",
          "karpenter.k8s.aws/instance-accelerator-count DoesNotExist []");
    });
    assertThat(status.getInstanceProfile()).matches(CLUSTER + "_[0-9]+");
    for (String type : EC2NodeClassConditions.readyDependencies(false)) {
      assertThat(Conditions.isTrue(status.getConditions(), type)).as(type).isTrue();
    }
    assertThat(ready.getMetadata().getFinalizers()).contains(EC2NodeClass.TERMINATION_FINALIZER);

    InstanceProfile profile = iam.getInstanceProfile(r -> r.instanceProfileName(status.getInstanceProfile())).instanceProfile();
    assertThat(profile.roles()).extracting(role -> role.roleName()).containsExactly(ROLE);
    assertThat(profile.path()).isEqualTo("/karpenter/us-west-2/" + CLUSTER + "/" + ready.getMetadata().getUid() + "/");
    assertThat(profile.tags()).extracting(Tag::key, Tag::value).contains(
        org.assertj.core.groups.Tuple.tuple("kubernetes.io/cluster/" + CLUSTER, "owned"),
        org.assertj.core.groups.Tuple.tuple("eks:eks-cluster-name", CLUSTER),
        org.assertj.core.groups.Tuple.tuple("karpenter.k8s.aws/ec2nodeclass", "default"),
        org.assertj.core.groups.Tuple.tuple("topology.kubernetes.io/region", "us-west-2"));

    await().atMost(WAIT).untilAsserted(() -> {
      Map<String, String> annotations = get("default").getMetadata().getAnnotations();
      assertThat(annotations).containsEntry(AwsAnnotations.EC2_NODE_CLASS_HASH_VERSION, EC2NodeClassHash.VERSION)
          .containsEntry(AwsAnnotations.EC2_NODE_CLASS_HASH, EC2NodeClassHash.of(get("default"), null));
    });

    // A spec change (new generation: every cache misses) resolves again, drifts the hash and keeps the profile.
    String firstHash = get("default").getMetadata().getAnnotations().get(AwsAnnotations.EC2_NODE_CLASS_HASH);
    client.resources(EC2NodeClass.class).withName("default").edit(nc -> {
      nc.getSpec().setTags(Map.of("team", "a"));
      return nc;
    });
    await().atMost(WAIT).untilAsserted(() -> {
      EC2NodeClass changed = get("default");
      assertThat(changed.getMetadata().getAnnotations().get(AwsAnnotations.EC2_NODE_CLASS_HASH)).isNotEqualTo(firstHash);
      assertThat(changed.getStatus().getConditions()).allSatisfy(c -> assertThat(c.getObservedGeneration()).isEqualTo(2L));
    });
    assertThat(get("default").getStatus().getInstanceProfile()).isEqualTo(status.getInstanceProfile());
    assertThat(iam.listInstanceProfiles(r -> r.pathPrefix(profile.path())).instanceProfiles()).hasSize(1);
  }

  @Test
  void aSelectorMatchingNothingLeavesTheClassNotReadyWithTheReason() {
    // Upstream's e2e (test/suites/integration/subnet_test.go) expects the same conditions and messages.
    EC2NodeClass nodeClass = TestNodeClasses.nodeClass("nowhere", CLUSTER, "al2023@latest", ROLE);
    nodeClass.getSpec().setSubnetSelectorTerms(List.of(new SubnetSelectorTerm(Map.of("karpenter.sh/discovery", "no-such-cluster"), null)));
    create(nodeClass);

    EC2NodeClass notReady = awaitCondition("nowhere", EC2NodeClassConditions.SUBNETS_READY, Conditions.FALSE);
    await().atMost(WAIT).untilAsserted(() -> assertThat(condition(get("nowhere"), EC2NodeClassConditions.READY).getStatus()).isEqualTo(Conditions.FALSE));

    Condition subnets = condition(notReady, EC2NodeClassConditions.SUBNETS_READY);
    assertThat(subnets.getReason()).isEqualTo("SubnetsNotFound");
    assertThat(subnets.getMessage()).isEqualTo("SubnetSelector did not match any Subnets");
    Condition ready = condition(get("nowhere"), EC2NodeClassConditions.READY);
    assertThat(ready.getReason()).isEqualTo("UnhealthyDependents");
    assertThat(ready.getMessage()).isEqualTo("ValidationSucceeded=False, SubnetsReady=False");
    assertThat(get("nowhere").getStatus().getSubnets()).isNull();
    assertThat(Conditions.isTrue(get("nowhere").getStatus().getConditions(), EC2NodeClassConditions.AMIS_READY)).isTrue();
  }

  @Test
  void theFinalizerHoldsADeletedClassUntilItsNodeClaimsAreGoneThenDeletesItsInstanceProfile() {
    create(TestNodeClasses.nodeClass("held", CLUSTER, "al2023@latest", ROLE));
    create(TestNodeClasses.nodeClass("other", CLUSTER, "al2023@latest", ROLE));
    String profile = awaitCondition("held", EC2NodeClassConditions.READY, Conditions.TRUE).getStatus().getInstanceProfile();
    String otherProfile = awaitCondition("other", EC2NodeClassConditions.READY, Conditions.TRUE).getStatus().getInstanceProfile();
    assertThat(otherProfile).isNotEqualTo(profile);
    createNodeClaim("claim-1", "held");
    await().atMost(WAIT).until(() -> operator.informers().nodeClaims().getStore().getByKey("claim-1") != null);

    client.resources(EC2NodeClass.class).withName("held").delete();

    await().atMost(WAIT).until(() -> events.reasons().contains(NodeClassController.WAITING_ON_NODE_CLAIM_TERMINATION));
    assertThat(events.forObject("held")).anySatisfy(event -> assertThat(event.message()).isEqualTo("Waiting on NodeClaim termination for claim-1"));
    EC2NodeClass held = get("held");
    assertThat(held).isNotNull();
    assertThat(held.getMetadata().getDeletionTimestamp()).isNotNull();
    assertThat(iam.getInstanceProfile(r -> r.instanceProfileName(profile)).instanceProfile().instanceProfileName()).isEqualTo(profile);

    // Without a Karpenter lifecycle that can terminate it, the NodeClaim goes without its finalizers.
    client.resources(NodeClaim.class).withName("claim-1").patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"finalizers\":null}}");
    client.resources(NodeClaim.class).withName("claim-1").delete();

    await().atMost(WAIT).until(() -> get("held") == null);
    assertThat(iam.listInstanceProfiles().instanceProfiles()).extracting(InstanceProfile::instanceProfileName)
        .doesNotContain(profile).contains(otherProfile);
    assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> iam.getInstanceProfile(r -> r.instanceProfileName(profile))))
        .isInstanceOf(NoSuchEntityException.class);
  }

  private void create(EC2NodeClass nodeClass) {
    nodeClass.getMetadata().setUid(null);
    nodeClass.getMetadata().setGeneration(null);
    nodeClass.setStatus(null);
    client.resources(EC2NodeClass.class).resource(nodeClass).create();
  }

  private void createNodeClaim(String name, String nodeClass) {
    client.resources(NodeClaim.class).resource(client.getKubernetesSerialization().unmarshal("""
        apiVersion: karpenter.sh/v1
        kind: NodeClaim
        metadata:
          name: %s
          labels: {karpenter.sh/nodepool: default}
        spec:
          nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: %s}
          requirements:
            - {key: karpenter.sh/nodepool, operator: In, values: [default]}
          resources: {requests: {cpu: "1"}}
        """.formatted(name, nodeClass), NodeClaim.class)).create();
  }

  private EC2NodeClass awaitCondition(String name, String type, String status) {
    await().atMost(WAIT).untilAsserted(() -> {
      EC2NodeClass nodeClass = get(name);
      assertThat(nodeClass).isNotNull();
      assertThat(nodeClass.getStatus()).isNotNull();
      assertThat(Conditions.get(nodeClass.getStatus().getConditions(), type)).as(type + " of " + name + ": " + nodeClass.getStatus().getConditions())
          .hasValueSatisfying(c -> assertThat(c.getStatus()).isEqualTo(status));
    });
    return get(name);
  }

  private EC2NodeClass get(String name) {
    return client.resources(EC2NodeClass.class).withName(name).get();
  }

  private static Condition condition(EC2NodeClass nodeClass, String type) {
    return Conditions.get(nodeClass.getStatus().getConditions(), type).orElseThrow(() -> new AssertionError("no " + type));
  }

  /** A cloud provider whose launches fail and retry: NodeClaims stay as created. */
  private static final class LaunchesNothing implements CloudProvider {
    @Override public String name() { return "launches-nothing"; }

    @Override public List<InstanceType> instanceTypes(String nodePoolName, NodeClassRef nodeClassRef) { return List.of(); }

    @Override public Instance create(LaunchRequest request) { throw new IllegalStateException("this test launches nothing"); }

    @Override public void delete(String providerId) { throw new NodeClaimNotFoundException("no instance " + providerId); }

    @Override public Optional<Instance> get(String providerId) { return Optional.empty(); }

    @Override public List<Instance> list() { return List.of(); }

    @Override public List<NodeClassRef> supportedNodeClasses() { return List.of(new NodeClassRef(EC2NodeClass.GROUP, EC2NodeClass.KIND, "")); }
  }
}
