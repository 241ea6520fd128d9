package sh.karpenter.core.architecture;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;

/**
 * Architecture rules a module's tests can check its main code against, with ArchUnit's plain API (no
 * ArchUnit test engine needed): {@code ArchitectureRules.packageCycles("sh.karpenter.x").check(
 * ArchitectureRules.mainClasses("sh.karpenter.x"))}. Another module copies this small class into its
 * own test sources (core's test classes are not a dependency of the others).
 */
public final class ArchitectureRules {
  private ArchitectureRules() {}

  /** The main (not test) classes of the packages under {@code rootPackage}, as compiled. */
  public static JavaClasses mainClasses(String rootPackage) {
    return new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages(rootPackage);
  }

  /**
   * No package under {@code rootPackage} depends, directly or through others, on itself: each
   * package (with its subpackages) is one slice, and dependencies between slices go one way.
   */
  public static ArchRule packageCycles(String rootPackage) {
    return slices().matching(rootPackage + ".(*)..").should().beFreeOfCycles();
  }
}
