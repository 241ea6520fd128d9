package sh.karpenter.api.aws.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Map;

/**
 * Selects AMIs: an EKS-optimized {@code alias} ({@code family@version}, see {@link Alias}), or any of
 * {@code tags}, {@code id} ({@code ami-...}), {@code name}, {@code owner} and {@code ssmParameter}.
 * {@code id} and {@code alias} each exclude the other fields.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class AMISelectorTerm {
  private String alias;
  private Map<String, String> tags;
  private String id;
  private String name;
  private String owner;
  private String ssmParameter;

  public AMISelectorTerm() {}

  /** A term with only an alias. */
  public static AMISelectorTerm ofAlias(String alias) {
    AMISelectorTerm term = new AMISelectorTerm();
    term.setAlias(alias);
    return term;
  }

  public String getAlias() { return alias; }

  public void setAlias(String alias) { this.alias = alias; }

  public Map<String, String> getTags() { return tags; }

  public void setTags(Map<String, String> tags) { this.tags = tags; }

  public String getId() { return id; }

  public void setId(String id) { this.id = id; }

  public String getName() { return name; }

  public void setName(String name) { this.name = name; }

  /** Account IDs, {@code self}, {@code amazon} or {@code aws-marketplace}. */
  public String getOwner() { return owner; }

  public void setOwner(String owner) { this.owner = owner; }

  /** The name or ARN of an SSM parameter holding an image ID. */
  @JsonProperty("ssmParameter")
  public String getSsmParameter() { return ssmParameter; }

  public void setSsmParameter(String ssmParameter) { this.ssmParameter = ssmParameter; }
}
