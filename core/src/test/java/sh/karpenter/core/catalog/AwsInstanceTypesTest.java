package sh.karpenter.core.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.resources.Quantity;
import sh.karpenter.core.resources.ResourceNames;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.wellknown.AwsLabels;
import sh.karpenter.core.wellknown.Labels;

class AwsInstanceTypesTest {
  private static final long MIB = 1L << 20;
  private static final InstanceTypeCatalog CATALOG = InstanceTypeCatalog.aws();
  private static final Map<String, InstanceType> BY_NAME =
      CATALOG.instanceTypes().stream().collect(Collectors.toMap(InstanceType::name, Function.identity()));
  private static final List<AwsInstanceTypeInfo> INFOS = InstanceTypeCatalog.BundledAws.DATA.instanceTypes();

  @Test
  void allocatableEqualsThePublishedFiguresForEveryTypeWithEniData() {
    List<String> mismatches = new ArrayList<>();
    int checked = 0;
    int podEniNotPublished = 0;
    for (AwsInstanceTypeInfo info : INFOS) {
      if (!info.hasEniData()) {
        continue;
      }
      checked++;
      Resources allocatable = BY_NAME.get(info.name()).allocatable();
      AwsInstanceTypeInfo.DocAllocatable doc = info.docAllocatable();
      expect(mismatches, info, "cpu", doc.cpuMillis(), allocatable.milli(ResourceNames.CPU));
      expect(mismatches, info, "memory", doc.memoryMiB() * MIB * 1000, allocatable.milli(ResourceNames.MEMORY));
      expect(mismatches, info, "pods", doc.pods() * 1000, allocatable.milli(ResourceNames.PODS));
      expect(mismatches, info, "ephemeral-storage", (long) (doc.ephemeralStorageGiB() * (1L << 30)) * 1000,
          allocatable.milli(ResourceNames.EPHEMERAL_STORAGE));
      expect(mismatches, info, "nvidia.com/gpu", count(doc.nvidiaGpu()), allocatable.milli(AwsLabels.RESOURCE_NVIDIA_GPU));
      expect(mismatches, info, "amd.com/gpu", count(doc.amdGpu()), allocatable.milli(AwsLabels.RESOURCE_AMD_GPU));
      expect(mismatches, info, "neuron", count(doc.awsNeuron()), allocatable.milli(AwsLabels.RESOURCE_NEURON));
      expect(mismatches, info, "neuroncore", count(doc.awsNeuronCore()), allocatable.milli(AwsLabels.RESOURCE_NEURON_CORE));
      expect(mismatches, info, "efa", count(doc.efa()), allocatable.milli(AwsLabels.RESOURCE_EFA));
      if (doc.podENI() != null) {
        expect(mismatches, info, "pod-eni", count(doc.podENI()), allocatable.milli(AwsLabels.RESOURCE_POD_ENI));
      } else if (allocatable.milli(AwsLabels.RESOURCE_POD_ENI) > 0) {
        podEniNotPublished++;
      }
    }
    assertEquals(1353, checked, "entries with ENI data");
    assertEquals(List.of(), mismatches);
    // The docs page omits pod-eni for types newer than its vpclimits table; capacity follows
    // vpclimits (the data file's podENI), as upstream's awsPodENI does.
    assertEquals(56, podEniNotPublished);
  }

  private static long count(Integer value) {
    return value == null ? 0 : value * 1000L;
  }

  private static void expect(List<String> mismatches, AwsInstanceTypeInfo info, String what, long expected, long actual) {
    if (expected != actual) {
      mismatches.add(info.name() + " " + what + ": published " + expected + "m, computed " + actual + "m");
    }
  }

