package sh.karpenter.core.cloudprovider;

import java.util.List;
import java.util.Map;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.taints.Taint;

/**
 * What a NodeClaim asks the cloud provider to launch: the NodeClaim's name and NodePool, its
 * NodeClass, its requirements (instance types, zones, capacity types, ...), the resources its pods
 * and DaemonSets request, and the labels and taints the node will carry.
 */
public record LaunchRequest(
    String nodeClaimName,
    String nodePoolName,
    NodeClassRef nodeClassRef,
    Requirements requirements,
    Resources requests,
    Map<String, String> labels,
    List<Taint> taints,
    List<Taint> startupTaints) {
  public LaunchRequest {
    requirements = requirements.copy();
    labels = Map.copyOf(labels);
    taints = List.copyOf(taints);
    startupTaints = List.copyOf(startupTaints);
  }

  @Override
  public Requirements requirements() {
    return requirements.copy();
  }
}
