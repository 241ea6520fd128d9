package sh.karpenter.benchmarks.workload;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiConsumer;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.pod.PodAffinityTerm;
import sh.karpenter.core.pod.TopologySpreadConstraint;
import sh.karpenter.core.pod.TopologySpreadConstraint.WhenUnsatisfiable;
import sh.karpenter.core.requirements.LabelSelector;
import sh.karpenter.core.requirements.Operator;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.scheduling.ExistingNode;
import sh.karpenter.core.scheduling.NodeClaimTemplate;
import sh.karpenter.core.scheduling.SchedulerOptions;
import sh.karpenter.core.scheduling.SchedulingInput;
import sh.karpenter.core.taints.Taint;
import sh.karpenter.core.taints.Toleration;
import sh.karpenter.core.volume.PersistentVolume;
import sh.karpenter.core.volume.PersistentVolumeClaim;
import sh.karpenter.core.volume.VolumeTopology;
import sh.karpenter.core.wellknown.AwsLabels;
import sh.karpenter.core.wellknown.Labels;

/**
 * Realistic constrained clusters for measuring plan cost against the lower bound (issue 18): each
 * case is a named, seeded cluster of 50 to 5,000 pending pods on the catalogue it is given (the
 * bundled AWS one in the scenario runner, zones us-east-1a/b/c), with the constraints real clusters
 * carry: zone and hostname spread, pod (anti-)affinity, dedicated tainted pools, GPU and arm64 pods,
 * zonal volumes, existing nodes with bound pods, several weighted NodePools with limits, minValues.
 * Every cluster runs a log-agent DaemonSet (100m, 128Mi, tolerating every taint). Pods are built as
 * workloads (Deployments, StatefulSets) of one request shape each; the seed is fixed, so a case
 * always yields the same input.
 *
 * <p>The lower bound ({@code SchedulingLowerBound}) ignores topology, pod affinity, volumes and
 * limits, so on cases whose cost comes from those (hostname anti-affinity, zone spread of few pods)
 * a high plan / bound ratio is partly the bound's slack, not only the plan's.
 */
