package sh.karpenter.controller.snapshot;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/** Kubernetes objects for converter tests, written as the YAML a person would write. */
final class TestManifests {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  /** The document origin the converter tests use. */
  static final String ORIGIN = "test.yaml, document 1";

  private TestManifests() {}

  static <T> T yaml(Class<T> type, String yaml) {
    return SERIALIZATION.unmarshal(yaml, type);
  }
}
