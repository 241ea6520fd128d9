package sh.karpenter.core.cloudprovider;

import java.util.Map;
import sh.karpenter.core.resources.Resources;

/**
 * A launched instance as the cloud provider reports it: what Launch copies onto the NodeClaim.
 *
 * @param providerId the node's {@code spec.providerID}, e.g. {@code kwok://kwok-default-abc12-0}
 * @param labels the labels the instance resolves (instance type, zone, capacity type, arch, os, ...)
 * @param imageId the image the instance booted, or "" when the provider has none
 */
public record Instance(
    String providerId,
    String instanceType,
    String zone,
    String capacityType,
    Map<String, String> labels,
    Map<String, String> annotations,
    Resources capacity,
    Resources allocatable,
    String imageId) {
  public Instance {
    labels = Map.copyOf(labels);
    annotations = Map.copyOf(annotations);
    imageId = imageId == null ? "" : imageId;
  }
}
