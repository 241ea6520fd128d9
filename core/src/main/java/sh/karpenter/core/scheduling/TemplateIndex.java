package sh.karpenter.core.scheduling;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.taints.Taint;

/**
 * A NodeClaimTemplate prepared for fast instance-type filtering: its instance types as an array
 * that bit sets index into, allocatable and capacity as dimension-major matrices, for each resource
 * dimension the types sorted by allocatable (so "types with at least x" is one cached bit set), and
 * caches of the types compatible with a requirement or having an offering a requirement set allows.
 *
 * <p>An index holds no pass state: its fields are fixed at construction and its lookup tables ("types
 * with at least x", per-requirement and per-offering-requirement masks, pricings) are filled lazily
 * with values that depend only on the template's instance types and the key they are looked up by,
 * and callers never modify the masks they get (they copy before narrowing). So passes over the same
 * NodePools may share one index through a {@link SchedulerCache}, one pass at a time: the tables are
 * plain maps and arrays, not safe for concurrent passes.
 */
final class TemplateIndex {
  final NodeClaimTemplate template;
  final int ordinal;
  final InstanceType[] types;
  /** Per type, its position among the types sorted by name; {@link #namesByRank} the other way round. */
  final int[] nameRank;
  /** The types' names, sorted. */
  final String[] namesByRank;
  /** The type at each position of {@link #namesByRank}. */
  private final int[] typeByRank;
  final int words;
  final int dimensions;
  /** [dimension][type] */
  final long[][] allocatable;
  /** [dimension][type] */
  final long[][] capacity;
  /** The template's requirements merged with its labels (frozen). */
  final Requirements requirements;
  /** Types compatible with the template's requirements that have an available compatible offering. */
  final long[] launchable;
  final List<DaemonGroup> daemonGroups;
  final boolean hasPreferNoScheduleTaint;
  /** Types with at least one reserved offering; empty when the template has no reserved capacity. */
  final long[] reservedTypes;
  private final boolean hasReservedOfferings;
  /**
   * Per CSI driver some type declares a volume attachment limit for: each type's limit, {@link
   * Integer#MAX_VALUE} where it declares none. Empty when no type declares any.
   */
  private final Map<String, int[]> volumeLimits;
  /** Per driver, per volume count: the types whose limit holds that many (cached). */
  private final Map<String, Map<Integer, long[]>> volumeMasks = new HashMap<>();
  /** Lazily built by {@link #type}. */
  private Map<String, InstanceType> typesByName;

  private final Set<String> offeringKeys = new TreeSet<>();
  private final long[][] sortedAllocatable;
  private final long[][][] atLeast;
  private final Map<Requirement, long[]> keyMasks = new HashMap<>();
  private final Map<Requirements, long[]> offeringMasks = new HashMap<>();
  private final Map<Requirements, Pricing> pricings = new HashMap<>();
  private final long[] emptyMask;

  /**
   * Per type, under some requirements: the cheapest launchable compatible offering (null when none)
   * and the capacity types of the launchable compatible offerings ({@link Offering#launchable()}); and every type ordered by that
   * offering's price (then name), so a NodeClaim's options come out cheapest first without a sort.
   */
  record Pricing(Offering[] cheapest, List<Set<String>> capacityTypes, int[] cheapestFirst) {
    double price(int type) {
      return cheapest[type] == null ? Double.MAX_VALUE : cheapest[type].price();
    }
  }

  /** DaemonSet pods ({@code daemons}) that all land on the same instance types, and what they add to a node. */
  record DaemonGroup(long[] types, long[] overhead, List<sh.karpenter.core.pod.HostPort> hostPorts, List<sh.karpenter.core.pod.Pod> daemons) {}

