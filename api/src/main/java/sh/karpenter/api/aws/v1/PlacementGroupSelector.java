package sh.karpenter.api.aws.v1;

import com.fasterxml.jackson.annotation.JsonInclude;

/** Names the placement group to launch into: exactly one of {@code name} and {@code id} ({@code pg-...}). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PlacementGroupSelector {
  private String name;
  private String id;

  public String getName() { return name; }

  public void setName(String name) { this.name = name; }

  public String getId() { return id; }

  public void setId(String id) { this.id = id; }
}
