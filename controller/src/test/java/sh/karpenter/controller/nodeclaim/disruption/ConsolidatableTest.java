package sh.karpenter.controller.nodeclaim.disruption;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.controller.nodeclaim.disruption.Consolidatable.Verdict;

/** The Consolidatable rule of docs/behaviour/nodeclaim-lifecycle.md#consolidatable-condition. */
class ConsolidatableTest {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  private static final Instant INITIALIZED = Instant.parse("2026-01-01T00:00:00Z");

  private static NodePool pool(String consolidateAfter) {
    return SERIALIZATION.unmarshal("""
        apiVersion: karpenter.sh/v1
        kind: NodePool
        metadata: {name: default}
        spec:
          disruption: {consolidateAfter: '%s'}
          template: {spec: {nodeClassRef: {group: g, kind: K, name: n}, requirements: []}}
        """.formatted(consolidateAfter), NodePool.class);
  }

  private static NodeClaim nodeClaim(String initialized, String lastPodEventTime) {
    return SERIALIZATION.unmarshal("""
        apiVersion: karpenter.sh/v1
        kind: NodeClaim
        metadata: {name: default-abc}
        status:
          %s
          conditions: [{type: Initialized, status: '%s', reason: Initialized, lastTransitionTime: '%s'}]
        """.formatted(lastPodEventTime == null ? "" : "lastPodEventTime: '" + lastPodEventTime + "'", initialized, INITIALIZED),
        NodeClaim.class);
  }

  @Test
  void anInitializedNodeClaimBecomesConsolidatableConsolidateAfterItsInitialization() {
    NodeClaim claim = nodeClaim("True", null);

    assertThat(Consolidatable.at(claim, pool("5m"), INITIALIZED.plusSeconds(60)))
        .isEqualTo(new Verdict(false, Duration.ofMinutes(4)));
    assertThat(Consolidatable.at(claim, pool("5m"), INITIALIZED.plus(Duration.ofMinutes(5))))
        .isEqualTo(new Verdict(true, null));
  }

  @Test
  void theLastPodEventRestartsTheWindow() {
    NodeClaim claim = nodeClaim("True", INITIALIZED.plus(Duration.ofMinutes(3)).toString());

    assertThat(Consolidatable.at(claim, pool("5m"), INITIALIZED.plus(Duration.ofMinutes(6))))
        .isEqualTo(new Verdict(false, Duration.ofMinutes(2)));
    assertThat(Consolidatable.at(claim, pool("5m"), INITIALIZED.plus(Duration.ofMinutes(8))).consolidatable()).isTrue();
  }

  @Test
  void zeroSecondsIsConsolidatableAtOnce() {
    assertThat(Consolidatable.at(nodeClaim("True", null), pool("0s"), INITIALIZED)).isEqualTo(new Verdict(true, null));
  }

  @Test
  void neverAndUninitializedNodeClaimsAreNotConsolidatableAndNeedNoRequeue() {
    Instant muchLater = INITIALIZED.plus(Duration.ofDays(30));

    assertThat(Consolidatable.at(nodeClaim("True", null), pool("Never"), muchLater)).isEqualTo(new Verdict(false, null));
    assertThat(Consolidatable.at(nodeClaim("False", null), pool("5m"), muchLater)).isEqualTo(new Verdict(false, null));
  }
}
