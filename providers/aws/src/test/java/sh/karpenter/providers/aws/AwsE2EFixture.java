package sh.karpenter.providers.aws;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.prometheus.client.CollectorRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.api.aws.v1.EC2NodeClassConditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.operator.Operator;
import sh.karpenter.controller.operator.options.Options;
import sh.karpenter.controller.runtime.ControllerClient;
import sh.karpenter.controller.runtime.TestingEventRecorder;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.core.wellknown.TaintKeys;
import sh.karpenter.providers.aws.ami.KubernetesVersion;
import sh.karpenter.providers.aws.garbagecollection.InstanceGarbageCollection;
import sh.karpenter.providers.aws.instance.InstanceProvider;
import sh.karpenter.providers.aws.interruption.InstanceStatusController;
import sh.karpenter.providers.aws.operator.AwsProvider;
import sh.karpenter.providers.aws.sdk.AwsSdk;
import sh.karpenter.testkit.aws.AwsClients;
import sh.karpenter.testkit.aws.AwsEmulator;
import sh.karpenter.testkit.aws.AwsFaults;
import sh.karpenter.testkit.aws.ClusterNetwork;
import sh.karpenter.testkit.controlplane.KwokNodes;
import sh.karpenter.testkit.fixtures.TestObjects;
import sh.karpenter.testkit.fixtures.NodePoolYaml;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.Instance;
import software.amazon.awssdk.services.iam.IamClient;
import software.amazon.awssdk.services.ssm.SsmClient;
import software.amazon.awssdk.services.ssm.model.ParameterType;

/**
 * The controller with the AWS provider on the real control plane and the AWS emulator, shared by the
 * end-to-end ITs: the cluster's network, an AL2023 alias parameter and a node role in the emulator,
 * an {@link Operator} with {@link AwsProvider}'s cloud provider and extensions, and a stand-in kubelet
 * that registers a KWOK Node for each launched NodeClaim (nodes cannot boot here). Close it after
 * each test.
 *
 * <p>The provider's AWS calls go through an {@link AwsFaults} proxy: EC2 gives an instance its launch
 * template's security groups and moto's CreateFleet drops them, which would make every instance look
 * drifted for its security groups until something set them; the proxy sets them before CreateFleet
 * answers, as EC2 would have.
 */
final class AwsE2EFixture implements AutoCloseable {
  static final String CLUSTER = "e2e-cluster";
  static final String ROLE = "KarpenterNodeRole-e2e";
  static final List<String> ZONES = List.of("us-west-2a", "us-west-2b");
  static final Duration WAIT = Duration.ofSeconds(120);

  final KubernetesClient client;
  final Ec2Client ec2;
  final AwsProvider aws;
  final Operator operator;
  /** The operator's metrics, the controller client's request count included. */
  final Metrics metrics;
  private final KubernetesClient controllerClient;
  private final ScheduledExecutorService kubelet;
  /** Registrations run here, several at once: each one is a few emulator and API server calls. */
  private final ExecutorService registrations = Executors.newFixedThreadPool(8);
  private final Set<String> registering = ConcurrentHashMap.newKeySet();

  /**
   * @param faults the proxy the provider sends its AWS calls through (with or without faults); the
   *     fixture's own set-up calls go to the emulator
   */
  AwsE2EFixture(KubernetesClient client, AwsFaults faults, Ec2Client ec2, SsmClient ssm, IamClient iam,
      InstanceGarbageCollection.Settings garbageCollection) {
    this(client, faults, ec2, ssm, iam, garbageCollection, "");
  }

  /**
   * @param interruptionQueue the SQS queue the interruption controller reads (it must exist; long polls
   *     of 1 s), or "" for none
   */
  AwsE2EFixture(KubernetesClient client, AwsFaults faults, Ec2Client ec2, SsmClient ssm, IamClient iam,
      InstanceGarbageCollection.Settings garbageCollection, String interruptionQueue) {
    this(client, faults, ec2, ssm, iam, new AwsProvider.Tuning(garbageCollection, Duration.ofSeconds(1), InstanceStatusController.INTERVAL),
        interruptionQueue);
  }

