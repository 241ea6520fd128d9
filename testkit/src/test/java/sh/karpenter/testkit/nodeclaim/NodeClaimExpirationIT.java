package sh.karpenter.testkit.nodeclaim;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.controller.nodeclaim.expiration.Expiration;
import sh.karpenter.controller.runtime.EventRecorder;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;
import sh.karpenter.testkit.fixtures.NodePoolYaml;

/** {@code nodeclaim.expiration} against a real API server, with a testing clock stepped past expireAfter. */
@ControlPlaneTest
class NodeClaimExpirationIT {

  private static final String EXPIRED_ONCE =
      "karpenter_nodeclaims_disrupted_total\\{(?=[^}]*capacity_type=\"on-demand\")(?=[^}]*reason=\"expired\")[^}]*} 1.0";

  private KwokNodeClaims kwok;
  private Expiration expiration;

  @BeforeEach
  void start(KubernetesClient client) {
    kwok = new KwokNodeClaims(client).start();
    expiration = new Expiration(client, kwok.informers, kwok.cloudProvider, kwok.clock, kwok.events, kwok.metrics);
  }

  @AfterEach
  void stop() {
    kwok.close();
  }

  private NodePool pool(String expireAfter) {
    return kwok.createPool(
        NodePoolYaml.named("default").expireAfter(expireAfter).requirementIn(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND).yaml());
  }

  @Test
  void deletesALaunchedNodeClaimOnceExpireAfterHasPassedAndNotBefore() {
    NodePool pool = pool("1h");
    kwok.createNodeClaim(pool, "default-expiring");
    NodeClaim launched = kwok.launch("default-expiring");

    Instant expiry = Instant.parse(launched.getMetadata().getCreationTimestamp()).plus(Duration.ofHours(1));
    assertThat(expiration.reconcile("default-expiring"))
        .isEqualTo(Result.requeueAfter(Duration.between(kwok.clock.instant(), expiry)));

    kwok.clock.set(expiry.minusSeconds(1));
    assertThat(expiration.reconcile("default-expiring")).isEqualTo(Result.requeueAfter(Duration.ofSeconds(1)));
    assertThat(kwok.get("default-expiring").getMetadata().getDeletionTimestamp()).isNull();
    assertThat(kwok.events.forObject("default-expiring")).isEmpty();

    kwok.clock.set(expiry);
    assertThat(expiration.reconcile("default-expiring")).isEqualTo(Result.done());

    // The finalizer holds it for the lifecycle's finalization (drain, instance termination).
    assertThat(kwok.get("default-expiring").getMetadata().getDeletionTimestamp()).isNotNull();
    assertThat(kwok.metrics.scrape()).containsPattern(EXPIRED_ONCE);
    assertThat(kwok.events.forObject("default-expiring")).singleElement().satisfies(event -> {
      assertThat(event.type()).isEqualTo(EventRecorder.NORMAL);
      assertThat(event.reason()).isEqualTo(Expiration.EVENT_REASON);
      assertThat(event.message()).contains("1h");
    });
    assertThat(launched.getMetadata().getFinalizers()).contains("karpenter.sh/termination");

    // Counted once: a rerun at once, on a cache that may not have seen the deletion yet, is refused by the
    // resourceVersion lock and finds it deleting.
    expiration.reconcile("default-expiring");
    assertThat(kwok.metrics.scrape()).containsPattern(EXPIRED_ONCE);
  }

  @Test
  void neverDoesNotExpire() {
    NodePool pool = pool("Never");
    kwok.createNodeClaim(pool, "default-forever");
    kwok.awaitCached("default-forever", cached -> true);

    kwok.clock.step(Duration.ofDays(3650));

    assertThat(expiration.reconcile("default-forever")).isEqualTo(Result.done());
    assertThat(kwok.get("default-forever").getMetadata().getDeletionTimestamp()).isNull();
  }
}
