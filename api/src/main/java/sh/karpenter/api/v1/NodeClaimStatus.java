package sh.karpenter.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;

/** The observed state of a NodeClaim and the instance that fulfils it. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NodeClaimStatus {
  private String nodeName;
  private String providerID;
  private String imageID;
  private Map<String, Quantity> capacity;
  private Map<String, Quantity> allocatable;
  private List<Condition> conditions;
  private String lastPodEventTime;

  public String getNodeName() { return nodeName; }

  public void setNodeName(String nodeName) { this.nodeName = nodeName; }

  public String getProviderID() { return providerID; }

  public void setProviderID(String providerID) { this.providerID = providerID; }

  public String getImageID() { return imageID; }

  public void setImageID(String imageID) { this.imageID = imageID; }

  public Map<String, Quantity> getCapacity() { return capacity; }

  public void setCapacity(Map<String, Quantity> capacity) { this.capacity = capacity; }

  public Map<String, Quantity> getAllocatable() { return allocatable; }

  public void setAllocatable(Map<String, Quantity> allocatable) { this.allocatable = allocatable; }

  /** {@link ConditionTypes#LAUNCHED}, {@link ConditionTypes#REGISTERED}, {@link ConditionTypes#INITIALIZED}, ... */
  public List<Condition> getConditions() { return conditions; }

  public void setConditions(List<Condition> conditions) { this.conditions = conditions; }

  /** RFC 3339 time a pod was last bound to or removed from the node. */
  public String getLastPodEventTime() { return lastPodEventTime; }

  public void setLastPodEventTime(String lastPodEventTime) { this.lastPodEventTime = lastPodEventTime; }
}
