package sh.karpenter.providers.aws.ami;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.aws.v1.AMIFamily;
import sh.karpenter.api.aws.v1.AMISelectorTerm;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.core.clock.TestingClock;
import sh.karpenter.providers.aws.TestNodeClasses;
import software.amazon.awssdk.services.ec2.model.Filter;

class AmiProviderTest {
  private static final String PREFIX = "/test-prefix";
  private static final String AL2023 = "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/";

  private final TestingClock clock = new TestingClock(Instant.parse("2026-06-01T00:00:00Z"));
  private final TestingImages ec2 = new TestingImages();
  private final TestingParameters ssm = new TestingParameters();
  private final AmiProvider provider = new AmiProvider(ec2, new SsmParameters(ssm, PREFIX, clock), () -> "1.31", clock);

  @Test
  void anAliasResolvesThroughItsParametersUnderThePrefixWithTheVariantsRequirements() {
    ssm.values.put(PREFIX + AL2023 + "x86_64/standard/recommended/image_id", "ami-amd");
    ssm.values.put(PREFIX + AL2023 + "x86_64/nvidia/recommended/image_id", "ami-amd-nvidia");
    ssm.values.put(PREFIX + AL2023 + "arm64/standard/recommended/image_id", "ami-arm");
    ec2.add("ami-amd", "al2023-amd", "x86_64", "2026-05-01T00:00:00.000Z", null)
        .add("ami-amd-nvidia", "al2023-amd-nvidia", "x86_64", "2026-05-02T00:00:00.000Z", null)
        .add("ami-arm", "al2023-arm", "arm64", "2026-04-01T00:00:00.000Z", null)
        .add("ami-other", "other", "x86_64", "2026-05-03T00:00:00.000Z", null);

    List<ResolvedAmi> amis = provider.list(TestNodeClasses.nodeClass("default", "c1", "al2023@latest", "role"));

    assertThat(amis).extracting(ResolvedAmi::id).containsExactly("ami-amd-nvidia", "ami-amd", "ami-arm");
    assertThat(amis.get(0).requirements()).containsExactly(
        new NodeSelectorRequirement("kubernetes.io/arch", "In", List.of("amd64")),
        new NodeSelectorRequirement("karpenter.k8s.aws/instance-gpu-count", "Exists", List.of()));
    assertThat(amis.get(1).requirements()).containsExactly(
        new NodeSelectorRequirement("kubernetes.io/arch", "In", List.of("amd64")),
        new NodeSelectorRequirement("karpenter.k8s.aws/instance-gpu-count", "DoesNotExist", List.of()),
        new NodeSelectorRequirement("karpenter.k8s.aws/instance-accelerator-count", "DoesNotExist", List.of()));
    assertThat(amis.get(2).requirements()).contains(new NodeSelectorRequirement("kubernetes.io/arch", "In", List.of("arm64")));
    assertThat(ssm.asked).allMatch(name -> name.startsWith(PREFIX + "/aws/service/"));
    assertThat(ec2.requests).singleElement().satisfies(request -> {
      assertThat(request.filters()).contains(Filter.builder().name("state").values("available").build());
      assertThat(request.includeDeprecated()).isTrue();
    });
  }

  @Test
  void anAliasNoParameterResolvesFails() {
    assertThatThrownBy(() -> provider.list(TestNodeClasses.nodeClass("default", "c1", "al2023@latest", "role")))
        .hasMessage("failed to discover any AMIs for alias al2023@latest");
  }

  @Test
  void theSelectionIsCachedPerGenerationForAMinute() {
    ec2.add("ami-1", "one", "x86_64", "2026-05-01T00:00:00.000Z", null);
    EC2NodeClass nodeClass = TestNodeClasses.withAmiTerms(TestNodeClasses.nodeClass("default", "c1", "al2023@latest", "role"),
        AMIFamily.AL2023, id("ami-1"));
    provider.list(nodeClass);
    provider.list(nodeClass);
    assertThat(ec2.requests).hasSize(1);
    nodeClass.getMetadata().setGeneration(2L);
    provider.list(nodeClass);
    assertThat(ec2.requests).hasSize(2);
    clock.step(AmiProvider.TTL);
    provider.list(nodeClass);
    assertThat(ec2.requests).hasSize(3);
  }

  @Test
  void ofImagesWithTheSameRequirementsTheNewestNonDeprecatedOneWins() {
    ec2.add("ami-old", "old", "x86_64", "2026-01-01T00:00:00.000Z", null)
        .add("ami-new-deprecated", "new", "x86_64", "2026-05-01T00:00:00.000Z", "2026-05-15T00:00:00.000Z")
        .add("ami-mid", "mid", "x86_64", "2026-03-01T00:00:00.000Z", "2027-01-01T00:00:00.000Z")
        .add("ami-arm", "arm", "arm64", "2025-01-01T00:00:00.000Z", null)
        .add("ami-mac", "mac", "x86_64_mac", "2026-05-01T00:00:00.000Z", null);
    EC2NodeClass nodeClass = TestNodeClasses.withAmiTerms(TestNodeClasses.nodeClass("default", "c1", "al2023@latest", "role"),
        AMIFamily.CUSTOM, id("ami-old"), id("ami-new-deprecated"), id("ami-mid"), id("ami-arm"), id("ami-mac"));

    List<ResolvedAmi> amis = provider.list(nodeClass);

    assertThat(amis).extracting(ResolvedAmi::id).containsExactly("ami-mid", "ami-arm");
    assertThat(amis).allMatch(ami -> !ami.deprecated());
  }

