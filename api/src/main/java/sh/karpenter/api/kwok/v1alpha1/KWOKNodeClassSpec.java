package sh.karpenter.api.kwok.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import sh.karpenter.api.v1.GoDuration;

/** The desired configuration of KWOK's fake nodes. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class KWOKNodeClassSpec {
  private GoDuration nodeRegistrationDelay;

  /** How long a fake node waits before it registers; null registers at once. */
  public GoDuration getNodeRegistrationDelay() { return nodeRegistrationDelay; }

  public void setNodeRegistrationDelay(GoDuration nodeRegistrationDelay) { this.nodeRegistrationDelay = nodeRegistrationDelay; }
}
