package sh.karpenter.core.scheduling;

import java.util.List;
import java.util.Map;
import sh.karpenter.core.catalog.FakeInstanceTypes;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.core.requirements.Requirement;

/**
 * An informal throughput probe for the scheduler (not a test, no assertions): solves upstream's
 * diverse mix over {@code instanceTypes(400)} and prints pods/s. Run with
 * {@code java -cp core/target/classes:core/target/test-classes sh.karpenter.core.scheduling.SchedulerThroughput [pods] [kind]}.
 */
public final class SchedulerThroughput {
  private SchedulerThroughput() {}

  public static void main(String[] args) {
    int count = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
    String kind = args.length > 1 ? args[1] : "diverse";
    List<InstanceType> types = FakeInstanceTypes.instanceTypes(400);
    NodeClaimTemplate pool =
        new NodeClaimTemplate(
            "default", 0, Map.of(), Map.of(), List.of(), List.of(),
            Requirements.of(Requirement.in(Labels.NODE_POOL, "default")),
            null, Resources.EMPTY, types);
    for (int round = 0; round < 8; round++) {
      DiverseMixWorkload workload = new DiverseMixWorkload(42);
      List<Pod> pods = switch (kind) {
        case "anti" -> workload.antiAffinity(count, Labels.HOSTNAME);
        case "generic" -> workload.generic(count);
        default -> workload.diverse(count);
      };
      long start = System.nanoTime();
      SchedulingResult result =
          new Scheduler(new SchedulingInput(List.of(pool), List.of(), pods, List.of(), null, SchedulerOptions.DEFAULT)).solve();
      long elapsed = System.nanoTime() - start;
      double cost = result.newNodeClaims().stream().mapToDouble(PlannedNodeClaim::price).sum();
      System.out.printf(
          "%s %d pods: %.0f ms, %.0f pods/s, %d nodeclaims, %d unschedulable, $%.2f/h%n",
          kind, count, elapsed / 1e6, count / (elapsed / 1e9), result.newNodeClaims().size(), result.unschedulable().size(), cost);
      if (!result.unschedulable().isEmpty()) {
        System.out.println("  first error: " + result.unschedulable().get(0).reason());
      }
    }
  }
}
