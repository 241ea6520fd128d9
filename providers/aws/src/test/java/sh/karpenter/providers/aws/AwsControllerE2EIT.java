package sh.karpenter.providers.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.prometheus.client.CollectorRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.api.aws.v1.EC2NodeClassConditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.operator.Operator;
import sh.karpenter.controller.operator.options.Options;
import sh.karpenter.controller.runtime.TestingEventRecorder;
import sh.karpenter.providers.aws.ami.KubernetesVersion;
import sh.karpenter.providers.aws.instance.InstanceProvider;
import sh.karpenter.providers.aws.operator.AwsProvider;
import sh.karpenter.providers.aws.sdk.AwsSdk;
import sh.karpenter.testkit.aws.AwsClients;
import sh.karpenter.testkit.aws.AwsEmulator;
import sh.karpenter.testkit.aws.AwsEmulatorTest;
import sh.karpenter.testkit.aws.ClusterNetwork;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;
import sh.karpenter.testkit.controlplane.KwokNodes;
import sh.karpenter.testkit.fixtures.TestObjects;
import sh.karpenter.core.wellknown.TaintKeys;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.Instance;
import software.amazon.awssdk.services.iam.IamClient;
import software.amazon.awssdk.services.ssm.SsmClient;
import software.amazon.awssdk.services.ssm.model.ParameterType;

/**
 * The controller with the AWS provider, end to end, on the real control plane and the AWS emulator:
 * an EC2NodeClass with tag selectors becomes Ready; pending pods become NodeClaims, CreateFleet
 * launches instances of the right type, zone, capacity type and tags; a stand-in kubelet registers a
 * KWOK Node for each instance (nodes cannot boot here), the pods run; once the pods are gone the empty
 * nodes are consolidated away and their instances terminated; an instance terminated behind
 * Karpenter's back is garbage collected.
 */
@ControlPlaneTest
@AwsEmulatorTest
class AwsControllerE2EIT {
  private static final String CLUSTER = "e2e-cluster";
  private static final String ROLE = "KarpenterNodeRole-e2e";
  private static final List<String> ZONES = List.of("us-west-2a", "us-west-2b");
  private static final Duration WAIT = Duration.ofSeconds(120);

  private KubernetesClient client;
  private Ec2Client ec2;
  private AwsProvider aws;
  private Operator operator;
  private ScheduledExecutorService kubelet;

  @BeforeEach
  void start(KubernetesClient client, AwsEmulator emulator, Ec2Client ec2, SsmClient ssm, IamClient iam) {
    this.client = client;
    this.ec2 = ec2;
    // the SDK's default credentials chain reads these system properties first
    System.setProperty("aws.accessKeyId", AwsClients.ACCESS_KEY_ID);
    System.setProperty("aws.secretAccessKey", AwsClients.SECRET_ACCESS_KEY);
    ClusterNetwork.create(ec2, CLUSTER, ZONES);
    String ami = ec2.describeImages(r -> r.owners("amazon").filters(f -> f.name("architecture").values("x86_64"))).images().get(0).imageId();
    String version = KubernetesVersion.of(client);
    ssm.putParameter(r -> r.name(AwsEmulator.SSM_PARAMETER_PREFIX + "/aws/service/eks/optimized-ami/" + version
        + "/amazon-linux-2023/x86_64/standard/recommended/image_id").value(ami).type(ParameterType.STRING));
    iam.createRole(r -> r.roleName(ROLE).assumeRolePolicyDocument(
        "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Allow\",\"Principal\":{\"Service\":\"ec2.amazonaws.com\"},\"Action\":\"sts:AssumeRole\"}]}"));

    AwsProvider.Settings settings = new AwsProvider.Settings(CLUSTER, Optional.empty(), Optional.empty(), Optional.of("10.96.0.0/12"),
        0.075, 0, AwsEmulator.SSM_PARAMETER_PREFIX, Duration.ofMinutes(1), Duration.ofMinutes(1), Duration.ofMinutes(1));
    AwsClients clients = emulator.clients();
    aws = AwsProvider.create(client, AwsSdk.at(clients.endpoint(), clients.region()), settings, Clock.systemUTC());
    Options options = Options.defaults().withPorts(-1, -1).withLeaderElection(false, "unused", "default")
        .withBatchDurations(Duration.ofMillis(200), Duration.ofSeconds(2));
    operator = new Operator(client, aws.cloudProvider(), options, Clock.systemUTC(), new Metrics(new CollectorRegistry()),
        new TestingEventRecorder(), aws.extensions());
    operator.start();
    kubelet = Executors.newSingleThreadScheduledExecutor();
    kubelet.scheduleWithFixedDelay(this::registerNodes, 200, 200, TimeUnit.MILLISECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    if (kubelet != null) {
      kubelet.shutdownNow();
    }
    if (operator != null) {
      operator.close();
    }
    if (aws != null) {
      aws.close();
    }
  }

  @Test
  void pendingPodsLaunchInstancesThatRunThemAndEmptyNodesAreTerminated() {
    client.resource(TestNodeClasses.nodeClass("default", CLUSTER, "al2023@latest", ROLE)).create();
    await().atMost(WAIT).until(() -> ready(client.resources(EC2NodeClass.class).withName("default").get()));
    client.resource(TestObjects.yaml(client, NodePool.class, """
        apiVersion: karpenter.sh/v1
        kind: NodePool
        metadata: {name: default}
        spec:
          template:
            spec:
              nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
              requirements:
              - {key: node.kubernetes.io/instance-type, operator: In, values: [c5.large, c5.xlarge, m5.large]}
              - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
          disruption: {consolidateAfter: 0s}
        """)).create();
    List<String> pods = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Pod pod = TestObjects.pausePod("app-" + i, "app", "1", "1Gi");
      client.resource(pod).inNamespace("default").create();
      pods.add(pod.getMetadata().getName());
    }

    await().atMost(WAIT).until(() -> pods.stream()
        .allMatch(name -> TestObjects.running(client.pods().inNamespace("default").withName(name).get())));

    List<NodeClaim> claims = client.resources(NodeClaim.class).list().getItems();
    List<Instance> instances = karpenterInstances();
    assertThat(instances).hasSameSizeAs(claims);
    for (Instance instance : instances) {
      Map<String, String> tags = tags(instance);
      assertThat(instance.instanceTypeAsString()).isIn("c5.large", "c5.xlarge", "m5.large");
      assertThat(instance.placement().availabilityZone()).isIn(ZONES);
      assertThat(tags).containsEntry("karpenter.sh/nodepool", "default").containsEntry("karpenter.k8s.aws/ec2nodeclass", "default")
          .containsEntry("kubernetes.io/cluster/" + CLUSTER, "owned");
    }
    assertThat(claims).allSatisfy(claim -> assertThat(claim.getStatus().getProviderID()).startsWith("aws:///"));

    // an instance terminated behind Karpenter's back: its NodeClaim is garbage collected
    NodeClaim victim = claims.get(0);
    ec2.terminateInstances(r -> r.instanceIds(InstanceProvider.instanceId(victim.getStatus().getProviderID())));
    await().atMost(WAIT).until(() -> client.resources(NodeClaim.class).withName(victim.getMetadata().getName()).get() == null);

    // no pods left: the empty nodes go, and their instances are terminated
    pods.forEach(name -> client.pods().inNamespace("default").withName(name).withGracePeriod(0).delete());
    await().atMost(WAIT).until(() -> client.resources(NodeClaim.class).list().getItems().isEmpty());
    await().atMost(WAIT).until(() -> karpenterInstances().isEmpty());
  }

