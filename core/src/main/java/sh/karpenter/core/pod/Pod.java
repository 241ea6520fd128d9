package sh.karpenter.core.pod;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.ResourceNames;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.taints.Toleration;

/**
 * The scheduler's view of a pod: identity, labels, effective resource requests and every scheduling
 * constraint. Immutable; built with {@link #builder()} (or {@link #toBuilder()} to derive a relaxed
 * copy). Identity equality: two Pod objects are different pods to the scheduler even with equal
 * fields; {@link #key()} and {@link #uid()} identify the Kubernetes object.
 *
 * <p>Derived forms are computed once at build time: the effective {@link #requests()}, and the node
 * {@link #requirements()} and {@link #strictRequirements()} the scheduler matches against nodes.
 */
public final class Pod {
  private final String namespace;
  private final String name;
  private final String uid;
  private final String key;
  private final Map<String, String> labels;
  private final Map<String, String> annotations;
  private final long creationTimestampMillis;
  private final int priority;
  private final List<Resources> containers;
  private final List<Resources> initContainers;
  private final List<Boolean> initContainerRestartable;
  private final Resources overhead;
  private final Resources podLevelRequests;
  private final Resources requests;
  private final Map<String, String> nodeSelector;
  private final List<Requirements> requiredNodeAffinityTerms;
  private final List<WeightedRequirements> preferredNodeAffinity;
  private final List<Toleration> tolerations;
  private final List<PodAffinityTerm> requiredPodAffinity;
  private final List<PodAffinityTerm> requiredPodAntiAffinity;
  private final List<WeightedPodAffinityTerm> preferredPodAffinity;
  private final List<WeightedPodAffinityTerm> preferredPodAntiAffinity;
  private final List<TopologySpreadConstraint> topologySpreadConstraints;
  private final List<HostPort> hostPorts;
  private final List<String> persistentVolumeClaims;
  private final String nodeName;
  private final String ownerKind;
  private final String ownerName;
  private final boolean terminating;
  private final Requirements requirements;
  private final Requirements strictRequirements;

  private Pod(Builder b) {
    namespace = Objects.requireNonNull(b.namespace, "namespace");
    name = Objects.requireNonNull(b.name, "name");
    key = namespace + "/" + name;
    uid = b.uid == null ? key : b.uid;
    labels = Map.copyOf(b.labels);
    annotations = Map.copyOf(b.annotations);
    creationTimestampMillis = b.creationTimestampMillis;
    priority = b.priority;
    containers = List.copyOf(b.containers);
    initContainers = List.copyOf(b.initContainers);
    initContainerRestartable = List.copyOf(b.initContainerRestartable);
    overhead = b.overhead;
    podLevelRequests = b.podLevelRequests;
    requests = effectiveRequests(containers, initContainers, initContainerRestartable, podLevelRequests, overhead);
    nodeSelector = Map.copyOf(b.nodeSelector);
    List<Requirements> terms = new ArrayList<>(b.requiredNodeAffinityTerms.size());
    b.requiredNodeAffinityTerms.forEach(t -> terms.add(t.frozen()));
    requiredNodeAffinityTerms = List.copyOf(terms);
    preferredNodeAffinity = List.copyOf(b.preferredNodeAffinity);
    tolerations = List.copyOf(b.tolerations);
    requiredPodAffinity = List.copyOf(b.requiredPodAffinity);
    requiredPodAntiAffinity = List.copyOf(b.requiredPodAntiAffinity);
    preferredPodAffinity = List.copyOf(b.preferredPodAffinity);
    preferredPodAntiAffinity = List.copyOf(b.preferredPodAntiAffinity);
    topologySpreadConstraints = List.copyOf(b.topologySpreadConstraints);
    hostPorts = List.copyOf(b.hostPorts);
    persistentVolumeClaims = List.copyOf(b.persistentVolumeClaims);
    nodeName = b.nodeName;
    ownerKind = b.ownerKind;
    ownerName = b.ownerName;
    terminating = b.terminating;
    strictRequirements = nodeRequirements(false);
    requirements = preferredNodeAffinity.isEmpty() ? strictRequirements : nodeRequirements(true);
  }

