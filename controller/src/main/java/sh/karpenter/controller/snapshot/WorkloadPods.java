package sh.karpenter.controller.snapshot;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

/**
 * Expands workload objects (Deployment, ReplicaSet, StatefulSet, Job) into the pending pods their
 * controllers would create, for snapshots that describe desired state rather than live pods (as
 * {@code karpenter plan} input does).
 *
 * <p>Each workload yields {@code replicas} pods (Jobs: {@code parallelism}, capped by {@code
 * completions}; both default to 1; a suspended Job none) named {@code <workload>-<index>} in the
 * workload's namespace, carrying the template's labels, annotations and spec, owned by the workload,
 * with a UID derived from kind, namespace, name and index so that repeated expansions agree. A
 * StatefulSet also yields the PersistentVolumeClaims of its {@code volumeClaimTemplates} ({@code
 * <template>-<pod>}), mounted by each pod as Kubernetes does. Negative counts are refused, as
 * kube-apiserver refuses them.
 *
 * <p>Pods the workload already owns in the snapshot count as its controller counts them ({@link
 * #expand(HasMetadata, List, String)}): a Deployment or ReplicaSet creates only the replicas its
 * active pods (neither finished nor terminating) do not make up, a Job only what {@code
 * min(parallelism, completions - succeeded)} asks beyond its active pods, and a StatefulSet only the
 * ordinals below {@code replicas} that no pod of its has.
 */
public final class WorkloadPods {
  private WorkloadPods() {}

  /** Pods and the claims created alongside them. */
  public record Expansion(List<Pod> pods, List<PersistentVolumeClaim> claims) {}

  /** True for the kinds {@link #expand} understands. */
  public static boolean isWorkload(HasMetadata object) {
    return object instanceof Deployment
        || object instanceof ReplicaSet
        || object instanceof StatefulSet
        || object instanceof Job;
  }

  /**
   * The pods (and claims) of one workload with no pods of its own yet.
   *
   * @throws IllegalArgumentException when the object is not a workload kind
   * @throws SnapshotInputException when a count is negative
   */
  public static Expansion expand(HasMetadata workload) {
    return expand(workload, List.of(), workload.getKind() + " " + workload.getMetadata().getName());
  }

  /**
   * The pods (and claims) the workload's controller would create next to the pods it already owns.
   *
   * @param owned the workload's pods in the snapshot (its ReplicaSets' pods for a Deployment), in
   *     any phase
   * @param origin names the workload in errors
   * @throws IllegalArgumentException when the object is not a workload kind
   * @throws SnapshotInputException when a count is negative
   */
  public static Expansion expand(HasMetadata workload, List<Pod> owned, String origin) {
    if (!isWorkload(workload)) {
      throw new IllegalArgumentException("not a workload kind: " + workload.getKind());
    }
    int wanted = desiredPods(workload, origin);
    Set<String> taken = new HashSet<>();
    int active = 0;
    int succeeded = 0;
    for (Pod pod : owned) {
      taken.add(pod.getMetadata().getName());
      String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
      if ("Succeeded".equals(phase)) {
        succeeded++;
      } else if (!"Failed".equals(phase) && pod.getMetadata().getDeletionTimestamp() == null) {
        active++;
      }
    }
    return switch (workload) {
      case StatefulSet s when s.getSpec() != null ->
          replicate(s, s.getSpec().getTemplate(), missingOrdinals(s.getMetadata().getName(), wanted, taken),
              Objects.requireNonNullElse(s.getSpec().getVolumeClaimTemplates(), List.of()));
      case Job j when j.getSpec() != null && j.getSpec().getCompletions() != null ->
          replicate(j, j.getSpec().getTemplate(),
              freeIndices(j.getMetadata().getName(), Math.min(wanted, j.getSpec().getCompletions() - succeeded) - active, taken), List.of());
      case Deployment d when d.getSpec() != null ->
          replicate(d, d.getSpec().getTemplate(), freeIndices(d.getMetadata().getName(), wanted - active, taken), List.of());
      case ReplicaSet r when r.getSpec() != null ->
          replicate(r, r.getSpec().getTemplate(), freeIndices(r.getMetadata().getName(), wanted - active, taken), List.of());
      case Job j when j.getSpec() != null ->
          replicate(j, j.getSpec().getTemplate(), freeIndices(j.getMetadata().getName(), wanted - active, taken), List.of());
      default -> new Expansion(List.of(), List.of()); // no spec: nothing to run
    };
  }

  /**
   * The pods the workload runs when none of them exist yet: {@code replicas}, for a Job {@code
   * parallelism} capped by {@code completions} (0 when suspended); missing counts default to 1, a
   * missing spec runs nothing.
   *
   * @throws SnapshotInputException naming the field when a count is negative, which kube-apiserver
   *     refuses
   */
  public static int desiredPods(HasMetadata workload, String origin) {
    return switch (workload) {
      case Deployment d when d.getSpec() != null -> count(d.getSpec().getReplicas(), origin, "spec.replicas");
      case ReplicaSet r when r.getSpec() != null -> count(r.getSpec().getReplicas(), origin, "spec.replicas");
      case StatefulSet s when s.getSpec() != null -> count(s.getSpec().getReplicas(), origin, "spec.replicas");
      case Job j when j.getSpec() != null -> {
        int parallelism = count(j.getSpec().getParallelism(), origin, "spec.parallelism");
        Integer completions = j.getSpec().getCompletions();
        if (completions != null) {
          parallelism = Math.min(parallelism, count(completions, origin, "spec.completions"));
        }
        yield Boolean.TRUE.equals(j.getSpec().getSuspend()) ? 0 : parallelism;
      }
      default -> 0;
    };
  }

