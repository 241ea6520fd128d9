package sh.karpenter.controller.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ReplicationController;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.requirements.LabelSelector;
import sh.karpenter.core.requirements.LabelSelector.Expression;
import sh.karpenter.core.requirements.Operator;

/** The selector derivation of kube-scheduler's {@code helper.DefaultSelector}, case by case as upstream tests it. */
class DefaultSpreadSelectorsTest {
  private final DefaultSpreadSelectors selectors = new DefaultSpreadSelectors();

  /** A pod in namespace {@code shop} with these labels, controlled by {@code controller} ("Kind/name") when given. */
  private static Pod pod(String labels, String controller) {
    String owners = "";
    if (controller != null) {
      String[] kindAndName = controller.split("/");
      owners = ", ownerReferences: [{apiVersion: apps/v1, kind: %s, name: %s, uid: u, controller: true}]".formatted(kindAndName[0], kindAndName[1]);
    }
    return TestManifests.yaml(Pod.class, "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: shop, labels: %s%s}\n".formatted(labels, owners));
  }

  private void service(String namespace, String selector) {
    selectors.addService(TestManifests.yaml(Service.class, """
        apiVersion: v1
        kind: Service
        metadata: {name: svc, namespace: %s}
        spec: {%s}
        """.formatted(namespace, selector == null ? "" : "selector: " + selector)));
  }

  private void replicaSet(String name, String selector) {
    selectors.addController(TestManifests.yaml(ReplicaSet.class, """
        apiVersion: apps/v1
        kind: ReplicaSet
        metadata: {name: %s, namespace: shop}
        spec: {selector: %s}
        """.formatted(name, selector)), TestManifests.ORIGIN);
  }

  private void replicationController(String name, String selector) {
    selectors.addController(TestManifests.yaml(ReplicationController.class, """
        apiVersion: v1
        kind: ReplicationController
        metadata: {name: %s, namespace: shop}
        spec: {selector: %s}
        """.formatted(name, selector)), TestManifests.ORIGIN);
  }

  private static Expression in(String key, String value) {
    return new Expression(key, Operator.In, List.of(value));
  }

  @Test
  void derivesAReplicaSetsSelectorNotThePodsLabels() {
    replicaSet("web-abc123", "{matchLabels: {app: web, pod-template-hash: abc123}}");

    LabelSelector selector = selectors.selectorFor(pod("{app: web, pod-template-hash: abc123, extra: ignored}", "ReplicaSet/web-abc123"));

    assertThat(selector.matchLabels()).isEmpty();
    assertThat(selector.expressions()).containsExactlyInAnyOrder(in("app", "web"), in("pod-template-hash", "abc123"));
  }

  @Test
  void derivesAStatefulSetsSelectorAndIgnoresThePodsVolatileLabels() {
    selectors.addController(TestManifests.yaml(StatefulSet.class, """
        apiVersion: apps/v1
        kind: StatefulSet
        metadata: {name: db, namespace: shop}
        spec: {selector: {matchLabels: {app: db}}}
        """), TestManifests.ORIGIN);

    LabelSelector selector =
        selectors.selectorFor(
            pod("{app: db, controller-revision-hash: db-6f8c, statefulset.kubernetes.io/pod-name: db-0, apps.kubernetes.io/pod-index: '0'}", "StatefulSet/db"));

    assertThat(selector.expressions()).containsExactly(in("app", "db"));
  }

  @Test
  void carriesAReplicaSetsMatchExpressionsVerbatim() {
    replicaSet("web", "{matchExpressions: [{key: app, operator: NotIn, values: [other]}]}");

    LabelSelector selector = selectors.selectorFor(pod("{app: web}", "ReplicaSet/web"));

    assertThat(selector.expressions()).containsExactly(new Expression("app", Operator.NotIn, List.of("other")));
  }

  @Test
  void derivesAReplicationControllersSelectorAsMatchLabels() {
    replicationController("legacy", "{app: legacy}");

    LabelSelector selector = selectors.selectorFor(pod("{app: legacy}", "ReplicationController/legacy"));

    assertThat(selector.matchLabels()).isEqualTo(Map.of("app", "legacy"));
    assertThat(selector.expressions()).isEmpty();
  }

  @Test
  void derivesAPlannedDeploymentsSelectorForThePodsItExpandsInto() {
    selectors.addController(TestManifests.yaml(Deployment.class, """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: web, namespace: shop}
        spec: {selector: {matchLabels: {app: web}}}
        """), TestManifests.ORIGIN);

    assertThat(selectors.selectorFor(pod("{app: web}", "Deployment/web")).expressions()).containsExactly(in("app", "web"));
  }

  @Test
  void derivesNothingFromAnUnsupportedOwnerKind() {
    assertThat(selectors.selectorFor(pod("{app: batch}", "Job/test-job"))).isNull();
  }

  @Test
  void ignoresANonControllerOwnerReference() {
    replicaSet("web", "{matchLabels: {app: web}}");
    Pod pod =
        TestManifests.yaml(Pod.class, """
            apiVersion: v1
            kind: Pod
            metadata:
              name: p
              namespace: shop
              labels: {app: web}
              ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web, uid: u, controller: false}]
            """);

    assertThat(selectors.selectorFor(pod)).isNull();
  }

