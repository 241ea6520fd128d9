package sh.karpenter.core.cost;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiPredicate;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.pod.PodAffinityTerm;
import sh.karpenter.core.requirements.LabelSelector;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.scheduling.ExistingNode;
import sh.karpenter.core.scheduling.NodeClaimTemplate;
import sh.karpenter.core.scheduling.SchedulingInput;
import sh.karpenter.core.taints.Taint;
import sh.karpenter.core.taints.Taints;
import sh.karpenter.core.taints.Toleration;
import sh.karpenter.core.topology.Topology;
import sh.karpenter.core.wellknown.Labels;

/**
 * The proven lower bound of a scheduling result (used by `karpenter plan` and the benchmarks): {@link LowerBound} over every offering the scheduler could have
 * used (each NodePool × instance type × launchable offering, and the free capacity of existing
 * nodes). Launchable ({@link Offering#launchable()}: available and, when reserved, with reservation
 * capacity left) as the scheduler prices them: a full reservation launches nothing, so its price must
 * not pull the bound down.
 *
 * <p>The bound stays valid only if it never forbids a placement the scheduler may make, so every
 * test here is a relaxation of the scheduler's: a pod may use an offering when it tolerates the
 * taints and one of its node-affinity alternatives merely <em>intersects</em> the template, instance
 * type and offering requirements; topology, affinity between pods, volumes and limits are ignored
 * (except that the pods of one required hostname anti-affinity group fit one per node, {@link #onePerNode});
 * only DaemonSets that certainly run on a node (no node constraints, tolerating its taints) reduce
 * the offering's allocatable.
 *
 * <p>Pods are grouped by the part of their constraints that can change that answer: node selector
 * entries and affinity requirements on label keys some offering's requirements define (an
 * intersection only compares keys defined on both sides), and tolerations of taints some offering
 * has. So 100,000 pods that each tolerate a taint of their own, or select a label no offering sets,
 * are asked about once, not once each.
 */
public final class SchedulingLowerBound {
  private SchedulingLowerBound() {}

  /** What {@code mayUse} checks of an offering: its taints and the requirements it must intersect. */
  private record Target(List<Taint> taints, List<Requirements> requirements) {}

  /** The inputs of {@code mayUse} that distinguish pods; pods with equal keys are interchangeable. */
  private record ConstraintKey(Map<String, String> nodeSelector, List<Requirements> terms, List<Toleration> tolerations) {
    // equals and hashCode written out, as Taint's
    @Override
    public boolean equals(Object o) {
      return o instanceof ConstraintKey k
          && Objects.equals(nodeSelector, k.nodeSelector)
          && Objects.equals(terms, k.terms)
          && Objects.equals(tolerations, k.tolerations);
    }

    @Override
    public int hashCode() {
      return Objects.hash(nodeSelector, terms, tolerations);
    }
  }

  /** What of the offerings' constraints a pod's constraints can meet: their label keys and taints. */
  private record Relevant(Set<String> labelKeys, Set<Taint> taints) {
    static Relevant of(List<Target> targets) {
      Set<String> keys = new HashSet<>();
      Set<Taint> taints = new HashSet<>();
      // a template's and a type's requirements are shared by many targets: each object's keys once
      Set<Requirements> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
      Set<List<Taint>> seenTaints = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
      for (Target target : targets) {
        for (Requirements requirements : target.requirements()) {
          if (seen.add(requirements)) {
            requirements.addKeysTo(keys);
          }
        }
        if (seenTaints.add(target.taints())) {
          taints.addAll(target.taints());
        }
      }
      return new Relevant(keys, taints);
    }

