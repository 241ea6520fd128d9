package sh.karpenter.controller.snapshot;

import static sh.karpenter.controller.snapshot.ValueConverter.nullToEmpty;

import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.NodeAffinityBuilder;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import sh.karpenter.controller.snapshot.VolumeConverter.Sourced;

/**
 * The pod each DaemonSet would run on a new node, as upstream's provisioner picks it ({@code
 * getDaemonSetPods} with cluster state's {@code UpdateDaemonSet}): the newest pod the DaemonSet
 * controls (an owner reference with {@code controller: true} and the DaemonSet's UID, in its namespace;
 * any phase; on equal creation times the first one listed), so that requests a LimitRange, a VPA or
 * a RuntimeClass changed at admission count; only a DaemonSet without such a pod falls back to its pod
 * template. A DaemonSet without a UID (a hand-written manifest) is matched by its name instead.
 *
 * <p>The DaemonSet controller pins each pod to its node with a {@code metadata.name} {@code
 * matchFields} node affinity term; the pod's required node affinity is therefore the template's again,
 * as upstream does. (Upstream keeps the controller's term when the template has none; Karpenter
 * ignores {@code matchFields}, so dropping it changes no decision and keeps the pod unconstrained for
 * the cost lower bound.) Kubernetes objects only: admission of the template ({@link
 * RuntimeClassAdmission}) and conversion are the caller's.
 */
final class DaemonSetPods {
  private DaemonSetPods() {}

  /**
   * The pod a DaemonSet contributes.
   *
   * @param pod its newest pod, or a pod made from its template
   * @param origin where {@code pod} came from (the pod's origin, or the DaemonSet's)
   * @param specField where the pod's spec is in that origin
   * @param fromTemplate true when no pod of the DaemonSet was found
   */
  record Chosen(Pod pod, String origin, String specField, boolean fromTemplate) {}

  /** A pod with the origin {@link SnapshotBuilder} was given it with. */
  record Candidate(Pod pod, String origin) {}

  /** One pod per DaemonSet, in the DaemonSets' order. */
  static List<Chosen> choose(List<Sourced<DaemonSet>> daemonSets, List<Candidate> pods) {
    Map<String, Candidate> newestByOwner = new HashMap<>();
    for (Candidate candidate : pods) {
      OwnerReference owner = daemonSetController(candidate.pod());
      if (owner == null) {
        continue;
      }
      String namespace = namespaceOf(candidate.pod().getMetadata());
      for (String key : new String[] {uidKey(namespace, owner.getUid()), nameKey(namespace, owner.getName())}) {
        if (key != null) {
          newestByOwner.merge(key, candidate, (kept, other) -> created(other) > created(kept) ? other : kept);
        }
      }
    }
    return daemonSets.stream().map(sourced -> choose(sourced, newestByOwner)).toList();
  }

  private static Chosen choose(Sourced<DaemonSet> sourced, Map<String, Candidate> newestByOwner) {
    DaemonSet daemonSet = sourced.object();
    ObjectMeta meta = daemonSet.getMetadata();
    String namespace = namespaceOf(meta);
    String uid = meta.getUid();
    Candidate newest = uid == null || uid.isEmpty() ? newestByOwner.get(nameKey(namespace, meta.getName())) : newestByOwner.get(uidKey(namespace, uid));
    var template = daemonSet.getSpec() == null ? null : daemonSet.getSpec().getTemplate();
    if (template == null) {
      throw new SnapshotInputException(sourced.origin(), "spec.template", "required");
    }
    PodSpec templateSpec = template.getSpec() == null ? new PodSpec() : template.getSpec();
    if (newest != null) {
      return new Chosen(withTemplateNodeAffinity(newest.pod(), templateSpec), newest.origin(), "spec", false);
    }
    ObjectMeta podMeta =
        new ObjectMetaBuilder(template.getMetadata() == null ? new ObjectMeta() : template.getMetadata())
            .withName(meta.getName())
            .withNamespace(namespace)
            .withUid(WorkloadPods.uid("DaemonSet", meta.getNamespace(), meta.getName(), 0))
            .withOwnerReferences(new OwnerReferenceBuilder().withApiVersion("apps/v1").withKind("DaemonSet").withName(meta.getName()).withUid(uid).withController(true).build())
            .build();
    return new Chosen(new PodBuilder().withMetadata(podMeta).withSpec(templateSpec).build(), sourced.origin(), "spec.template.spec", true);
  }

  /** The pod with the template's required node affinity (none when the template has none) in place of the DaemonSet controller's. */
  private static Pod withTemplateNodeAffinity(Pod pod, PodSpec templateSpec) {
    NodeSelector required =
        templateSpec.getAffinity() == null || templateSpec.getAffinity().getNodeAffinity() == null
            ? null
            : templateSpec.getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution();
    PodSpec spec = pod.getSpec() == null ? new PodSpec() : pod.getSpec();
    if (required == null && (spec.getAffinity() == null || spec.getAffinity().getNodeAffinity() == null)) {
      return pod;
    }
    var affinity = spec.getAffinity() == null ? new AffinityBuilder() : new AffinityBuilder(spec.getAffinity());
    var nodeAffinity = spec.getAffinity() == null || spec.getAffinity().getNodeAffinity() == null
        ? new NodeAffinityBuilder()
        : new NodeAffinityBuilder(spec.getAffinity().getNodeAffinity());
    PodSpec replaced =
        new PodSpecBuilder(spec)
            .withAffinity(affinity.withNodeAffinity(nodeAffinity.withRequiredDuringSchedulingIgnoredDuringExecution(required).build()).build())
            .build();
    return new PodBuilder(pod).withSpec(replaced).build();
  }

  /** The pod's controller reference when it is a DaemonSet ({@code metav1.GetControllerOf}). */
  private static OwnerReference daemonSetController(Pod pod) {
    if (pod.getMetadata() == null) {
      return null;
    }
    return nullToEmpty(pod.getMetadata().getOwnerReferences()).stream()
        .filter(o -> Boolean.TRUE.equals(o.getController()) && "DaemonSet".equals(o.getKind()))
        .findFirst()
        .orElse(null);
  }

  private static String uidKey(String namespace, String uid) {
    return uid == null || uid.isEmpty() ? null : "uid " + namespace + "/" + uid;
  }

  private static String nameKey(String namespace, String name) {
    return name == null || name.isEmpty() ? null : "name " + namespace + "/" + name;
  }

  private static String namespaceOf(ObjectMeta meta) {
    return meta == null || meta.getNamespace() == null ? "default" : meta.getNamespace();
  }

  /** The creation time in milliseconds (0 when unset: such a pod is never newer). */
  private static long created(Candidate candidate) {
    String text = candidate.pod().getMetadata() == null ? null : candidate.pod().getMetadata().getCreationTimestamp();
    return PodConverter.timestamp(text, candidate.origin());
  }
}
