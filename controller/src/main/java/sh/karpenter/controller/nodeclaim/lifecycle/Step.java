package sh.karpenter.controller.nodeclaim.lifecycle;

import sh.karpenter.controller.runtime.Result;

/** One stage of the NodeClaim lifecycle, applied to the working copy in {@link LifecycleState}. */
interface Step {
  /** Moves the NodeClaim along; the result says when this step wants to look again. */
  Result reconcile(LifecycleState state);
}
