package sh.karpenter.core.topology;

/** The kind of constraint a {@link TopologyGroup} enforces. */
public enum TopologyType {
  SPREAD("topology spread"),
  POD_AFFINITY("pod affinity"),
  POD_ANTI_AFFINITY("pod anti-affinity");

  private final String description;

  TopologyType(String description) {
    this.description = description;
  }

  @Override
  public String toString() {
    return description;
  }
}