  private static boolean ready(EC2NodeClass nodeClass) {
    return nodeClass != null && nodeClass.getStatus() != null && nodeClass.getStatus().getConditions() != null
        && nodeClass.getStatus().getConditions().stream()
            .anyMatch(c -> EC2NodeClassConditions.READY.equals(c.getType()) && "True".equals(c.getStatus()));
  }

  /** Live instances Karpenter launched for this cluster. */
  private List<Instance> karpenterInstances() {
    return ec2.describeInstances(r -> r.filters(
            f -> f.name("tag:eks:eks-cluster-name").values(CLUSTER),
            f -> f.name("instance-state-name").values("pending", "running")))
        .reservations().stream().flatMap(r -> r.instances().stream()).toList();
  }

  private static Map<String, String> tags(Instance instance) {
    Map<String, String> tags = new TreeMap<>();
    instance.tags().forEach(t -> tags.put(t.key(), t.value()));
    return tags;
  }

  /**
   * Plays the kubelet of each launched instance: a KWOK Node with the NodeClaim's provider ID, labels,
   * taints (and the unregistered taint) and capacity, which KWOK then turns Ready.
   */
  private void registerNodes() {
    try {
      for (NodeClaim claim : client.resources(NodeClaim.class).list().getItems()) {
        var status = claim.getStatus();
        if (status == null || status.getProviderID() == null || status.getCapacity() == null
            || claim.getMetadata().getDeletionTimestamp() != null) {
          continue;
        }
        String name = InstanceProvider.instanceId(status.getProviderID());
        if (client.nodes().withName(name).get() != null) {
          continue;
        }
        Map<String, String> labels = new HashMap<>(claim.getMetadata().getLabels() == null ? Map.of() : claim.getMetadata().getLabels());
        labels.put("kubernetes.io/hostname", name);
        List<io.fabric8.kubernetes.api.model.Taint> taints = new ArrayList<>();
        if (claim.getSpec().getTaints() != null) {
          taints.addAll(claim.getSpec().getTaints());
        }
        if (claim.getSpec().getStartupTaints() != null) {
          taints.addAll(claim.getSpec().getStartupTaints());
        }
        taints.add(new TaintBuilder().withKey(TaintKeys.UNREGISTERED).withEffect("NoExecute").build());
        Map<String, Quantity> allocatable = status.getAllocatable() == null ? status.getCapacity() : status.getAllocatable();
        Node node = new NodeBuilder()
            .withNewMetadata().withName(name).withLabels(labels).addToAnnotations(KwokNodes.ANNOTATION, KwokNodes.ANNOTATION_VALUE).endMetadata()
            .withNewSpec().withProviderID(status.getProviderID()).withTaints(taints).endSpec()
            .withNewStatus().withCapacity(status.getCapacity()).withAllocatable(allocatable).endStatus()
            .build();
        client.nodes().resource(node).create();
      }
    } catch (RuntimeException e) {
      // the next round tries again (a Node created concurrently, a NodeClaim deleted meanwhile)
    }
  }
}
