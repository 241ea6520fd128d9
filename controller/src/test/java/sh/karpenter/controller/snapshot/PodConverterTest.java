package sh.karpenter.controller.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static sh.karpenter.controller.snapshot.TestManifests.ORIGIN;

import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import sh.karpenter.core.pod.HostPort;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.pod.PodAffinityTerm;
import sh.karpenter.core.pod.TopologySpreadConstraint;
import sh.karpenter.core.pod.TopologySpreadConstraint.NodeInclusionPolicy;
import sh.karpenter.core.pod.TopologySpreadConstraint.WhenUnsatisfiable;
import sh.karpenter.core.pod.WeightedRequirements;
import sh.karpenter.core.taints.Taint;
import sh.karpenter.core.taints.Toleration;

class PodConverterTest {

  /** A pod {@code team/web} with the given spec (indented as under {@code spec:}). */
  private static Pod convert(String spec) {
    return PodConverter.convert(pod(spec), ORIGIN, "spec");
  }

  private static io.fabric8.kubernetes.api.model.Pod pod(String spec) {
    return TestManifests.yaml(io.fabric8.kubernetes.api.model.Pod.class, """
        apiVersion: v1
        kind: Pod
        metadata: {name: web, namespace: team, labels: {app: web}}
        spec:
        """ + spec.indent(2));
  }

