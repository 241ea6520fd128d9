package sh.karpenter.providers.aws.instancetype;

/**
 * Whether an offering is known to be out of capacity (upstream's unavailable-offerings cache, fed by
 * insufficient-capacity errors from launches); an unavailable offering is listed but not available.
 */
public interface OfferingAvailability {
  boolean unavailable(String instanceType, String zone, String capacityType);
}
