package sh.karpenter.controller.snapshot;

import static sh.karpenter.controller.snapshot.ValueConverter.nullToEmpty;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.NodeAffinity;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PodAffinity;
import io.fabric8.kubernetes.api.model.PodAntiAffinity;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PreferredSchedulingTerm;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.WeightedPodAffinityTerm;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import sh.karpenter.core.pod.HostPort;
import sh.karpenter.core.pod.TopologySpreadConstraint.NodeInclusionPolicy;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.pod.PodAffinityTerm;
import sh.karpenter.core.pod.TopologySpreadConstraint;
import sh.karpenter.core.pod.WeightedRequirements;
import sh.karpenter.core.pod.TopologySpreadConstraint.WhenUnsatisfiable;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;

/**
 * Converts a fabric8 pod (or a DaemonSet's pod template) into core's {@link Pod}: effective
 * requests, node selector and affinity, tolerations, topology spread, pod (anti-)affinity, host
 * ports, claimed volumes and owner. Failures name the field at fault relative to the object they
 * came from ({@code fieldPrefix} is {@code spec} for a pod, {@code spec.template.spec} for a
 * template).
 */
final class PodConverter {
  private PodConverter() {}

  /**
   * A pod object as core sees it.
   *
   * @param fieldPrefix where the pod's spec is in the object it came from: {@code spec} for a pod,
   *     {@code spec.template.spec} for a pod a workload would create
   */
  static Pod convert(io.fabric8.kubernetes.api.model.Pod pod, String origin, String fieldPrefix) {
    return convert(pod, origin, fieldPrefix, warning -> {});
  }

  /**
   * {@link #convert(io.fabric8.kubernetes.api.model.Pod, String, String)}, reporting quantities
   * taken as less than they are (see {@link ValueConverter#resources(java.util.Map, String, String, Consumer)}).
   */
  static Pod convert(io.fabric8.kubernetes.api.model.Pod pod, String origin, String fieldPrefix, Consumer<String> warnings) {
    ObjectMeta meta = pod.getMetadata() == null ? new ObjectMeta() : pod.getMetadata();
    PodSpec spec = pod.getSpec() == null ? new PodSpec() : pod.getSpec();
    return convert(meta, spec, origin, fieldPrefix, warnings);
  }

  /** A pod from metadata and spec (a pod, or a template with {@code fieldPrefix} pointing at it). */
  static Pod convert(ObjectMeta meta, PodSpec spec, String origin, String fieldPrefix) {
    return convert(meta, spec, origin, fieldPrefix, warning -> {});
  }

  /** {@link #convert(ObjectMeta, PodSpec, String, String)}, reporting quantities taken as less than they are. */
  static Pod convert(ObjectMeta meta, PodSpec spec, String origin, String fieldPrefix, Consumer<String> warnings) {
    String namespace = meta.getNamespace() == null ? "default" : meta.getNamespace();
    String name = meta.getName();
    if (name == null || name.isEmpty()) {
      throw new SnapshotInputException(origin, "metadata.name", "required");
    }
    OwnerReference owner = controllerOf(meta);
    Affinity affinity = spec.getAffinity();
    Pod.Builder builder =
        Pod.builder()
            .namespace(namespace)
            .name(name)
            .uid(meta.getUid() == null ? WorkloadPods.uid("Pod", namespace, name, 0) : meta.getUid())
            .labels(nullToEmpty(meta.getLabels()))
            .annotations(nullToEmpty(meta.getAnnotations()))
            .creationTimestampMillis(timestamp(meta.getCreationTimestamp(), origin))
            .priority(spec.getPriority() == null ? 0 : spec.getPriority())
            .nodeSelector(nullToEmpty(spec.getNodeSelector()))
            .tolerations(ValueConverter.tolerations(spec.getTolerations(), origin, fieldPrefix + ".tolerations"))
            .topologySpreadConstraints(spread(spec, origin, fieldPrefix))
            .hostPorts(hostPorts(spec))
            .persistentVolumeClaims(claims(name, spec))
            .nodeName(spec.getNodeName() == null || spec.getNodeName().isEmpty() ? null : spec.getNodeName())
            .owner(owner == null ? null : owner.getKind(), owner == null ? null : owner.getName())
            .terminating(meta.getDeletionTimestamp() != null);
    requests(builder, spec, origin, fieldPrefix, warnings);
    if (affinity != null) {
      nodeAffinity(builder, affinity.getNodeAffinity(), origin, fieldPrefix + ".affinity.nodeAffinity");
      podAffinity(builder, affinity.getPodAffinity(), affinity.getPodAntiAffinity(), origin, fieldPrefix + ".affinity");
    }
    return builder.build();
  }