  /**
   * @param tuning the provider's loop periods (the interruption queue's long polls should be short, e.g.
   *     1 s, so that closing the fixture does not wait for one)
   */
  AwsE2EFixture(KubernetesClient client, AwsFaults faults, Ec2Client ec2, SsmClient ssm, IamClient iam, AwsProvider.Tuning tuning,
      String interruptionQueue) {
    this(client, faults, ec2, ssm, iam, tuning, interruptionQueue, AwsSdk.SOCKET_TIMEOUT);
  }

  /**
   * @param awsSocketTimeout how long the provider's AWS calls wait for an answer before the attempt
   *     times out (and the SDK retries it)
   */
  AwsE2EFixture(KubernetesClient client, AwsFaults faults, Ec2Client ec2, SsmClient ssm, IamClient iam, AwsProvider.Tuning tuning,
      String interruptionQueue, Duration awsSocketTimeout) {
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
        0.075, 0, AwsEmulator.SSM_PARAMETER_PREFIX, Duration.ofMinutes(1), Duration.ofMinutes(1), Duration.ofMinutes(1),
        Optional.ofNullable(interruptionQueue));
    aws = AwsProvider.create(client, AwsSdk.at(faults.clients().endpoint(), faults.clients().region()).withSocketTimeout(awsSocketTimeout), settings, Clock.systemUTC(), tuning);
    Options options = Options.defaults().withPorts(-1, -1).withLeaderElection(false, "unused", "default")
        .withBatchDurations(Duration.ofMillis(200), Duration.ofSeconds(2));
    // the controller's own client, built as `karpenter controller` builds it (HTTP/1.1, retries, rate limit)
    metrics = new Metrics(new CollectorRegistry());
    controllerClient = ControllerClient.builder(client.getConfiguration(), 200, 300, metrics.apiRequests()).build();
    operator = new Operator(controllerClient, aws.cloudProvider(), options, Clock.systemUTC(), metrics,
        new TestingEventRecorder(), aws.extensions());
    operator.start();
    kubelet = Executors.newSingleThreadScheduledExecutor();
    kubelet.scheduleWithFixedDelay(this::registerNodes, 200, 200, TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    kubelet.shutdownNow();
    registrations.shutdownNow();
    operator.close();
    aws.close();
    controllerClient.close();
  }

  /**
   * Creates the EC2NodeClass {@code default} (AL2023, the cluster's discovery tags), waits for it to be
   * Ready, and creates the on-demand NodePool {@code default} of these instance types with this
   * {@code spec.disruption} (flow-style YAML).
   */
  void createNodeClassAndPool(List<String> instanceTypes, String disruption) {
    createNodeClassAndPool(instanceTypes, List.of("on-demand"), disruption);
  }

  /** {@link #createNodeClassAndPool(List, String)} with these capacity types. */
  void createNodeClassAndPool(List<String> instanceTypes, List<String> capacityTypes, String disruption) {
    client.resource(TestNodeClasses.nodeClass("default", CLUSTER, "al2023@latest", ROLE)).create();
    org.awaitility.Awaitility.await().atMost(WAIT).until(() -> ready(client.resources(EC2NodeClass.class).withName("default").get()));
    NodePoolYaml.named("default").nodeClassRef(EC2NodeClass.GROUP, EC2NodeClass.KIND, "default")
        .requirementIn(Labels.INSTANCE_TYPE, instanceTypes.toArray(String[]::new))
        .requirementIn(Labels.CAPACITY_TYPE, capacityTypes.toArray(String[]::new))
        .disruption(disruption)
        .create(client);
  }

  static boolean ready(EC2NodeClass nodeClass) {
    return nodeClass != null && nodeClass.getStatus() != null && nodeClass.getStatus().getConditions() != null
        && nodeClass.getStatus().getConditions().stream()
            .anyMatch(c -> EC2NodeClassConditions.READY.equals(c.getType()) && "True".equals(c.getStatus()));
  }

