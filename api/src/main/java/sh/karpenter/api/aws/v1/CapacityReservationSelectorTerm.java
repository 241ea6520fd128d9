package sh.karpenter.api.aws.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Map;

/**
 * Selects capacity reservations by {@code tags}, {@code id} ({@code cr-...}), {@code ownerID} (a
 * 12-digit account) and {@code instanceMatchCriteria} ({@code open} or {@code targeted}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class CapacityReservationSelectorTerm {
  private Map<String, String> tags;
  private String id;
  private String ownerID;
  private String instanceMatchCriteria;

  public Map<String, String> getTags() { return tags; }

  public void setTags(Map<String, String> tags) { this.tags = tags; }

  public String getId() { return id; }

  public void setId(String id) { this.id = id; }

  @JsonProperty("ownerID")
  public String getOwnerID() { return ownerID; }

  public void setOwnerID(String ownerID) { this.ownerID = ownerID; }

  public String getInstanceMatchCriteria() { return instanceMatchCriteria; }

  public void setInstanceMatchCriteria(String instanceMatchCriteria) { this.instanceMatchCriteria = instanceMatchCriteria; }
}
