package sh.karpenter.controller.nodeclaim.lifecycle;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.core.wellknown.TaintKeys;

/**
 * The taint rules of registration: the NodeClaim's taints are merged onto the Node (a taint whose key
 * and effect the Node already has is left alone), its startupTaints only on the first sync (a daemon
 * may have removed them since), nothing at all when the Node is labelled {@code
 * karpenter.sh/do-not-sync-taints=true} (the provider manages taints then), and the {@code
 * karpenter.sh/unregistered:NoExecute} taint is removed in every case.
 */
final class TaintSync {
  private TaintSync() {}

  static final String NO_EXECUTE = "NoExecute";

  /** {@code taints} plus each of {@code additions} whose key and effect are not there yet. */
  static List<Taint> merge(List<Taint> taints, List<Taint> additions) {
    List<Taint> merged = new ArrayList<>(taints);
    for (Taint addition : additions == null ? List.<Taint>of() : additions) {
      if (merged.stream().noneMatch(t -> matches(t, addition))) {
        merged.add(addition);
      }
    }
    return merged;
  }

  /** The Node's taints once registration has synced the NodeClaim onto it. */
  static List<Taint> registered(Node node, NodeClaim nodeClaim) {
    Map<String, String> labels = node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
    List<Taint> taints = node.getSpec() == null || node.getSpec().getTaints() == null ? List.of() : node.getSpec().getTaints();
    if (!"true".equals(labels.get(Labels.DO_NOT_SYNC_TAINTS)) && nodeClaim.getSpec() != null) {
      taints = merge(taints, nodeClaim.getSpec().getTaints());
      boolean firstSync = !"true".equals(labels.get(Labels.NODE_REGISTERED));
      if (firstSync) {
        taints = merge(taints, nodeClaim.getSpec().getStartupTaints());
      }
    }
    List<Taint> result = new ArrayList<>(taints);
    result.removeIf(TaintSync::isUnregistered);
    return result;
  }

  /** True for {@code karpenter.sh/unregistered:NoExecute}. */
  static boolean isUnregistered(Taint taint) {
    return TaintKeys.UNREGISTERED.equals(taint.getKey()) && NO_EXECUTE.equals(taint.getEffect());
  }

  static boolean hasUnregisteredTaint(Node node) {
    return node.getSpec() != null && node.getSpec().getTaints() != null
        && node.getSpec().getTaints().stream().anyMatch(TaintSync::isUnregistered);
  }

  /** Kubernetes' {@code MatchTaint}: same key and effect, whatever the value. */
  static boolean matches(Taint a, Taint b) {
    return Objects.equals(a.getKey(), b.getKey()) && Objects.equals(a.getEffect(), b.getEffect());
  }
}
