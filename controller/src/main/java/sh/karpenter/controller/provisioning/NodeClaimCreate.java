package sh.karpenter.controller.provisioning;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.v1.NodeClaim;

/**
 * Creates a NodeClaim so that a retried request cannot make a second one. The client retries a
 * request, a {@code POST} included, on 429, any 5xx and I/O errors; with {@code generateName}, a create
 * that the API server carried out but whose answer was lost (a connection reset, an etcd timeout
 * answered 500 and committed later) would come back as a second NodeClaim for the same pods. So the
 * name is chosen here, in {@code generateName}'s form ({@code <nodepool>-<5 characters>} of Kubernetes'
 * alphabet), and a {@code 409 AlreadyExists} is answered by reading that NodeClaim: when it is the one
 * this request describes (same labels, requirements, requests and NodePool), it is the earlier attempt's
 * and is returned; otherwise the name was taken by another NodeClaim and a new one is drawn.
 */
public final class NodeClaimCreate {
  private static final Logger LOG = LoggerFactory.getLogger(NodeClaimCreate.class);
  /** Kubernetes' {@code generateName} alphabet: no vowels, no look-alike digits. */
  static final String ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
  static final int SUFFIX_LENGTH = 5;
  /** Names drawn before a conflict is given up on (each a 1 in 14 million chance of meeting another). */
  static final int ATTEMPTS = 3;

  private NodeClaimCreate() {}

  /**
   * Creates {@code claim} (whose {@code generateName} is its prefix) under a name chosen here; sets
   * {@code claim}'s name and clears its {@code generateName}.
   */
  public static NodeClaim create(KubernetesClient client, NodeClaim claim) {
    return create(client, claim, ThreadLocalRandom.current());
  }

  static NodeClaim create(KubernetesClient client, NodeClaim claim, RandomGenerator random) {
    String prefix = Objects.requireNonNull(claim.getMetadata().getGenerateName(), "generateName");
    KubernetesClientException conflict = null;
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      NodeClaim named = claim;
      String name = prefix + suffix(random);
      named.getMetadata().setName(name);
      named.getMetadata().setGenerateName(null);
      try {
        return client.resources(NodeClaim.class).resource(named).create();
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409) {
          throw e;
        }
        conflict = e;
        NodeClaim existing = client.resources(NodeClaim.class).withName(name).get();
        if (existing != null && sameRequest(existing, named)) {
          LOG.atInfo().setMessage("adopted nodeclaim an earlier attempt of the same create made").addKeyValue("NodeClaim", name).log();
          return existing;
        }
      }
    }
    throw conflict;
  }

  /** A name in {@code generateName}'s form for this prefix. */
  static String suffix(RandomGenerator random) {
    StringBuilder suffix = new StringBuilder(SUFFIX_LENGTH);
    for (int i = 0; i < SUFFIX_LENGTH; i++) {
      suffix.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
    }
    return suffix.toString();
  }

  /**
   * True when {@code existing} is what {@code wanted} asks for: its labels among the existing ones,
   * and the same owner, requirements, requests and class. The labels are compared as a subset: by the
   * time the retried create meets the first one, launching it may have added the instance's labels
   * (type, zone, capacity type); requiring equal labels then made a second NodeClaim for the same pods
   * on a loaded machine (RELIABILITY.md). The spec cannot change after creation.
   */
  static boolean sameRequest(NodeClaim existing, NodeClaim wanted) {
    if (existing.getMetadata().getDeletionTimestamp() != null
        || !containsAll(existing.getMetadata().getLabels(), wanted.getMetadata().getLabels())
        || existing.getSpec() == null || wanted.getSpec() == null) {
      return false;
    }
    return json(existing.getSpec().getRequirements()).equals(json(wanted.getSpec().getRequirements()))
        && json(existing.getSpec().getResources()).equals(json(wanted.getSpec().getResources()))
        && json(existing.getSpec().getNodeClassRef()).equals(json(wanted.getSpec().getNodeClassRef()))
        && json(existing.getMetadata().getOwnerReferences()).equals(json(wanted.getMetadata().getOwnerReferences()));
  }

  private static boolean containsAll(Map<String, String> existing, Map<String, String> wanted) {
    if (wanted == null || wanted.isEmpty()) {
      return true;
    }
    return existing != null && existing.entrySet().containsAll(wanted.entrySet());
  }

  private static String json(Object value) {
    return value == null ? "null" : Serialization.asJson(value);
  }
}
