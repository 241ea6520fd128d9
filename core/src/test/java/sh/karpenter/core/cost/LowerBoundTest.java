package sh.karpenter.core.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static sh.karpenter.core.cost.SmallInstance.vector;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.resources.ResourceNames;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.wellknown.Labels;

class LowerBoundTest {
  private static final double TOLERANCE = 1e-6;

  private static BitSet all(int n) {
    BitSet b = new BitSet();
    b.set(0, n);
    return b;
  }

  @Test
  void oneClassOneResourceIsDemandTimesTheCheapestUnitPrice() {
    List<CandidateOffering> offerings =
        List.of(
            CandidateOffering.purchasable("small", 1.0, vector(4, 16, 100)),
            CandidateOffering.purchasable("large", 1.5, vector(8, 16, 100)));
    LowerBound bound = LowerBound.compute(List.of(new DemandClass("web", 10, vector(1, 0, 1), all(2))), offerings);
    assertEquals(10 * 1.5 / 8, bound.perHour(), TOLERANCE);
    assertTrue(bound.perHour() <= 10 * 1.5 / 8, "never rounded up");
    assertEquals(2, bound.offerings(), "the cheaper, smaller type is not dominated");
  }

  @Test
  void classesThatShareANodeAreNotChargedTwice() {
    // A cpu-only and a memory-only pod fit together on one node: charging each class its own
    // cheapest dimension (2.0) would exceed the optimum (1.0).
    List<CandidateOffering> offerings = List.of(CandidateOffering.purchasable("node", 1.0, vector(1, 1, 2)));
    List<DemandClass> classes =
        List.of(new DemandClass("cpu", 1, vector(1, 0, 1), all(1)), new DemandClass("memory", 1, vector(0, 1, 1), all(1)));
    LowerBound bound = LowerBound.compute(classes, offerings);
    assertEquals(1.0, bound.perHour(), TOLERANCE);
    assertTrue(bound.perHour() <= 1.0);
  }

  @Test
  void theLpBeatsEverySingleResourceBoundOnMixedShapes() {
    // cpu-heavy and memory-heavy pods, a cpu-optimised and a memory-optimised type.
    List<CandidateOffering> offerings =
        List.of(
            CandidateOffering.purchasable("c", 1.0, vector(8, 8, 100)),
            CandidateOffering.purchasable("r", 1.0, vector(2, 32, 100)));
    List<DemandClass> classes =
        List.of(new DemandClass("batch", 8, vector(1, 1, 1), all(2)), new DemandClass("cache", 8, vector(0, 4, 1), all(2)));
    LowerBound bound = LowerBound.compute(classes, offerings);
    // 8 cpu and 40Gi in all: 8 x_c + 2 x_r >= 8 and 8 x_c + 32 x_r >= 40 give x_c + x_r >= 1.8,
    // while the best single resource (memory at 1/32 per Gi) gives 1.25.
    assertEquals(1.8, bound.lpPerHour(), TOLERANCE);
    assertEquals(1.25, bound.simplePerHour(), TOLERANCE);
  }

  @Test
  void fitCutsChargeTheWholeNodeAPodLeavesNoRoomOn() {
    // Pods of 1.5 cpu: a 2-cpu node (1.0) holds one, a 4-cpu node (2.2) two. The plain LP packs
    // 1.33 pods into every 2-cpu node (4.5 cpu at 0.5 per cpu: 2.25); the cut "pods on an offering
    // <= fit x nodes" charges each pod a whole small node, which is the true optimum: three small
    // nodes (3.0; one large and one small cost 3.2).
    Resources pod = Resources.builder().milli(ResourceNames.CPU, 1500).milli(ResourceNames.PODS, 1000).build();
    List<CandidateOffering> offerings =
        List.of(
            CandidateOffering.purchasable("small", 1.0, Resources.builder().milli(ResourceNames.CPU, 2000).milli(ResourceNames.PODS, 110_000).build()),
            CandidateOffering.purchasable("large", 2.2, Resources.builder().milli(ResourceNames.CPU, 4000).milli(ResourceNames.PODS, 110_000).build()));
    SmallInstance instance = new SmallInstance(List.of(pod, pod, pod), List.of(all(2), all(2), all(2)), offerings);
    double optimum = instance.optimum();
    assertEquals(3.0, optimum, TOLERANCE);

    LowerBound bound = LowerBound.compute(instance.classes(), offerings);

    assertEquals(LowerBound.Method.LP, bound.method());
    assertEquals(optimum, bound.perHour(), TOLERANCE);
    assertTrue(bound.perHour() <= optimum, () -> bound + " exceeds the optimum");
    assertEquals(2.25, bound.simplePerHour(), TOLERANCE);

    // Cut rows count against the pair budget: with room for the two pairs only, no cut is added.
    LowerBound withoutRoom = LowerBound.compute(instance.classes(), offerings, BoundBudget.DEFAULT.withLimits(40, 2));
    assertEquals(2.25, withoutRoom.perHour(), TOLERANCE);
  }

