package sh.karpenter.api.aws.v1;

import com.fasterxml.jackson.annotation.JsonInclude;

/** CPU options of the instances. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class CPUOptions {
  private String nestedVirtualization;

  /** {@code enabled} (only instance types reporting nested-virtualization support are used) or {@code disabled}. */
  public String getNestedVirtualization() { return nestedVirtualization; }

  public void setNestedVirtualization(String nestedVirtualization) { this.nestedVirtualization = nestedVirtualization; }
}
