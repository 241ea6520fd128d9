package sh.karpenter.core.catalog;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.instancetype.Overhead;
import sh.karpenter.core.requirements.Operator;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.resources.ResourceNames;
import sh.karpenter.core.wellknown.Labels;

/**
 * The catalogues of upstream's fake cloud provider
 * (docs/behaviour/cloudprovider.md#fake-provider-catalogues), which upstream's scheduling tests and
 * benchmark are written against: {@link #instanceTypes(int)} (the benchmark's 400 types), {@link
 * #assorted()} and the default test catalogue {@link #defaults()}.
 *
 * <p>Every type gets kube-reserved 100m CPU and 10Mi memory, the labels {@value #LABEL_SIZE}
 * ({@code large} with {@value #LABEL_EXOTIC}{@code =optional} when cpu &gt; 4 and memory &gt; 8Gi,
 * else {@code small}) and {@value #LABEL_INTEGER} (the CPU count); these three keys are well known
 * to the fake provider ({@link #WELL_KNOWN_LABELS}). Prices follow {@link #priceFromResources}.
 */
public final class FakeInstanceTypes {
  private FakeInstanceTypes() {}

  public static final String LABEL_SIZE = "size";
  public static final String LABEL_EXOTIC = "special";
  public static final String LABEL_INTEGER = "integer";
  public static final String RESOURCE_GPU_VENDOR_A = "fake.com/vendor-a";
  public static final String RESOURCE_GPU_VENDOR_B = "fake.com/vendor-b";

  /** Labels the fake provider adds to the well-known set (a pod may select them on new nodes). */
  public static final Set<String> WELL_KNOWN_LABELS = Set.of(LABEL_SIZE, LABEL_EXOTIC, LABEL_INTEGER);

  public static final List<String> ZONES = List.of("test-zone-1", "test-zone-2", "test-zone-3");

  private static final Set<String> ALL_OPERATING_SYSTEMS = Set.of("linux", "windows", "darwin");

  private static final Overhead OVERHEAD =
      new Overhead(
          Resources.builder().cpu("100m").memory("10Mi").build(), Resources.EMPTY, Resources.EMPTY);

  /** The default offerings' requirements: spot in zones 1 and 2, on-demand in zones 1 to 3. */
  private static final List<Requirements> DEFAULT_OFFERINGS =
      List.of(
          offeringRequirements(Labels.CAPACITY_TYPE_SPOT, ZONES.get(0)),
          offeringRequirements(Labels.CAPACITY_TYPE_SPOT, ZONES.get(1)),
          offeringRequirements(Labels.CAPACITY_TYPE_ON_DEMAND, ZONES.get(0)),
          offeringRequirements(Labels.CAPACITY_TYPE_ON_DEMAND, ZONES.get(1)),
          offeringRequirements(Labels.CAPACITY_TYPE_ON_DEMAND, ZONES.get(2)));

  /**
   * Types {@code fake-it-0 .. fake-it-(total-1)}: type i has i+1 CPUs, 2(i+1)Gi memory and 10(i+1)
   * pods, with the five default offerings.
   */
  public static List<InstanceType> instanceTypes(int total) {
    List<InstanceType> types = new ArrayList<>(total);
    for (int i = 0; i < total; i++) {
      Resources capacity =
          Resources.builder()
              .milli(ResourceNames.CPU, (i + 1) * 1000L)
              .milli(ResourceNames.MEMORY, (i + 1) * 2L * (1L << 30) * 1000)
              .milli(ResourceNames.PODS, (i + 1) * 10L * 1000)
              .build();
      types.add(instanceType("fake-it-" + i, capacity, "amd64", ALL_OPERATING_SYSTEMS, null));
    }
    return types;
  }

  /**
   * 1,344 single-offering types: cpu {1..64} x memory {1..128}Gi x zone x capacity type x {linux,
   * windows} x {amd64, arm64}, named {@code {cpu}-cpu-{mem}-mem-{arch}-{os}-{zone}-{capacity type}}.
   */
  public static List<InstanceType> assorted() {
    List<InstanceType> types = new ArrayList<>(1344);
    for (int cpu : new int[] {1, 2, 4, 8, 16, 32, 64}) {
      for (int memGi : new int[] {1, 2, 4, 8, 16, 32, 64, 128}) {
        for (String zone : ZONES) {
          for (String capacityType : List.of(Labels.CAPACITY_TYPE_SPOT, Labels.CAPACITY_TYPE_ON_DEMAND)) {
            for (String os : List.of("linux", "windows")) {
              for (String arch : List.of("amd64", "arm64")) {
                Resources capacity = withDefaults(Resources.builder().cpu(Integer.toString(cpu)).memory(memGi + "Gi").build());
                String name = cpu + "-cpu-" + memGi + "-mem-" + arch + "-" + os + "-" + zone + "-" + capacityType;
                types.add(
                    instanceType(
                        name, capacity, arch, Set.of(os), List.of(offeringRequirements(capacityType, zone))));
              }
            }
          }
        }
      }
    }
    return types;
  }

