package sh.karpenter.core.disruption;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.InstanceTypes;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.scheduling.PlannedNodeClaim;
import sh.karpenter.core.wellknown.Labels;

/**
 * Turns a simulated consolidation into a command (upstream {@code computeConsolidation},
 * docs/behaviour/disruption.md#single-node-consolidation and
 * docs/behaviour/disruption.md#multi-node-consolidation): delete when the candidates' pods fit on
 * the rest of the cluster, replace when they need exactly one new node that launches cheaper than
 * the candidates cost.
 *
 * <p>The replacement keeps only the instance types whose worst launch price is below the candidates'
 * price. Replacing on-demand capacity with a NodeClaim that could be spot or on-demand pins it to spot,
 * so that a shortage of spot fails the launch rather than buying dearer on-demand capacity. Replacing
 * spot with spot needs the SpotToSpotConsolidation gate and, for a single node, at least 15 cheaper
 * types, of which only the 15 cheapest (or as many as minValues needs) are launched from; otherwise a
 * spot node would be replaced, again and again, by whichever cheaper type spot capacity happens to give.
 */
final class Consolidation {
  /** Upstream's {@code MinInstanceTypesForSpotToSpotConsolidation}. */
  static final int MIN_SPOT_TO_SPOT_OPTIONS = 15;

  private final Simulation simulation;
  private final DisruptionOptions options;

  Consolidation(Simulation simulation, DisruptionOptions options) {
    this.simulation = simulation;
    this.options = options;
  }

  /** A move: its command, or why there is none. */
  record Move(Command command, String reason) {
    static Move none(String reason) {
      return new Move(null, reason);
    }

    boolean valid() {
      return command != null;
    }
  }

