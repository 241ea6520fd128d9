package sh.karpenter.controller.snapshot;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
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
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * Expands workload objects (Deployment, ReplicaSet, StatefulSet, Job) into the pending pods their
 * controllers would create, for snapshots that describe desired state rather than live pods (as
 * {@code karpenter plan} input does).
 *
 * <p>Each workload yields {@code replicas} pods (Jobs: {@code parallelism}, capped by {@code
 * completions}; both default to 1) named {@code <workload>-<index>} in the workload's namespace,
 * carrying the template's labels, annotations and spec, owned by the workload, with a UID derived
 * from kind, namespace, name and index so that repeated expansions agree. A StatefulSet also yields
 * the PersistentVolumeClaims of its {@code volumeClaimTemplates} ({@code <template>-<pod>}), mounted
 * by each pod as Kubernetes does.
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
   * The pods (and claims) of one workload.
   *
   * @throws IllegalArgumentException when the object is not a workload kind
   */
  public static Expansion expand(HasMetadata workload) {
    if (!isWorkload(workload)) {
      throw new IllegalArgumentException("not a workload kind: " + workload.getKind());
    }
    return switch (workload) {
      case Deployment d when d.getSpec() != null ->
          replicate(d, d.getSpec().getTemplate(), replicas(d.getSpec().getReplicas()), List.of());
      case ReplicaSet r when r.getSpec() != null ->
          replicate(r, r.getSpec().getTemplate(), replicas(r.getSpec().getReplicas()), List.of());
      case StatefulSet s when s.getSpec() != null ->
          replicate(
              s,
              s.getSpec().getTemplate(),
              replicas(s.getSpec().getReplicas()),
              Objects.requireNonNullElse(s.getSpec().getVolumeClaimTemplates(), List.of()));
      case Job j when j.getSpec() != null ->
          replicate(j, j.getSpec().getTemplate(), jobPods(j), List.of());
      default -> new Expansion(List.of(), List.of()); // no spec: nothing to run
    };
  }

  private static int replicas(Integer replicas) {
    return replicas == null ? 1 : Math.max(0, replicas);
  }

  private static int jobPods(Job job) {
    int parallelism = replicas(job.getSpec().getParallelism());
    Integer completions = job.getSpec().getCompletions();
    return completions == null ? parallelism : Math.min(parallelism, Math.max(0, completions));
  }

  private static Expansion replicate(
      HasMetadata workload,
      PodTemplateSpec template,
      int count,
      List<PersistentVolumeClaim> claimTemplates) {
    ObjectMeta meta = workload.getMetadata();
    String namespace = meta.getNamespace() == null ? "default" : meta.getNamespace();
    String name = meta.getName();
    ObjectMeta templateMeta = template == null || template.getMetadata() == null ? new ObjectMeta() : template.getMetadata();
    PodSpec templateSpec = template == null || template.getSpec() == null ? new PodSpec() : template.getSpec();
    List<Pod> pods = new ArrayList<>(count);
    List<PersistentVolumeClaim> claims = new ArrayList<>();
    for (int index = 0; index < count; index++) {
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
      pods.add(
          new PodBuilder()
              .withNewMetadata()
              .withNamespace(namespace)
              .withName(podName)
              .withUid(uid(workload.getKind(), namespace, name, index))
              .withLabels(copy(templateMeta.getLabels()))
              .withAnnotations(copy(templateMeta.getAnnotations()))
              .withCreationTimestamp(meta.getCreationTimestamp())
              .withOwnerReferences(
                  new OwnerReferenceBuilder()
                      .withApiVersion(workload.getApiVersion())
                      .withKind(workload.getKind())
                      .withName(name)
                      .withUid(Objects.requireNonNullElse(meta.getUid(), uid(workload.getKind(), namespace, name, -1)))
                      .withController(true)
                      .build())
              .endMetadata()
              .withSpec(spec)
              .build());
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
