package sh.karpenter.providers.aws.ami;

import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.providers.aws.expiring.ExpiringCache;
import software.amazon.awssdk.services.ssm.SsmClient;
import software.amazon.awssdk.services.ssm.model.ParameterNotFoundException;

/**
 * Reads SSM parameters holding AMI IDs, cached (upstream's ssm {@code DefaultProvider}): the public
 * parameters of aliases for {@link #PUBLIC_TTL}, a selector term's own parameter for
 * {@link #CUSTOM_TTL}. Public paths are read under {@code publicPrefix} ({@code ""} in production; the
 * emulator refuses to create parameters under {@code /aws/}, so tests put them under e.g.
 * {@code /karpenter-emulator/aws/service/...}, see docs/aws-emulator.md). Thread-safe.
 */
public final class SsmParameters {
  /** Upstream's cache time of an alias's (public) parameters. */
  public static final Duration PUBLIC_TTL = Duration.ofHours(24);
  /** Upstream's cache time of a selector term's {@code ssmParameter}. */
  public static final Duration CUSTOM_TTL = Duration.ofMinutes(5);
  private static final Logger LOG = LoggerFactory.getLogger(SsmParameters.class);

  private final SsmClient ssm;
  private final String publicPrefix;
  private final ExpiringCache<String, String> cache;

  /**
   * @param publicPrefix prepended to every public ({@code /aws/service/...}) path; empty in production
   */
  public SsmParameters(SsmClient ssm, String publicPrefix, Clock clock) {
    this.ssm = ssm;
    this.publicPrefix = publicPrefix == null ? "" : publicPrefix;
    this.cache = new ExpiringCache<>(clock, PUBLIC_TTL);
  }

  /** The name a public path is read under: {@code <prefix><path>}. */
  public String publicName(String path) {
    return publicPrefix + path;
  }

  /** A public parameter's value; empty when it does not exist. Other failures propagate. */
  public Optional<String> getPublic(String path) {
    return get(publicName(path), PUBLIC_TTL);
  }

  /** A user's parameter (name or ARN, read as written); empty when it does not exist. Other failures propagate. */
  public Optional<String> getCustom(String name) {
    return get(name, CUSTOM_TTL);
  }

  private Optional<String> get(String name, Duration ttl) {
    Optional<String> cached = cache.get(name);
    if (cached.isPresent()) {
      return cached;
    }
    String value;
    try {
      value = ssm.getParameter(r -> r.name(name)).parameter().value();
    } catch (ParameterNotFoundException e) {
      return Optional.empty();
    }
    cache.put(name, value, ttl);
    LOG.info("discovered ssm parameter parameter={} value={}", name, value);
    return Optional.of(value);
  }
}
