package sh.karpenter.api.aws.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Map;

/** Selects subnets by {@code tags} (a value of {@code *} matches any value) or by {@code id} ({@code subnet-...}). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SubnetSelectorTerm {
  private Map<String, String> tags;
  private String id;

  public SubnetSelectorTerm() {}

  public SubnetSelectorTerm(Map<String, String> tags, String id) {
    this.tags = tags;
    this.id = id;
  }

  public Map<String, String> getTags() { return tags; }

  public void setTags(Map<String, String> tags) { this.tags = tags; }

  public String getId() { return id; }

  public void setId(String id) { this.id = id; }
}
