package sh.karpenter.api.aws.v1;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** The AMI families of {@code spec.amiFamily} (upstream's {@code AMIFamily*} names). */
public final class AMIFamily {
  private AMIFamily() {}

  public static final String AL2 = "AL2";
  public static final String AL2023 = "AL2023";
  public static final String BOTTLEROCKET = "Bottlerocket";
  public static final String WINDOWS2019 = "Windows2019";
  public static final String WINDOWS2022 = "Windows2022";
  public static final String WINDOWS2025 = "Windows2025";
  /** User data and AMIs entirely the user's; Karpenter merges nothing. */
  public static final String CUSTOM = "Custom";
  /** A family upstream still names but the CRD no longer accepts. */
  public static final String UBUNTU = "Ubuntu";

  /** The values {@code spec.amiFamily} accepts, in the CRD's order. */
  public static final List<String> ALL = List.of(AL2, AL2023, BOTTLEROCKET, CUSTOM, WINDOWS2019, WINDOWS2022, WINDOWS2025);

  /** The families an alias may name (every family but Custom), in the order of the CRD's message. */
  public static final List<String> WITH_ALIAS = List.of(AL2, AL2023, BOTTLEROCKET, WINDOWS2019, WINDOWS2022, WINDOWS2025);

  /** The Windows families, which accept only {@code latest} as an alias version. */
  public static final List<String> WINDOWS = List.of(WINDOWS2019, WINDOWS2022, WINDOWS2025);

  /** Windows build numbers ({@code node.kubernetes.io/windows-build}) of the Windows families. */
  public static final String WINDOWS2019_BUILD = "10.0.17763";
  public static final String WINDOWS2022_BUILD = "10.0.20348";
  public static final String WINDOWS2025_BUILD = "10.0.26100";

  /** The family an alias's family part names ({@code al2023} → {@code AL2023}), if any. */
  public static Optional<String> fromAliasFamily(String aliasFamily) {
    return WITH_ALIAS.stream().filter(family -> family.toLowerCase(Locale.ROOT).equals(aliasFamily)).findFirst();
  }

  /** The alias family part of a family ({@code AL2023} → {@code al2023}), if the family has aliases. */
  public static Optional<String> aliasFamily(String family) {
    return WITH_ALIAS.contains(family) ? Optional.of(family.toLowerCase(Locale.ROOT)) : Optional.empty();
  }

  public static boolean isWindows(String family) {
    return WINDOWS.contains(family);
  }
}