public enum ConstrainedClusters {
  /**
   * The example: 110 pods in five Deployments of 22, each spread over the three zones with
   * maxSkew 1, 45.1 CPU in all.
   */
  ZONE_SPREAD_110(
      (c, f) -> {
        List<Resources> web =
            List.of(shape("500m", "1Gi"), shape("250m", "512Mi"), shape("500m", "512Mi"), shape("500m", "1Gi"), shape("300m", "512Mi"));
        for (int d = 0; d < 5; d++) {
          String app = "web-" + d;
          c.deployment(app, 22, web.get(d))
              .forEach(p -> c.pods.add(p.topologySpreadConstraint(spread(Labels.ZONE, app)).build()));
        }
      }),
  /** 400 pods: twenty services spread over nodes (hostname, maxSkew 1), as rolling-update safety asks. */
  HOSTNAME_SPREAD_400(
      (c, f) -> {
        for (int d = 0; d < 20; d++) {
          String app = "svc-" + d;
          c.deployment(app, 20, f.pick(Shapes.SERVICE))
              .forEach(p -> c.pods.add(p.topologySpreadConstraint(spread(Labels.HOSTNAME, app)).build()));
        }
      }),
  /**
   * 300 pods: twelve replicated stores (StatefulSets of 3 to 5, required hostname anti-affinity to
   * their own replicas) beside stateless web pods.
   */
  ANTI_AFFINITY_HOSTNAME_300(
      (c, f) -> {
        for (int s = 0; s < 12; s++) {
          String app = "store-" + s;
          c.deployment(app, 3 + (s % 3), f.pick(List.of(shape("1", "4Gi"), shape("2", "8Gi"), shape("500m", "2Gi"))))
              .forEach(p -> c.pods.add(p.requiredPodAntiAffinity(term(app, Labels.HOSTNAME)).build()));
        }
        c.generic("web", 300 - c.pods.size(), Shapes.WEB);
      }),
  /**
   * 150 pods: fifteen three-replica leaders with required zone anti-affinity (one per zone) beside
   * stateless services.
   */
  ANTI_AFFINITY_ZONE_150(
      (c, f) -> {
        for (int s = 0; s < 15; s++) {
          String app = "leader-" + s;
          c.deployment(app, 3, f.pick(Shapes.SERVICE))
              .forEach(p -> c.pods.add(p.requiredPodAntiAffinity(term(app, Labels.ZONE)).build()));
        }
        c.generic("svc", 150 - c.pods.size(), Shapes.SERVICE);
      }),
  /**
   * 500 pods around running caches: three r5.2xlarge nodes (one per zone) run ten caches and two
   * proxies; ten applications of 45 replicas each require the zone of their cache (required zone
   * pod affinity), two agents of 10 require their proxy's node (hostname pod affinity), and 30 web
   * pods are free.
   */
  POD_AFFINITY_500(
      (c, f) -> {
        List<List<Pod>> bound = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        for (int s = 0; s < 10; s++) {
          String cache = "cache-" + s;
          int slot = s % 3;
          String node = "cache-node-" + slot;
          c.deployment(cache, 2, shape("500m", "4Gi")).forEach(p -> bound.get(slot).add(p.nodeName(node).build()));
          c.deployment("app-" + s, 45, f.pick(Shapes.SERVICE))
              .forEach(p -> c.pods.add(p.requiredPodAffinity(term(cache, Labels.ZONE)).build()));
        }
        for (int s = 0; s < 2; s++) {
          String proxy = "proxy-" + s;
          int slot = s;
          String node = "cache-node-" + slot;
          c.deployment(proxy, 1, shape("250m", "256Mi")).forEach(p -> bound.get(slot).add(p.nodeName(node).build()));
          c.deployment("agent-" + s, 10, shape("250m", "512Mi"))
              .forEach(p -> c.pods.add(p.requiredPodAffinity(term(proxy, Labels.HOSTNAME)).build()));
        }
        for (int n = 0; n < 3; n++) {
          c.existingNode("cache-node-" + n, n, "r5.2xlarge", Resources.builder().cpu("7910m").memory("61Gi").pods(58).build(), bound.get(n));
        }
        c.generic("web", 30, Shapes.WEB);
      }),
  /**
   * 1,000 pods over a general pool and a dedicated batch pool (taint {@code dedicated=batch:NoSchedule},
   * label {@code workload=batch}, c and m types): 40% batch pods select and tolerate it.
   */
  DEDICATED_POOL_1000(
      (c, f) -> {
        c.generalPool();
        c.batchPool();
        Toleration tolerateBatch = Toleration.equal("dedicated", "batch", Taint.Effect.NoSchedule);
        int batch = 0;
        while (batch < 400) {
          String app = "job-" + c.pods.size();
          int replicas = Math.min(10 + f.nextInt(30), 400 - batch);
          c.deployment(app, replicas, f.pick(Shapes.CPU))
              .forEach(p -> c.pods.add(p.nodeSelector(Map.of("workload", "batch")).toleration(tolerateBatch).build()));
          batch += replicas;
        }
        c.generic("svc", 1000 - c.pods.size(), Shapes.SERVICE);
      }),
  /**
   * 200 pods: 24 GPU pods ({@code nvidia.com/gpu} 1, 4 CPU, 16Gi) on a GPU pool tainted {@code
   * nvidia.com/gpu:NoSchedule} (g and p types) beside CPU services on the general pool.
   */
  GPU_200(
      (c, f) -> {
        c.generalPool();
        c.pools.add(
            pool(
                "gpu",
                0,
                Map.of(),
                List.of(new Taint(AwsLabels.RESOURCE_NVIDIA_GPU, "true", Taint.Effect.NoSchedule)),
                onDemand(Requirement.in(AwsLabels.INSTANCE_CATEGORY, "g", "p")),
                c.catalogue));
        Resources gpu = Resources.builder().cpu("4").memory("16Gi").quantity(AwsLabels.RESOURCE_NVIDIA_GPU, "1").build();
        Toleration tolerateGpu = Toleration.exists(AwsLabels.RESOURCE_NVIDIA_GPU, Taint.Effect.NoSchedule);
        for (int d = 0; d < 3; d++) {
          c.deployment("inference-" + d, 8, gpu).forEach(p -> c.pods.add(p.toleration(tolerateGpu).build()));
        }
        c.generic("svc", 200 - c.pods.size(), Shapes.SERVICE);
      }),
  /**
   * 1,000 pods on a pool allowing amd64 and arm64: half select arm64 (Graviton builds), a fifth
   * select amd64 (x86-only images), the rest run on either.
   */
  ARM64_1000(
      (c, f) -> {
        c.pools.add(
            pool("general", 0, Map.of(), List.of(), onDemandAnyArch(), c.catalogue));
        c.generic("arm", 500, Shapes.SERVICE, Map.of(Labels.ARCH, "arm64"));
        c.generic("x86", 200, Shapes.SERVICE, Map.of(Labels.ARCH, "amd64"));
        c.generic("any", 300, Shapes.WEB);
      }),
  /**
   * 300 pods: 60 StatefulSet replicas, each with a claim bound to an EBS volume pinned to one zone
   * (round-robin over the three), beside stateless pods.
   */
  ZONAL_VOLUMES_300(
      (c, f) -> {
        for (int s = 0; s < 6; s++) {
          String app = "db-" + s;
          List<Pod.Builder> replicas = c.deployment(app, 10, f.pick(List.of(shape("1", "4Gi"), shape("2", "8Gi"))));
          for (Pod.Builder replica : replicas) {
            String claim = "data-" + app + "-" + c.claims.size();
            String volume = "pv-" + c.claims.size();
            String zone = Shapes.ZONES.get(c.claims.size() % Shapes.ZONES.size());
            c.claims.add(new PersistentVolumeClaim("default", claim, "gp3", volume));
            c.volumes.add(
                new PersistentVolume(volume, List.of(Requirements.of(Requirement.in(Labels.ZONE, zone))), false, "ebs.csi.aws.com"));
            c.pods.add(replica.persistentVolumeClaim(claim).build());
          }
        }
        c.generic("web", 300 - c.pods.size(), Shapes.WEB);
      }),
  /**
   * 2,000 pods into a cluster that already runs 30 m5.2xlarge nodes (10 per zone), each with 3 to 10
   * bound pods, so free capacity on them comes first.
   */
  EXISTING_NODES_2000(
      (c, f) -> {
        for (int n = 0; n < 30; n++) {
          String name = "existing-" + n;
          List<Pod> bound = new ArrayList<>();
          int count = 3 + f.nextInt(8);
          for (int i = 0; i < count; i++) {
            bound.add(c.pod("bound", Map.of("app", "bound"), f.pick(Shapes.SERVICE)).nodeName(name).build());
          }
          c.existingNode(name, n, "m5.2xlarge", Resources.builder().cpu("7910m").memory("29Gi").pods(58).build(), bound);
        }
        c.workloads(2000, Shapes.SERVICE);
      }),
  /**
   * 1,500 pods over three NodePools: a preferred compute pool (weight 100, c types, limit 64 CPU), a
   * second choice (weight 50, m types, limit 200 CPU) and the unlimited general pool, so the limits
   * push work down the weights.
   */
  WEIGHTED_POOLS_LIMITS_1500(
      (c, f) -> {
        c.pools.add(pool("compute", 100, Map.of(), List.of(), onDemand(Requirement.in(AwsLabels.INSTANCE_CATEGORY, "c")), c.catalogue, "64"));
        c.pools.add(pool("standard", 50, Map.of(), List.of(), onDemand(Requirement.in(AwsLabels.INSTANCE_CATEGORY, "m")), c.catalogue, "200"));
        c.generalPool();
        c.workloads(1500, Shapes.SERVICE);
      }),
  /**
   * 800 pods on a pool that requires at least five instance families among its c, m and r types
   * (minValues 5), as spot-diversity pools do.
   */
  MIN_VALUES_800(
      (c, f) -> {
        Requirements requirements =
            onDemand(
                Requirement.in(AwsLabels.INSTANCE_CATEGORY, "c", "m", "r"),
                Requirement.of(AwsLabels.INSTANCE_FAMILY, Operator.Exists, List.of(), 5));
        c.pools.add(pool("diverse", 0, Map.of(), List.of(), requirements, c.catalogue));
        c.workloads(800, Shapes.SERVICE);
      }),
  /**
   * 5,000 pods of everything at once: general, arm64-capable and dedicated batch pools, 20 existing
   * nodes, zone and hostname spread, hostname anti-affinity, zone affinity, arm64 and batch pods.
   */
  MIXED_5000(
      (c, f) -> {
        c.pools.add(pool("general", 0, Map.of(), List.of(), onDemandAnyArch(), c.catalogue));
        c.batchPool();
        for (int n = 0; n < 20; n++) {
          String name = "existing-" + n;
          c.existingNode(
              name,
              n,
              "m5.4xlarge",
              Resources.builder().cpu("15890m").memory("57Gi").pods(234).build(),
              List.of(c.pod("bound", Map.of("app", "bound"), shape("4", "16Gi")).nodeName(name).build()));
        }
        Toleration tolerateBatch = Toleration.equal("dedicated", "batch", Taint.Effect.NoSchedule);
        int workload = 0;
        while (c.pods.size() < 5000) {
          String app = "app-" + workload;
          int replicas = Math.min(1 + f.nextInt(40), 5000 - c.pods.size());
          Resources requests = f.pick(Shapes.SERVICE);
          for (Pod.Builder pod : c.deployment(app, replicas, requests)) {
            switch (workload % 6) {
              case 0 -> pod.topologySpreadConstraint(spread(Labels.ZONE, app));
              case 1 -> pod.topologySpreadConstraint(spread(Labels.HOSTNAME, app));
              case 2 -> pod.nodeSelector(Map.of(Labels.ARCH, "arm64"));
              case 3 -> pod.nodeSelector(Map.of("workload", "batch")).toleration(tolerateBatch);
              case 4 -> {
                if (replicas <= 10) {
                  pod.requiredPodAntiAffinity(term(app, Labels.HOSTNAME));
                } else {
                  pod.requiredPodAffinity(term("app-" + (workload - 4), Labels.ZONE));
                }
              }
              default -> {}
            }
            c.pods.add(pod.build());
          }
          workload++;
        }
      });

