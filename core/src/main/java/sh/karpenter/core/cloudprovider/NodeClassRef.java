package sh.karpenter.core.cloudprovider;

/**
 * A NodePool's or NodeClaim's {@code nodeClassRef}: the provider NodeClass it launches with. For
 * {@link CloudProvider#supportedNodeClasses()} only group and kind are meaningful ({@code name} is
 * "").
 */
public record NodeClassRef(String group, String kind, String name) {
  public NodeClassRef {
    group = group == null ? "" : group;
    kind = kind == null ? "" : kind;
    name = name == null ? "" : name;
  }

  /** True when this refers to the same kind as {@code other} (group and kind equal). */
  public boolean sameKind(NodeClassRef other) {
    return group.equals(other.group) && kind.equals(other.kind);
  }
}