  @Test
  void m5LargeMatchesTheWorkedExample() {
    InstanceType m5 = BY_NAME.get("m5.large");
    assertEquals("2", quantity(ResourceNames.CPU, m5.capacity()));
    assertEquals("7577Mi", quantity(ResourceNames.MEMORY, m5.capacity()));
    assertEquals("29", quantity(ResourceNames.PODS, m5.capacity()));
    assertEquals("70m", quantity(ResourceNames.CPU, m5.overhead().kubeReserved()));
    assertEquals("574Mi", quantity(ResourceNames.MEMORY, m5.overhead().kubeReserved()));
    assertEquals("1Gi", quantity(ResourceNames.EPHEMERAL_STORAGE, m5.overhead().kubeReserved()));
    assertEquals("100Mi", quantity(ResourceNames.MEMORY, m5.overhead().evictionThreshold()));
    assertEquals("2Gi", quantity(ResourceNames.EPHEMERAL_STORAGE, m5.overhead().evictionThreshold()));
    assertEquals("1930m", quantity(ResourceNames.CPU, m5.allocatable()));
    assertEquals("6903Mi", quantity(ResourceNames.MEMORY, m5.allocatable()));
    assertEquals("17Gi", quantity(ResourceNames.EPHEMERAL_STORAGE, m5.allocatable()));
  }

  private static String quantity(String resource, Resources resources) {
    return Quantity.format(resource, resources.milli(resource));
  }

  @Test
  void kubeReservedCpuFollowsTheTiers() {
    assertEquals(60, AwsInstanceTypes.kubeReservedCpuMilli(1000));
    assertEquals(70, AwsInstanceTypes.kubeReservedCpuMilli(2000));
    assertEquals(80, AwsInstanceTypes.kubeReservedCpuMilli(4000));
    assertEquals(90, AwsInstanceTypes.kubeReservedCpuMilli(8000));
    assertEquals(310, AwsInstanceTypes.kubeReservedCpuMilli(96000));
  }

  @Test
  void maxPodsUsesTheDefaultNetworkCardOnly() {
    assertEquals(29, pods("m5.large"));
    assertEquals(35, pods("t3.large"));
    assertEquals(394, pods("m6idn.32xlarge"));
  }

  private static long pods(String name) {
    return BY_NAME.get(name).capacity().milli(ResourceNames.PODS) / 1000;
  }

  @Test
  void estimatesNeverExceedWhatRealKubeletsReport() {
    Map<String, long[]> realKiAndMilliCpu =
        Map.of(
            "t4g.small", new long[] {1408312, 1930},
            "t4g.medium", new long[] {3377496, 1930},
            "t4g.xlarge", new long[] {15136012, 3920},
            "m5.large", new long[] {7220184, 1930});
    realKiAndMilliCpu.forEach(
        (name, real) -> {
          Resources allocatable = BY_NAME.get(name).allocatable();
          assertTrue(allocatable.milli(ResourceNames.MEMORY) <= real[0] * 1024 * 1000, name + " memory");
          assertTrue(allocatable.milli(ResourceNames.CPU) <= real[1], name + " cpu");
        });
  }

  @Test
  void typesWithoutEniDataFallBackTo110PodsAndAreNoted() {
    assertEquals(110, pods("g3.4xlarge"));
    assertTrue(CATALOG.notes().stream().anyMatch(n -> n.startsWith("11 types have no ENI data") && n.contains("p2.xlarge")));
  }