  Move compute(Method method, List<Candidate> candidates) {
    Simulation.Outcome outcome = simulation.run(candidates, true);
    if (!outcome.ok()) {
      return Move.none(outcome.message());
    }
    double candidatePrice = Candidate.totalPrice(candidates);
    if (outcome.replacements().isEmpty()) {
      return new Move(new Command(method, method.reason(), candidates, List.of(), candidatePrice), null);
    }
    if (outcome.replacements().size() > 1) {
      return Move.none("can't remove without creating " + outcome.replacements().size() + " nodes");
    }
    PlannedNodeClaim planned = outcome.replacements().getFirst();
    Requirements requirements = planned.requirements().copy();
    boolean allSpot = candidates.stream().allMatch(c -> Labels.CAPACITY_TYPE_SPOT.equals(c.capacityType()));
    if (allSpot && requirements.get(Labels.CAPACITY_TYPE).has(Labels.CAPACITY_TYPE_SPOT)) {
      return spotToSpot(method, candidates, planned, requirements, candidatePrice);
    }
    Filtered cheaper = cheaperThan(planned.instanceTypeOptions(), requirements, candidatePrice);
    if (cheaper.error() != null) {
      return Move.none("filtering by price: " + cheaper.error());
    }
    if (cheaper.types().isEmpty()) {
      return Move.none("can't replace with a cheaper node");
    }
    Requirement capacityType = requirements.get(Labels.CAPACITY_TYPE);
    if (capacityType.has(Labels.CAPACITY_TYPE_SPOT) && capacityType.has(Labels.CAPACITY_TYPE_ON_DEMAND)) {
      requirements.add(Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_SPOT));
    }
    return replace(method, candidates, planned, cheaper.types(), requirements, candidatePrice);
  }

  private Move spotToSpot(
      Method method, List<Candidate> candidates, PlannedNodeClaim planned, Requirements requirements, double candidatePrice) {
    if (!options.spotToSpotConsolidation()) {
      return Move.none("SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node");
    }
    requirements.add(Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_SPOT));
    List<InstanceType> spot = InstanceTypes.compatible(planned.instanceTypeOptions(), requirements);
    Filtered cheaper = cheaperThan(spot, requirements, candidatePrice);
    if (cheaper.error() != null) {
      return Move.none("filtering by price: " + cheaper.error());
    }
    if (cheaper.types().isEmpty()) {
      return Move.none("can't replace with a cheaper node");
    }
    List<InstanceType> types = cheaper.types();
    if (candidates.size() == 1) {
      if (types.size() < MIN_SPOT_TO_SPOT_OPTIONS) {
        return Move.none(
            "SpotToSpotConsolidation requires "
                + MIN_SPOT_TO_SPOT_OPTIONS
                + " cheaper instance type options than the current candidate to consolidate, got "
                + types.size());
      }
      int keep = MIN_SPOT_TO_SPOT_OPTIONS;
      if (requirements.hasMinValues()) {
        keep = Math.max(keep, InstanceTypes.satisfiesMinValues(types, requirements).needed());
      }
      types = types.subList(0, Math.min(keep, types.size()));
    }
    return replace(method, candidates, planned, types, requirements, candidatePrice);
  }

  private static Move replace(
      Method method,
      List<Candidate> candidates,
      PlannedNodeClaim planned,
      List<InstanceType> types,
      Requirements requirements,
      double candidatePrice) {
    PlannedNodeClaim replacement;
    try {
      replacement = planned.withInstanceTypeOptions(types, requirements);
    } catch (IllegalArgumentException e) {
      return Move.none("can't replace with a cheaper node");
    }
    return new Move(
        new Command(method, method.reason(), candidates, List.of(replacement), candidatePrice - replacement.price()), null);
  }

  /**
   * Upstream's {@code filterOutSameType} for multi-node consolidation: when the replacement could be of
   * a type being removed, it must be cheaper than the cheapest candidate of that type (else deleting
   * the other candidates alone is the better move). Returns the command with the replacement narrowed,
   * or null when no type is left.
   */
  static Command withoutSameInstanceType(Command command) {
    if (command.replacements().isEmpty()) {
      return command;
    }
    PlannedNodeClaim replacement = command.replacements().getFirst();
    Map<String, Double> cheapestByType = new HashMap<>();
    for (Candidate candidate : command.candidates()) {
      if (candidate.instanceType() != null) {
        cheapestByType.merge(candidate.instanceType().name(), candidate.price(), Math::min);
      }
    }
    double maxPrice = Double.MAX_VALUE;
    for (InstanceType type : replacement.instanceTypeOptions()) {
      Double price = cheapestByType.get(type.name());
      if (price != null) {
        maxPrice = Math.min(maxPrice, price);
      }
    }
    if (maxPrice == Double.MAX_VALUE) {
      return command;
    }
    Filtered cheaper = cheaperThan(replacement.instanceTypeOptions(), replacement.requirements(), maxPrice);
    if (cheaper.error() != null || cheaper.types().isEmpty()) {
      return null;
    }
    PlannedNodeClaim narrowed;
    try {
      narrowed = replacement.withInstanceTypeOptions(cheaper.types(), replacement.requirements());
    } catch (IllegalArgumentException e) {
      return null;
    }
    return new Command(
        command.method(), command.reason(), command.candidates(), List.of(narrowed), Candidate.totalPrice(command.candidates()) - narrowed.price());
  }

  /** Instance types left after a price filter, or why minValues can no longer be met. */
  record Filtered(List<InstanceType> types, String error) {}

  /**
   * Upstream's {@code RemoveInstanceTypeOptionsByPriceAndMinValues}: the types whose worst launch price
   * under {@code requirements} is below {@code maxPrice}, cheapest first; an error when they no longer
   * meet the requirements' minValues.
   */
  static Filtered cheaperThan(List<InstanceType> types, Requirements requirements, double maxPrice) {
    double[] worst = new double[types.size()];
    for (int t = 0; t < worst.length; t++) {
      worst[t] = InstanceTypes.worstLaunchPriceBelow(types.get(t), requirements, maxPrice);
    }
    return cheaperThan(types, worst, requirements, maxPrice);
  }

  /**
   * {@link #cheaperThan(List, Requirements, double)} given each type's worst launch price under
   * {@code requirements} ({@code worst[t]} for {@code types.get(t)}): the types are filtered first and
   * only the kept ones ordered by price, which is the same order ({@link InstanceTypes#orderByPrice}
   * is a total order, by price then name).
   */
  static Filtered cheaperThan(List<InstanceType> types, double[] worst, Requirements requirements, double maxPrice) {
    List<InstanceType> below = new ArrayList<>();
    for (int t = 0; t < worst.length; t++) {
      if (worst[t] < maxPrice) {
        below.add(types.get(t));
      }
    }
    List<InstanceType> kept = InstanceTypes.orderByPrice(below, requirements);
    if (requirements.hasMinValues()) {
      InstanceTypes.MinValues minValues = InstanceTypes.satisfiesMinValues(kept, requirements);
      if (!minValues.satisfied()) {
        return new Filtered(List.of(), minValues.reason());
      }
    }
    return new Filtered(kept, null);
  }
}