  /**
   * Kubernetes' sidecar-aware {@code PodRequests}: the sum of the containers and of the restartable
   * (sidecar) init containers, or, if larger per dimension, the largest need while an init container
   * runs (that init container plus the sidecars started before it); pod-level requests replace the
   * aggregate for the dimensions they set; then the pod overhead; plus {@code pods: 1}.
   */
  private static Resources effectiveRequests(
      List<Resources> containers,
      List<Resources> initContainers,
      List<Boolean> restartable,
      Resources podLevel,
      Resources overhead) {
    Resources sum = Resources.EMPTY;
    for (Resources c : containers) {
      sum = sum.plus(c);
    }
    Resources sidecars = Resources.EMPTY;
    Resources initPeak = Resources.EMPTY;
    for (int i = 0; i < initContainers.size(); i++) {
      Resources c = initContainers.get(i);
      Resources running;
      if (restartable.get(i)) {
        sum = sum.plus(c);
        sidecars = sidecars.plus(c);
        running = sidecars;
      } else {
        running = c.plus(sidecars);
      }
      initPeak = initPeak.max(running);
    }
    Resources effective = sum.max(initPeak);
    if (!podLevel.isZero()) {
      Resources.Builder replaced = Resources.builder();
      for (int i = 0; i < Math.max(effective.dimensions(), podLevel.dimensions()); i++) {
        replaced.milli(i, podLevel.milli(i) != 0 ? podLevel.milli(i) : effective.milli(i));
      }
      effective = replaced.build();
    }
    return effective.plus(overhead).plus(Resources.builder().pods(1).build());
  }

  /**
   * Upstream's pod requirements: the node selector, the heaviest preferred term (first of equal
   * weights) when {@code includePreferences}, and the first required node-affinity term.
   */
  private Requirements nodeRequirements(boolean includePreferences) {
    Requirements result = Requirements.fromLabels(nodeSelector);
    if (includePreferences && !preferredNodeAffinity.isEmpty()) {
      WeightedRequirements heaviest = preferredNodeAffinity.get(0);
      for (WeightedRequirements preferred : preferredNodeAffinity) {
        if (preferred.weight() > heaviest.weight()) {
          heaviest = preferred;
        }
      }
      result.add(heaviest.requirements());
    }
    if (!requiredNodeAffinityTerms.isEmpty()) {
      result.add(requiredNodeAffinityTerms.get(0));
    }
    return result.frozen();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding every field of this pod, to derive a modified copy. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.namespace = namespace;
    b.name = name;
    b.uid = uid;
    b.labels = labels;
    b.annotations = annotations;
    b.creationTimestampMillis = creationTimestampMillis;
    b.priority = priority;
    b.containers = new ArrayList<>(containers);
    b.initContainers = new ArrayList<>(initContainers);
    b.initContainerRestartable = new ArrayList<>(initContainerRestartable);
    b.overhead = overhead;
    b.podLevelRequests = podLevelRequests;
    b.nodeSelector = nodeSelector;
    b.requiredNodeAffinityTerms = new ArrayList<>(requiredNodeAffinityTerms);
    b.preferredNodeAffinity = new ArrayList<>(preferredNodeAffinity);
    b.tolerations = new ArrayList<>(tolerations);
    b.requiredPodAffinity = new ArrayList<>(requiredPodAffinity);
    b.requiredPodAntiAffinity = new ArrayList<>(requiredPodAntiAffinity);
    b.preferredPodAffinity = new ArrayList<>(preferredPodAffinity);
    b.preferredPodAntiAffinity = new ArrayList<>(preferredPodAntiAffinity);
    b.topologySpreadConstraints = new ArrayList<>(topologySpreadConstraints);
    b.hostPorts = new ArrayList<>(hostPorts);
    b.persistentVolumeClaims = new ArrayList<>(persistentVolumeClaims);
    b.nodeName = nodeName;
    b.ownerKind = ownerKind;
    b.ownerName = ownerName;
    b.terminating = terminating;
    return b;
  }

  public String namespace() {
    return namespace;
  }

  public String name() {
    return name;
  }

  /** The Kubernetes UID; {@link #key()} when none was given. */
  public String uid() {
    return uid;
  }

  /** {@code namespace/name}. */
  public String key() {
    return key;
  }

  public Map<String, String> labels() {
    return labels;
  }

  public Map<String, String> annotations() {
    return annotations;
  }

  public long creationTimestampMillis() {
    return creationTimestampMillis;
  }

  public int priority() {
    return priority;
  }

  /** Effective requests: max(init, sum(containers)) with sidecars, pod-level, overhead, plus pods=1. */
  public Resources requests() {
    return requests;
  }

  /** Requests of the regular containers, one entry per container. */
  public List<Resources> containerRequests() {
    return containers;
  }

  /** Requests of the init containers, one entry per init container. */
  public List<Resources> initContainerRequests() {
    return initContainers;
  }

  /** Whether each init container is a sidecar (restartPolicy Always). */
  public List<Boolean> initContainerRestartable() {
    return initContainerRestartable;
  }

  public Resources overhead() {
    return overhead;
  }

  /** Pod-level requests ({@code spec.resources.requests}), {@link Resources#EMPTY} when unset. */
  public Resources podLevelRequests() {
    return podLevelRequests;
  }

