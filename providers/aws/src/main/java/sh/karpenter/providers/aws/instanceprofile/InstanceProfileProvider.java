package sh.karpenter.providers.aws.instanceprofile;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import sh.karpenter.providers.aws.expiring.ExpiringCache;
import software.amazon.awssdk.services.iam.IamClient;
import software.amazon.awssdk.services.iam.model.InstanceProfile;
import software.amazon.awssdk.services.iam.model.NoSuchEntityException;
import software.amazon.awssdk.services.iam.model.Role;
import software.amazon.awssdk.services.iam.model.Tag;

/**
 * The IAM instance profiles Karpenter manages for {@code spec.role} (upstream's instanceprofile
 * {@code DefaultProvider}): looked up with a {@link #TTL} cache, created with the role, tags and a path
 * {@code /karpenter/<region>/<cluster>/<nodeclass uid>/} that later finds them for deletion, and deleted
 * (role removed first). Thread-safe.
 */
public final class InstanceProfileProvider {
  /** Upstream's {@code InstanceProfileTTL}. */
  public static final Duration TTL = Duration.ofMinutes(15);

  private final IamClient iam;
  private final ExpiringCache<String, InstanceProfile> cache;

  public InstanceProfileProvider(IamClient iam, Clock clock) {
    this.iam = iam;
    this.cache = new ExpiringCache<>(clock, TTL);
  }

  /** {@code /karpenter/<region>/<cluster>/<uid>/} (upstream's {@code FormatPath("karpenter", region, cluster, uid)}). */
  public static String path(String region, String cluster, String nodeClassUid) {
    return "/karpenter/" + region + "/" + cluster + "/" + nodeClassUid + "/";
  }

  /**
   * A new profile name for a class, {@code <cluster>_<number>}: the number hashes the region, the class
   * name and a random UUID, so a re-created profile never reuses a name (upstream's
   * {@code InstanceProfileName}; its number comes from Go's hashstructure, this one from 64-bit FNV-1a).
   */
  public static String newName(String cluster, String region, String nodeClassName) {
    return cluster + "_" + Long.toUnsignedString(fnv1a64(region + nodeClassName + UUID.randomUUID()));
  }

  static long fnv1a64(String s) {
    long hash = 0xcbf29ce484222325L;
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      hash ^= b & 0xff;
      hash *= 0x100000001b3L;
    }
    return hash;
  }

  /** The profile, from the cache or IAM; empty when IAM has none of that name. */
  public Optional<InstanceProfile> get(String name) {
    Optional<InstanceProfile> cached = cache.get(name);
    if (cached.isPresent()) {
      return cached;
    }
    try {
      InstanceProfile profile = iam.getInstanceProfile(r -> r.instanceProfileName(name)).instanceProfile();
      cache.put(name, profile);
      return Optional.of(profile);
    } catch (NoSuchEntityException e) {
      return Optional.empty();
    }
  }

  /**
   * Makes sure profile {@code name} exists with {@code role} as its only role: creates it (with
   * {@code tags} and {@code path}) when missing, replaces another role, adds the role when it has none.
   * A role given as a path or ARN ({@code .../name}) is added by its last segment.
   */
  public void create(String name, String role, Map<String, String> tags, String path) {
    InstanceProfile profile = get(name).orElse(null);
    if (profile == null) {
      List<Tag> iamTags = new ArrayList<>();
      tags.forEach((key, value) -> iamTags.add(Tag.builder().key(key).value(value).build()));
      profile = iam.createInstanceProfile(r -> {
        r.instanceProfileName(name).tags(iamTags);
        if (path != null && !path.isEmpty()) {
          r.path(path);
        }
      }).instanceProfile();
    }
    String roleName = role.substring(role.lastIndexOf('/') + 1);
    List<Role> roles = profile.roles();
    if (roles.size() == 1 && roles.get(0).roleName().equals(role)) {
      cache.put(name, profile);
      return;
    }
    if (roles.size() == 1) {
      String current = roles.get(0).roleName();
      iam.removeRoleFromInstanceProfile(r -> r.instanceProfileName(name).roleName(current));
    }
    cache.remove(name);
    iam.addRoleToInstanceProfile(r -> r.instanceProfileName(name).roleName(roleName));
    cache.put(name, profile.toBuilder().roles(Role.builder().roleName(role).build()).build());
  }

  /** Removes the profile's role and deletes it; a profile that does not exist counts as deleted. */
  public void delete(String name) {
    cache.remove(name);
    InstanceProfile profile;
    try {
      profile = iam.getInstanceProfile(r -> r.instanceProfileName(name)).instanceProfile();
    } catch (NoSuchEntityException e) {
      return;
    }
    if (profile.roles().size() == 1) {
      String role = profile.roles().get(0).roleName();
      iam.removeRoleFromInstanceProfile(r -> r.instanceProfileName(name).roleName(role));
    }
    try {
      iam.deleteInstanceProfile(r -> r.instanceProfileName(name));
    } catch (NoSuchEntityException e) {
      // gone already
    }
  }

  /**
   * Every profile whose path starts with {@code pathPrefix}. The prefix is checked here too: the
   * emulator ignores {@code PathPrefix} and lists every profile, and what this returns gets deleted.
   */
  public List<InstanceProfile> list(String pathPrefix) {
    List<InstanceProfile> profiles = new ArrayList<>();
    iam.listInstanceProfilesPaginator(r -> r.pathPrefix(pathPrefix)).instanceProfiles().stream()
        .filter(profile -> profile.path() != null && profile.path().startsWith(pathPrefix))
        .forEach(profiles::add);
    return profiles;
  }
}
