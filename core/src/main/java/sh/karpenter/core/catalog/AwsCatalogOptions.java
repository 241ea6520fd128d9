package sh.karpenter.core.catalog;

import java.util.List;

/**
 * How the AWS data file becomes instance types: the zones every type is offered in (the data has no
 * per-type zones), where spot prices come from, and the two AWS provider settings that change
 * allocatable ({@code VM_MEMORY_OVERHEAD_PERCENT} and {@code RESERVED_ENIS}). The node image is
 * AL2023 with the default 20Gi root volume and default kubelet settings, as in the published figures.
 *
 * @param zones zones of the region to offer every type in, at least one
 * @param spotPrices the spot price model
 * @param vmMemoryOverheadPercent share of memory the hypervisor keeps, upstream default 0.075
 * @param reservedEnis ENIs kept from pods, upstream default 0
 */
public record AwsCatalogOptions(
    List<String> zones, SpotPriceModel spotPrices, double vmMemoryOverheadPercent, int reservedEnis) {

  /** us-east-1a, 1b and 1c. */
  public static final List<String> DEFAULT_ZONES = List.of("us-east-1a", "us-east-1b", "us-east-1c");

  public static final double DEFAULT_VM_MEMORY_OVERHEAD_PERCENT = 0.075;

  /** Three us-east-1 zones, simulated spot discounts, upstream's default settings. */
  public static final AwsCatalogOptions DEFAULT =
      new AwsCatalogOptions(
          DEFAULT_ZONES, SpotPriceModel.simulatedDiscount(), DEFAULT_VM_MEMORY_OVERHEAD_PERCENT, 0);

  public AwsCatalogOptions {
    zones = List.copyOf(zones);
    if (zones.isEmpty()) {
      throw new IllegalArgumentException("at least one zone is needed");
    }
    if (!(vmMemoryOverheadPercent >= 0 && vmMemoryOverheadPercent < 1)) {
      throw new IllegalArgumentException(
          "vmMemoryOverheadPercent must be in [0, 1): " + vmMemoryOverheadPercent);
    }
    if (reservedEnis < 0) {
      throw new IllegalArgumentException("reservedEnis must not be negative: " + reservedEnis);
    }
  }

  public AwsCatalogOptions withZones(List<String> newZones) {
    return new AwsCatalogOptions(newZones, spotPrices, vmMemoryOverheadPercent, reservedEnis);
  }

  public AwsCatalogOptions withSpotPrices(SpotPriceModel model) {
    return new AwsCatalogOptions(zones, model, vmMemoryOverheadPercent, reservedEnis);
  }
}