  /**
   * @param daemonSetPods one pod per DaemonSet; grouped per instance type by which of them would run there
   * @param allowUndefined labels a NodeClaim may leave undefined when matched against pod requirements
   */
  TemplateIndex(
      NodeClaimTemplate template, int ordinal, int dimensions, List<SchedulingPod> daemonSetPods, Set<String> allowUndefined) {
    this.template = template;
    this.ordinal = ordinal;
    this.types = template.instanceTypes().toArray(new InstanceType[0]);
    Integer[] byName = new Integer[types.length];
    for (int t = 0; t < types.length; t++) {
      byName[t] = t;
    }
    Arrays.sort(byName, Comparator.comparing((Integer t) -> types[t].name()));
    this.nameRank = new int[types.length];
    this.namesByRank = new String[types.length];
    this.typeByRank = new int[types.length];
    for (int r = 0; r < byName.length; r++) {
      nameRank[byName[r]] = r;
      namesByRank[r] = types[byName[r]].name();
      typeByRank[r] = byName[r];
    }
    this.words = TypeMasks.words(types.length);
    this.dimensions = dimensions;
    this.emptyMask = new long[words];
    this.allocatable = new long[dimensions][types.length];
    this.capacity = new long[dimensions][types.length];
    for (int t = 0; t < types.length; t++) {
      Resources alloc = types[t].allocatable();
      Resources cap = types[t].capacity();
      for (int d = 0; d < dimensions; d++) {
        allocatable[d][t] = alloc.milli(d);
        capacity[d][t] = cap.milli(d);
      }
      for (Offering offering : types[t].offerings()) {
        offering.requirements().addKeysTo(offeringKeys);
      }
    }
    this.reservedTypes = new long[words];
    for (int t = 0; t < types.length; t++) {
      for (Offering offering : types[t].offerings()) {
        if (offering.isReserved()) {
          TypeMasks.set(reservedTypes, t);
          break;
        }
      }
    }
    this.hasReservedOfferings = !TypeMasks.isEmpty(reservedTypes);
    Map<String, int[]> limits = new HashMap<>();
    for (int t = 0; t < types.length; t++) {
      for (Map.Entry<String, Integer> limit : types[t].volumeAttachmentLimits().entrySet()) {
        int[] perType = limits.computeIfAbsent(limit.getKey(), driver -> {
          int[] none = new int[types.length];
          Arrays.fill(none, Integer.MAX_VALUE);
          return none;
        });
        perType[t] = limit.getValue();
      }
    }
    this.volumeLimits = Map.copyOf(limits);
    this.sortedAllocatable = new long[dimensions][];
    this.atLeast = new long[dimensions][][];
    for (int d = 0; d < dimensions; d++) {
      long[] values = Arrays.stream(allocatable[d]).distinct().sorted().toArray();
      sortedAllocatable[d] = values;
      atLeast[d] = new long[values.length][];
    }
    Requirements merged = template.requirements().copy().add(Requirements.fromLabels(template.labels()));
    this.requirements = merged.frozen();
    long[] launch = TypeMasks.all(types.length);
    long[] byKeys = compatibleWith(requirements, requirements.keys());
    if (byKeys != null) {
      TypeMasks.andInto(launch, byKeys);
    }
    TypeMasks.andInto(launch, offeringMask(requirements));
    this.launchable = launch;
    this.daemonGroups = groupDaemons(daemonSetPods, allowUndefined);
    boolean preferNoSchedule = false;
    for (Taint taint : template.taints()) {
      preferNoSchedule |= taint.effect() == Taint.Effect.PreferNoSchedule;
    }
    this.hasPreferNoScheduleTaint = preferNoSchedule;
  }

  int size() {
    return types.length;
  }

  /** Whether some instance type of the template has a reserved offering. */
  boolean hasReservedOfferings() {
    return hasReservedOfferings;
  }

  long[] empty() {
    return emptyMask;
  }

  /** The type named {@code name}, or null. */
  InstanceType type(String name) {
    if (typesByName == null) {
      Map<String, InstanceType> byName = new HashMap<>();
      for (InstanceType type : types) {
        byName.putIfAbsent(type.name(), type);
      }
      typesByName = byName;
    }
    return typesByName.get(name);
  }

