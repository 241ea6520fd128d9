package sh.karpenter.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;

/** The template a NodePool stamps its NodeClaims from ({@code spec.template}). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NodeClaimTemplate {
  private NodeClaimTemplateMetadata metadata;
  private NodeClaimTemplateSpec spec;

  public NodeClaimTemplateMetadata getMetadata() { return metadata; }

  public void setMetadata(NodeClaimTemplateMetadata metadata) { this.metadata = metadata; }

  public NodeClaimTemplateSpec getSpec() { return spec; }

  public void setSpec(NodeClaimTemplateSpec spec) { this.spec = spec; }
}