    /** The pod's constraints that {@code mayUse} can tell apart: the rest intersect and tolerate nothing an offering has. */
    ConstraintKey key(Pod pod) {
      Map<String, String> selector = new LinkedHashMap<>();
      pod.nodeSelector().forEach((key, value) -> {
        if (labelKeys.contains(key)) {
          selector.put(key, value);
        }
      });
      List<Requirements> terms = new ArrayList<>(pod.requiredNodeAffinityTerms().size());
      for (Requirements term : pod.requiredNodeAffinityTerms()) {
        Requirements projected = new Requirements();
        for (Requirement requirement : term) {
          if (labelKeys.contains(requirement.key())) {
            projected.add(requirement);
          }
        }
        terms.add(projected);
      }
      List<Toleration> tolerations = new ArrayList<>();
      for (Toleration toleration : pod.tolerations()) {
        if (taints.stream().anyMatch(toleration::tolerates)) {
          tolerations.add(toleration);
        }
      }
      return new ConstraintKey(selector, terms, tolerations);
    }
  }

  /** The bound under the {@link BoundBudget#DEFAULT default budget}. */
  public static LowerBound of(SchedulingInput input, Collection<Pod> placedPods) {
    return of(input, placedPods, BoundBudget.DEFAULT);
  }

  /**
   * The bound for {@code placedPods} over everything {@code input} lets the scheduler use, spending
   * at most {@code budget} on it, from listing the offerings to the LP ({@link LowerBound#method()}
   * says which bound came out).
   *
   * <p>The bound depends on the set of pods only, not on their order: they are taken in {@link
   * #CANONICAL_ORDER} (classes, their names and the LP follow that order).
   */
  public static LowerBound of(SchedulingInput input, Collection<Pod> placedPods, BoundBudget budget) {
    WorkMeter meter = new WorkMeter(budget);
    Offerings offerings = Offerings.of(input, meter);
    Map<Pod, List<Requirements>> alternatives = new IdentityHashMap<>();
    return of(
        placedPods,
        offerings,
        (pod, index) -> mayUse(pod, alternatives.computeIfAbsent(pod, SchedulingLowerBound::alternatives), offerings.targets().get(index)),
        meter);
  }

  /** The bound over {@code placedPods} (any order); {@code meter} has been charged for listing {@code offerings}. */
  private static LowerBound of(Collection<Pod> placedPods, Offerings offerings, BiPredicate<Pod, Integer> mayUse, WorkMeter meter) {
    List<Pod> pods = new ArrayList<>(placedPods);
    pods.sort(CANONICAL_ORDER);
    Map<Pod, Object> keys = new IdentityHashMap<>();
    return LowerBound.forPods(pods, pod -> keys.computeIfAbsent(pod, offerings.relevant()::key), SchedulingLowerBound::onePerNode, offerings.offerings(), mayUse, meter);
  }

  /**
   * The pending pods of a {@link SchedulingInput} that the bound's relaxation does not rule out, and
   * what finding them learnt (the offerings, which of them each pod constraint may use), so that
   * {@link #bound()} does not ask again.
   */
  public static final class Guess {
    private final List<Pod> pods;
    private final Offerings offerings;
    private final long offeringSteps;
    private final Map<Object, BitSet> mayUseByKey;
    private final BoundBudget budget;

    private Guess(List<Pod> pods, Offerings offerings, long offeringSteps, Map<Object, BitSet> mayUseByKey, BoundBudget budget) {
      this.pods = List.copyOf(pods);
      this.offerings = offerings;
      this.offeringSteps = offeringSteps;
      this.mayUseByKey = mayUseByKey;
      this.budget = budget;
    }

    /** The pods, in the input's order. */
    public List<Pod> pods() {
      return pods;
    }

    /** {@code SchedulingLowerBound.of(input, pods(), budget)}, the same value, without asking offerings again. */
    public LowerBound bound() {
      WorkMeter meter = new WorkMeter(budget);
      meter.charge(offeringSteps); // what listing the offerings charged: the same budget outcome
      Map<Pod, BitSet> known = new IdentityHashMap<>();
      return of(pods, offerings, (pod, index) -> known.computeIfAbsent(pod, p -> mayUseByKey.get(offerings.relevant().key(p))).get(index), meter);
    }
  }

