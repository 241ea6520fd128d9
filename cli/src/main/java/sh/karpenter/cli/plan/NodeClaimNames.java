package sh.karpenter.cli.plan;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Names for planned NodeClaims in the form a NodePool's {@code generateName} gives them, {@code
 * <nodepool>-<5 characters>}, but deterministic: the same plan always prints the same names, so
 * outputs can be diffed. The suffix alphabet is Kubernetes' (no vowels, no look-alike digits).
 */
final class NodeClaimNames {
  private static final String ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
  private static final int SUFFIX_LENGTH = 5;

  private final Map<String, Integer> ordinals = new HashMap<>();
  private final Set<String> issued = new HashSet<>();

  /** The next name for a NodeClaim of this NodePool; never repeats within this instance. */
  String next(String nodePool) {
    while (true) {
      int ordinal = ordinals.merge(nodePool, 1, Integer::sum);
      String name = nodePool + "-" + suffix(mix(nodePool.hashCode() * 0x9E3779B97F4A7C15L + ordinal));
      if (issued.add(name)) {
        return name;
      }
    }
  }

  private static String suffix(long bits) {
    StringBuilder suffix = new StringBuilder(SUFFIX_LENGTH);
    long remaining = bits >>> 1;
    for (int i = 0; i < SUFFIX_LENGTH; i++) {
      suffix.append(ALPHABET.charAt((int) (remaining % ALPHABET.length())));
      remaining /= ALPHABET.length();
    }
    return suffix.toString();
  }

  /** SplitMix64's finaliser: spreads consecutive ordinals over the whole suffix space. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