  /** A running pod of the Deployment {@code app} that is not being deleted. */
  Optional<Pod> runningPod(String app) {
    return client.pods().withLabel("app", app).list().getItems().stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null && TestObjects.running(p))
        .findFirst();
  }

  /** The NodeClaim of the Node {@code nodeName} (by provider ID). */
  NodeClaim nodeClaimOf(String nodeName) {
    Node node = client.nodes().withName(nodeName).get();
    return client.resources(NodeClaim.class).list().getItems().stream()
        .filter(c -> c.getStatus() != null && node.getSpec().getProviderID().equals(c.getStatus().getProviderID()))
        .findFirst().orElseThrow();
  }

  /** One pause pod of these requests as a Deployment {@code app} (label {@code app=<app>}), so that a deleted or evicted pod comes back. */
  static Deployment deployment(String app, String cpu, String memory) {
    Pod pod = TestObjects.pausePod("template", app, cpu, memory);
    return new DeploymentBuilder()
        .withNewMetadata().withName(app).endMetadata()
        .withNewSpec()
          .withReplicas(1)
          .withNewSelector().addToMatchLabels("app", app).endSelector()
          .withNewTemplate().withNewMetadata().addToLabels("app", app).endMetadata().withSpec(pod.getSpec()).endTemplate()
        .endSpec()
        .build();
  }

  /**
   * Live instances tagged for this cluster (Karpenter's and any launched behind its back with its
   * tags), from every page: the emulator, like EC2, returns at most 100 reservations per page.
   */
  List<Instance> karpenterInstances() {
    return ec2.describeInstancesPaginator(r -> r.filters(
            f -> f.name("tag:eks:eks-cluster-name").values(CLUSTER),
            f -> f.name("instance-state-name").values("pending", "running")))
        .reservations().stream().flatMap(r -> r.instances().stream()).toList();
  }

  static Map<String, String> tags(Instance instance) {
    Map<String, String> tags = new TreeMap<>();
    instance.tags().forEach(t -> tags.put(t.key(), t.value()));
    return tags;
  }

  /** A KWOK Node named after the instance, with its provider ID, as the kubelet would register it. */
  static Node kwokNode(String name, String providerId, Map<String, String> labels, List<io.fabric8.kubernetes.api.model.Taint> taints,
      Map<String, Quantity> capacity, Map<String, Quantity> allocatable) {
    return new NodeBuilder()
        .withNewMetadata().withName(name).withLabels(labels).addToAnnotations(KwokNodes.ANNOTATION, KwokNodes.ANNOTATION_VALUE).endMetadata()
        .withNewSpec().withProviderID(providerId).withTaints(taints).endSpec()
        .withNewStatus().withCapacity(capacity).withAllocatable(allocatable).endStatus()
        .build();
  }

  /**
   * Plays the kubelet of each launched instance: a KWOK Node with the NodeClaim's provider ID, labels,
   * taints (and the unregistered taint) and capacity, which KWOK then turns Ready. Reads NodeClaims and
   * Nodes from the controller's informer caches, so hundreds of NodeClaims do not cost hundreds of API
   * requests every round; up to eight registrations run at once. A Node the cache does not show yet is
   * created again and answered AlreadyExists.
   */
  private void registerNodes() {
    Set<String> nodes = new HashSet<>(operator.informers().nodes().getStore().listKeys());
    for (NodeClaim claim : operator.informers().nodeClaims().getStore().list()) {
      var status = claim.getStatus();
      if (status == null || status.getProviderID() == null || status.getCapacity() == null
          || claim.getMetadata().getDeletionTimestamp() != null) {
        continue;
      }
      String name = InstanceProvider.instanceId(status.getProviderID());
      if (nodes.contains(name) || !registering.add(name)) {
        continue;
      }
      registrations.execute(() -> {
        try {
          register(claim, name);
        } catch (RuntimeException e) {
          // the next round tries again (a Node created concurrently, a NodeClaim deleted meanwhile)
        } finally {
          registering.remove(name);
        }
      });
    }
  }

  private void register(NodeClaim claim, String name) {
    var status = claim.getStatus();
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
    client.nodes().resource(kwokNode(name, status.getProviderID(), labels, taints, status.getCapacity(), allocatable)).create();
  }
}
