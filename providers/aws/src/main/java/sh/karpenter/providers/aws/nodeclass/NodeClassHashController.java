package sh.karpenter.providers.aws.nodeclass;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import sh.karpenter.api.aws.v1.AwsAnnotations;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.api.aws.v1.EC2NodeClassHash;
import sh.karpenter.api.v1.ConditionTypes;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.Reconciler;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.controller.runtime.writes.OptimisticWrites;

/**
 * The {@code nodeclass.hash} controller, keyed by EC2NodeClass name (upstream's nodeclass hash
 * controller): keeps {@link AwsAnnotations#EC2_NODE_CLASS_HASH} ({@link EC2NodeClassHash}) and
 * {@link AwsAnnotations#EC2_NODE_CLASS_HASH_VERSION} on the class current. When the class's hash
 * version is not this one's, it first moves the class's NodeClaims to this version: each NodeClaim of
 * another version gets the new version, and the new hash too unless it already has a {@code Drifted}
 * condition, so a change of hash algorithm does not drift every node.
 */
public final class NodeClassHashController implements Reconciler<String> {
  public static final String NAME = "nodeclass.hash";

  private final KubernetesClient client;
  private final SharedIndexInformer<EC2NodeClass> nodeClasses;
  private final Informers informers;
  private final Optional<String> caBundle;

  public NodeClassHashController(KubernetesClient client, SharedIndexInformer<EC2NodeClass> nodeClasses, Informers informers, Optional<String> caBundle) {
    this.client = client;
    this.nodeClasses = nodeClasses;
    this.informers = informers;
    this.caBundle = caBundle;
  }

  @Override
  public Result reconcile(String name) {
    EC2NodeClass nodeClass = NodeClassLookup.get(client, nodeClasses, name);
    if (nodeClass == null) {
      return Result.done();
    }
    Map<String, String> annotations = nodeClass.getMetadata().getAnnotations() == null ? Map.of() : nodeClass.getMetadata().getAnnotations();
    String hash = EC2NodeClassHash.of(nodeClass, caBundle.orElse(null));
    if (!EC2NodeClassHash.VERSION.equals(annotations.get(AwsAnnotations.EC2_NODE_CLASS_HASH_VERSION))) {
      for (NodeClaim claim : NodeClassLookup.nodeClaimsOf(informers, name)) {
        rehash(claim, hash);
      }
    }
    if (hash.equals(annotations.get(AwsAnnotations.EC2_NODE_CLASS_HASH))
        && EC2NodeClassHash.VERSION.equals(annotations.get(AwsAnnotations.EC2_NODE_CLASS_HASH_VERSION))) {
      return Result.done();
    }
    try {
      OptimisticWrites.mergePatch(client.resources(EC2NodeClass.class).withName(name), client.getKubernetesSerialization(), null,
          OptimisticWrites.metadata(Map.of("annotations", Map.of(
              AwsAnnotations.EC2_NODE_CLASS_HASH, hash,
              AwsAnnotations.EC2_NODE_CLASS_HASH_VERSION, EC2NodeClassHash.VERSION))));
    } catch (RuntimeException e) {
      if (!OptimisticWrites.isNotFound(e)) {
        throw e;
      }
    }
    return Result.done();
  }

  private void rehash(NodeClaim claim, String hash) {
    Map<String, String> annotations = claim.getMetadata().getAnnotations() == null ? Map.of() : claim.getMetadata().getAnnotations();
    if (EC2NodeClassHash.VERSION.equals(annotations.get(AwsAnnotations.EC2_NODE_CLASS_HASH_VERSION))) {
      return;
    }
    Map<String, Object> patch = new LinkedHashMap<>();
    patch.put(AwsAnnotations.EC2_NODE_CLASS_HASH_VERSION, EC2NodeClassHash.VERSION);
    if (Conditions.get(claim.getStatus() == null ? null : claim.getStatus().getConditions(), ConditionTypes.DRIFTED).isEmpty()) {
      patch.put(AwsAnnotations.EC2_NODE_CLASS_HASH, hash);
    }
    try {
      OptimisticWrites.mergePatch(client.resources(NodeClaim.class).withName(claim.getMetadata().getName()), client.getKubernetesSerialization(),
          null, OptimisticWrites.metadata(Map.of("annotations", patch)));
    } catch (RuntimeException e) {
      if (!OptimisticWrites.isNotFound(e)) {
        throw e;
      }
    }
  }
}
