package sh.karpenter.api.aws.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Map;

/**
 * Selects security groups by {@code tags}, by {@code id} ({@code sg-...}) or by {@code name} (the group
 * name, not its Name tag).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SecurityGroupSelectorTerm {
  private Map<String, String> tags;
  private String id;
  private String name;

  public Map<String, String> getTags() { return tags; }

  public void setTags(Map<String, String> tags) { this.tags = tags; }

  public String getId() { return id; }

  public void setId(String id) { this.id = id; }

  public String getName() { return name; }

  public void setName(String name) { this.name = name; }
}
