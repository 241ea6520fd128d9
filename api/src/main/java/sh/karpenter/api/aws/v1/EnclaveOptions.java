package sh.karpenter.api.aws.v1;

import com.fasterxml.jackson.annotation.JsonInclude;

/** Nitro Enclaves: when {@code enabled}, only instance types that support them are used. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class EnclaveOptions {
  private Boolean enabled;

  /** Required when the object is given. */
  public Boolean getEnabled() { return enabled; }

  public void setEnabled(Boolean enabled) { this.enabled = enabled; }
}