  /** The zones of the bundled AWS catalogue. */
  public static final List<String> ZONES = Shapes.ZONES;

  /**
   * The zones and the request shapes the workloads draw from (a class of their own: the cases may
   * not refer forward to the enum's fields).
   */
  private static final class Shapes {
    static final List<String> ZONES = List.of("us-east-1a", "us-east-1b", "us-east-1c");

    /** Small stateless web pods. */
    static final List<Resources> WEB =
        List.of(shape("100m", "128Mi"), shape("250m", "256Mi"), shape("250m", "512Mi"), shape("500m", "1Gi"));
    /** Services, from sidecar-sized to a few cores. */
    static final List<Resources> SERVICE =
        List.of(
            shape("250m", "512Mi"),
            shape("500m", "1Gi"),
            shape("1", "2Gi"),
            shape("1", "4Gi"),
            shape("2", "4Gi"),
            shape("2", "8Gi"),
            shape("4", "8Gi"));
    /** Batch workers. */
    static final List<Resources> CPU = List.of(shape("1", "1Gi"), shape("2", "2Gi"), shape("4", "4Gi"), shape("8", "8Gi"));
  }
  private static final Pod DAEMONSET =
      Pod.builder()
          .namespace("kube-system")
          .name("log-agent")
          .uid("uid-log-agent")
          .labels(Map.of("app", "log-agent"))
          .container(shape("100m", "128Mi"))
          .toleration(Toleration.tolerateAll())
          .build();

