package sh.karpenter.controller.nodeclaim.expiration;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodeClaim;

/**
 * When a NodeClaim expires (docs/behaviour/nodeclaim-lifecycle.md#expiration); deleting it is
 * covered by NodeClaimExpirationIT.
 */
class ExpirationTest {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  private static final Instant CREATED = Instant.parse("2026-01-01T00:00:00Z");

  private static NodeClaim nodeClaim(String expireAfter) {
    return SERIALIZATION.unmarshal("""
        apiVersion: karpenter.sh/v1
        kind: NodeClaim
        metadata: {name: default-abc, creationTimestamp: '%s'}
        spec: {%s}
        """.formatted(CREATED, expireAfter == null ? "" : "expireAfter: '" + expireAfter + "'"), NodeClaim.class);
  }

  @Test
  void expiresExpireAfterItsCreation() {
    assertThat(Expiration.expiresAt(nodeClaim("720h"))).contains(CREATED.plus(Duration.ofDays(30)));
    assertThat(Expiration.expiresAt(nodeClaim("1h30m"))).contains(CREATED.plus(Duration.ofMinutes(90)));
  }

  @Test
  void neverAndUnsetNeverExpire() {
    assertThat(Expiration.expiresAt(nodeClaim("Never"))).isEmpty();
    assertThat(Expiration.expiresAt(nodeClaim(null))).isEmpty();
  }
}
