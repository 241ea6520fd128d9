package sh.karpenter.controller.nodeclaim.disruption;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.api.v1.NodePoolHash;
import sh.karpenter.core.clock.TestingClock;
import sh.karpenter.core.cloudprovider.CloudProvider;
import sh.karpenter.core.cloudprovider.Instance;
import sh.karpenter.core.cloudprovider.LaunchRequest;
import sh.karpenter.core.cloudprovider.NodeClassRef;
import sh.karpenter.core.cloudprovider.TestingCloudProvider;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.instancetype.Overhead;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.wellknown.Annotations;
import sh.karpenter.core.wellknown.Labels;

/**
 * The drift reasons of docs/behaviour/nodeclaim-lifecycle.md#drifted-condition, in upstream's
 * order.
 */
class DriftTest {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  private static final Instant CREATED = Instant.parse("2026-01-01T00:00:00Z");

  private static NodePool pool(String templateLabels, String requirements) {
    return SERIALIZATION.unmarshal("""
        apiVersion: karpenter.sh/v1
        kind: NodePool
        metadata: {name: default}
        spec:
          template:
            metadata: {labels: %s}
            spec:
              nodeClassRef: {group: karpenter.test.sh, kind: TestNodeClass, name: default}
              requirements: %s
        """.formatted(templateLabels, requirements), NodePool.class);
  }

  private static NodePool pool() {
    return pool("{team: a}", "[{key: karpenter.sh/capacity-type, operator: In, values: [on-demand, spot]}]");
  }

  /** A launched NodeClaim of {@code pool} on fake-it-1, on-demand in test-zone-1, stamped with the pool's hash. */
  private static NodeClaim nodeClaim(NodePool pool) {
    NodeClaim claim = SERIALIZATION.unmarshal("""
        apiVersion: karpenter.sh/v1
        kind: NodeClaim
        metadata:
          name: default-abc
          creationTimestamp: '%s'
          labels:
            karpenter.sh/nodepool: default
            team: a
            node.kubernetes.io/instance-type: fake-it-1
            karpenter.sh/capacity-type: on-demand
            topology.kubernetes.io/zone: test-zone-1
        spec:
          nodeClassRef: {group: karpenter.test.sh, kind: TestNodeClass, name: default}
        status:
          providerID: fake://1
          conditions: [{type: Launched, status: 'True', reason: Launched, lastTransitionTime: '%s'}]
        """.formatted(CREATED, CREATED), NodeClaim.class);
    claim.getMetadata().setAnnotations(new HashMap<>(Map.of(
        Annotations.NODE_POOL_HASH, NodePoolHash.of(pool), Annotations.NODE_POOL_HASH_VERSION, NodePoolHash.VERSION)));
    return claim;
  }

  private static InstanceType type(String name, Offering... offerings) {
    return new InstanceType(name, Requirements.of(Requirement.in(Labels.INSTANCE_TYPE, name)), List.of(offerings),
        Resources.builder().cpu("2").memory("4Gi").build(), new Overhead(Resources.EMPTY, Resources.EMPTY, Resources.EMPTY));
  }

  @Test
  void aNodeClaimMatchingItsPoolHasNotDrifted() {
    NodePool pool = pool();
    NodeClaim claim = nodeClaim(pool);

    assertThat(Drift.staticDrift(pool, claim)).isEmpty();
    assertThat(Drift.requirementsDrift(pool, claim)).isEmpty();
  }

  @Test
  void aTemplateLabelChangeIsStaticDrift() {
    NodeClaim claim = nodeClaim(pool());

    assertThat(Drift.staticDrift(pool("{team: b}", "[]"), claim)).isEqualTo(Drift.NODE_POOL_DRIFTED);
  }

  @Test
  void aRequirementChangeIsNotStaticDrift() {
    NodeClaim claim = nodeClaim(pool());

    assertThat(Drift.staticDrift(pool("{team: a}", "[{key: karpenter.sh/capacity-type, operator: In, values: [spot]}]"), claim))
        .isEmpty();
  }

  @Test
  void hashesOfAnotherVersionOrMissingHashesAreNotCompared() {
    NodePool changed = pool("{team: b}", "[]");
    NodeClaim oldVersion = nodeClaim(pool());
    oldVersion.getMetadata().getAnnotations().put(Annotations.NODE_POOL_HASH_VERSION, "v2");
    NodeClaim unstamped = nodeClaim(pool());
    unstamped.getMetadata().setAnnotations(null);
    NodePool poolOfAnotherVersion = pool("{team: b}", "[]");
    poolOfAnotherVersion.getMetadata().setAnnotations(Map.of(Annotations.NODE_POOL_HASH_VERSION, "v4"));

    assertThat(Drift.staticDrift(changed, oldVersion)).isEmpty();
    assertThat(Drift.staticDrift(changed, unstamped)).isEmpty();
    assertThat(Drift.staticDrift(poolOfAnotherVersion, nodeClaim(pool()))).isEmpty();
  }

  @Test
  void requirementsTheLabelsNoLongerSatisfyAreRequirementDrift() {
    NodeClaim claim = nodeClaim(pool());

    assertThat(Drift.requirementsDrift(pool("{team: a}", "[{key: karpenter.sh/capacity-type, operator: In, values: [spot]}]"), claim))
        .isEqualTo(Drift.REQUIREMENTS_DRIFTED);
    // A key the NodeClaim is not labelled with must be NotIn/DoesNotExist to be compatible.
    assertThat(Drift.requirementsDrift(pool("{team: a}", "[{key: example.com/gpu, operator: Exists}]"), claim))
        .isEqualTo(Drift.REQUIREMENTS_DRIFTED);
    assertThat(Drift.requirementsDrift(pool("{team: a}", "[{key: example.com/gpu, operator: DoesNotExist}]"), claim)).isEmpty();
    assertThat(Drift.requirementsDrift(pool("{team: a}",
        "[{key: topology.kubernetes.io/zone, operator: NotIn, values: [test-zone-2]}]"), claim)).isEmpty();
  }

