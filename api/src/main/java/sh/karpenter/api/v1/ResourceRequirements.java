package sh.karpenter.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Map;

/** The resources a NodeClaim's node must offer ({@code spec.resources}); only requests exist. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ResourceRequirements {
  private Map<String, Quantity> requests;

  public Map<String, Quantity> getRequests() { return requests; }

  public void setRequests(Map<String, Quantity> requests) { this.requests = requests; }
}
