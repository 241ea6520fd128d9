package sh.karpenter.api;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The upstream CRD field and rule lists ({@code crd-fields.tsv}, {@code crd-validations.tsv}): read from
 * {@code ../shared/spec/} beside the repository root when present, else from the copy under
 * {@code src/test/resources/upstream/}.
 */
final class UpstreamSpec {
  static final String FIELDS = "crd-fields.tsv";
  static final String VALIDATIONS = "crd-validations.tsv";

  private UpstreamSpec() {}

  static List<String> lines(String name) {
    Optional<Path> shared = sharedSpecDir().map(dir -> dir.resolve(name)).filter(Files::isRegularFile);
    try {
      return shared.isPresent() ? Files.readAllLines(shared.get()) : bundledCopy(name).lines().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String bundledCopy(String name) {
    try (InputStream in = UpstreamSpec.class.getClassLoader().getResourceAsStream("upstream/" + name)) {
      if (in == null) {
        throw new IllegalStateException("missing test resource upstream/" + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code <repository root>/../shared/spec}, where the root is the nearest ancestor holding scripts/java-home. */
  static Optional<Path> sharedSpecDir() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.exists(dir.resolve("scripts/java-home"))) {
        Path spec = dir.resolve("../shared/spec").normalize();
        return Files.isDirectory(spec) ? Optional.of(spec) : Optional.empty();
      }
    }
    return Optional.empty();
  }
}
