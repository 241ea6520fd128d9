package sh.karpenter.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;

/** Points at the cloud-provider node class ({@code group}, {@code kind}, {@code name}) that configures instances. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NodeClassReference {
  private String kind;
  private String name;
  private String group;

  public NodeClassReference() {}

  public NodeClassReference(String group, String kind, String name) {
    this.group = group;
    this.kind = kind;
    this.name = name;
  }

  public String getKind() { return kind; }

  public void setKind(String kind) { this.kind = kind; }

  public String getName() { return name; }

  public void setName(String name) { this.name = name; }

  public String getGroup() { return group; }

  public void setGroup(String group) { this.group = group; }

  /** Whether this reference names the NodeClass {@code group/kind/name}. */
  public boolean refersTo(String group, String kind, String name) {
    return java.util.Objects.equals(this.group, group) && java.util.Objects.equals(this.kind, kind) && java.util.Objects.equals(this.name, name);
  }
}
