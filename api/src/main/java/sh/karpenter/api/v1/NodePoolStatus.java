package sh.karpenter.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;

/** The observed state of a NodePool. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NodePoolStatus {
  private Map<String, Quantity> resources;
  private Long nodes;
  private List<Condition> conditions;
  private Long nodeClassObservedGeneration;

  /** Resources of the pool's nodes, summed (including {@code nodes}). */
  public Map<String, Quantity> getResources() { return resources; }

  public void setResources(Map<String, Quantity> resources) { this.resources = resources; }

  /** Number of nodes the pool owns; the scale subresource's status replicas. */
  public Long getNodes() { return nodes; }

  public void setNodes(Long nodes) { this.nodes = nodes; }

  /** {@link ConditionTypes#VALIDATION_SUCCEEDED}, {@link ConditionTypes#NODE_CLASS_READY}, ... */
  public List<Condition> getConditions() { return conditions; }

  public void setConditions(List<Condition> conditions) { this.conditions = conditions; }

  public Long getNodeClassObservedGeneration() { return nodeClassObservedGeneration; }

  public void setNodeClassObservedGeneration(Long nodeClassObservedGeneration) { this.nodeClassObservedGeneration = nodeClassObservedGeneration; }
}
