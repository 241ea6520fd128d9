package sh.karpenter.core.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.resources.Quantity;
import sh.karpenter.core.resources.ResourceNames;
import sh.karpenter.core.wellknown.Labels;

class FakeAndKwokInstanceTypesTest {

  @Test
  void fakeInstanceTypesGrowByOneCpuTwoGiAndTenPods() {
    List<InstanceType> types = FakeInstanceTypes.instanceTypes(400);
    assertEquals(400, types.size());
    InstanceType third = types.get(2);
    assertEquals("fake-it-2", third.name());
    assertEquals(3000, third.capacity().milli(ResourceNames.CPU));
    assertEquals("6Gi", Quantity.format(ResourceNames.MEMORY, third.capacity().milli(ResourceNames.MEMORY)));
    assertEquals(30_000, third.capacity().milli(ResourceNames.PODS));
    assertEquals(2900, third.allocatable().milli(ResourceNames.CPU), "kube-reserved 100m");
    assertEquals(5, third.offerings().size());
    assertEquals(0.1 * 3 + 0.1 * 6 * (1L << 30) / 1e9, third.offerings().get(0).price(), 1e-12);
    assertEquals("3", third.requirements().get(FakeInstanceTypes.LABEL_INTEGER).any());
    assertEquals("small", third.requirements().get(FakeInstanceTypes.LABEL_SIZE).any());
    assertTrue(third.requirements().get(FakeInstanceTypes.LABEL_EXOTIC).isEmpty());
    InstanceType large = types.get(4);
    assertEquals("large", large.requirements().get(FakeInstanceTypes.LABEL_SIZE).any());
    assertEquals("optional", large.requirements().get(FakeInstanceTypes.LABEL_EXOTIC).any());
    assertEquals(3, third.requirements().get(Labels.ZONE).size());
    assertEquals(3, third.requirements().get(Labels.OS).size());
  }

  @Test
  void assortedHasOneTypePerCombination() {
    List<InstanceType> types = FakeInstanceTypes.assorted();
    assertEquals(1344, types.size());
    InstanceType first = types.get(0);
    assertEquals("1-cpu-1-mem-amd64-linux-test-zone-1-spot", first.name());
    assertEquals(1, first.offerings().size());
    assertEquals(5000, first.capacity().milli(ResourceNames.PODS), "default 5 pods");
  }

  @Test
  void defaultCatalogueMatchesUpstream() {
    List<InstanceType> types = FakeInstanceTypes.defaults();
    assertEquals(
        List.of("default-instance-type", "small-instance-type", "gpu-vendor-instance-type",
            "gpu-vendor-b-instance-type", "arm-instance-type", "single-pod-instance-type"),
        types.stream().map(InstanceType::name).toList());
    InstanceType gpu = types.get(2);
    assertEquals(2000, gpu.capacity().milli(FakeInstanceTypes.RESOURCE_GPU_VENDOR_A));
    assertEquals(0.1 * 4 + 0.1 * 4 * (1L << 30) / 1e9 + 1.0, gpu.offerings().get(0).price(), 1e-12);
    assertEquals("arm64", types.get(4).requirements().get(Labels.ARCH).any());
    assertEquals(1000, types.get(5).capacity().milli(ResourceNames.PODS));
  }

  @Test
  void kwokGeneratesTheUpstreamCatalogue() {
    List<InstanceType> types = KwokInstanceTypes.generated();
    assertEquals(144, types.size());
    InstanceType first = types.get(0);
    assertEquals("c-1x-amd64-linux", first.name());
    assertEquals(8, first.offerings().size());
    Offering spot = first.offerings().get(0);
    assertEquals(Labels.CAPACITY_TYPE_SPOT, spot.capacityType());
    assertEquals("test-zone-a", spot.zone());
    assertEquals(0.019003238553599998, spot.price(), 1e-15);
    assertEquals(0.027147483648, first.offerings().get(1).price(), 1e-15);
    assertEquals(16_000, first.capacity().milli(ResourceNames.PODS));
    assertEquals("1", first.requirements().get(Labels.KWOK_INSTANCE_SIZE).any());
    assertEquals("c", first.requirements().get(Labels.KWOK_INSTANCE_FAMILY).any());
    assertEquals("2Gi", first.requirements().get(Labels.KWOK_INSTANCE_MEMORY).any());
    assertEquals(1024_000, types.get(143).capacity().milli(ResourceNames.PODS), "pods capped at 1024");
  }