  private final BiConsumer<Cluster, PodFactory> build;

  ConstrainedClusters(BiConsumer<Cluster, PodFactory> build) {
    this.build = build;
  }

  /** The case's name in reports: {@code zone-spread-110}, ... */
  public String label() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /**
   * The case's cluster on {@code catalogue}: its NodePools (one unlimited on-demand linux amd64
   * general pool unless the case defines its own), existing nodes, pending pods, the DaemonSet and
   * volumes. The same catalogue always gives the same input.
   */
  public SchedulingInput input(List<InstanceType> catalogue) {
    Cluster cluster = new Cluster(catalogue, new PodFactory(PodMixes.SEED + ordinal()));
    build.accept(cluster, cluster.factory);
    if (cluster.pools.isEmpty()) {
      cluster.generalPool();
    }
    VolumeTopology volumes =
        cluster.volumes.isEmpty() ? null : new VolumeTopology(cluster.volumes, cluster.claims, List.of());
    return new SchedulingInput(
        cluster.pools, cluster.nodes, cluster.pods, List.of(DAEMONSET), volumes, SchedulerOptions.DEFAULT);
  }

  /** The parts of a cluster as a case builds them. */
  private static final class Cluster {
    final List<InstanceType> catalogue;
    final List<NodeClaimTemplate> pools = new ArrayList<>();
    final List<ExistingNode> nodes = new ArrayList<>();
    final List<Pod> pods = new ArrayList<>();
    final List<PersistentVolume> volumes = new ArrayList<>();
    final List<PersistentVolumeClaim> claims = new ArrayList<>();
    final PodFactory factory;

