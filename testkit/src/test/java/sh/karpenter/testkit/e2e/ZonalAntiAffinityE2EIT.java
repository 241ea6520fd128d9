package sh.karpenter.testkit.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodeSelectorRequirementWithMinValues;
import sh.karpenter.controller.provisioning.Provisioner;
import sh.karpenter.controller.runtime.TestingEventRecorder;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;
import sh.karpenter.testkit.fixtures.InProcessOperators;
import sh.karpenter.testkit.fixtures.NodePoolYaml;
import sh.karpenter.testkit.fixtures.TestObjects;

/**
 * Upstream's "should support pod anti-affinity with a zone topology" on the real control plane: three
 * replicas that must each run in a different zone, over a KWOK NodePool with three zones, all run
 * after one provisioning batch, because each NodeClaim's zone is decided as its replica is placed
 * (docs/behaviour/scheduling.md#zonal-anti-affinity-in-one-batch). Upstream launches one node per
 * batch here and tells the other two replicas their anti-affinity leaves no zone.
 */
@ControlPlaneTest
class ZonalAntiAffinityE2EIT {
  private static final Duration TIMEOUT = Duration.ofMinutes(3);
  private static final List<String> ZONES = List.of("us-east-1a", "us-east-1b", "us-east-1c");

  private final InProcessOperators operators = new InProcessOperators();

  @AfterEach
  void stop() throws Exception {
    operators.close();
  }

  @Test
  void threeOnePerZoneReplicasRunAfterOneBatch(KubernetesClient client) {
    TestObjects.createNodeClass(client);
    NodePoolYaml.named("default").expireAfter("Never")
        .requirementIn(Labels.CAPACITY_TYPE, "on-demand")
        .requirementIn(Labels.OS, "linux")
        .requirementIn(Labels.ZONE, ZONES.toArray(String[]::new))
        .createReady(client);
    // Pending before the operator starts, so they are one batch (see ControllerE2EIT).
    List<Pod> replicas = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      replicas.add(onePerZone(TestObjects.pausePod("db-" + i, "db", "500m", "512Mi")));
    }
    replicas.forEach(pod -> client.pods().resource(pod).create());
    TestingEventRecorder events = new TestingEventRecorder();
    operators.start(client, operators.provider(client, InstanceTypeCatalog.aws()), InProcessOperators.options(), events);

    await().atMost(TIMEOUT).pollInterval(Duration.ofSeconds(1)).untilAsserted(() ->
        assertThat(client.pods().list().getItems()).hasSize(3).allMatch(TestObjects::running));

    // One batch: each replica was nominated to a NodeClaim and Karpenter never found its anti-affinity
    // unsatisfiable (upstream's first batch fails two of them with "pod anti-affinity ... leaves no
    // domain"). A pass that ran before the operator's NodePool status caught up may have reported
    // the pool not ready; that pass provisioned nothing.
    for (Pod replica : replicas) {
      String name = replica.getMetadata().getName();
      assertThat(events.forObject(name)).as("events of %s", name)
          .anySatisfy(e -> assertThat(e.reason()).isEqualTo(Provisioner.NOMINATED))
          .noneSatisfy(e -> {
            assertThat(e.reason()).isEqualTo(Provisioner.FAILED_SCHEDULING);
            assertThat(e.message()).contains("anti-affinity");
          });
    }
    // Three NodeClaims, each launched with a requirement for its own single zone.
    List<NodeClaim> claims = client.resources(NodeClaim.class).list().getItems();
    assertThat(claims).hasSize(3);
    List<String> pinned = claims.stream().map(ZonalAntiAffinityE2EIT::singleZone).toList();
    assertThat(pinned).containsExactlyInAnyOrderElementsOf(ZONES);
    List<Node> nodes = client.nodes().list().getItems();
    assertThat(nodes.stream().map(n -> n.getMetadata().getLabels().get(Labels.ZONE)).toList())
        .containsExactlyInAnyOrderElementsOf(ZONES);
  }

  /** The NodeClaim's zone requirement, which must allow exactly one zone. */
  private static String singleZone(NodeClaim claim) {
    NodeSelectorRequirementWithMinValues zone = claim.getSpec().getRequirements().stream()
        .filter(r -> Labels.ZONE.equals(r.getKey())).findFirst().orElseThrow(() -> new AssertionError(
            "NodeClaim " + claim.getMetadata().getName() + " has no zone requirement: " + claim.getSpec().getRequirements()));
    assertThat(zone.getOperator()).isEqualTo("In");
    assertThat(zone.getValues()).as("zones of NodeClaim %s", claim.getMetadata().getName()).hasSize(1);
    return zone.getValues().get(0);
  }

  /** {@code pod} with required zone anti-affinity to the pods labelled like it: one per zone. */
  private static Pod onePerZone(Pod pod) {
    return new PodBuilder(pod).editSpec()
        .withNewAffinity().withNewPodAntiAffinity().addNewRequiredDuringSchedulingIgnoredDuringExecution()
        .withTopologyKey(Labels.ZONE)
        .withLabelSelector(new LabelSelectorBuilder().withMatchLabels(Map.of("app", pod.getMetadata().getLabels().get("app"))).build())
        .endRequiredDuringSchedulingIgnoredDuringExecution().endPodAntiAffinity().endAffinity()
        .endSpec().build();
  }
}
