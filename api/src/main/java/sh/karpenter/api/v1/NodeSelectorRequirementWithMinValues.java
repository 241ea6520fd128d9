package sh.karpenter.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * A node selector requirement ({@code key}, {@code operator}, {@code values}) that may also ask the
 * scheduler to keep at least {@code minValues} distinct values of the key available. The operator stays
 * a string here (In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte); {@code sh.karpenter.core.requirements}
 * holds the algebra.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NodeSelectorRequirementWithMinValues {
  private String key;
  private String operator;
  private List<String> values;
  private Integer minValues;

  public NodeSelectorRequirementWithMinValues() {}

  public NodeSelectorRequirementWithMinValues(String key, String operator, List<String> values, Integer minValues) {
    this.key = key;
    this.operator = operator;
    this.values = values;
    this.minValues = minValues;
  }

  public String getKey() { return key; }

  public void setKey(String key) { this.key = key; }

  public String getOperator() { return operator; }

  public void setOperator(String operator) { this.operator = operator; }

  public List<String> getValues() { return values; }

  public void setValues(List<String> values) { this.values = values; }

  public Integer getMinValues() { return minValues; }

  public void setMinValues(Integer minValues) { this.minValues = minValues; }
}
