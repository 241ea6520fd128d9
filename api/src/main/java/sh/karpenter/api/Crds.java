package sh.karpenter.api;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The CustomResourceDefinitions this project serves, bundled as classpath resources under {@code crds/}
 * (hand-written to match upstream Karpenter's and its AWS provider's). Install them on an API server,
 * or feed them to the offline validator.
 */
public final class Crds {
  public static final String NODE_POOLS = "crds/karpenter.sh_nodepools.yaml";
  public static final String NODE_CLAIMS = "crds/karpenter.sh_nodeclaims.yaml";
  public static final String KWOK_NODE_CLASSES = "crds/karpenter.kwok.sh_kwoknodeclasses.yaml";
  public static final String EC2_NODE_CLASSES = "crds/karpenter.k8s.aws_ec2nodeclasses.yaml";

  /** Every bundled CRD resource, in install order. */
  public static final List<String> ALL = List.of(NODE_POOLS, NODE_CLAIMS, KWOK_NODE_CLASSES, EC2_NODE_CLASSES);

  private Crds() {}

  /** The YAML text of a bundled CRD resource. */
  public static String yaml(String resource) {
    try (InputStream in = Crds.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalArgumentException("no bundled CRD " + resource);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