  /**
   * The pending pods of {@code input} that the bound's relaxation does not rule out: some offering
   * they may use ({@code mayUse}: requirements and taints) holds their requests. A placement the
   * scheduler makes is one the relaxation allows, so the pods a solve places are among these; when it
   * places all of them, {@link Guess#bound()} is the bound of its result, and can be computed while
   * the solve runs ({@code karpenter plan} does). Empty when {@code budget} does not allow asking
   * every offering about each distinct pod constraint (the bound itself would then not compare pods
   * with offerings either).
   */
  public static Optional<Guess> guess(SchedulingInput input, BoundBudget budget) {
    WorkMeter meter = new WorkMeter(budget);
    try {
      Offerings offerings = Offerings.of(input, meter);
      long offeringSteps = meter.steps();
      List<CandidateOffering> list = offerings.offerings();
      meter.charge((long) LowerBound.POD_STEPS * input.pendingPods().size());
      Map<Object, BitSet> mayUseByKey = new HashMap<>();
      List<Pod> placeable = new ArrayList<>(input.pendingPods().size());
      for (Pod pod : input.pendingPods()) {
        BitSet candidates =
            mayUseByKey.computeIfAbsent(
                offerings.relevant().key(pod),
                key -> {
                  meter.charge((long) list.size() * LowerBound.MAY_USE_STEPS);
                  List<Requirements> podAlternatives = alternatives(pod);
                  BitSet mayUse = new BitSet(list.size());
                  for (int i = 0; i < list.size(); i++) {
                    if (mayUse(pod, podAlternatives, offerings.targets().get(i))) {
                      mayUse.set(i);
                    }
                  }
                  return mayUse;
                });
        meter.charge(candidates.cardinality());
        for (int i = candidates.nextSetBit(0); i >= 0; i = candidates.nextSetBit(i + 1)) {
          if (list.get(i).maxCount() > 0 && pod.requests().fits(list.get(i).allocatable())) {
            placeable.add(pod);
            break;
          }
        }
      }
      return Optional.of(new Guess(placeable, offerings, offeringSteps, mayUseByKey, budget));
    } catch (WorkMeter.OverBudget e) {
      return Optional.empty();
    }
  }

  /**
   * The group of pods no two of which may share a node because of the pod's own required pod
   * anti-affinity, or null: a term with topology key {@code kubernetes.io/hostname} whose selector
   * (with the pod's values for its matchLabelKeys ANDed in, as the scheduler and kube-scheduler do)
   * matches the pod's own labels, over namespaces that include the pod's own (no namespaces and no
   * namespaceSelector: its own; with a namespaceSelector the term is not used). The group is that
   * selector and the pod's namespace: every other pod of the group is in that namespace and
   * matched by the selector, so this pod's term keeps it off this pod's node. The first such term
   * counts (any one is a valid group).
   */
  static Object onePerNode(Pod pod) {
    for (PodAffinityTerm term : pod.requiredPodAntiAffinity()) {
      if (!Labels.HOSTNAME.equals(term.topologyKey()) || term.namespaceSelector() != null) {
        continue;
      }
      if (!term.namespaces().isEmpty() && !term.namespaces().contains(pod.namespace())) {
        continue;
      }
      LabelSelector selector = Topology.withMatchLabelKeys(term.selector(), term.matchLabelKeys(), pod);
      if (selector.matches(pod.labels())) {
        return new HostnameAntiAffinityGroup(pod.namespace(), selector);
      }
    }
    return null;
  }

  /** Pods of one namespace that one hostname anti-affinity selector matches (see {@link #onePerNode}). */
  private record HostnameAntiAffinityGroup(String namespace, LabelSelector selector) {
    // equals and hashCode written out, as Taint's
    @Override
    public boolean equals(Object o) {
      return o instanceof HostnameAntiAffinityGroup g && Objects.equals(namespace, g.namespace) && Objects.equals(selector, g.selector);
    }