    Cluster(List<InstanceType> catalogue, PodFactory factory) {
      this.catalogue = catalogue;
      this.factory = factory;
    }

    /** The common default pool: on-demand, linux, amd64, c/m/r types of generation 5 or later. */
    void generalPool() {
      pools.add(pool("general", 0, Map.of(), List.of(), onDemand(Requirement.in(Labels.ARCH, "amd64")), catalogue));
    }

    /**
     * An initialized on-demand linux amd64 node of the general pool, in zone {@code zoneIndex} (mod
     * three), running {@code bound}.
     */
    void existingNode(String name, int zoneIndex, String instanceType, Resources allocatable, List<Pod> bound) {
      Map<String, String> labels =
          Map.of(
              Labels.HOSTNAME, name,
              Labels.ZONE, Shapes.ZONES.get(zoneIndex % Shapes.ZONES.size()),
              Labels.ARCH, "amd64",
              Labels.OS, "linux",
              Labels.INSTANCE_TYPE, instanceType,
              Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND,
              Labels.NODE_POOL, "general");
      nodes.add(new ExistingNode(name, labels, List.of(), allocatable, bound, true, "general"));
    }

    /** The dedicated batch pool: weight 10, label {@code workload=batch}, taint {@code dedicated=batch:NoSchedule}, c and m types. */
    void batchPool() {
      pools.add(
          pool(
              "batch",
              10,
              Map.of("workload", "batch"),
              List.of(new Taint("dedicated", "batch", Taint.Effect.NoSchedule)),
              onDemand(Requirement.in(AwsLabels.INSTANCE_CATEGORY, "c", "m")),
              catalogue));
    }

    Pod.Builder pod(String app, Map<String, String> labels, Resources requests) {
      return factory.pod(app, labels, requests);
    }

