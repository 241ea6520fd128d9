package sh.karpenter.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Map;

/** The labels and annotations a NodePool copies onto its NodeClaims and nodes ({@code spec.template.metadata}). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NodeClaimTemplateMetadata {
  private Map<String, String> labels;
  private Map<String, String> annotations;

  public Map<String, String> getLabels() { return labels; }

  public void setLabels(Map<String, String> labels) { this.labels = labels; }

  public Map<String, String> getAnnotations() { return annotations; }

  public void setAnnotations(Map<String, String> annotations) { this.annotations = annotations; }
}