  /** Whether some instance type of the template declares a CSI volume attachment limit. */
  boolean hasVolumeLimits() {
    return !volumeLimits.isEmpty();
  }

  /**
   * Upstream's {@code filterInstanceTypesByVolumeAttachmentLimits}: the types that can attach {@code
   * count} volumes of the CSI driver (those without a declared limit for it can attach any number), or
   * null when no type limits the driver. Cached; never modify the result.
   */
  long[] supportingVolumes(String driver, int count) {
    int[] limits = volumeLimits.get(driver);
    if (limits == null) {
      return null;
    }
    return volumeMasks.computeIfAbsent(driver, d -> new HashMap<>()).computeIfAbsent(count, c -> {
      long[] mask = new long[words];
      for (int t = 0; t < types.length; t++) {
        if (limits[t] >= c) {
          TypeMasks.set(mask, t);
        }
      }
      return mask;
    });
  }

  /** The largest limit any type in {@code mask} declares for the driver, or -1 when none declares one or the mask is empty. */
  int largestVolumeLimit(String driver, long[] mask) {
    int[] limits = volumeLimits.get(driver);
    int largest = -1;
    for (int t = TypeMasks.next(mask, 0); limits != null && t >= 0; t = TypeMasks.next(mask, t + 1)) {
      largest = Math.max(largest, limits[t]);
    }
    return largest;
  }

  /**
   * Groups the instance types by the DaemonSet pods that would run on them: a DaemonSet pod runs on
   * a type when it tolerates the template's taints (PreferNoSchedule aside), one of its node terms is
   * compatible with the template and intersects the type's requirements.
   */
  private List<DaemonGroup> groupDaemons(List<SchedulingPod> daemonSetPods, Set<String> allowUndefined) {
    List<List<Requirements>> terms = new ArrayList<>(daemonSetPods.size());
    List<Boolean> eligible = new ArrayList<>(daemonSetPods.size());
    for (SchedulingPod daemon : daemonSetPods) {
      List<Requirements> daemonTerms = daemon.topologyConstraints().nodeAffinityTerms();
      if (daemonTerms.isEmpty()) {
        daemonTerms = List.of(Requirements.EMPTY);
      }
      terms.add(daemonTerms);
      boolean ok = sh.karpenter.core.taints.Taints.untolerated(template.taints(), daemon.pod.tolerations(), true) == null
          && daemonTerms.stream().anyMatch(t -> requirements.isCompatible(t, allowUndefined));
      eligible.add(ok);
    }
    Map<java.util.BitSet, long[]> typesByDaemons = new java.util.LinkedHashMap<>();
    for (int t = 0; t < types.length; t++) {
      java.util.BitSet daemons = new java.util.BitSet();
      for (int i = 0; i < daemonSetPods.size(); i++) {
        if (!eligible.get(i)) {
          continue;
        }
        Requirements typeRequirements = types[t].requirements();
        if (terms.get(i).stream().anyMatch(typeRequirements::intersects)) {
          daemons.set(i);
        }
      }
      TypeMasks.set(typesByDaemons.computeIfAbsent(daemons, k -> new long[words]), t);
    }
    List<DaemonGroup> groups = new ArrayList<>(typesByDaemons.size());
    typesByDaemons.forEach((daemons, mask) -> {
      long[] overhead = new long[dimensions];
      List<sh.karpenter.core.pod.HostPort> ports = new ArrayList<>();
      List<sh.karpenter.core.pod.Pod> members = new ArrayList<>();
      for (int i = daemons.nextSetBit(0); i >= 0; i = daemons.nextSetBit(i + 1)) {
        SchedulingPod daemon = daemonSetPods.get(i);
        for (int d = 0; d < dimensions; d++) {
          overhead[d] += daemon.requests[d];
        }
        ports.addAll(daemon.hostPorts);
        members.add(daemon.pod);
      }
      groups.add(new DaemonGroup(mask, overhead, List.copyOf(ports), List.copyOf(members)));
    });
    if (groups.isEmpty()) {
      groups.add(new DaemonGroup(TypeMasks.all(types.length), new long[dimensions], List.of(), List.of()));
    }
    return List.copyOf(groups);
  }

