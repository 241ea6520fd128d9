package sh.karpenter.api.validation;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import sh.karpenter.api.aws.v1.EC2NodeClass;

/**
 * Example manifests of upstream's AWS provider (a few of examples/v1 of aws/karpenter-provider-aws
 * v1.15.1, copied unchanged under {@code examples/aws/}) pass the offline validator: their NodePools and
 * EC2NodeClasses. All 22 of upstream's examples passed when the copies were made, except the NodePool of
 * windows-custom-userdata.yaml, whose {@code nodeClassRef.group} is {@code karpenter.k8s.aws/v1}: upstream's
 * own NodePool CRD rejects a group with a slash, so that example cannot be applied upstream either.
 */
class AwsExamplesTest {
  private static final String UPSTREAMS_BROKEN_EXAMPLE = "windows-custom-userdata.yaml";

  static Stream<String> examples() throws IOException, URISyntaxException {
    Path dir = Path.of(AwsExamplesTest.class.getClassLoader().getResource("examples/aws").toURI());
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".yaml")).sorted().toList().stream();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("examples")
  void upstreamAwsExamplesAreValid(String file) throws IOException, URISyntaxException {
    Path path = Path.of(AwsExamplesTest.class.getClassLoader().getResource("examples/aws/" + file).toURI());
    List<Validated<?>> results = Validator.standard().validateYaml(Files.readString(path), file);

    assertThat(results).extracting(Validated::object).hasAtLeastOneElementOfType(EC2NodeClass.class);
    if (file.equals(UPSTREAMS_BROKEN_EXAMPLE)) {
      assertThat(results).flatExtracting(Validated::errors).extracting(ValidationError::fieldPath)
          .containsExactly("spec.template.spec.nodeClassRef.group");
    } else {
      assertThat(results).flatExtracting(Validated::errors).isEmpty();
    }
  }
}