  @Test
  void requirementsCarryTheAwsLabels() {
    InstanceType flex = BY_NAME.get("m7i-flex.large");
    assertEquals("true", only(flex, AwsLabels.INSTANCE_CAPABILITY_FLEX));
    assertEquals("m", only(flex, AwsLabels.INSTANCE_CATEGORY));
    assertEquals("7", only(flex, AwsLabels.INSTANCE_GENERATION));
    assertEquals("m7i-flex", only(flex, AwsLabels.INSTANCE_FAMILY));
    assertEquals("large", only(flex, AwsLabels.INSTANCE_SIZE));

    InstanceType p5 = BY_NAME.get("p5.48xlarge");
    assertEquals("h100", only(p5, AwsLabels.INSTANCE_GPU_NAME));
    assertEquals("nvidia", only(p5, AwsLabels.INSTANCE_GPU_MANUFACTURER));
    assertEquals("8", only(p5, AwsLabels.INSTANCE_GPU_COUNT));
    assertEquals("81920", only(p5, AwsLabels.INSTANCE_GPU_MEMORY));
    assertEquals("false", only(p5, AwsLabels.INSTANCE_CAPABILITY_FLEX));

    InstanceType m5 = BY_NAME.get("m5.large");
    assertEquals("amd64", only(m5, Labels.ARCH));
    assertEquals("linux", only(m5, Labels.OS));
    assertEquals("us-east-1", only(m5, Labels.REGION));
    assertEquals("m5.large", only(m5, Labels.INSTANCE_TYPE));
    assertEquals("8192", only(m5, AwsLabels.INSTANCE_MEMORY));
    assertEquals("nitro", only(m5, AwsLabels.INSTANCE_HYPERVISOR));
    assertEquals("intel", only(m5, AwsLabels.INSTANCE_CPU_MANUFACTURER));
    assertEquals(AwsCatalogOptions.DEFAULT_ZONES, List.copyOf(m5.requirements().get(Labels.ZONE).values()));
    assertTrue(m5.requirements().get(Labels.CAPACITY_TYPE).has(Labels.CAPACITY_TYPE_SPOT));
    assertTrue(m5.requirements().get(AwsLabels.INSTANCE_GPU_NAME).isEmpty(), "no GPU: DoesNotExist");

    assertEquals("", only(BY_NAME.get("m5.metal"), AwsLabels.INSTANCE_HYPERVISOR));
    InstanceType inf2 = BY_NAME.get("inf2.xlarge");
    assertEquals("inferentia2", only(inf2, AwsLabels.INSTANCE_ACCELERATOR_NAME));
    assertEquals("aws", only(inf2, AwsLabels.INSTANCE_ACCELERATOR_MANUFACTURER));
    assertEquals("arm64", only(BY_NAME.get("m6g.large"), Labels.ARCH));
  }

  private static String only(InstanceType type, String key) {
    Requirement r = type.requirements().get(key);
    assertEquals(1, r.size(), key + " of " + type.name() + ": " + r);
    return r.any();
  }

  @Test
  void offersEveryZoneAndCapacityTypeWithSimulatedSpotBelowOnDemand() {
    InstanceType m5 = BY_NAME.get("m5.large");
    assertEquals(6, m5.offerings().size());
    for (Offering offering : m5.offerings()) {
      assertTrue(offering.available());
      if (offering.capacityType().equals(Labels.CAPACITY_TYPE_ON_DEMAND)) {
        assertEquals(0.096, offering.price());
      } else {
        assertTrue(offering.price() < 0.096 * 0.5 && offering.price() > 0.096 * 0.3, offering.toString());
      }
    }
    assertTrue(CATALOG.pricesSimulated());
    assertTrue(CATALOG.notes().stream().anyMatch(n -> n.startsWith("SIMULATED")));
  }

  @Test
  void zonesAndSpotModelAreParameters() {
    InstanceTypeCatalog catalog = InstanceTypeCatalog.aws(List.of("eu-west-1a"), SpotPriceModel.onDemand());
    InstanceType m5 = catalog.instanceTypes().stream().filter(t -> t.name().equals("m5.large")).findFirst().orElseThrow();
    assertEquals(2, m5.offerings().size());
    assertTrue(m5.offerings().stream().allMatch(o -> o.price() == 0.096 && o.zone().equals("eu-west-1a")));
    assertFalse(catalog.pricesSimulated());
  }

  @Test
  void a1TypesHaveNoAvailableOfferingOnAl2023() {
    assertTrue(BY_NAME.get("a1.large").offerings().stream().noneMatch(Offering::available));
  }

  @Test
  void everyPricedTypeIsInTheCatalogue() {
    assertEquals(1364, CATALOG.instanceTypes().size());
  }
}
