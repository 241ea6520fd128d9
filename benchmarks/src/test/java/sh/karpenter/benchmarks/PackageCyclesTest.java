package sh.karpenter.benchmarks;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** No package of this module's main code depends, directly or through others, on itself. */
@AnalyzeClasses(packages = "sh.karpenter.benchmarks", importOptions = ImportOption.DoNotIncludeTests.class)
class PackageCyclesTest {

    @ArchTest
    static final ArchRule packagesAreFreeOfCycles = slices().matching("sh.karpenter.benchmarks.(**)").should().beFreeOfCycles();
}
