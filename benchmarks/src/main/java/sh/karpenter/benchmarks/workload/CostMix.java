package sh.karpenter.benchmarks.workload;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.resources.Resources;

/**
 * Unconstrained pod mixes for measuring plan cost against the lower bound: pods with requests only
 * (no affinity, spread or selectors), so every pod may use every offering and the LP relaxation is
 * the only slack between the plan and the bound. Each mix draws pod shapes by weight, modelled on
 * common workloads; the seed is fixed, so a mix of {@code n} pods is always the same.
 */
public enum CostMix {
  /** Small stateless web and API pods: a quarter to half a core, a few hundred MiB. */
  WEB(
      shape("100m", "128Mi", 3),
      shape("250m", "256Mi", 4),
      shape("250m", "512Mi", 3),
      shape("500m", "512Mi", 2),
      shape("500m", "1Gi", 1)),
  /** Caches, JVM services and in-memory stores: 4 to 8 GiB per CPU. */
  MEMORY_HEAVY(
      shape("500m", "4Gi", 3),
      shape("1", "6Gi", 2),
      shape("1", "8Gi", 3),
      shape("2", "16Gi", 2),
      shape("4", "30Gi", 1)),
  /** Batch, encoding and compute workers: 1 GiB per CPU or less. */
  CPU_HEAVY(
      shape("1", "1Gi", 3),
      shape("2", "1Gi", 2),
      shape("2", "2Gi", 3),
      shape("4", "3Gi", 2),
      shape("8", "6Gi", 1)),
  /** A mixed cluster: mostly web pods, with memory-heavy services and a few large workers. */
  MIXED(
      shape("250m", "256Mi", 6),
      shape("500m", "1Gi", 4),
      shape("1", "2Gi", 3),
      shape("1", "8Gi", 2),
      shape("2", "16Gi", 1),
      shape("4", "4Gi", 2),
      shape("8", "32Gi", 1));

  private record Shape(Resources requests, int weight) {}

  private final List<Shape> shapes;

  CostMix(Shape... shapes) {
    this.shapes = List.of(shapes);
  }

  /** {@code count} pods of this mix, labelled {@code app=<mix>}. */
  public List<Pod> pods(int count) {
    PodFactory factory = new PodFactory(PodMixes.SEED);
    Map<String, String> labels = Map.of("app", label());
    int totalWeight = shapes.stream().mapToInt(Shape::weight).sum();
    List<Pod> pods = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      pods.add(factory.pod(label(), labels, draw(factory.nextDouble() * totalWeight)).build());
    }
    return pods;
  }

  /** The mix's name in reports: {@code web}, {@code memory-heavy}, ... */
  public String label() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  private Resources draw(double point) {
    double cumulative = 0;
    for (Shape shape : shapes) {
      cumulative += shape.weight();
      if (point < cumulative) {
        return shape.requests();
      }
    }
    return shapes.getLast().requests();
  }

  private static Shape shape(String cpu, String memory, int weight) {
    return new Shape(Resources.builder().cpu(cpu).memory(memory).build(), weight);
  }
}
