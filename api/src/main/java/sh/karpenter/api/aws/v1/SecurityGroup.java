package sh.karpenter.api.aws.v1;

import com.fasterxml.jackson.annotation.JsonInclude;

/** A security group the security group selectors matched. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SecurityGroup {
  private String id;
  private String name;

  public String getId() { return id; }

  public void setId(String id) { this.id = id; }

  public String getName() { return name; }

  public void setName(String name) { this.name = name; }
}
