package sh.karpenter.providers.aws.nodeclass;

import sh.karpenter.api.aws.v1.EC2NodeClass;

/**
 * Work the termination finalizer does for a deleted EC2NodeClass once no NodeClaim uses it, before it
 * lets the class go (upstream deletes the class's launch templates here: the launch template provider
 * plugs in through this). Throwing keeps the finalizer and retries with backoff.
 */
@FunctionalInterface
public interface NodeClassCleanup {
  void cleanUp(EC2NodeClass nodeClass) throws Exception;
}