  public Map<String, String> nodeSelector() {
    return nodeSelector;
  }

  /** Required node-affinity terms, ORed (each term's requirements are ANDed); frozen. */
  public List<Requirements> requiredNodeAffinityTerms() {
    return requiredNodeAffinityTerms;
  }

  public List<WeightedRequirements> preferredNodeAffinity() {
    return preferredNodeAffinity;
  }

  public List<Toleration> tolerations() {
    return tolerations;
  }

  public List<PodAffinityTerm> requiredPodAffinity() {
    return requiredPodAffinity;
  }

  public List<PodAffinityTerm> requiredPodAntiAffinity() {
    return requiredPodAntiAffinity;
  }

  public List<WeightedPodAffinityTerm> preferredPodAffinity() {
    return preferredPodAffinity;
  }

  public List<WeightedPodAffinityTerm> preferredPodAntiAffinity() {
    return preferredPodAntiAffinity;
  }

  public List<TopologySpreadConstraint> topologySpreadConstraints() {
    return topologySpreadConstraints;
  }

  public List<HostPort> hostPorts() {
    return hostPorts;
  }

  /** Names of the PersistentVolumeClaims the pod mounts, in its namespace. */
  public List<String> persistentVolumeClaims() {
    return persistentVolumeClaims;
  }

  /** The node the pod is bound to, or null when pending. */
  public String nodeName() {
    return nodeName;
  }

  /** Kind of the controlling owner ("ReplicaSet", "DaemonSet", ...), or null. */
  public String ownerKind() {
    return ownerKind;
  }

  public String ownerName() {
    return ownerName;
  }

  public boolean isOwnedByDaemonSet() {
    return "DaemonSet".equals(ownerKind);
  }

  public boolean terminating() {
    return terminating;
  }

  /**
   * Node requirements while preferences are respected (upstream's {@code NewPodRequirements}): node
   * selector, first required term and heaviest preferred term. Frozen: {@link Requirements#copy()}
   * before modifying.
   */
  public Requirements requirements() {
    return requirements;
  }

  /**
   * Node requirements without preferences (upstream's {@code NewStrictPodRequirements}): node
   * selector and first required term. Frozen.
   */
  public Requirements strictRequirements() {
    return strictRequirements;
  }

  /** True when the pod has a required or preferred pod affinity or anti-affinity term. */
  public boolean hasPodAffinity() {
    return !requiredPodAffinity.isEmpty()
        || !requiredPodAntiAffinity.isEmpty()
        || !preferredPodAffinity.isEmpty()
        || !preferredPodAntiAffinity.isEmpty();
  }

  @Override
  public String toString() {
    return key;
  }

  /** Builds a {@link Pod}; namespace and name are required. */
  public static final class Builder {
    private String namespace = "default";
    private String name;
    private String uid;
    private Map<String, String> labels = Map.of();
    private Map<String, String> annotations = Map.of();
    private long creationTimestampMillis;
    private int priority;
    private List<Resources> containers = new ArrayList<>();
    private List<Resources> initContainers = new ArrayList<>();
    private List<Boolean> initContainerRestartable = new ArrayList<>();
    private Resources overhead = Resources.EMPTY;
    private Resources podLevelRequests = Resources.EMPTY;
    private Map<String, String> nodeSelector = Map.of();
    private List<Requirements> requiredNodeAffinityTerms = new ArrayList<>();
    private List<WeightedRequirements> preferredNodeAffinity = new ArrayList<>();
    private List<Toleration> tolerations = new ArrayList<>();
    private List<PodAffinityTerm> requiredPodAffinity = new ArrayList<>();
    private List<PodAffinityTerm> requiredPodAntiAffinity = new ArrayList<>();
    private List<WeightedPodAffinityTerm> preferredPodAffinity = new ArrayList<>();
    private List<WeightedPodAffinityTerm> preferredPodAntiAffinity = new ArrayList<>();
    private List<TopologySpreadConstraint> topologySpreadConstraints = new ArrayList<>();
    private List<HostPort> hostPorts = new ArrayList<>();
    private List<String> persistentVolumeClaims = new ArrayList<>();
    private String nodeName;
    private String ownerKind;
    private String ownerName;
    private boolean terminating;

    private Builder() {}

    public Builder namespace(String namespace) {
      this.namespace = namespace;
      return this;
    }

    public Builder name(String name) {
      this.name = name;
      return this;
    }

    public Builder uid(String uid) {
      this.uid = uid;
      return this;
    }

    public Builder labels(Map<String, String> labels) {
      this.labels = labels;
      return this;
    }

    public Builder annotations(Map<String, String> annotations) {
      this.annotations = annotations;
      return this;
    }

