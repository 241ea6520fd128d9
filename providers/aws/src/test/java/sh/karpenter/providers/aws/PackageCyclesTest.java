package sh.karpenter.providers.aws;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** No package of the provider's main code depends, directly or through others, on itself. */
@AnalyzeClasses(packages = "sh.karpenter.providers.aws", importOptions = ImportOption.DoNotIncludeTests.class)
class PackageCyclesTest {

    @ArchTest
    static final ArchRule packagesAreFreeOfCycles =
            slices().matching("sh.karpenter.providers.aws.(**)").should().beFreeOfCycles();
}
