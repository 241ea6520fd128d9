package sh.karpenter.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.Taint;
import java.util.List;

/** What every NodeClaim of a NodePool must satisfy ({@code spec.template.spec}). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NodeClaimTemplateSpec {
  private List<Taint> taints;
  private List<Taint> startupTaints;
  private List<NodeSelectorRequirementWithMinValues> requirements;
  private NodeClassReference nodeClassRef;
  private NillableDuration expireAfter;
  private GoDuration terminationGracePeriod;

  public List<Taint> getTaints() { return taints; }

  public void setTaints(List<Taint> taints) { this.taints = taints; }

  /** Taints present at launch that a daemon removes; pods need not tolerate them. */
  public List<Taint> getStartupTaints() { return startupTaints; }

  public void setStartupTaints(List<Taint> startupTaints) { this.startupTaints = startupTaints; }

  public List<NodeSelectorRequirementWithMinValues> getRequirements() { return requirements; }

  public void setRequirements(List<NodeSelectorRequirementWithMinValues> requirements) { this.requirements = requirements; }

  public NodeClassReference getNodeClassRef() { return nodeClassRef; }

  public void setNodeClassRef(NodeClassReference nodeClassRef) { this.nodeClassRef = nodeClassRef; }

  /** Age after which a node is replaced regardless of budgets; CRD default {@code 720h}. */
  public NillableDuration getExpireAfter() { return expireAfter; }

  public void setExpireAfter(NillableDuration expireAfter) { this.expireAfter = expireAfter; }

  /** Longest a draining node waits for its pods; null waits forever. */
  public GoDuration getTerminationGracePeriod() { return terminationGracePeriod; }

  public void setTerminationGracePeriod(GoDuration terminationGracePeriod) { this.terminationGracePeriod = terminationGracePeriod; }
}