  private static int count(Integer value, String origin, String field) {
    if (value == null) {
      return 1;
    }
    if (value < 0) {
      throw new SnapshotInputException(origin, field, "Invalid value: " + value + ": must be greater than or equal to 0");
    }
    return value;
  }

  /** The {@code count} lowest indices whose pod names ({@code <name>-<index>}) are not taken. */
  private static List<Integer> freeIndices(String name, int count, Set<String> taken) {
    List<Integer> indices = new ArrayList<>(Math.max(0, count));
    for (int index = 0; indices.size() < count; index++) {
      if (!taken.contains(name + "-" + index)) {
        indices.add(index);
      }
    }
    return indices;
  }

  /** The ordinals below {@code replicas} that no pod of the StatefulSet has. */
  private static List<Integer> missingOrdinals(String name, int replicas, Set<String> taken) {
    List<Integer> ordinals = new ArrayList<>();
    for (int ordinal = 0; ordinal < replicas; ordinal++) {
      if (!taken.contains(name + "-" + ordinal)) {
        ordinals.add(ordinal);
      }
    }
    return ordinals;
  }

  private static Expansion replicate(
      HasMetadata workload,
      PodTemplateSpec template,
      List<Integer> indices,
      List<PersistentVolumeClaim> claimTemplates) {
    ObjectMeta meta = workload.getMetadata();
    String namespace = meta.getNamespace() == null ? "default" : meta.getNamespace();
    String name = meta.getName();
    ObjectMeta templateMeta = template == null || template.getMetadata() == null ? new ObjectMeta() : template.getMetadata();
    PodSpec templateSpec = template == null || template.getSpec() == null ? new PodSpec() : template.getSpec();
    List<Pod> pods = new ArrayList<>(indices.size());
    List<PersistentVolumeClaim> claims = new ArrayList<>();
    // what every replica's metadata shares: immutable copies, and the owner's UID worked out once
    Map<String, String> labels = copy(templateMeta.getLabels());
    Map<String, String> annotations = copy(templateMeta.getAnnotations());
    String ownerUid = meta.getUid() != null ? meta.getUid() : uid(workload.getKind(), namespace, name, -1);
    for (int index : indices) {
      String podName = name + "-" + index;
      PodSpec spec = templateSpec;
      if (!claimTemplates.isEmpty()) {
        PodSpecBuilder withClaims = new PodSpecBuilder(templateSpec);
        for (PersistentVolumeClaim claimTemplate : claimTemplates) {
          String volumeName = claimTemplate.getMetadata().getName();
          String claimName = volumeName + "-" + podName;
          claims.add(
              new PersistentVolumeClaimBuilder(claimTemplate)
                  .editOrNewMetadata()
                  .withName(claimName)
                  .withNamespace(namespace)
                  .withUid(uid("PersistentVolumeClaim", namespace, claimName, 0))
                  .endMetadata()
                  .build());
          withClaims.removeMatchingFromVolumes(v -> volumeName.equals(v.getName()));
          withClaims.addToVolumes(claimVolume(volumeName, claimName));
        }
        spec = withClaims.build();
      }
      // The replicas share the template's spec (PodBuilder.withSpec would deep-copy it per pod, which
      // was most of expanding 5,000 replicas); nothing downstream changes a pod's spec.
      Pod pod = new Pod();
      pod.setSpec(spec);
      pods.add(pod);
      // plain setters: the builders copy every map and list they are given, per replica
      OwnerReference owner = new OwnerReference();
      owner.setApiVersion(workload.getApiVersion());
      owner.setKind(workload.getKind());
      owner.setName(name);
      owner.setUid(ownerUid);
      owner.setController(true);
      ObjectMeta podMeta = new ObjectMeta();
      podMeta.setNamespace(namespace);
      podMeta.setName(podName);
      podMeta.setUid(uid(workload.getKind(), namespace, name, index));
      podMeta.setLabels(labels);
      podMeta.setAnnotations(annotations);
      podMeta.setCreationTimestamp(meta.getCreationTimestamp());
      podMeta.setOwnerReferences(List.of(owner));
      pod.setMetadata(podMeta);
    }
    return new Expansion(List.copyOf(pods), List.copyOf(claims));
  }

  private static Volume claimVolume(String volumeName, String claimName) {
    return new VolumeBuilder()
        .withName(volumeName)
        .withNewPersistentVolumeClaim()
        .withClaimName(claimName)
        .endPersistentVolumeClaim()
        .build();
  }

  private static Map<String, String> copy(Map<String, String> map) {
    return map == null ? Map.of() : Map.copyOf(map);
  }

  /** A stable UID for a synthesised object: the same inputs always give the same UID. */
  static String uid(String kind, String namespace, String name, int index) {
    String key = kind + "/" + namespace + "/" + name + "/" + index;
    return UUID.nameUUIDFromBytes(key.getBytes(StandardCharsets.UTF_8)).toString();
  }
}