  @Test
  void toleratesAnOwnerThatDoesNotExist() {
    assertThat(selectors.selectorFor(pod("{app: web}", "ReplicaSet/does-not-exist"))).isNull();
  }

  @Test
  void ignoresAnOwnerOfTheSameNameInAnotherNamespace() {
    selectors.addController(TestManifests.yaml(ReplicaSet.class, """
        apiVersion: apps/v1
        kind: ReplicaSet
        metadata: {name: web, namespace: elsewhere}
        spec: {selector: {matchLabels: {app: web}}}
        """), TestManifests.ORIGIN);

    assertThat(selectors.selectorFor(pod("{app: web}", "ReplicaSet/web"))).isNull();
  }

  @Test
  void derivesASelectorFromAMatchingService() {
    service("shop", "{app: web}");

    LabelSelector selector = selectors.selectorFor(pod("{app: web, extra: ignored}", null));

    assertThat(selector.matchLabels()).isEqualTo(Map.of("app", "web"));
    assertThat(selector.expressions()).isEmpty();
  }

  @Test
  void mergesTheSelectorsOfEveryMatchingService() {
    service("shop", "{app: web}");
    service("shop", "{tier: frontend}");
    service("shop", "{tier: backend}");

    assertThat(selectors.selectorFor(pod("{app: web, tier: frontend}", null)).matchLabels()).isEqualTo(Map.of("app", "web", "tier", "frontend"));
  }

  @Test
  void derivesNothingFromANonMatchingService() {
    service("shop", "{app: other}");

    assertThat(selectors.selectorFor(pod("{app: web}", null))).isNull();
  }

  @Test
  void skipsAServiceWithoutASelector() {
    service("shop", null);
    service("shop", "{}");

    assertThat(selectors.selectorFor(pod("{app: web}", null))).isNull();
  }

  @Test
  void ignoresAMatchingServiceInAnotherNamespace() {
    service("elsewhere", "{app: web}");

    assertThat(selectors.selectorFor(pod("{app: web}", null))).isNull();
  }

  @Test
  void combinesAServiceSelectorWithTheOwners() {
    replicaSet("web-abc123", "{matchLabels: {app: web, pod-template-hash: abc123}}");
    service("shop", "{tier: frontend}");

    LabelSelector selector = selectors.selectorFor(pod("{app: web, pod-template-hash: abc123, tier: frontend}", "ReplicaSet/web-abc123"));

    assertThat(selector.matchLabels()).isEqualTo(Map.of("tier", "frontend"));
    assertThat(selector.expressions()).containsExactlyInAnyOrder(in("app", "web"), in("pod-template-hash", "abc123"));
  }

  @Test
  void letsAReplicationControllersSelectorOverwriteAConflictingServiceLabel() {
    replicationController("legacy", "{app: legacy}");
    service("shop", "{app: web}");

    LabelSelector selector = selectors.selectorFor(pod("{app: web}", "ReplicationController/legacy"));

    assertThat(selector.matchLabels()).isEqualTo(Map.of("app", "legacy"));
    assertThat(selector.expressions()).isEmpty();
  }

  @Test
  void andsAReplicaSetsConflictingSelectorSelectingNothing() {
    replicaSet("web", "{matchLabels: {app: other}}");
    service("shop", "{app: web}");

    LabelSelector selector = selectors.selectorFor(pod("{app: web}", "ReplicaSet/web"));

    assertThat(selector.matchLabels()).isEqualTo(Map.of("app", "web"));
    assertThat(selector.expressions()).containsExactly(in("app", "other"));
    assertThat(selector.matches(Map.of("app", "web"))).isFalse();
    assertThat(selector.matches(Map.of("app", "other"))).isFalse();
  }

  @Test
  void derivesEqualSelectorsForPodsOfOneOwnerSoTheyShareTopologyGroups() {
    replicaSet("web", "{matchLabels: {app: web, pod-template-hash: abc123}}");

    assertThat(selectors.selectorFor(pod("{app: web, pod-template-hash: abc123}", "ReplicaSet/web")))
        .isEqualTo(selectors.selectorFor(pod("{pod-template-hash: abc123, app: web}", "ReplicaSet/web")));
  }

  @Test
  void doesNotShareASelectorBetweenPodsOfOneOwnerWithDifferentLabels() {
    replicaSet("web", "{matchLabels: {app: web}}");
    service("shop", "{tier: frontend}");

    assertThat(selectors.selectorFor(pod("{app: web, tier: frontend}", "ReplicaSet/web")).matchLabels()).isEqualTo(Map.of("tier", "frontend"));
    assertThat(selectors.selectorFor(pod("{app: web}", "ReplicaSet/web")).matchLabels()).isEmpty();
  }

  @Test
  void rejectsAMalformedOwnerSelectorNamingTheField() {
    assertThatThrownBy(() -> replicaSet("web", "{matchExpressions: [{key: app, operator: Matches, values: [web]}]}"))
        .isInstanceOf(SnapshotInputException.class)
        .hasMessageStartingWith(TestManifests.ORIGIN + ": spec.selector.matchExpressions[0].operator");
  }
}