  /**
   * The types compatible with {@code reqs} on the given keys: each type's requirement on a key (if it
   * defines one) intersects, and when an offering key is among them, some available offering is
   * compatible. Null when none of the keys restricts the types.
   */
  long[] compatibleWith(Requirements reqs, Iterable<String> keys) {
    long[] mask = null;
    boolean offeringsTouched = false;
    for (String key : keys) {
      if (offeringKeys.contains(key)) {
        offeringsTouched = true;
      }
      if (!reqs.has(key)) {
        continue;
      }
      long[] keyMask = keyMask(reqs.get(key));
      mask = mask == null ? TypeMasks.copy(keyMask) : and(mask, keyMask);
    }
    if (offeringsTouched) {
      long[] offered = offeringMask(reqs);
      mask = mask == null ? TypeMasks.copy(offered) : and(mask, offered);
    }
    return mask;
  }

  private static long[] and(long[] into, long[] other) {
    TypeMasks.andInto(into, other);
    return into;
  }

  /** Types whose requirement on the key intersects {@code requirement} (types not defining the key pass). */
  long[] keyMask(Requirement requirement) {
    long[] mask = keyMasks.get(requirement);
    if (mask == null) {
      mask = new long[words];
      String key = requirement.key();
      for (int t = 0; t < types.length; t++) {
        Requirements typeRequirements = types[t].requirements();
        if (!typeRequirements.has(key) || typeRequirements.get(key).intersects(requirement)) {
          TypeMasks.set(mask, t);
        }
      }
      keyMasks.put(requirement, mask);
    }
    return mask;
  }

  /** The part of {@code reqs} offerings are judged by. */
  private Requirements offeringRelevant(Requirements reqs) {
    Requirements relevant = new Requirements();
    for (String key : offeringKeys) {
      if (reqs.has(key)) {
        relevant.put(reqs.get(key));
      }
    }
    return relevant;
  }

  /** Prices and capacity types of every type under {@code reqs} (only offering keys matter), cached. */
  Pricing pricing(Requirements reqs) {
    Requirements relevant = offeringRelevant(reqs);
    Pricing pricing = pricings.get(relevant);
    if (pricing == null) {
      Offering[] cheapest = new Offering[types.length];
      List<Set<String>> capacityTypes = new ArrayList<>(types.length);
      // Types share a handful of capacity-type sets: one set per combination, found by a bit per
      // capacity type (numbered as met; there are a few) rather than by hashing a set per type.
      List<String> kinds = new ArrayList<>(4);
      Map<Long, Set<String>> shared = new HashMap<>();
      for (int t = 0; t < types.length; t++) {
        cheapest[t] = types[t].cheapestOffering(relevant);
        long mask = 0;
        for (Offering offering : types[t].offerings()) {
          String kind = offering.capacityType();
          if (offering.launchable() && kind != null && offering.isCompatible(relevant)) {
            int bit = kinds.indexOf(kind);
            if (bit < 0) {
              bit = kinds.size();
              if (bit == Long.SIZE) {
                throw new IllegalStateException("more than 64 capacity types in the offerings");
              }
              kinds.add(kind);
            }
            mask |= 1L << bit;
          }
        }
        capacityTypes.add(shared.computeIfAbsent(mask, m -> kindsOf(m, kinds)));
      }
      // cheapest first, then by name: a stable sort by price of the types in name order
      double[] priceByRank = new double[types.length];
      for (int r = 0; r < types.length; r++) {
        Offering offering = cheapest[typeByRank[r]];
        priceByRank[r] = offering == null ? Double.MAX_VALUE : offering.price();
      }
      int[] ranks = IndexSort.ascending(priceByRank);
      int[] order = new int[types.length];
      for (int i = 0; i < order.length; i++) {
        order[i] = typeByRank[ranks[i]];
      }
      pricing = new Pricing(cheapest, capacityTypes, order);
      pricings.put(relevant.frozen(), pricing);
    }
    return pricing;
  }

