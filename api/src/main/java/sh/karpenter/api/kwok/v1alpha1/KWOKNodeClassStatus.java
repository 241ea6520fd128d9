package sh.karpenter.api.kwok.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;

/** The observed state of a KWOKNodeClass; the CRD defaults it to a single Ready=True condition. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class KWOKNodeClassStatus {
  private List<Condition> conditions;

  public List<Condition> getConditions() { return conditions; }

  public void setConditions(List<Condition> conditions) { this.conditions = conditions; }
}