  @Test
  void onlyDeprecatedImagesStillResolveMarkedDeprecated() {
    ec2.add("ami-1", "one", "x86_64", "2026-01-01T00:00:00.000Z", "2026-02-01T00:00:00.000Z");
    EC2NodeClass nodeClass = TestNodeClasses.withAmiTerms(TestNodeClasses.nodeClass("default", "c1", "al2023@latest", "role"),
        AMIFamily.CUSTOM, id("ami-1"));
    assertThat(provider.list(nodeClass)).singleElement().satisfies(ami -> assertThat(ami.deprecated()).isTrue());
  }

  @Test
  void idAndSsmParameterTermsShareOneQueryOtherTermsHaveOneEach() {
    ssm.values.put("/my/ami", "ami-from-ssm");
    ssm.values.put("/my/garbage", "not-an-ami");
    AMISelectorTerm byName = new AMISelectorTerm();
    byName.setName("my-ami-*");
    AMISelectorTerm byOwnerAndTags = new AMISelectorTerm();
    byOwnerAndTags.setOwner("123456789012");
    byOwnerAndTags.setTags(Map.of("team", "*", "env", "prod"));
    EC2NodeClass nodeClass = TestNodeClasses.withAmiTerms(TestNodeClasses.nodeClass("default", "c1", "al2023@latest", "role"),
        AMIFamily.AL2023, id("ami-1"), ssmParameter("/my/ami"), ssmParameter("/my/missing"), ssmParameter("/my/garbage"), byName, byOwnerAndTags);

    List<DescribeImageQuery> queries = provider.queries(nodeClass);

    assertThat(queries).hasSize(3);
    assertThat(queries.get(0).filters()).containsExactly(Filter.builder().name("name").values("my-ami-*").build());
    assertThat(queries.get(0).owners()).containsExactly("self", "amazon");
    assertThat(queries.get(1).owners()).containsExactly("123456789012");
    assertThat(queries.get(1).filters()).containsExactly(
        Filter.builder().name("tag:env").values("prod").build(), Filter.builder().name("tag-key").values("team").build());
    assertThat(queries.get(2).filters()).containsExactly(Filter.builder().name("image-id").values("ami-1", "ami-from-ssm").build());
    assertThat(queries.get(2).request().owners()).isEmpty();
    assertThat(ssm.asked).containsExactly("/my/ami", "/my/missing", "/my/garbage");
  }

  @Test
  void aNameWithAnOwnerSearchesOnlyThatOwner() {
    AMISelectorTerm term = new AMISelectorTerm();
    term.setName("my-ami");
    term.setOwner("self");
    assertThat(AmiProvider.termQuery(term).owners()).containsExactly("self");
  }

  @Test
  void newestFirstThenById() {
    List<ResolvedAmi> sorted = AmiProvider.newestFirst(List.of(
        ami("ami-b", "2026-01-01T00:00:00Z"), ami("ami-c", ""), ami("ami-a", "2026-01-01T00:00:00Z"), ami("ami-d", "2026-02-01T00:00:00Z")));
    assertThat(sorted).extracting(ResolvedAmi::id).containsExactly("ami-d", "ami-a", "ami-b", "ami-c");
  }

  @Test
  void publicParametersAreCachedForADay() {
    ssm.values.put(PREFIX + AL2023 + "x86_64/standard/recommended/image_id", "ami-amd");
    ec2.add("ami-amd", "al2023-amd", "x86_64", "2026-05-01T00:00:00.000Z", null);
    EC2NodeClass nodeClass = TestNodeClasses.nodeClass("default", "c1", "al2023@latest", "role");
    provider.list(nodeClass);
    int asked = ssm.asked.size();
    clock.step(Duration.ofHours(23));
    provider.list(nodeClass);
    // The missing parameters are asked again; the one found is not.
    assertThat(ssm.asked.subList(asked, ssm.asked.size())).hasSize(asked - 1)
        .doesNotContain(PREFIX + AL2023 + "x86_64/standard/recommended/image_id");
  }

  private static ResolvedAmi ami(String id, String created) {
    return new ResolvedAmi(id, id, created, false, List.of());
  }

  private static AMISelectorTerm id(String id) {
    AMISelectorTerm term = new AMISelectorTerm();
    term.setId(id);
    return term;
  }

  private static AMISelectorTerm ssmParameter(String name) {
    AMISelectorTerm term = new AMISelectorTerm();
    term.setSsmParameter(name);
    return term;
  }
}
