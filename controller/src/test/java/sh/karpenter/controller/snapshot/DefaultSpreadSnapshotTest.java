package sh.karpenter.controller.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.core.catalog.FakeInstanceTypes;
import sh.karpenter.core.pod.TopologySpreadConstraint;
import sh.karpenter.core.pod.TopologySpreadConstraint.WhenUnsatisfiable;
import sh.karpenter.core.requirements.LabelSelector;
import sh.karpenter.core.requirements.LabelSelector.Expression;
import sh.karpenter.core.requirements.Operator;
import sh.karpenter.core.scheduling.PlannedNodeClaim;
import sh.karpenter.core.scheduling.Scheduler;
import sh.karpenter.core.scheduling.SchedulerOptions;
import sh.karpenter.core.scheduling.SchedulingResult;
import sh.karpenter.core.wellknown.Labels;

/** Default topology spread ({@code --scheduler-config}) from manifests through the scheduler. */
class DefaultSpreadSnapshotTest {
  private static final SchedulerConfig ZONAL_DEFAULT =
      SchedulerConfig.parse("""
          podTopologySpread:
            defaultConstraints:
              - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule}
          """, "scheduler.yaml");
  private static final String WEB_DEPLOYMENT = """
      apiVersion: apps/v1
      kind: Deployment
      metadata: {name: web, namespace: shop}
      spec:
        replicas: 6
        selector: {matchLabels: {app: web}}
        template:
          metadata: {labels: {app: web}}
          spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
      """;
  private static final String WEB_SERVICE = """
      apiVersion: v1
      kind: Service
      metadata: {name: web, namespace: shop}
      spec: {selector: {app: web}}
      """;

  private final SnapshotBuilder builder = new SnapshotBuilder(pool -> FakeInstanceTypes.defaults());
  private int documents;

  private <T extends HasMetadata> void add(Class<T> type, String yaml) {
    assertThat(builder.add(TestManifests.yaml(type, yaml), "snapshot.yaml, document " + ++documents)).isTrue();
  }

  private static String pod(String name, String labels, String spec) {
    return "apiVersion: v1\nkind: Pod\nmetadata: {name: %s, namespace: shop, labels: %s}\nspec:\n%s".formatted(name, labels, spec.indent(2));
  }

  private List<TopologySpreadConstraint> pendingConstraints(String podName) {
    return builder.build().pendingPods().stream().filter(p -> p.name().equals(podName)).findFirst().orElseThrow().topologySpreadConstraints();
  }

  @Test
  void appliesDefaultZonalSpreadToAPodThatDeclaresNoConstraintsOfItsOwn() {
    builder.defaultConstraints(ZONAL_DEFAULT.defaultConstraints());
    add(NodePool.class, """
        apiVersion: karpenter.sh/v1
        kind: NodePool
        metadata: {name: default}
        spec: {template: {spec: {nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}, requirements: []}}}
        """);
    add(Deployment.class, WEB_DEPLOYMENT);

    SchedulingResult result = new Scheduler(builder.build().schedulingInput(SchedulerOptions.DEFAULT)).solve();

    assertThat(result.unschedulable()).isEmpty();
    Map<String, Integer> podsPerZone = new TreeMap<>();
    for (PlannedNodeClaim claim : result.newNodeClaims()) {
      podsPerZone.merge(claim.requirements().get(Labels.ZONE).any(), claim.pods().size(), Integer::sum);
    }
    assertThat(podsPerZone).isEqualTo(Map.of("test-zone-1", 2, "test-zone-2", 2, "test-zone-3", 2));
  }

  @Test
  void countsThePodsOfTheWorkloadWithItsSelector() {
    builder.defaultConstraints(ZONAL_DEFAULT.defaultConstraints());
    add(Deployment.class, WEB_DEPLOYMENT);

    assertThat(pendingConstraints("web-0"))
        .containsExactly(
            TopologySpreadConstraint.of(
                1, Labels.ZONE, WhenUnsatisfiable.DoNotSchedule, LabelSelector.of(Map.of(), List.of(new Expression("app", Operator.In, List.of("web"))))));
  }

  @Test
  void doesNotApplyDefaultsToAPodWithItsOwnConstraints() {
    builder.defaultConstraints(ZONAL_DEFAULT.defaultConstraints());
    add(Service.class, WEB_SERVICE);
    add(Pod.class, pod("own", "{app: web}", """
        topologySpreadConstraints:
          - {maxSkew: 5, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: web}}}
        containers: [{name: c}]
        """));

    assertThat(pendingConstraints("own"))
        .containsExactly(TopologySpreadConstraint.of(5, Labels.HOSTNAME, WhenUnsatisfiable.ScheduleAnyway, LabelSelector.of(Map.of("app", "web"))));
  }

