package sh.karpenter.providers.aws.garbagecollection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodeClaimStatus;
import sh.karpenter.core.clock.TestingClock;
import sh.karpenter.providers.aws.instance.AwsInstance;

class InstanceGarbageCollectionTest {
  private static final Duration MIN_AGE = InstanceGarbageCollection.Settings.DEFAULT.minAge();
  private final TestingClock clock = new TestingClock(Instant.parse("2026-01-01T00:00:00Z"));

  @Test
  void anUnclaimedInstanceOlderThanThirtySecondsIsCollected() {
    AwsInstance leaked = instance("i-1", "running", clock.instant());
    clock.step(Duration.ofSeconds(31));
    assertThat(InstanceGarbageCollection.leaked(List.of(leaked), Set.of(), clock.instant(), MIN_AGE)).containsExactly(leaked);
  }

  @Test
  void aYoungInstanceIsKeptEvenWithoutANodeClaim() {
    AwsInstance young = instance("i-1", "pending", clock.instant());
    clock.step(Duration.ofSeconds(30));
    assertThat(InstanceGarbageCollection.leaked(List.of(young), Set.of(), clock.instant(), MIN_AGE)).isEmpty();
  }

  @Test
  void aClaimedInstanceIsKept() {
    AwsInstance claimed = instance("i-1", "running", clock.instant());
    AwsInstance leaked = instance("i-2", "running", clock.instant());
    clock.step(Duration.ofMinutes(10));
    Set<String> ids = InstanceGarbageCollection.providerIds(List.of(nodeClaim(claimed.providerId()), nodeClaim(null), nodeClaim("")));
    assertThat(ids).containsExactly("aws:///us-west-2a/i-1");
    assertThat(InstanceGarbageCollection.leaked(List.of(claimed, leaked), ids, clock.instant(), MIN_AGE)).containsExactly(leaked);
  }

  @Test
  void aTerminatingInstanceIsLeftToEc2() {
    AwsInstance shuttingDown = instance("i-1", "shutting-down", clock.instant());
    clock.step(Duration.ofMinutes(10));
    assertThat(InstanceGarbageCollection.leaked(List.of(shuttingDown), Set.of(), clock.instant(), MIN_AGE)).isEmpty();
  }

  @Test
  void theMinimumAgeIsConfigurable() {
    AwsInstance leaked = instance("i-1", "running", clock.instant());
    clock.step(Duration.ofSeconds(2));
    assertThat(InstanceGarbageCollection.leaked(List.of(leaked), Set.of(), clock.instant(), Duration.ofSeconds(1))).containsExactly(leaked);
  }

  @Test
  void nonPositivePeriodsAreRefused() {
    assertThatThrownBy(() -> new InstanceGarbageCollection.Settings(Duration.ZERO, Duration.ofMinutes(2), Duration.ofSeconds(30)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("periods must be positive");
  }

  @Test
  void aNodeThatAppearsAfterItsInstanceWasCollectedIsDeletedOnALaterRound() {
    InstanceGarbageCollection gc = new InstanceGarbageCollection(null, new InstanceGarbageCollection.Settings(
        Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(5)), clock);
    AwsInstance leaked = instance("i-1", "running", clock.instant());
    clock.step(Duration.ofSeconds(6));
    List<String> terminated = new ArrayList<>();
    List<String> deleted = new ArrayList<>();
    Map<String, List<Node>> informer = new HashMap<>();

    gc.reconcile(() -> List.of(leaked), List::of, id -> informer.getOrDefault(id, List.of()), terminated::add, deleted::add);
    assertThat(terminated).containsExactly(leaked.providerId());
    assertThat(deleted).isEmpty();

    informer.put(leaked.providerId(), List.of(node("i-1")));
    clock.step(Duration.ofSeconds(1));
    gc.reconcile(List::of, List::of, id -> informer.getOrDefault(id, List.of()), terminated::add, deleted::add);
    assertThat(deleted).containsExactly("i-1");
    assertThat(terminated).hasSize(1);

    clock.step(InstanceGarbageCollection.NODE_SWEEP.plusSeconds(1));
    gc.reconcile(List::of, List::of, id -> informer.getOrDefault(id, List.of()), terminated::add, deleted::add);
    assertThat(gc.collectedProviderIds()).isEmpty();
    assertThat(deleted).hasSize(1);
  }

  @Test
  void aCollectedInstanceThatANodeClaimNowClaimsKeepsItsNode() {
    InstanceGarbageCollection gc = new InstanceGarbageCollection(null, InstanceGarbageCollection.Settings.DEFAULT, clock);
    AwsInstance leaked = instance("i-1", "running", clock.instant());
    clock.step(Duration.ofMinutes(1));
    List<String> deleted = new ArrayList<>();
    gc.reconcile(() -> List.of(leaked), List::of, id -> List.of(), id -> { }, deleted::add);
    gc.reconcile(List::of, () -> List.of(nodeClaim(leaked.providerId())), id -> List.of(node("i-1")), id -> { }, deleted::add);
    assertThat(deleted).isEmpty();
  }

  private static Node node(String name) {
    return new NodeBuilder().withNewMetadata().withName(name).endMetadata().build();
  }

  private static AwsInstance instance(String id, String state, Instant launched) {
    return new AwsInstance(id, "m5.large", "us-west-2a", "usw2-az1", "on-demand", state, "ami-1", "subnet-1", List.of(), launched,
        Map.of("karpenter.sh/nodepool", "default"));
  }

  private static NodeClaim nodeClaim(String providerId) {
    NodeClaim claim = new NodeClaim();
    NodeClaimStatus status = new NodeClaimStatus();
    status.setProviderID(providerId);
    claim.setStatus(status);
    return claim;
  }
}
