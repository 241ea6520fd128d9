package sh.karpenter.api.aws.v1;

import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * An AMI selector alias, {@code family@version}: an EKS-optimized AMI of a family ({@code al2},
 * {@code al2023}, {@code bottlerocket}, {@code windows2019}, {@code windows2022}, {@code windows2025})
 * at a release ({@code al2023@v20240625}, {@code bottlerocket@v1.20.0}) or {@code latest}. Windows
 * families accept only {@code latest}.
 *
 * @param family the AMI family it names, as {@code spec.amiFamily} spells it ({@code AL2023})
 * @param version the release, or {@link #LATEST}
 */
public record Alias(String family, String version) {
  public static final String LATEST = "latest";

  private static final Pattern FORMAT = Pattern.compile("^[a-zA-Z0-9]+@.+$");

  public Alias {
    Objects.requireNonNull(family, "family");
    Objects.requireNonNull(version, "version");
  }

  /**
   * Reads an alias, with the checks of the CRD's rules and their messages, plus upstream's parser's
   * requirement of exactly one {@code @}.
   *
   * @throws IllegalArgumentException naming the alias and what is wrong with it
   */
  public static Alias parse(String alias) {
    if (alias == null || !FORMAT.matcher(alias).find()) {
      throw invalid(alias, "'alias' is improperly formatted, must match the format 'family@version'");
    }
    String[] parts = alias.split("@", -1);
    if (parts.length != 2) {
      throw invalid(alias, "'alias' is improperly formatted, must match the format 'family@version'");
    }
    String family = AMIFamily.fromAliasFamily(parts[0]).orElseThrow(() -> invalid(alias,
        "family is not supported, must be one of the following: 'al2', 'al2023', 'bottlerocket', 'windows2019', 'windows2022', 'windows2025'"));
    if (AMIFamily.isWindows(family) && !LATEST.equals(parts[1])) {
      throw invalid(alias, "windows families may only specify version 'latest'");
    }
    return new Alias(family, parts[1]);
  }

  public boolean isLatest() {
    return LATEST.equals(version);
  }

  /** The alias as written in a selector term: {@code al2023@latest}. */
  @Override
  public String toString() {
    return family.toLowerCase(Locale.ROOT) + "@" + version;
  }

  private static IllegalArgumentException invalid(String alias, String problem) {
    return new IllegalArgumentException("invalid AMI alias \"" + alias + "\": " + problem);
  }
}