  /**
   * Upstream's default test catalogue: default-instance-type (4 CPU, 4Gi, 5 pods),
   * small-instance-type (2 CPU, 2Gi), gpu-vendor-instance-type and gpu-vendor-b-instance-type (2 of
   * their vendor's GPU), arm-instance-type (16 CPU, 128Gi, arm64) and single-pod-instance-type (1 pod).
   */
  public static List<InstanceType> defaults() {
    return List.of(
        instanceType("default-instance-type", withDefaults(Resources.EMPTY), "amd64", ALL_OPERATING_SYSTEMS, null),
        instanceType(
            "small-instance-type",
            withDefaults(Resources.builder().cpu("2").memory("2Gi").build()),
            "amd64",
            ALL_OPERATING_SYSTEMS,
            null),
        instanceType(
            "gpu-vendor-instance-type",
            withDefaults(Resources.builder().milli(RESOURCE_GPU_VENDOR_A, 2000).build()),
            "amd64",
            ALL_OPERATING_SYSTEMS,
            null),
        instanceType(
            "gpu-vendor-b-instance-type",
            withDefaults(Resources.builder().milli(RESOURCE_GPU_VENDOR_B, 2000).build()),
            "amd64",
            ALL_OPERATING_SYSTEMS,
            null),
        instanceType(
            "arm-instance-type",
            withDefaults(Resources.builder().cpu("16").memory("128Gi").build()),
            "arm64",
            Set.of("ios", "linux", "windows", "darwin"),
            null),
        instanceType(
            "single-pod-instance-type",
            withDefaults(Resources.builder().pods(1).build()),
            "amd64",
            ALL_OPERATING_SYSTEMS,
            null));
  }

  /** Fills the fake provider's defaults for absent dimensions: 4 CPU, 4Gi memory, 5 pods. */
  public static Resources withDefaults(Resources resources) {
    Resources.Builder builder = Resources.builder();
    for (int r = 0; r < resources.dimensions(); r++) {
      builder.milli(r, resources.milli(r));
    }
    if (resources.milli(ResourceNames.CPU_INDEX) == 0) {
      builder.cpu("4");
    }
    if (resources.milli(ResourceNames.MEMORY_INDEX) == 0) {
      builder.memory("4Gi");
    }
    if (resources.milli(ResourceNames.PODS_INDEX) == 0) {
      builder.pods(5);
    }
    return builder.build();
  }

  /**
   * Upstream's {@code PriceFromResources}: 0.1 per CPU plus 0.1 per 10^9 bytes of memory, plus 1.0
   * for each fake GPU vendor resource the type has.
   */
  public static double priceFromResources(Resources capacity) {
    double price =
        0.1 * capacity.milli(ResourceNames.CPU_INDEX) / 1000.0
            + 0.1 * (capacity.milli(ResourceNames.MEMORY_INDEX) / 1000.0) / 1e9;
    for (String vendor : List.of(RESOURCE_GPU_VENDOR_A, RESOURCE_GPU_VENDOR_B)) {
      if (capacity.milli(vendor) != 0) {
        price += 1.0;
      }
    }
    return price;
  }

  /**
   * One fake type, as upstream's {@code NewInstanceType}: all offerings available and priced by
   * {@link #priceFromResources}; {@code offerings} null means the five default offerings.
   */
  public static InstanceType instanceType(
      String name, Resources capacity, String arch, Set<String> operatingSystems, List<Requirements> offerings) {
    List<Requirements> offeringRequirements = offerings == null ? DEFAULT_OFFERINGS : offerings;
    double price = priceFromResources(capacity);
    List<Offering> built = new ArrayList<>(offeringRequirements.size());
    Set<String> zones = new LinkedHashSet<>();
    Set<String> capacityTypes = new LinkedHashSet<>();
    for (Requirements requirements : offeringRequirements) {
      built.add(new Offering(requirements, price, true, 0));
      zones.add(requirements.get(Labels.ZONE).any());
      capacityTypes.add(requirements.get(Labels.CAPACITY_TYPE).any());
    }
    long cpu = Math.ceilDiv(capacity.milli(ResourceNames.CPU_INDEX), 1000);
    boolean large =
        capacity.milli(ResourceNames.CPU_INDEX) > 4000
            && capacity.milli(ResourceNames.MEMORY_INDEX) > 8L * (1L << 30) * 1000;
    Requirements requirements =
        Requirements.of(
            Requirement.in(Labels.INSTANCE_TYPE, name),
            Requirement.in(Labels.ARCH, arch),
            Requirement.of(Labels.OS, Operator.In, operatingSystems),
            Requirement.of(Labels.ZONE, Operator.In, zones),
            Requirement.of(Labels.CAPACITY_TYPE, Operator.In, capacityTypes),
            Requirement.in(LABEL_SIZE, large ? "large" : "small"),
            large ? Requirement.in(LABEL_EXOTIC, "optional") : Requirement.doesNotExist(LABEL_EXOTIC),
            Requirement.in(LABEL_INTEGER, Long.toString(cpu)));
    return new InstanceType(name, requirements.frozen(), built, capacity, OVERHEAD);
  }

  private static Requirements offeringRequirements(String capacityType, String zone) {
    return Requirements.of(Requirement.in(Labels.CAPACITY_TYPE, capacityType), Requirement.in(Labels.ZONE, zone))
        .frozen();
  }
}
