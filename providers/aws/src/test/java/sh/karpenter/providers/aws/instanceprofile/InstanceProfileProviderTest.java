package sh.karpenter.providers.aws.instanceprofile;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class InstanceProfileProviderTest {

  @Test
  void aNewNameIsTheClusterAndADecimalNumberDifferentEachTime() {
    String first = InstanceProfileProvider.newName("my-cluster", "us-west-2", "default");
    String second = InstanceProfileProvider.newName("my-cluster", "us-west-2", "default");
    assertThat(first).matches("my-cluster_[0-9]+");
    assertThat(second).matches("my-cluster_[0-9]+").isNotEqualTo(first);
  }

  @Test
  void thePathNamesRegionClusterAndClassUid() {
    assertThat(InstanceProfileProvider.path("us-west-2", "my-cluster", "1234-abcd")).isEqualTo("/karpenter/us-west-2/my-cluster/1234-abcd/");
  }

  @Test
  void fnvMatchesItsReferenceValues() {
    // FNV-1a 64 of "" and "a" (the algorithm's published test vectors).
    assertThat(Long.toUnsignedString(InstanceProfileProvider.fnv1a64(""), 16)).isEqualTo("cbf29ce484222325");
    assertThat(Long.toUnsignedString(InstanceProfileProvider.fnv1a64("a"), 16)).isEqualTo("af63dc4c8601ec8c");
  }
}