    @Override
    public int hashCode() {
      return 31 * Objects.hashCode(namespace) + Objects.hashCode(selector);
    }
  }

  /** The order the bound takes pods in: by {@code namespace/name}, then UID. */
  public static final Comparator<Pod> CANONICAL_ORDER = Comparator.comparing(Pod::key).thenComparing(Pod::uid);

  /** Every offering the scheduler could use, with what {@code mayUse} checks of each. */
  private record Offerings(List<CandidateOffering> offerings, List<Target> targets, Relevant relevant) {
    static Offerings of(SchedulingInput input, WorkMeter meter) {
      List<CandidateOffering> offerings = new ArrayList<>();
      List<Target> targets = new ArrayList<>();
      for (NodeClaimTemplate template : input.templates()) {
        meter.charge(input.daemonSetPods().size() + template.instanceTypes().size());
        Resources overhead = certainDaemonSetOverhead(template.taints(), input.daemonSetPods());
        for (InstanceType type : template.instanceTypes()) {
          if (!template.requirements().intersects(type.requirements())) {
            continue;
          }
          Resources allocatable = type.allocatable().minus(overhead).floorZero();
          for (Offering offering : type.offerings()) {
            if (offering.launchable() && offering.isCompatible(template.requirements())) {
              offerings.add(
                  CandidateOffering.purchasable(
                      type.name() + "/" + offering.zone() + "/" + offering.capacityType(), offering.price(), allocatable));
              targets.add(new Target(template.taints(), List.of(template.requirements(), type.requirements(), offering.requirements())));
            }
          }
        }
      }
      meter.charge(offerings.size() + input.nodes().size());
      for (ExistingNode node : input.nodes()) {
        meter.charge(node.pods().size());
        Resources used = Resources.EMPTY;
        for (Pod pod : node.pods()) {
          used = used.plus(pod.requests());
        }
        offerings.add(CandidateOffering.existingNode(node.name(), node.allocatable().minus(used).floorZero()));
        targets.add(new Target(node.taints(), List.of(Requirements.fromLabels(node.labels()))));
      }
      meter.charge(targets.size());
      return new Offerings(offerings, targets, Relevant.of(targets));
    }
  }

  private static boolean mayUse(Pod pod, List<Requirements> alternatives, Target target) {
    if (!Taints.tolerates(target.taints(), pod.tolerations(), true)) {
      return false;
    }
    List<Requirements> required = target.requirements();
    for (Requirements alternative : alternatives) {
      boolean all = true;
      for (int i = 0; i < required.size() && all; i++) {
        all = alternative.intersects(required.get(i));
      }
      if (all) {
        return true;
      }
    }
    return false;
  }

  /** The node selector combined with each required node-affinity term (ORed), or alone. */
  private static List<Requirements> alternatives(Pod pod) {
    Requirements selector = Requirements.fromLabels(pod.nodeSelector());
    if (pod.requiredNodeAffinityTerms().isEmpty()) {
      return List.of(selector);
    }
    List<Requirements> alternatives = new ArrayList<>(pod.requiredNodeAffinityTerms().size());
    for (Requirements term : pod.requiredNodeAffinityTerms()) {
      alternatives.add(selector.copy().add(term));
    }
    return alternatives;
  }

  /** Requests of the DaemonSets that run on every node of the template: no node constraints, taints tolerated. */
  private static Resources certainDaemonSetOverhead(List<Taint> taints, List<Pod> daemonSetPods) {
    Resources overhead = Resources.EMPTY;
    for (Pod pod : daemonSetPods) {
      if (pod.nodeSelector().isEmpty() && pod.requiredNodeAffinityTerms().isEmpty() && Taints.tolerates(taints, pod.tolerations(), true)) {
        overhead = overhead.plus(pod.requests());
      }
    }
    return overhead;
  }
}