  @Test
  void existingFreeCapacityIsUsedBeforeBuying() {
    List<CandidateOffering> offerings =
        List.of(
            CandidateOffering.purchasable("new", 1.0, vector(2, 8, 10)),
            CandidateOffering.existingNode("node-a", vector(2, 8, 10)));
    LowerBound fits = LowerBound.compute(List.of(new DemandClass("web", 2, vector(1, 1, 1), all(2))), offerings);
    assertEquals(0, fits.perHour(), TOLERANCE);
    LowerBound overflows = LowerBound.compute(List.of(new DemandClass("web", 4, vector(1, 1, 1), all(2))), offerings);
    assertEquals(1.0, overflows.perHour(), TOLERANCE);
    assertTrue(overflows.perHour() <= 1.0);
  }

  @Test
  void aClassOverflowingTheExistingNodesItStartsWithStillGetsTheLp() {
    // Ten existing nodes with room for one pod each cost 0, so they are the class's cheapest pairs
    // and fill its first restricted LP; 30 pods overflow them. Without a purchasable offering among
    // the first pairs that LP is infeasible and the bound fell back to the per-resource bound
    // (issue 18's mixed-5000); with one, the LP is solved: 20 pods on new 2-pod nodes at 1.0, 10.0.
    List<CandidateOffering> offerings = new ArrayList<>();
    offerings.add(CandidateOffering.purchasable("new", 1.0, vector(2, 8, 10)));
    for (int n = 0; n < 10; n++) {
      offerings.add(CandidateOffering.existingNode("node-" + n, vector(1, 4, 10)));
    }
    LowerBound bound = LowerBound.compute(List.of(new DemandClass("web", 30, vector(1, 1, 1), all(offerings.size()))), offerings);
    assertEquals(LowerBound.Method.LP, bound.method(), bound::describe);
    assertEquals(10.0, bound.perHour(), TOLERANCE);
    assertTrue(bound.perHour() <= 10.0);
  }

  @Test
  void podsThatFitNowhereAreLeftOutAndCounted() {
    List<CandidateOffering> offerings = List.of(CandidateOffering.purchasable("node", 1.0, vector(2, 2, 10)));
    LowerBound bound =
        LowerBound.compute(
            List.of(new DemandClass("huge", 1, vector(4, 1, 1), all(1)), new DemandClass("web", 2, vector(1, 1, 1), all(1))),
            offerings);
    assertEquals(1, bound.unplaceableClasses());
    assertEquals(1, bound.classes());
    assertEquals(1.0, bound.perHour(), TOLERANCE);
  }

  @Test
  void onlyTheCheapestZoneAndCapacityTypeOfATypeSurvivesPruning() {
    List<InstanceType> types = InstanceTypeCatalog.aws().instanceTypes();
    List<CandidateOffering> offerings = offerings(types);
    LowerBound bound = LowerBound.compute(List.of(new DemandClass("web", 1000, vector(1, 2, 1), all(offerings.size()))), offerings);
    assertTrue(bound.offerings() < types.size() / 4, "kept " + bound.offerings() + " of " + offerings.size());
    assertTrue(bound.lpSolved());
    assertTrue(bound.perHour() > 0);
  }

  @Test
  void forPodsGroupsPodsByConstraintsAndRequests() {
    List<InstanceType> types = InstanceTypeCatalog.aws().instanceTypes();
    List<CandidateOffering> offerings = offerings(types);
    List<InstanceType> typeOf = new ArrayList<>();
    types.forEach(t -> t.offerings().stream().filter(Offering::available).forEach(o -> typeOf.add(t)));
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      Pod.Builder pod = Pod.builder().namespace("default").name("pod-" + i).container(Resources.builder().cpu("500m").memory("1Gi").build());
      if (i % 2 == 0) {
        pod.nodeSelector(Map.of(Labels.ARCH, "arm64"));
      }
      pods.add(pod.build());
    }
    LowerBound bound =
        LowerBound.forPods(
            pods,
            Pod::nodeSelector,
            offerings,
            (pod, index) -> typeOf.get(index).requirements().get(Labels.ARCH).has(pod.nodeSelector().getOrDefault(Labels.ARCH, "amd64")));
    assertEquals(2, bound.classes());
    assertTrue(bound.perHour() > 0 && bound.lpSolved(), bound.toString());
  }

  /** Every available offering of every type, allocatable as published (no DaemonSets). */
  static List<CandidateOffering> offerings(List<InstanceType> types) {
    List<CandidateOffering> offerings = new ArrayList<>();
    for (InstanceType type : types) {
      for (Offering offering : type.offerings()) {
        if (offering.available()) {
          offerings.add(
              CandidateOffering.purchasable(
                  type.name() + "/" + offering.zone() + "/" + offering.capacityType(), offering.price(), type.allocatable()));
        }
      }
    }
    return offerings;
  }
}
