package sh.karpenter.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.Taint;
import java.util.List;

/** What a NodeClaim's node must satisfy. Immutable once created (CEL {@code self == oldSelf}). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NodeClaimSpec {
  private List<Taint> taints;
  private List<Taint> startupTaints;
  private List<NodeSelectorRequirementWithMinValues> requirements;
  private ResourceRequirements resources;
  private NodeClassReference nodeClassRef;
  private GoDuration terminationGracePeriod;
  private NillableDuration expireAfter;

  public List<Taint> getTaints() { return taints; }

  public void setTaints(List<Taint> taints) { this.taints = taints; }

  public List<Taint> getStartupTaints() { return startupTaints; }

  public void setStartupTaints(List<Taint> startupTaints) { this.startupTaints = startupTaints; }

  public List<NodeSelectorRequirementWithMinValues> getRequirements() { return requirements; }

  public void setRequirements(List<NodeSelectorRequirementWithMinValues> requirements) { this.requirements = requirements; }

  public ResourceRequirements getResources() { return resources; }

  public void setResources(ResourceRequirements resources) { this.resources = resources; }

  public NodeClassReference getNodeClassRef() { return nodeClassRef; }

  public void setNodeClassRef(NodeClassReference nodeClassRef) { this.nodeClassRef = nodeClassRef; }

  public GoDuration getTerminationGracePeriod() { return terminationGracePeriod; }

  public void setTerminationGracePeriod(GoDuration terminationGracePeriod) { this.terminationGracePeriod = terminationGracePeriod; }

  /** CRD default {@code 720h}. */
  public NillableDuration getExpireAfter() { return expireAfter; }

  public void setExpireAfter(NillableDuration expireAfter) { this.expireAfter = expireAfter; }
}
