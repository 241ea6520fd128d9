package sh.karpenter.testkit.controlplane;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Installs the project's CRDs (every {@code *.yaml} of a directory) and waits until they are served. */
final class CustomResourceDefinitions {

  private static final long ESTABLISHED_TIMEOUT_SECONDS = 60;

  private CustomResourceDefinitions() {}

  /** Applies the CRDs under {@code directory} server-side; a missing directory installs nothing. */
  static void install(KubernetesClient client, Path directory) {
    if (!Files.isDirectory(directory)) {
      return;
    }
    List<String> installed = new ArrayList<>();
    try (Stream<Path> files = Files.list(directory)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
        try (InputStream yaml = Files.newInputStream(file)) {
          for (HasMetadata item : client.load(yaml).items()) {
            if (item instanceof CustomResourceDefinition crd) {
              client.resource(crd).forceConflicts().serverSideApply();
              installed.add(crd.getMetadata().getName());
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading CRDs from " + directory, e);
    }
    for (String name : installed) {
      client.apiextensions().v1().customResourceDefinitions().withName(name)
          .waitUntilCondition(CustomResourceDefinitions::isEstablished, ESTABLISHED_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }
  }

  private static boolean isEstablished(CustomResourceDefinition crd) {
    return crd != null && crd.getStatus() != null && crd.getStatus().getConditions().stream()
        .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
  }
}
