package sh.karpenter.core.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Overhead;
import sh.karpenter.core.resources.ResourceNames;
import sh.karpenter.core.resources.Resources;

class AwsNodeClassSettingsTest {
  private static final long MIB = 1L << 20;
  private static final AwsInstanceTypeInfo M5_LARGE = InstanceTypeCatalog.bundledAwsInstanceTypes().stream()
      .filter(i -> i.name().equals("m5.large")).findFirst().orElseThrow();

  @Test
  void defaultSettingsGiveTheBundledTypeExactly() {
    InstanceType bundled = InstanceTypeCatalog.aws().instanceTypes().stream()
        .filter(t -> t.name().equals("m5.large")).findFirst().orElseThrow();
    Resources capacity = AwsInstanceTypes.capacity(M5_LARGE, AwsCatalogOptions.DEFAULT, AwsNodeClassSettings.DEFAULT);
    Overhead overhead = AwsInstanceTypes.overhead(M5_LARGE, capacity, AwsNodeClassSettings.DEFAULT);
    assertEquals(bundled.capacity(), capacity);
    assertEquals(bundled.overhead(), overhead);
    assertSame(Resources.EMPTY, overhead.systemReserved());
  }

  @Test
  void maxPodsReplacesTheEniLimitAndPodsPerCoreCapsIt() {
    assertEquals(29, AwsInstanceTypes.pods(M5_LARGE, 0, AwsNodeClassSettings.DEFAULT));
    assertEquals(110, AwsInstanceTypes.pods(M5_LARGE, 0, settings(110, null)));
    assertEquals(6, AwsInstanceTypes.pods(M5_LARGE, 0, settings(110, 3)));
    assertEquals(20, AwsInstanceTypes.pods(M5_LARGE, 0, settings(null, 10)));
    assertEquals(29, AwsInstanceTypes.pods(M5_LARGE, 0, settings(null, 0)), "podsPerCore 0 is unset");
  }

  private static AwsNodeClassSettings settings(Integer maxPods, Integer podsPerCore) {
    return new AwsNodeClassSettings(maxPods, podsPerCore, Map.of(), Map.of(), Map.of(), null);
  }

  @Test
  void evictionSignalsArePercentagesRoundedUpOrQuantities() {
    assertEquals(794_821L, AwsNodeClassSettings.evictionSignal("memory.available", "10%", 7_948_206));
    assertEquals(0, AwsNodeClassSettings.evictionSignal("memory.available", "100%", 7_948_206), "100% counts as 0, as upstream");
    assertEquals(500 * MIB, AwsNodeClassSettings.evictionSignal("memory.available", "500Mi", 7_948_206));
  }

  @Test
  void kubeReservedReplacesOnlyTheResourcesItNames() {
    AwsNodeClassSettings settings = new AwsNodeClassSettings(
        null, null, AwsNodeClassSettings.parseQuantities("kubeReserved", Map.of("memory", "1Gi")), Map.of(), Map.of(), null);
    Resources capacity = AwsInstanceTypes.capacity(M5_LARGE, AwsCatalogOptions.DEFAULT, settings);
    Overhead overhead = AwsInstanceTypes.overhead(M5_LARGE, capacity, settings);
    assertEquals(1024 * MIB * 1000, overhead.kubeReserved().milli(ResourceNames.MEMORY));
    assertEquals(70, overhead.kubeReserved().milli(ResourceNames.CPU));
  }

  @Test
  void badValuesAreErrorsNamingTheField() {
    IllegalArgumentException quantity = assertThrows(IllegalArgumentException.class,
        () -> AwsNodeClassSettings.parseQuantities("spec.kubelet.kubeReserved", Map.of("cpu", "lots")));
    assertTrue(quantity.getMessage().contains("spec.kubelet.kubeReserved[cpu]"), quantity.getMessage());
    IllegalArgumentException percentage = assertThrows(IllegalArgumentException.class,
        () -> new AwsNodeClassSettings(null, null, Map.of(), Map.of(), Map.of("memory.available", "x%"), null));
    assertTrue(percentage.getMessage().contains("evictionHard[memory.available]"), percentage.getMessage());
    assertThrows(IllegalArgumentException.class, () -> settings(-1, null));
  }
}
