package sh.karpenter.api.aws.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import java.util.List;

/** An AMI the AMI selectors matched, with the requirements an instance type must meet to use it. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class AMI {
  private String id;
  private Boolean deprecated;
  private String name;
  private List<NodeSelectorRequirement> requirements;

  public String getId() { return id; }

  public void setId(String id) { this.id = id; }

  public Boolean getDeprecated() { return deprecated; }

  public void setDeprecated(Boolean deprecated) { this.deprecated = deprecated; }

  public String getName() { return name; }

  public void setName(String name) { this.name = name; }

  /** Architecture, and for accelerated variants the GPU or accelerator requirement. */
  public List<NodeSelectorRequirement> getRequirements() { return requirements; }

  public void setRequirements(List<NodeSelectorRequirement> requirements) { this.requirements = requirements; }
}
