package sh.karpenter.providers.kwok;

import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;
import sh.karpenter.core.cloudprovider.InsufficientCapacityException;
import sh.karpenter.core.cloudprovider.LaunchRequest;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.requirements.Requirements;

/**
 * How the KWOK provider picks what to launch for a NodeClaim: among the instance types compatible
 * with the request's Requirements whose allocatable fits its requests, the cheapest available,
 * compatible, unblocked Offering, at random among equal prices (upstream kwok/cloudprovider).
 */
final class OfferingSelection {
  private OfferingSelection() {}

  /** The instance type and Offering to launch. */
  record Selection(InstanceType instanceType, Offering offering) {}

  /** At most this many instance type names go into an insufficient-capacity message. */
  private static final int NAMES_IN_MESSAGE = 10;

  /**
   * @throws InsufficientCapacityException naming the requirements, the requests and the instance
   *     types tried when no Offering is left
   */
  static Selection select(
      List<InstanceType> instanceTypes, LaunchRequest request, KwokFailures failures, RandomGenerator random) {
    Requirements requirements = request.requirements();
    List<Selection> cheapest = new ArrayList<>();
    double cheapestPrice = Double.MAX_VALUE;
    List<String> compatible = new ArrayList<>();
    int blockedOfferings = 0;
    int tooSmall = 0;
    for (InstanceType type : instanceTypes) {
      if (!type.requirements().intersects(requirements)) {
        continue;
      }
      if (!request.requests().fits(type.allocatable())) {
        tooSmall++;
        continue;
      }
      compatible.add(type.name());
      for (Offering offering : type.offerings()) {
        if (!offering.available() || !offering.isCompatible(requirements)) {
          continue;
        }
        if (failures.isBlocked(type.name(), offering.zone(), offering.capacityType())) {
          blockedOfferings++;
          continue;
        }
        int byPrice = Double.compare(offering.price(), cheapestPrice);
        if (byPrice < 0) {
          cheapest.clear();
          cheapestPrice = offering.price();
        }
        if (byPrice <= 0) {
          cheapest.add(new Selection(type, offering));
        }
      }
    }
    if (cheapest.isEmpty()) {
      throw new InsufficientCapacityException(insufficientCapacityMessage(request, compatible, tooSmall, blockedOfferings));
    }
    return cheapest.size() == 1 ? cheapest.getFirst() : cheapest.get(random.nextInt(cheapest.size()));
  }

  private static String insufficientCapacityMessage(
      LaunchRequest request, List<String> compatible, int tooSmall, int blockedOfferings) {
    StringBuilder message = new StringBuilder("no available offering for requirements [")
        .append(request.requirements())
        .append("] and requests ")
        .append(request.requests())
        .append(": tried ");
    if (compatible.isEmpty()) {
      message.append("no instance type that is compatible and large enough");
    } else {
      message.append(compatible.size()).append(" compatible instance type(s) (")
          .append(String.join(", ", compatible.subList(0, Math.min(NAMES_IN_MESSAGE, compatible.size()))))
          .append(compatible.size() > NAMES_IN_MESSAGE ? ", ..." : "")
          .append(")");
    }
    if (tooSmall > 0) {
      message.append("; ").append(tooSmall).append(" compatible type(s) too small for the requests");
    }
    if (blockedOfferings > 0) {
      message.append("; ").append(blockedOfferings).append(" offering(s) out of capacity");
    }
    return message.toString();
  }
}