  @Test
  void anInstanceTypeNoLongerOfferedOrWithoutACompatibleOfferingIsNotFound() {
    NodeClaim claim = nodeClaim(pool());
    Offering zone1OnDemand = Offering.of("test-zone-1", Labels.CAPACITY_TYPE_ON_DEMAND, 1.0, false);
    Offering zone2OnDemand = Offering.of("test-zone-2", Labels.CAPACITY_TYPE_ON_DEMAND, 1.0, true);

    // An unavailable offering still counts: only the catalogue's knowledge of the type matters.
    assertThat(Drift.instanceTypeDrift(List.of(type("fake-it-1", zone1OnDemand)), claim)).isEmpty();
    assertThat(Drift.instanceTypeDrift(List.of(type("fake-it-2", zone1OnDemand)), claim)).isEqualTo(Drift.INSTANCE_TYPE_NOT_FOUND);
    assertThat(Drift.instanceTypeDrift(List.of(type("fake-it-1", zone2OnDemand)), claim)).isEqualTo(Drift.INSTANCE_TYPE_NOT_FOUND);
    claim.getMetadata().getLabels().remove(Labels.INSTANCE_TYPE);
    assertThat(Drift.instanceTypeDrift(List.of(type("fake-it-1", zone1OnDemand)), claim)).isEqualTo(Drift.INSTANCE_TYPE_NOT_FOUND);
  }

  @Test
  void aReservedNodeClaimAlsoAcceptsOnDemandOfferings() {
    NodeClaim claim = nodeClaim(pool());
    claim.getMetadata().getLabels().put(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_RESERVED);
    claim.getMetadata().getLabels().put(Labels.RESERVATION_ID, "cr-123");

    assertThat(Drift.instanceTypeDrift(
        List.of(type("fake-it-1", Offering.of("test-zone-1", Labels.CAPACITY_TYPE_ON_DEMAND, 1.0, true))), claim)).isEmpty();
    assertThat(Drift.instanceTypeDrift(
        List.of(type("fake-it-1", Offering.of("test-zone-1", Labels.CAPACITY_TYPE_SPOT, 1.0, true))), claim))
        .isEqualTo(Drift.INSTANCE_TYPE_NOT_FOUND);
  }

  @Test
  void instanceTypeDriftWaitsAnHourAndTheProviderIsAskedLast() {
    NodePool pool = pool();
    NodeClaim claim = nodeClaim(pool);
    TestingClock clock = new TestingClock(CREATED.plus(Duration.ofMinutes(59)));
    TestingCloudProvider provider = new TestingCloudProvider(List.of(type("fake-it-9",
        Offering.of("test-zone-1", Labels.CAPACITY_TYPE_ON_DEMAND, 1.0, true))));
    Drift drift = new Drift(provider, clock);

    assertThat(drift.reason(pool, claim)).isEmpty();
    provider.drift("fake://1", "AMIDrifted");
    assertThat(drift.reason(pool, claim)).isEqualTo("AMIDrifted");

    clock.step(Duration.ofMinutes(1));
    assertThat(drift.reason(pool, claim)).isEqualTo(Drift.INSTANCE_TYPE_NOT_FOUND);
    assertThat(drift.reason(pool("{team: b}", "[]"), claim)).isEqualTo(Drift.NODE_POOL_DRIFTED);
  }

  @Test
  void instanceTypesAreLookedUpAtMostEveryThirtyMinutesPerPool() {
    TestingClock clock = new TestingClock(CREATED);
    List<String> lookups = new ArrayList<>();
    TestingCloudProvider provider = new TestingCloudProvider(List.of(type("fake-it-1")));
    InstanceTypeCache cache = new InstanceTypeCache(new CountingInstanceTypes(provider, lookups), clock);
    NodeClassRef ref = new NodeClassRef("karpenter.test.sh", "TestNodeClass", "default");

    cache.get("a", ref);
    clock.step(Duration.ofMinutes(29));
    cache.get("a", ref);
    cache.get("b", ref);
    assertThat(lookups).containsExactly("a", "b");

    clock.step(Duration.ofMinutes(1));
    assertThat(cache.get("a", ref)).extracting(InstanceType::name).containsExactly("fake-it-1");
    assertThat(lookups).containsExactly("a", "b", "a");
  }

  /** Records the NodePool of every instance-type lookup, answering from {@code delegate}. */
  private record CountingInstanceTypes(TestingCloudProvider delegate, List<String> lookups) implements CloudProvider {
    @Override
    public List<InstanceType> instanceTypes(String nodePoolName, NodeClassRef nodeClassRef) {
      lookups.add(nodePoolName);
      return delegate.instanceTypes(nodePoolName, nodeClassRef);
    }

    @Override
    public String name() {
      return delegate.name();
    }

    @Override
    public Instance create(LaunchRequest request) {
      return delegate.create(request);
    }

    @Override
    public void delete(String providerId) {
      delegate.delete(providerId);
    }

    @Override
    public Optional<Instance> get(String providerId) {
      return delegate.get(providerId);
    }

    @Override
    public List<Instance> list() {
      return delegate.list();
    }

    @Override
    public List<NodeClassRef> supportedNodeClasses() {
      return delegate.supportedNodeClasses();
    }
  }
}
