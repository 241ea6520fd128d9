package sh.karpenter.testkit.chart;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The chart's copies agree with their sources: {@code charts/karpenter/crds/} holds exactly the CRDs of
 * {@code api/src/main/resources/crds/}, byte for byte (copy them over after changing the API), and the
 * chart's version and appVersion are the Maven project's.
 */
class ChartFilesTest {
  private static final Path ROOT = repositoryRoot();
  private static final Path CHART = ROOT.resolve("charts/karpenter");

  @Test
  void theChartsCrdsAreByteIdenticalToTheApiModulesCrds() throws IOException {
    Path source = ROOT.resolve("api/src/main/resources/crds");
    List<String> sources = names(source);
    assertThat(names(CHART.resolve("crds")))
        .as("charts/karpenter/crds/ lists the same files as %s (cp %s/*.yaml charts/karpenter/crds/)", source, ROOT.relativize(source))
        .isEqualTo(sources);
    for (String name : sources) {
      assertThat(Files.mismatch(source.resolve(name), CHART.resolve("crds").resolve(name)))
          .as("charts/karpenter/crds/%s differs from api/src/main/resources/crds/%s (copy it over)", name, name)
          .isEqualTo(-1L);
    }
  }

  @Test
  void theChartsVersionAndAppVersionAreTheProjectVersion() throws IOException {
    String pom = Files.readString(ROOT.resolve("pom.xml"));
    Matcher project = Pattern.compile("<artifactId>karpenter-parent</artifactId>\\s*<version>([^<]+)</version>").matcher(pom);
    assertThat(project.find()).as("the parent pom's version").isTrue();
    String chart = Files.readString(CHART.resolve("Chart.yaml"));
    assertThat(chart).containsPattern("(?m)^version: " + Pattern.quote(project.group(1)) + "$")
        .containsPattern("(?m)^appVersion: " + Pattern.quote(project.group(1)) + "$");
  }

  private static List<String> names(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".yaml")).sorted().toList();
    }
  }

  private static Path repositoryRoot() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isDirectory(dir.resolve("charts/karpenter"))) {
        return dir;
      }
    }
    throw new IllegalStateException("no charts/karpenter above " + Path.of("").toAbsolutePath());
  }
}
