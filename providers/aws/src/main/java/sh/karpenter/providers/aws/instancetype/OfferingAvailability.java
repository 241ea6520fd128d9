package sh.karpenter.providers.aws.instancetype;

public interface OfferingAvailability { boolean unavailable(String instanceType, String zone, String capacityType); }
