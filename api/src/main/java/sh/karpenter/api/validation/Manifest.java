package sh.karpenter.api.validation;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * One Kubernetes object read from a YAML or JSON stream (see {@link Manifests}), with the name that
 * errors about it carry.
 *
 * @param document e.g. {@code examples/pools.yaml, document 1} (see {@link Manifests#documentName})
 * @param tree the parsed document
 */
public record Manifest(String document, JsonNode tree) {

  public Manifest {
    Objects.requireNonNull(document, "document");
    Objects.requireNonNull(tree, "tree");
  }

  /** {@code apiVersion}, or empty when absent. */
  public String apiVersion() {
    return tree.path("apiVersion").asText("");
  }

  /** {@code kind}, or empty when absent. */
  public String kind() {
    return tree.path("kind").asText("");
  }

  /** {@code metadata.name}, or empty when absent. */
  public String name() {
    return tree.path("metadata").path("name").asText("");
  }
}