    /** {@code replicas} pods labelled {@code app=<app>} of one shape, not yet built. */
    List<Pod.Builder> deployment(String app, int replicas, Resources requests) {
      List<Pod.Builder> builders = new ArrayList<>(replicas);
      for (int i = 0; i < replicas; i++) {
        builders.add(pod(app, Map.of("app", app), requests).owner("ReplicaSet", app));
      }
      return builders;
    }

    /** {@code count} unconstrained pods in Deployments of 1 to 30 replicas. */
    void generic(String prefix, int count, List<Resources> shapes) {
      generic(prefix, count, shapes, Map.of());
    }

    void generic(String prefix, int count, List<Resources> shapes, Map<String, String> nodeSelector) {
      int target = pods.size() + count;
      int workload = 0;
      while (pods.size() < target) {
        String app = prefix + "-" + workload++;
        int replicas = Math.min(1 + factory.nextInt(30), target - pods.size());
        deployment(app, replicas, factory.pick(shapes)).forEach(p -> pods.add(p.nodeSelector(nodeSelector).build()));
      }
    }

    /**
     * {@code count} pods as a typical cluster runs them: Deployments of 1 to 40 replicas, a third
     * with zone spread, a sixth with hostname spread, the rest unconstrained.
     */
    void workloads(int count, List<Resources> shapes) {
      int workload = 0;
      while (pods.size() < count) {
        String app = "app-" + workload;
        int replicas = Math.min(1 + factory.nextInt(40), count - pods.size());
        Resources requests = factory.pick(shapes);
        for (Pod.Builder pod : deployment(app, replicas, requests)) {
          switch (workload % 6) {
            case 0, 1 -> pod.topologySpreadConstraint(spread(Labels.ZONE, app));
            case 2 -> pod.topologySpreadConstraint(spread(Labels.HOSTNAME, app));
            default -> {}
          }
          pods.add(pod.build());
        }
        workload++;
      }
    }
  }

  private static NodeClaimTemplate pool(
      String name, int weight, Map<String, String> labels, List<Taint> taints, Requirements requirements, List<InstanceType> catalogue) {
    return pool(name, weight, labels, taints, requirements, catalogue, null);
  }

  private static NodeClaimTemplate pool(
      String name,
      int weight,
      Map<String, String> labels,
      List<Taint> taints,
      Requirements requirements,
      List<InstanceType> catalogue,
      String cpuLimit) {
    Resources limits = cpuLimit == null ? null : Resources.builder().cpu(cpuLimit).build();
    return new NodeClaimTemplate(name, weight, labels, null, taints, null, requirements, limits, Resources.EMPTY, catalogue);
  }

  /** Linux on-demand, generation 5 or later, and {@code extra}; c, m and r types unless {@code extra} narrows them. */
  private static Requirements onDemand(Requirement... extra) {
    Requirements requirements =
        Requirements.of(
            Requirement.in(Labels.OS, "linux"),
            Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND),
            Requirement.of(AwsLabels.INSTANCE_GENERATION, Operator.Gt, List.of("4")));
    boolean category = false;
    for (Requirement requirement : extra) {
      requirements.add(requirement);
      category |= requirement.key().equals(AwsLabels.INSTANCE_CATEGORY);
    }
    if (!category) {
      requirements.add(Requirement.in(AwsLabels.INSTANCE_CATEGORY, "c", "m", "r"));
    }
    return requirements;
  }

  private static Requirements onDemandAnyArch() {
    return onDemand(Requirement.in(Labels.ARCH, "amd64", "arm64"));
  }

  private static TopologySpreadConstraint spread(String topologyKey, String app) {
    return TopologySpreadConstraint.of(1, topologyKey, WhenUnsatisfiable.DoNotSchedule, LabelSelector.of(Map.of("app", app)));
  }

  private static PodAffinityTerm term(String app, String topologyKey) {
    return PodAffinityTerm.of(LabelSelector.of(Map.of("app", app)), topologyKey);
  }

  private static Resources shape(String cpu, String memory) {
    return Resources.builder().cpu(cpu).memory(memory).build();
  }
}