  /** The capacity types whose bits (indices into {@code kinds}) are set in {@code mask}. */
  private static Set<String> kindsOf(long mask, List<String> kinds) {
    List<String> set = new ArrayList<>(Long.bitCount(mask));
    for (long bits = mask; bits != 0; bits &= bits - 1) {
      set.add(kinds.get(Long.numberOfTrailingZeros(bits)));
    }
    return Set.copyOf(set);
  }

  /** Types with an available offering compatible with {@code reqs} (only offering keys matter). */
  long[] offeringMask(Requirements reqs) {
    Requirements relevant = offeringRelevant(reqs);
    long[] mask = offeringMasks.get(relevant);
    if (mask == null) {
      mask = new long[words];
      for (int t = 0; t < types.length; t++) {
        for (Offering offering : types[t].offerings()) {
          if (offering.available() && offering.isCompatible(relevant)) {
            TypeMasks.set(mask, t);
            break;
          }
        }
      }
      offeringMasks.put(relevant.frozen(), mask);
    }
    return mask;
  }

  /** True when {@code key} is a label some offering carries (zone, capacity type, reservation). */
  boolean isOfferingKey(String key) {
    return offeringKeys.contains(key);
  }

  /**
   * Narrows {@code mask} to the types whose allocatable holds {@code total} in every dimension;
   * returns false (leaving {@code mask} partly cleared) as soon as nothing is left.
   */
  boolean narrowToFit(long[] mask, long[] total) {
    for (int d = 0; d < total.length; d++) {
      long need = total[d];
      if (need > 0 && !TypeMasks.andInto(mask, atLeast(d, need))) {
        return false;
      }
    }
    return true;
  }

  /** Types with at least {@code need} allocatable in dimension {@code d}. */
  long[] atLeast(int d, long need) {
    if (d >= dimensions) {
      return emptyMask;
    }
    long[] values = sortedAllocatable[d];
    int rank = Arrays.binarySearch(values, need);
    if (rank < 0) {
      rank = -rank - 1;
    }
    if (rank == values.length) {
      return emptyMask;
    }
    long[] mask = atLeast[d][rank];
    if (mask == null) {
      long threshold = values[rank];
      mask = new long[words];
      long[] column = allocatable[d];
      for (int t = 0; t < types.length; t++) {
        if (column[t] >= threshold) {
          TypeMasks.set(mask, t);
        }
      }
      atLeast[d][rank] = mask;
    }
    return mask;
  }

  /** Per dimension, the largest allocatable among the types in {@code mask}. */
  long[] maxAllocatable(long[] mask) {
    return maxOver(allocatable, mask);
  }

  /** Per dimension, the largest capacity among the types in {@code mask}. */
  long[] maxCapacity(long[] mask) {
    return maxOver(capacity, mask);
  }

  private long[] maxOver(long[][] matrix, long[] mask) {
    long[] max = new long[dimensions];
    for (int t = TypeMasks.next(mask, 0); t >= 0; t = TypeMasks.next(mask, t + 1)) {
      for (int d = 0; d < dimensions; d++) {
        long value = matrix[d][t];
        if (value > max[d]) {
          max[d] = value;
        }
      }
    }
    return max;
  }

  /** The types in a mask, in catalogue order. */
  List<InstanceType> typesIn(long[] mask) {
    List<InstanceType> list = new ArrayList<>(TypeMasks.cardinality(mask));
    for (int t = TypeMasks.next(mask, 0); t >= 0; t = TypeMasks.next(mask, t + 1)) {
      list.add(types[t]);
    }
    return list;
  }

  @Override
  public String toString() {
    return template.nodePoolName();
  }
}