  /**
   * Hands each container's requests to the builder, which computes the effective requests as
   * kube-scheduler does. A container without a request for a resource it limits requests the limit,
   * as the API server defaults it.
   */
  private static void requests(Pod.Builder builder, PodSpec spec, String origin, String fieldPrefix, Consumer<String> warnings) {
    List<Container> containers = nullToEmpty(spec.getContainers());
    for (int i = 0; i < containers.size(); i++) {
      builder.container(containerRequests(containers.get(i), origin, fieldPrefix + ".containers[" + i + "]", warnings));
    }
    List<Container> inits = nullToEmpty(spec.getInitContainers());
    for (int i = 0; i < inits.size(); i++) {
      Container init = inits.get(i);
      builder.initContainer(
          containerRequests(init, origin, fieldPrefix + ".initContainers[" + i + "]", warnings), "Always".equals(init.getRestartPolicy()));
    }
    builder.overhead(ValueConverter.resources(spec.getOverhead(), origin, fieldPrefix + ".overhead", warnings));
    if (spec.getResources() != null) {
      builder.podLevelRequests(ValueConverter.resources(spec.getResources().getRequests(), origin, fieldPrefix + ".resources.requests", warnings));
    }
  }

  /**
   * A pod's effective requests as the scheduler counts them (containers, sidecar-aware init
   * containers, pod-level requests, overhead, plus {@code pods: 1}), without converting the rest of
   * the pod.
   */
  static Resources requests(io.fabric8.kubernetes.api.model.Pod pod, String origin) {
    PodSpec spec = pod.getSpec() == null ? new PodSpec() : pod.getSpec();
    Pod.Builder builder = Pod.builder().namespace("-").name("-");
    requests(builder, spec, origin, "spec", warning -> {});
    return builder.build().requests();
  }

  /**
   * A pod's effective limits as Kubernetes' {@code PodLimits} computes them: the same aggregation
   * as {@link #requests(io.fabric8.kubernetes.api.model.Pod, String)} over the containers' limits,
   * pod-level limits replacing the dimensions they set, the overhead added to the dimensions that
   * have a limit, plus {@code pods: 1}.
   */
  static Resources limits(io.fabric8.kubernetes.api.model.Pod pod, String origin) {
    PodSpec spec = pod.getSpec() == null ? new PodSpec() : pod.getSpec();
    Pod.Builder builder = Pod.builder().namespace("-").name("-");
    List<Container> containers = nullToEmpty(spec.getContainers());
    for (int i = 0; i < containers.size(); i++) {
      builder.container(containerLimits(containers.get(i), origin, "spec.containers[" + i + "]"));
    }
    List<Container> inits = nullToEmpty(spec.getInitContainers());
    for (int i = 0; i < inits.size(); i++) {
      builder.initContainer(
          containerLimits(inits.get(i), origin, "spec.initContainers[" + i + "]"), "Always".equals(inits.get(i).getRestartPolicy()));
    }
    if (spec.getResources() != null) {
      builder.podLevelRequests(ValueConverter.resources(spec.getResources().getLimits(), origin, "spec.resources.limits"));
    }
    Resources limits = builder.build().requests();
    Resources overhead = ValueConverter.resources(spec.getOverhead(), origin, "spec.overhead");
    Resources.Builder withOverhead = Resources.builder();
    for (int i = 0; i < limits.dimensions(); i++) {
      boolean limited = limits.milli(i) != 0 && i != sh.karpenter.core.resources.ResourceNames.PODS_INDEX;
      withOverhead.milli(i, limits.milli(i) + (limited && i < overhead.dimensions() ? overhead.milli(i) : 0));
    }
    return withOverhead.build();
  }

  private static Resources containerLimits(Container container, String origin, String field) {
    return container.getResources() == null
        ? Resources.EMPTY
        : ValueConverter.resources(container.getResources().getLimits(), origin, field + ".resources.limits");
  }

  /**
   * A container's requests, with the limits it sets as defaults; a request above its limit is an
   * error, as kube-apiserver's validation makes it.
   */
  private static Resources containerRequests(Container container, String origin, String field, Consumer<String> warnings) {
    if (container.getResources() == null) {
      return Resources.EMPTY;
    }
    Resources requests = ValueConverter.resources(container.getResources().getRequests(), origin, field + ".resources.requests", warnings);
    Resources limits = ValueConverter.resources(container.getResources().getLimits(), origin, field + ".resources.limits", warnings);
    if (limits.isZero()) {
      return requests;
    }
    for (var limit : container.getResources().getLimits().entrySet()) {
      int index = sh.karpenter.core.resources.ResourceNames.index(limit.getKey());
      if (requests.milli(index) > limits.milli(index)) {
        throw new SnapshotInputException(
            origin,
            field + ".resources.requests." + limit.getKey(),
            "Invalid value: \"" + container.getResources().getRequests().get(limit.getKey()) + "\": must be less than or equal to "
                + limit.getKey() + " limit of " + limit.getValue());
      }
    }
    Resources.Builder defaulted = Resources.builder();
    for (int i = 0; i < Math.max(requests.dimensions(), limits.dimensions()); i++) {
      defaulted.milli(i, requests.milli(i) != 0 ? requests.milli(i) : limits.milli(i));
    }
    return defaulted.build();
  }

