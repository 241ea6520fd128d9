package sh.karpenter.testkit.nodeclaim;

import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.kwok.v1alpha1.KWOKNodeClass;
import sh.karpenter.api.v1.ConditionTypes;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.controller.nodeclaim.garbagecollection.GarbageCollection;
import sh.karpenter.controller.nodeclaim.lifecycle.NodeClaimLifecycle;
import sh.karpenter.controller.objects.Metadata;
import sh.karpenter.controller.runtime.NodeClaims;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.core.cloudprovider.Instance;
import sh.karpenter.core.cloudprovider.LaunchRequest;
import sh.karpenter.core.cloudprovider.NodeClassRef;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.providers.kwok.KwokCloudProvider;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;
import sh.karpenter.testkit.fixtures.NodePoolYaml;

/**
 * {@code nodeclaim.garbagecollection} against a real API server and the KWOK provider (an instance
 * is a KWOK Node): passes are run directly, with a testing clock stepped between them.
 */
@ControlPlaneTest
class NodeClaimGarbageCollectionIT {

  private KubernetesClient client;
  private KwokNodeClaims kwok;
  private GarbageCollection gc;
  private NodePool pool;

  @BeforeEach
  void start(KubernetesClient client) {
    this.client = client;
    kwok = new KwokNodeClaims(client).start();
    gc = new GarbageCollection(client, kwok.informers, kwok.cloudProvider, kwok.clock, kwok.metrics);
    pool = kwok.createPool(NodePoolYaml.named("default").requirementIn(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND).yaml());
  }

  @AfterEach
  void stop() {
    kwok.close();
  }

  @Test
  void aRegisteredNodeClaimWhoseInstanceVanishedIsDeleted() {
    kwok.createNodeClaim(pool, "default-vanishing");
    NodeClaim registered = registered("default-vanishing");
    String providerId = registered.getStatus().getProviderID();

    assertThat(gc.reconcile()).isEqualTo(Result.requeueAfter(GarbageCollection.PERIOD));
    assertThat(kwok.get("default-vanishing").getMetadata().getDeletionTimestamp()).isNull();

    // The instance goes (its Node with it, as when a cloud reclaims a machine).
    kwok.cloudProvider.delete(providerId);
    client.nodes().withName(registered.getStatus().getNodeName())
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"finalizers\":null}}");
    await().atMost(30, SECONDS).until(() -> kwok.cloudProvider.get(providerId).isEmpty()
        && NodeClaims.nodesFor(kwok.informers, providerId).isEmpty());

    gc.reconcile();

    assertThat(kwok.get("default-vanishing").getMetadata().getDeletionTimestamp()).isNotNull();
    assertThat(kwok.metrics.scrape())
        .containsPattern("karpenter_nodeclaims_disrupted_total\\{[^}]*reason=\"garbage_collected\"[^}]*} 1.0");
  }

  @Test
  void aLeakedInstanceIsTerminatedAfterTwoPassesAPeriodApartAndAReferencedOneNever() {
    kwok.createNodeClaim(pool, "default-kept");
    String kept = kwok.launch("default-kept").getStatus().getProviderID();
    Instance leaked = launchedOutsideKarpenter("default-leaked");

    gc.reconcile();
    kwok.clock.step(Duration.ofMinutes(1));
    gc.reconcile();
    assertThat(kwok.cloudProvider.get(leaked.providerId())).isPresent();

    kwok.clock.step(Duration.ofMinutes(1));
    gc.reconcile();

    await().atMost(30, SECONDS).until(() -> kwok.cloudProvider.get(leaked.providerId()).isEmpty());
    assertThat(kwok.cloudProvider.get(kept)).isPresent();
    assertThat(kwok.get("default-kept").getMetadata().getDeletionTimestamp()).isNull();
  }

  @Test
  void anInstanceLaunchedJustBeforeARestartIsCollectedAndTheRelaunchKept() {
    kwok.createNodeClaim(pool, "default-restarted");
    // The controller launched this instance, then stopped before writing its provider ID.
    Instance orphan = launchedOutsideKarpenter("default-restarted");
    gc.reconcile();

    // The restarted controller (a new lifecycle, its launch cache empty) launches again and records it.
    NodeClaimLifecycle restarted = new NodeClaimLifecycle(client, kwok.informers, kwok.cloudProvider, kwok.clock, kwok.events,
        kwok.metrics, claimName -> List.of());
    await().atMost(30, SECONDS).until(() -> {
      restarted.reconcile("default-restarted");
      NodeClaim claim = kwok.get("default-restarted");
      return claim.getStatus() != null && Conditions.isTrue(claim.getStatus().getConditions(), ConditionTypes.LAUNCHED);
    });
    String relaunched = kwok.get("default-restarted").getStatus().getProviderID();
    assertThat(relaunched).isNotEqualTo(orphan.providerId());
    kwok.awaitCached("default-restarted", cached -> relaunched.equals(Metadata.providerId(cached)));

    kwok.clock.step(GarbageCollection.PERIOD);
    gc.reconcile();

    await().atMost(30, SECONDS).until(() -> kwok.cloudProvider.get(orphan.providerId()).isEmpty());
    assertThat(kwok.cloudProvider.get(relaunched)).isPresent();
  }

  /** Launches and registers the NodeClaim through the lifecycle; returns it as stored. */
  private NodeClaim registered(String name) {
    kwok.launch(name);
    await().atMost(2, MINUTES).pollInterval(Duration.ofMillis(200)).until(() -> {
      kwok.lifecycle.reconcile(name);
      return Conditions.isTrue(kwok.get(name).getStatus().getConditions(), ConditionTypes.REGISTERED);
    });
    NodeClaim stored = kwok.get(name);
    kwok.awaitCached(name, cached -> Conditions.isTrue(cached.getStatus().getConditions(), ConditionTypes.REGISTERED));
    return stored;
  }

  /**
   * Launches an instance as the lifecycle would for a NodeClaim of the default pool, without
   * recording it anywhere, and waits for its Node (so every pass lists it: the provider's list of
   * instances still to get a Node is read separately).
   */
  private Instance launchedOutsideKarpenter(String nodeClaim) {
    Instance instance = kwok.cloudProvider.create(request(nodeClaim));
    String node = instance.providerId().substring(KwokCloudProvider.PROVIDER_ID_PREFIX.length());
    await().atMost(30, SECONDS).until(() -> client.nodes().withName(node).get() != null);
    return instance;
  }

  /** What the lifecycle would ask the provider for a NodeClaim of the default pool. */
  private static LaunchRequest request(String nodeClaim) {
    return new LaunchRequest(nodeClaim, "default", new NodeClassRef(KWOKNodeClass.GROUP, KWOKNodeClass.KIND, "default"),
        Requirements.of(Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND)), Resources.builder().cpu("1").build(),
        Map.of(Labels.NODE_POOL, "default"), List.of(), List.of());
  }
}
