package sh.karpenter.api.v1;

import io.fabric8.kubernetes.api.model.Taint;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import sh.karpenter.api.DriftHash;
import sh.karpenter.core.wellknown.Annotations;

/**
 * The NodePool drift hash (upstream {@code NodePool.Hash()},
 * docs/behaviour/api.md#nodepool-drift-hash): a digest of {@code spec.template} that changes
 * exactly when a template change makes existing NodeClaims
 * <em>statically</em> drifted. NodeClaims carry it in {@code karpenter.sh/nodepool-hash} next to
 * {@link #VERSION} in {@code karpenter.sh/nodepool-hash-version}.
 *
 * <p>Upstream hashes the template with hashstructure v2 (options SlicesAsSets, IgnoreZeroValue,
 * ZeroNil). Go's hash values cannot be reproduced, so this reproduces which fields count and how:
 *
 * <ul>
 *   <li>hashed: {@code metadata.labels}, {@code metadata.annotations} (maps, order-free; an empty map
 *       equals an absent one, as both serialise to nothing), {@code spec.taints} and {@code
 *       spec.startupTaints} (each a set: order and repeats do not matter; a taint is key, value,
 *       effect and timeAdded), {@code spec.nodeClassRef} (group, kind, name), {@code
 *       spec.expireAfter} and {@code spec.terminationGracePeriod} (by duration value, so {@code 720h}
 *       equals {@code 43200m});
 *   <li>ignored (tagged {@code hash:"ignore"} upstream): {@code spec.requirements} (requirement
 *       changes are handled by requirement drift instead), the raw text of durations, and everything
 *       outside {@code spec.template} (disruption, budgets, limits, weight, replicas);
 *   <li>zero values count as absent (IgnoreZeroValue + ZeroNil): an empty string, a zero duration, a
 *       {@code Never} expireAfter and an unset field all hash alike.
 * </ul>
 *
 * <p>The value is {@link DriftHash}'s digest of those fields (the first 64 bits of a SHA-256 over
 * a canonical, length-prefixed encoding, printed as an unsigned decimal like upstream's values). The
 * encoding is part of the contract: changing it re-drifts every NodeClaim, so it may only change
 * together with a bump of {@link #VERSION}.
 */
public final class NodePoolHash {
  /** The hash version this implementation writes ({@code karpenter.sh/nodepool-hash-version}). */
  public static final String VERSION = Annotations.NODE_POOL_HASH_VERSION_CURRENT;

  private NodePoolHash() {}

  /** The drift hash of the pool's {@code spec.template}. */
  public static String of(NodePool pool) {
    return of(pool.getSpec() == null ? null : pool.getSpec().getTemplate());
  }

  /** The drift hash of a NodeClaim template; null hashes like an empty template. */
  public static String of(NodeClaimTemplate template) {
    Encoder out = new Encoder();
    NodeClaimTemplateMetadata metadata = template == null ? null : template.getMetadata();
    NodeClaimTemplateSpec spec = template == null ? null : template.getSpec();
    out.map("metadata.labels", metadata == null ? null : metadata.getLabels());
    out.map("metadata.annotations", metadata == null ? null : metadata.getAnnotations());
    if (spec != null) {
      out.taints("spec.taints", spec.getTaints());
      out.taints("spec.startupTaints", spec.getStartupTaints());
      NodeClassReference ref = spec.getNodeClassRef();
      if (ref != null) {
        out.string("spec.nodeClassRef.group", ref.getGroup());
        out.string("spec.nodeClassRef.kind", ref.getKind());
        out.string("spec.nodeClassRef.name", ref.getName());
      }
      out.duration("spec.expireAfter", spec.getExpireAfter() == null ? null : spec.getExpireAfter().duration());
      out.duration(
          "spec.terminationGracePeriod", spec.getTerminationGracePeriod() == null ? null : spec.getTerminationGracePeriod().duration());
    }
    return out.digest();
  }

  /** Writes {@code field → value} entries, skipping zero values, into a {@link DriftHash}. */
  private static final class Encoder {
    private final DriftHash hash = new DriftHash();

    void string(String field, String value) {
      if (value != null && !value.isEmpty()) {
        hash.field(field, value);
      }
    }

    void duration(String field, Duration value) {
      if (value != null && !value.isZero()) {
        hash.field(field, Long.toString(value.getSeconds()), Integer.toString(value.getNano()));
      }
    }

    void map(String field, Map<String, String> map) {
      if (map == null || map.isEmpty()) {
        return;
      }
      List<String> parts = new ArrayList<>(map.size() * 2);
      new TreeMap<>(map).forEach((k, v) -> {
        parts.add(k);
        parts.add(v == null ? "" : v);
      });
      hash.field(field, parts);
    }

    void taints(String field, List<Taint> taints) {
      if (taints == null || taints.isEmpty()) {
        return;
      }
      TreeSet<String> set = new TreeSet<>();
      for (Taint t : taints) {
        set.add(DriftHash.tuple(t.getKey(), t.getValue(), t.getEffect(), t.getTimeAdded()));
      }
      hash.field(field, List.copyOf(set));
    }

    String digest() {
      return hash.digest();
    }
  }
}