  private static void nodeAffinity(Pod.Builder builder, NodeAffinity affinity, String origin, String field) {
    if (affinity == null) {
      return;
    }
    if (affinity.getRequiredDuringSchedulingIgnoredDuringExecution() != null) {
      List<NodeSelectorTerm> terms = nullToEmpty(affinity.getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms());
      List<Requirements> required = new ArrayList<>(terms.size());
      for (int i = 0; i < terms.size(); i++) {
        required.add(
            ValueConverter.nodeSelectorTerm(
                terms.get(i), origin, field + ".requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[" + i + "]"));
      }
      builder.requiredNodeAffinityTerms(required);
    }
    List<PreferredSchedulingTerm> preferred = nullToEmpty(affinity.getPreferredDuringSchedulingIgnoredDuringExecution());
    List<WeightedRequirements> weighted = new ArrayList<>(preferred.size());
    for (int i = 0; i < preferred.size(); i++) {
      PreferredSchedulingTerm term = preferred.get(i);
      String at = field + ".preferredDuringSchedulingIgnoredDuringExecution[" + i + "]";
      if (term.getPreference() == null) {
        throw new SnapshotInputException(origin, at + ".preference", "required");
      }
      weighted.add(new WeightedRequirements(weight(term.getWeight()), ValueConverter.nodeSelectorTerm(term.getPreference(), origin, at + ".preference")));
    }
    builder.preferredNodeAffinity(weighted);
  }

  private static void podAffinity(Pod.Builder builder, PodAffinity affinity, PodAntiAffinity antiAffinity, String origin, String field) {
    if (affinity != null) {
      String at = field + ".podAffinity";
      builder.requiredPodAffinity(terms(affinity.getRequiredDuringSchedulingIgnoredDuringExecution(), origin, at + ".requiredDuringSchedulingIgnoredDuringExecution"));
      builder.preferredPodAffinity(weightedTerms(affinity.getPreferredDuringSchedulingIgnoredDuringExecution(), origin, at + ".preferredDuringSchedulingIgnoredDuringExecution"));
    }
    if (antiAffinity != null) {
      String at = field + ".podAntiAffinity";
      builder.requiredPodAntiAffinity(terms(antiAffinity.getRequiredDuringSchedulingIgnoredDuringExecution(), origin, at + ".requiredDuringSchedulingIgnoredDuringExecution"));
      builder.preferredPodAntiAffinity(weightedTerms(antiAffinity.getPreferredDuringSchedulingIgnoredDuringExecution(), origin, at + ".preferredDuringSchedulingIgnoredDuringExecution"));
    }
  }

  private static List<PodAffinityTerm> terms(List<io.fabric8.kubernetes.api.model.PodAffinityTerm> terms, String origin, String field) {
    List<io.fabric8.kubernetes.api.model.PodAffinityTerm> list = nullToEmpty(terms);
    List<PodAffinityTerm> converted = new ArrayList<>(list.size());
    for (int i = 0; i < list.size(); i++) {
      converted.add(term(list.get(i), origin, field + "[" + i + "]"));
    }
    return converted;
  }

  private static List<sh.karpenter.core.pod.WeightedPodAffinityTerm> weightedTerms(List<WeightedPodAffinityTerm> terms, String origin, String field) {
    List<WeightedPodAffinityTerm> list = nullToEmpty(terms);
    List<sh.karpenter.core.pod.WeightedPodAffinityTerm> converted = new ArrayList<>(list.size());
    for (int i = 0; i < list.size(); i++) {
      String at = field + "[" + i + "]";
      if (list.get(i).getPodAffinityTerm() == null) {
        throw new SnapshotInputException(origin, at + ".podAffinityTerm", "required");
      }
      converted.add(
          new sh.karpenter.core.pod.WeightedPodAffinityTerm(
              weight(list.get(i).getWeight()), term(list.get(i).getPodAffinityTerm(), origin, at + ".podAffinityTerm")));
    }
    return converted;
  }