  @Test
  void derivesTheSelectorOfABarePodFromTheServicesThatSelectIt() {
    builder.defaultConstraints(ZONAL_DEFAULT.defaultConstraints());
    add(Pod.class, pod("selected", "{app: web, version: v2}", "containers: [{name: c}]"));
    add(Pod.class, pod("unselected", "{app: cron}", "containers: [{name: c}]"));
    add(Service.class, WEB_SERVICE); // after the pods: order does not matter

    assertThat(pendingConstraints("selected"))
        .containsExactly(TopologySpreadConstraint.of(1, Labels.ZONE, WhenUnsatisfiable.DoNotSchedule, LabelSelector.of(Map.of("app", "web"))));
    assertThat(pendingConstraints("unselected")).isEmpty();
  }

  @Test
  void aLiveClustersReplicaSetOrStatefulSetGivesItsPodsTheSelectorWithoutBecomingPods() {
    builder.defaultConstraints(ZONAL_DEFAULT.defaultConstraints());
    builder.addSpreadController(TestManifests.yaml(io.fabric8.kubernetes.api.model.apps.ReplicaSet.class, """
        apiVersion: apps/v1
        kind: ReplicaSet
        metadata: {name: web-5d8f, namespace: shop}
        spec:
          replicas: 3
          selector: {matchLabels: {app: web, pod-template-hash: 5d8f}}
          template:
            metadata: {labels: {app: web, pod-template-hash: 5d8f}}
            spec: {containers: [{name: c}]}
        """), "ReplicaSet shop/web-5d8f");
    builder.addSpreadController(TestManifests.yaml(io.fabric8.kubernetes.api.model.apps.StatefulSet.class, """
        apiVersion: apps/v1
        kind: StatefulSet
        metadata: {name: db, namespace: shop}
        spec:
          replicas: 1
          selector: {matchExpressions: [{key: app, operator: In, values: [db]}]}
          template:
            metadata: {labels: {app: db}}
            spec: {containers: [{name: c}]}
        """), "StatefulSet shop/db");
    add(Pod.class, pod("web-5d8f-x", "{app: web, pod-template-hash: 5d8f}", "containers: [{name: c}]")
        .replace("labels: {app: web, pod-template-hash: 5d8f}}",
            "labels: {app: web, pod-template-hash: 5d8f}, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-5d8f, uid: rs, controller: true}]}"));
    add(Pod.class, pod("db-0", "{app: db}", "containers: [{name: c}]")
        .replace("labels: {app: db}}", "labels: {app: db}, ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: db, uid: ss, controller: true}]}"));

    // only the two pods: neither controller was expanded
    assertThat(builder.build().pendingPods()).extracting(sh.karpenter.core.pod.Pod::name).containsExactlyInAnyOrder("web-5d8f-x", "db-0");
    assertThat(pendingConstraints("web-5d8f-x")).containsExactly(TopologySpreadConstraint.of(1, Labels.ZONE, WhenUnsatisfiable.DoNotSchedule,
        LabelSelector.of(Map.of(), List.of(new Expression("app", Operator.In, List.of("web")), new Expression("pod-template-hash", Operator.In, List.of("5d8f"))))));
    assertThat(pendingConstraints("db-0")).containsExactly(TopologySpreadConstraint.of(1, Labels.ZONE, WhenUnsatisfiable.DoNotSchedule,
        LabelSelector.of(Map.of(), List.of(new Expression("app", Operator.In, List.of("db"))))));
  }

  @Test
  void appliesNothingWithoutDefaults() {
    add(Service.class, WEB_SERVICE);
    add(Deployment.class, WEB_DEPLOYMENT);

    assertThat(builder.build().pendingPods()).allSatisfy(p -> assertThat(p.topologySpreadConstraints()).isEmpty());
  }

  @Test
  void leavesBoundPodsAsTheyAre() {
    builder.defaultConstraints(ZONAL_DEFAULT.defaultConstraints());
    add(Service.class, WEB_SERVICE);
    add(Node.class, "apiVersion: v1\nkind: Node\nmetadata: {name: node-1}\nstatus: {allocatable: {cpu: \"4\"}}\n");
    add(Pod.class, pod("running", "{app: web}", "nodeName: node-1\ncontainers: [{name: c}]"));

    assertThat(builder.build().nodes().getFirst().pods()).singleElement().satisfies(p -> assertThat(p.topologySpreadConstraints()).isEmpty());
  }
}