  @Test
  void loadsBothKwokOfferingFormatsFromAFile(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("types.json");
    Files.writeString(
        file,
        """
        [
          {"name": "m5.large", "architecture": "amd64", "operatingSystems": ["linux"],
           "resources": {"cpu": "2", "memory": "8Gi"},
           "offerings": [{"CapacityType": "spot", "Zone": "z1", "Price": 0.04, "Available": false}]},
          {"name": "big-one", "architecture": "arm64", "operatingSystems": ["linux"],
           "resources": {"cpu": "64", "memory": "256Gi", "pods": "500"},
           "offerings": [{"Price": 3.5, "Available": true, "Requirements": [
             {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]},
             {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["z2"]}]}]}
        ]
        """);
    InstanceTypeCatalog catalog = InstanceTypeCatalog.fromFile(file);
    InstanceType m5 = catalog.instanceTypes().get(0);
    assertEquals(110_000, m5.capacity().milli(ResourceNames.PODS), "default 110 pods");
    assertTrue(m5.offerings().get(0).available(), "KWOK makes every offering available");
    assertEquals("large", m5.requirements().get(Labels.KWOK_INSTANCE_SIZE).any());
    assertEquals("m5", m5.requirements().get(Labels.KWOK_INSTANCE_FAMILY).any());
    InstanceType big = catalog.instanceTypes().get(1);
    assertEquals("z2", big.offerings().get(0).zone());
    assertEquals("64", big.requirements().get(Labels.KWOK_INSTANCE_SIZE).any());
    assertEquals("big", big.requirements().get(Labels.KWOK_INSTANCE_FAMILY).any());
    assertEquals(500_000, big.capacity().milli(ResourceNames.PODS));
  }

  @Test
  void detectsTheAwsFormatByItsInstanceTypesField(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("aws.json");
    Files.writeString(
        file,
        """
        {"region": "eu-west-1", "pricesGeneratedAt": "then", "instanceTypes": [
          {"name": "m5.large", "vcpu": 2, "memoryMiB": 8192, "arch": "amd64", "ipv4PerENI": 10,
           "defaultCardMaxENIs": 3, "family": "m5", "category": "m", "generation": 5, "size": "large",
           "onDemandPricePerHour": 0.107, "someFutureField": 1}]}
        """);
    InstanceTypeCatalog catalog = InstanceTypeCatalog.fromFile(file, AwsCatalogOptions.DEFAULT.withZones(List.of("eu-west-1a")));
    InstanceType m5 = catalog.instanceTypes().get(0);
    assertEquals(1930, m5.allocatable().milli(ResourceNames.CPU));
    assertEquals("eu-west-1", m5.requirements().get(Labels.REGION).any());
    assertEquals(2, m5.offerings().size());
  }

  @Test
  void malformedFilesNameTheFileAndTheProblem(@TempDir Path dir) throws IOException {
    Path notJson = dir.resolve("bad.json");
    Files.writeString(notJson, "{nope");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> InstanceTypeCatalog.fromFile(notJson));
    assertTrue(e.getMessage().startsWith(notJson + ": not valid JSON"), e.getMessage());

    Path noPrice = dir.resolve("kwok.json");
    Files.writeString(noPrice, "[{\"name\": \"x\", \"offerings\": [{\"Zone\": \"z\", \"CapacityType\": \"spot\"}]}]");
    e = assertThrows(IllegalArgumentException.class, () -> InstanceTypeCatalog.fromFile(noPrice));
    assertTrue(e.getMessage().contains("instance type [0] (x).offerings[0]: missing or invalid Price"), e.getMessage());

    Path neither = dir.resolve("other.json");
    Files.writeString(neither, "{\"types\": []}");
    e = assertThrows(IllegalArgumentException.class, () -> InstanceTypeCatalog.fromFile(neither));
    assertTrue(e.getMessage().endsWith("other.json: missing instanceTypes"), e.getMessage());
  }
}