  private static PodAffinityTerm term(io.fabric8.kubernetes.api.model.PodAffinityTerm term, String origin, String field) {
    if (term.getTopologyKey() == null || term.getTopologyKey().isEmpty()) {
      throw new SnapshotInputException(origin, field + ".topologyKey", "required");
    }
    return new PodAffinityTerm(
        ValueConverter.labelSelector(term.getLabelSelector(), origin, field + ".labelSelector"),
        Set.copyOf(nullToEmpty(term.getNamespaces())),
        term.getNamespaceSelector() == null ? null : ValueConverter.labelSelector(term.getNamespaceSelector(), origin, field + ".namespaceSelector"),
        term.getTopologyKey(),
        nullToEmpty(term.getMatchLabelKeys()));
  }

  private static List<TopologySpreadConstraint> spread(PodSpec spec, String origin, String fieldPrefix) {
    var constraints = nullToEmpty(spec.getTopologySpreadConstraints());
    List<TopologySpreadConstraint> converted = new ArrayList<>(constraints.size());
    for (int i = 0; i < constraints.size(); i++) {
      var c = constraints.get(i);
      String at = fieldPrefix + ".topologySpreadConstraints[" + i + "]";
      if (c.getTopologyKey() == null || c.getTopologyKey().isEmpty()) {
        throw new SnapshotInputException(origin, at + ".topologyKey", "required");
      }
      if (c.getMaxSkew() == null || c.getMaxSkew() < 1) {
        throw new SnapshotInputException(origin, at + ".maxSkew", "required, at least 1");
      }
      converted.add(
          new TopologySpreadConstraint(
              c.getMaxSkew(),
              c.getTopologyKey(),
              enumValue(WhenUnsatisfiable.class, c.getWhenUnsatisfiable(), origin, at + ".whenUnsatisfiable"),
              ValueConverter.labelSelector(c.getLabelSelector(), origin, at + ".labelSelector"),
              c.getMinDomains(),
              enumValue(NodeInclusionPolicy.class, c.getNodeAffinityPolicy(), origin, at + ".nodeAffinityPolicy"),
              enumValue(NodeInclusionPolicy.class, c.getNodeTaintsPolicy(), origin, at + ".nodeTaintsPolicy"),
              nullToEmpty(c.getMatchLabelKeys())));
    }
    return converted;
  }

  /** Host ports of the pod's containers; an unset host IP means every address. */
  private static List<HostPort> hostPorts(PodSpec spec) {
    List<HostPort> ports = new ArrayList<>();
    for (Container container : nullToEmpty(spec.getContainers())) {
      for (ContainerPort port : nullToEmpty(container.getPorts())) {
        if (port.getHostPort() != null && port.getHostPort() > 0) {
          ports.add(new HostPort(port.getHostIP(), port.getHostPort(), port.getProtocol()));
        }
      }
    }
    return ports;
  }

  /** Claims the pod mounts: named claims, and the {@code <pod>-<volume>} claims of ephemeral volumes. */
  private static List<String> claims(String podName, PodSpec spec) {
    List<String> claims = new ArrayList<>();
    for (Volume volume : nullToEmpty(spec.getVolumes())) {
      if (volume.getPersistentVolumeClaim() != null && volume.getPersistentVolumeClaim().getClaimName() != null) {
        claims.add(volume.getPersistentVolumeClaim().getClaimName());
      } else if (volume.getEphemeral() != null) {
        claims.add(ephemeralClaimName(podName, volume));
      }
    }
    return claims;
  }

  /** The name Kubernetes gives the claim of a generic ephemeral volume. */
  static String ephemeralClaimName(String podName, Volume volume) {
    return podName + "-" + volume.getName();
  }

  private static OwnerReference controllerOf(ObjectMeta meta) {
    List<OwnerReference> owners = nullToEmpty(meta.getOwnerReferences());
    for (OwnerReference owner : owners) {
      if (Boolean.TRUE.equals(owner.getController())) {
        return owner;
      }
    }
    return owners.isEmpty() ? null : owners.getFirst();
  }

  private static int weight(Integer weight) {
    return weight == null ? 0 : weight;
  }

  /** {@code metadata.creationTimestamp} in milliseconds, 0 when unset. */
  static long timestamp(String text, String origin) {
    if (text == null || text.isEmpty()) {
      return 0;
    }
    try {
      return OffsetDateTime.parse(text).toInstant().toEpochMilli();
    } catch (DateTimeParseException e) {
      throw new SnapshotInputException(origin, "metadata.creationTimestamp", "not an RFC 3339 time: " + text);
    }
  }

  private static <E extends Enum<E>> E enumValue(Class<E> type, String text, String origin, String field) {
    if (text == null || text.isEmpty()) {
      return null;
    }
    try {
      return Enum.valueOf(type, text);
    } catch (IllegalArgumentException e) {
      throw new SnapshotInputException(origin, field, "unknown value \"" + text + "\"");
    }
  }
}