    public Builder creationTimestampMillis(long millis) {
      this.creationTimestampMillis = millis;
      return this;
    }

    public Builder priority(int priority) {
      this.priority = priority;
      return this;
    }

    /** Adds a regular container with these requests. */
    public Builder container(Resources requests) {
      containers.add(requests);
      return this;
    }

    /** Adds an init container that runs to completion before the containers start. */
    public Builder initContainer(Resources requests) {
      return initContainer(requests, false);
    }

    /** Adds an init container; {@code restartable} marks a sidecar (restartPolicy Always). */
    public Builder initContainer(Resources requests, boolean restartable) {
      initContainers.add(requests);
      initContainerRestartable.add(restartable);
      return this;
    }

    /** Sets the RuntimeClass overhead ({@code spec.overhead}). */
    public Builder overhead(Resources overhead) {
      this.overhead = overhead;
      return this;
    }

    /** Sets pod-level requests ({@code spec.resources.requests}: cpu, memory, hugepages). */
    public Builder podLevelRequests(Resources requests) {
      this.podLevelRequests = requests;
      return this;
    }

    public Builder nodeSelector(Map<String, String> nodeSelector) {
      this.nodeSelector = nodeSelector;
      return this;
    }

    /** Adds a required node-affinity term (terms are ORed). */
    public Builder requiredNodeAffinityTerm(Requirements term) {
      requiredNodeAffinityTerms.add(term);
      return this;
    }

    public Builder requiredNodeAffinityTerms(List<Requirements> terms) {
      requiredNodeAffinityTerms = new ArrayList<>(terms);
      return this;
    }

    public Builder preferredNodeAffinity(int weight, Requirements term) {
      preferredNodeAffinity.add(new WeightedRequirements(weight, term));
      return this;
    }

    public Builder preferredNodeAffinity(List<WeightedRequirements> terms) {
      preferredNodeAffinity = new ArrayList<>(terms);
      return this;
    }

    public Builder toleration(Toleration toleration) {
      tolerations.add(toleration);
      return this;
    }

    public Builder tolerations(List<Toleration> tolerations) {
      this.tolerations = new ArrayList<>(tolerations);
      return this;
    }

    public Builder requiredPodAffinity(PodAffinityTerm term) {
      requiredPodAffinity.add(term);
      return this;
    }

    public Builder requiredPodAffinity(List<PodAffinityTerm> terms) {
      requiredPodAffinity = new ArrayList<>(terms);
      return this;
    }

    public Builder requiredPodAntiAffinity(PodAffinityTerm term) {
      requiredPodAntiAffinity.add(term);
      return this;
    }

    public Builder requiredPodAntiAffinity(List<PodAffinityTerm> terms) {
      requiredPodAntiAffinity = new ArrayList<>(terms);
      return this;
    }

    public Builder preferredPodAffinity(WeightedPodAffinityTerm term) {
      preferredPodAffinity.add(term);
      return this;
    }

    public Builder preferredPodAffinity(List<WeightedPodAffinityTerm> terms) {
      preferredPodAffinity = new ArrayList<>(terms);
      return this;
    }

    public Builder preferredPodAntiAffinity(WeightedPodAffinityTerm term) {
      preferredPodAntiAffinity.add(term);
      return this;
    }

    public Builder preferredPodAntiAffinity(List<WeightedPodAffinityTerm> terms) {
      preferredPodAntiAffinity = new ArrayList<>(terms);
      return this;
    }

    public Builder topologySpreadConstraint(TopologySpreadConstraint constraint) {
      topologySpreadConstraints.add(constraint);
      return this;
    }

    public Builder topologySpreadConstraints(List<TopologySpreadConstraint> constraints) {
      topologySpreadConstraints = new ArrayList<>(constraints);
      return this;
    }

    public Builder hostPort(HostPort port) {
      hostPorts.add(port);
      return this;
    }

    public Builder hostPorts(List<HostPort> ports) {
      hostPorts = new ArrayList<>(ports);
      return this;
    }

    public Builder persistentVolumeClaim(String claimName) {
      persistentVolumeClaims.add(claimName);
      return this;
    }

    public Builder persistentVolumeClaims(List<String> claimNames) {
      persistentVolumeClaims = new ArrayList<>(claimNames);
      return this;
    }

    public Builder nodeName(String nodeName) {
      this.nodeName = nodeName;
      return this;
    }

    public Builder owner(String kind, String ownerName) {
      this.ownerKind = kind;
      this.ownerName = ownerName;
      return this;
    }

    public Builder terminating(boolean terminating) {
      this.terminating = terminating;
      return this;
    }

    public Pod build() {
      return new Pod(this);
    }
  }
}
