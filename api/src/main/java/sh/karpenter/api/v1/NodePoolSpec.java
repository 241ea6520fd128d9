package sh.karpenter.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Map;

/** The desired configuration of a NodePool. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NodePoolSpec {
  private NodeClaimTemplate template;
  private Disruption disruption;
  private Map<String, Quantity> limits;
  private Integer weight;
  private Long replicas;

  public NodeClaimTemplate getTemplate() { return template; }

  public void setTemplate(NodeClaimTemplate template) { this.template = template; }

  public Disruption getDisruption() { return disruption; }

  public void setDisruption(Disruption disruption) { this.disruption = disruption; }

  /** Upper bounds on provisioned resources; the key {@code nodes} bounds the node count. */
  public Map<String, Quantity> getLimits() { return limits; }

  public void setLimits(Map<String, Quantity> limits) { this.limits = limits; }

  /** 1..100, higher first; null counts as 0. */
  public Integer getWeight() { return weight; }

  public void setWeight(Integer weight) { this.weight = weight; }

  /** Static capacity (alpha, gate StaticCapacity): the node count to keep; null for a dynamic pool. */
  public Long getReplicas() { return replicas; }

  public void setReplicas(Long replicas) { this.replicas = replicas; }
}