  /** Pod specs and the effective requests kube-scheduler computes for them (pods=1 always added). */
  static Stream<Arguments> effectiveRequests() {
    return Stream.of(
        Arguments.of("containers are summed", """
            containers:
              - {name: a, resources: {requests: {cpu: "1", memory: 1Gi}}}
              - {name: b, resources: {requests: {cpu: 500m}}}
            """, Map.of("cpu", "1500m", "memory", "1Gi", "pods", "1")),
        Arguments.of("a limit without a request is the request", """
            containers:
              - {name: a, resources: {limits: {cpu: "2", memory: 1Gi}, requests: {memory: 512Mi}}}
            """, Map.of("cpu", "2", "memory", "512Mi", "pods", "1")),
        Arguments.of("a larger init container wins", """
            initContainers: [{name: init, resources: {requests: {cpu: "2"}}}]
            containers: [{name: a, resources: {requests: {cpu: "1", memory: 1Gi}}}]
            """, Map.of("cpu", "2", "memory", "1Gi", "pods", "1")),
        Arguments.of("sidecars add to the containers and to later init containers", """
            initContainers:
              - {name: proxy, restartPolicy: Always, resources: {requests: {cpu: 500m}}}
              - {name: migrate, resources: {requests: {cpu: "3"}}}
            containers: [{name: a, resources: {requests: {cpu: "1"}}}]
            """, Map.of("cpu", "3500m", "pods", "1")),
        Arguments.of("a sidecar alone counts with the containers", """
            initContainers: [{name: proxy, restartPolicy: Always, resources: {requests: {cpu: 500m}}}]
            containers: [{name: a, resources: {requests: {cpu: "1"}}}]
            """, Map.of("cpu", "1500m", "pods", "1")),
        Arguments.of("overhead is added", """
            overhead: {cpu: 250m, memory: 64Mi}
            containers: [{name: a, resources: {requests: {cpu: "1"}}}]
            """, Map.of("cpu", "1250m", "memory", "64Mi", "pods", "1")),
        Arguments.of("no requests", "containers: [{name: a}]\n", Map.of("pods", "1")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("effectiveRequests")
  void effectiveRequestsFollowKubeScheduler(String description, String spec, Map<String, String> requests) {
    assertThat(convert(spec).requests().toQuantities()).isEqualTo(requests);
  }

  @Test
  void nodeSelectorAndNodeAffinityBecomeRequirements() {
    Pod pod = convert("""
        nodeSelector: {kubernetes.io/arch: arm64}
        affinity:
          nodeAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
              nodeSelectorTerms:
                - matchExpressions:
                    - {key: topology.kubernetes.io/zone, operator: In, values: [zone-a, zone-b]}
                    - {key: karpenter.sh/capacity-type, operator: NotIn, values: [spot]}
                - matchExpressions:
                    - {key: node.kubernetes.io/instance-type, operator: Exists}
            preferredDuringSchedulingIgnoredDuringExecution:
              - weight: 30
                preference:
                  matchExpressions: [{key: karpenter.k8s.aws/instance-cpu, operator: Gt, values: ["4"]}]
        containers: [{name: a}]
        """);

    assertThat(pod.nodeSelector()).isEqualTo(Map.of("kubernetes.io/arch", "arm64"));
    assertThat(pod.requiredNodeAffinityTerms()).extracting(Object::toString).containsExactly(
        "karpenter.sh/capacity-type NotIn [spot], topology.kubernetes.io/zone In [zone-a zone-b]",
        "node.kubernetes.io/instance-type Exists");
    assertThat(pod.preferredNodeAffinity())
        .extracting(WeightedRequirements::weight, w -> w.requirements().toString())
        .containsExactly(tuple(30, "karpenter.k8s.aws/instance-cpu Gte 5")); // Gt 4, as core keeps integer bounds
    assertThat(pod.strictRequirements().get("kubernetes.io/arch").values()).containsExactly("arm64");
  }

  @Test
  void tolerationsKeepOperatorEffectAndSeconds() {
    Pod pod = convert("""
        tolerations:
          - operator: Exists
          - {key: dedicated, operator: Equal, value: gpu, effect: NoSchedule}
          - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 300}
        containers: [{name: a}]
        """);

    assertThat(pod.tolerations()).containsExactly(
        new Toleration(null, Toleration.Operator.Exists, null, null, null),
        new Toleration("dedicated", Toleration.Operator.Equal, "gpu", Taint.Effect.NoSchedule, null),
        new Toleration("node.kubernetes.io/unreachable", Toleration.Operator.Exists, null, Taint.Effect.NoExecute, 300L));
  }

  @Test
  void topologySpreadGetsKubernetesDefaultsAndKeepsMatchLabelKeys() {
    Pod pod = convert("""
        topologySpreadConstraints:
          - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, labelSelector: {matchLabels: {app: web}}}
          - maxSkew: 2
            topologyKey: kubernetes.io/hostname
            whenUnsatisfiable: ScheduleAnyway
            minDomains: 3
            nodeAffinityPolicy: Ignore
            nodeTaintsPolicy: Honor
            matchLabelKeys: [pod-template-hash]
        containers: [{name: a}]
        """);

    assertThat(pod.topologySpreadConstraints())
        .extracting(
            TopologySpreadConstraint::maxSkew, TopologySpreadConstraint::topologyKey, TopologySpreadConstraint::whenUnsatisfiable,
            TopologySpreadConstraint::minDomains, TopologySpreadConstraint::nodeAffinityPolicy, TopologySpreadConstraint::nodeTaintsPolicy,
            TopologySpreadConstraint::matchLabelKeys)
        .containsExactly(
            tuple(1, "topology.kubernetes.io/zone", WhenUnsatisfiable.DoNotSchedule, null, NodeInclusionPolicy.Honor, NodeInclusionPolicy.Ignore, java.util.List.of()),
            tuple(2, "kubernetes.io/hostname", WhenUnsatisfiable.ScheduleAnyway, 3, NodeInclusionPolicy.Ignore, NodeInclusionPolicy.Honor, java.util.List.of("pod-template-hash")));
    assertThat(pod.topologySpreadConstraints().getFirst().selector().matches(Map.of("app", "web"))).isTrue();
    assertThat(pod.topologySpreadConstraints().get(1).selector().matches(Map.of("app", "web")))
        .as("no labelSelector counts no pods").isFalse();
  }

  @Test
  void podAffinityTermsKeepNamespacesAndNamespaceSelectors() {
    Pod pod = convert("""
        affinity:
          podAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
              - {topologyKey: topology.kubernetes.io/zone, labelSelector: {matchLabels: {app: db}}}
              - {topologyKey: topology.kubernetes.io/zone, labelSelector: {matchLabels: {app: cache}}, namespaces: [infra, ops]}
          podAntiAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
              - topologyKey: kubernetes.io/hostname
                labelSelector: {matchLabels: {app: web}}
                namespaceSelector: {}
                matchLabelKeys: [pod-template-hash]
            preferredDuringSchedulingIgnoredDuringExecution:
              - weight: 50
                podAffinityTerm:
                  topologyKey: topology.kubernetes.io/zone
                  labelSelector: {matchLabels: {app: web}}
                  namespaceSelector: {matchLabels: {tier: frontend}}
        containers: [{name: a}]
        """);

    assertThat(pod.requiredPodAffinity())
        .extracting(PodAffinityTerm::namespaces, t -> t.namespaceSelector() == null)
        .containsExactly(tuple(Set.of(), true), tuple(Set.of("infra", "ops"), true));
    PodAffinityTerm anti = pod.requiredPodAntiAffinity().getFirst();
    assertThat(anti.namespaceSelector().matches(Map.of())).as("an empty namespaceSelector selects every namespace").isTrue();
    assertThat(anti.matchLabelKeys()).containsExactly("pod-template-hash");
    assertThat(pod.preferredPodAntiAffinity()).singleElement().satisfies(weighted -> {
      assertThat(weighted.weight()).isEqualTo(50);
      assertThat(weighted.term().namespaceSelector().matches(Map.of("tier", "frontend"))).isTrue();
      assertThat(weighted.term().namespaceSelector().matches(Map.of("tier", "backend"))).isFalse();
    });
  }

  @Test
  void hostPortsDefaultToEveryAddressAndTcp() {
    Pod pod = convert("""
        containers:
          - name: a
            ports:
              - {containerPort: 80, hostPort: 8080}
              - {containerPort: 53, hostPort: 53, protocol: UDP, hostIP: 10.0.0.1}
              - {containerPort: 9090}
        """);

    assertThat(pod.hostPorts()).containsExactly(new HostPort("0.0.0.0", 8080, "TCP"), new HostPort("10.0.0.1", 53, "UDP"));
  }

  @Test
  void claimsAreNamedAndEphemeralVolumesGetTheirGeneratedClaimName() {
    Pod pod = convert("""
        volumes:
          - {name: data, persistentVolumeClaim: {claimName: web-data}}
          - name: scratch
            ephemeral: {volumeClaimTemplate: {spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}}
          - {name: cache, emptyDir: {}}
        containers: [{name: a}]
        """);

    assertThat(pod.persistentVolumeClaims()).containsExactly("web-data", "web-scratch");
  }

  @Test
  void ownerIsTheControllingReference() {
    var pod = pod("containers: [{name: a}]\n");
    pod.getMetadata().setOwnerReferences(java.util.List.of(
        new io.fabric8.kubernetes.api.model.OwnerReferenceBuilder().withKind("ConfigMap").withName("cm").build(),
        new io.fabric8.kubernetes.api.model.OwnerReferenceBuilder().withKind("ReplicaSet").withName("web-5d8").withController(true).build()));

    Pod converted = PodConverter.convert(pod, ORIGIN, "spec");

    assertThat(converted.ownerKind() + "/" + converted.ownerName()).isEqualTo("ReplicaSet/web-5d8");
    assertThat(convert("containers: [{name: a}]\n").ownerKind()).isNull();
  }

  /** Specs that cannot be converted, and the field and problem the error names. */
  static Stream<Arguments> invalidSpecs() {
    return Stream.of(
        Arguments.of("containers: [{name: a, resources: {requests: {cpu: lots}}}]\n",
            "spec.containers[0].resources.requests.cpu: invalid quantity \"lots\""),
        Arguments.of("initContainers: [{name: i, resources: {limits: {memory: 1Q}}}]\n",
            "spec.initContainers[0].resources.limits.memory: invalid quantity \"1Q\""),
        Arguments.of("topologySpreadConstraints: [{maxSkew: 1}]\n",
            "spec.topologySpreadConstraints[0].topologyKey: required"),
        Arguments.of("topologySpreadConstraints: [{maxSkew: 0, topologyKey: zone}]\n",
            "spec.topologySpreadConstraints[0].maxSkew: required, at least 1"),
        Arguments.of("topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: Sometimes}]\n",
            "spec.topologySpreadConstraints[0].whenUnsatisfiable: unknown value \"Sometimes\""),
        Arguments.of("tolerations: [{key: k, operator: Maybe}]\n",
            "spec.tolerations[0].operator: "),
        Arguments.of("affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: {}}]}}\n",
            "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: required"),
        Arguments.of("affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: k, operator: Near}]}]}}}\n",
            "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator: "));
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("invalidSpecs")
  void invalidFieldsAreNamedWithTheirPath(String spec, String error) {
    assertThatThrownBy(() -> convert(spec))
        .isInstanceOf(SnapshotInputException.class)
        .hasMessageStartingWith(ORIGIN + ": " + error);
  }

  @Test
  void aTemplateReportsFieldsUnderItsPrefix() {
    var pod = pod("containers: [{name: a, resources: {requests: {cpu: lots}}}]\n");

    assertThatThrownBy(() -> PodConverter.convert(pod, ORIGIN, "spec.template.spec"))
        .hasMessageStartingWith(ORIGIN + ": spec.template.spec.containers[0].resources.requests.cpu: invalid quantity");
  }
}
