package sh.karpenter.api.validation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.stream.Collectors;
import sh.karpenter.api.Crds;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.api.binding.ModelReaders;
import sh.karpenter.api.binding.ObjectReader;
import sh.karpenter.api.kwok.v1alpha1.KWOKNodeClass;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodePool;

/**
 * Offline validation of Karpenter manifests, for commands that have no API server to validate for
 * them. A manifest is defaulted and checked exactly as an API server with the bundled CRDs would on
 * create (schema and CEL rules, see {@link CustomResourceSchema}), then with upstream's runtime
 * validation (label, requirement and taint syntax, duplicate taints; an EC2NodeClass's kubelet
 * configuration). The result is either the typed
 * object with CRD defaults applied ({@code expireAfter: 720h}, {@code consolidationPolicy:
 * WhenEmptyOrUnderutilized}, {@code consolidateAfter: 0s}, {@code budgets: [{nodes: 10%}]}, ...) or
 * errors naming the document, the field path and the rule broken.
 *
 * <p>A valid NodePool or KWOKNodeClass is read into its typed object by an {@link ObjectReader}
 * ({@link ModelReaders}) when it holds only the fields the reader knows, and bound by Jackson
 * otherwise; both give the same object.
 *
 * <p>Rules that compare an update with the stored object (immutability, static/dynamic switch) cannot
 * apply offline and are skipped. Instances are immutable and thread-safe.
 */
public final class Validator {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  private static final Validator STANDARD = new Validator();

  private final Map<String, Kind<?>> kinds;

  /**
   * One served kind. Its CRD is read and its schema built on first use, so a command that sees only
   * NodePools does not pay for the EC2NodeClass schema; {@code apiVersion} and {@code kind} are
   * checked against the CRD when it is read.
   */
  private static final class Kind<T> {
    private final String apiVersion;
    private final String name;
    private final String resource;
    private final Class<T> type;
    private final BiConsumer<JsonNode, ErrorCollector> runtimeChecks;
    private final ObjectReader<T> reader;
    private volatile CustomResourceSchema schema;

    /** @param reader reads the defaulted object without Jackson's data binding when it can (null: always Jackson) */
    Kind(String apiVersion, String name, String resource, Class<T> type, BiConsumer<JsonNode, ErrorCollector> runtimeChecks, ObjectReader<T> reader) {
      this.apiVersion = apiVersion;
      this.name = name;
      this.resource = resource;
      this.type = type;
      this.runtimeChecks = runtimeChecks;
      this.reader = reader;
    }

    CustomResourceSchema schema() {
      CustomResourceSchema loaded = schema;
      if (loaded == null) {
        synchronized (this) {
          loaded = schema;
          if (loaded == null) {
            loaded = load(resource);
            if (!loaded.apiVersion().equals(apiVersion) || !loaded.kind().equals(name)) {
              throw new IllegalStateException(resource + " serves " + loaded.apiVersion() + " " + loaded.kind() + ", not " + apiVersion + " " + name);
            }
            schema = loaded;
          }
        }
      }
      return loaded;
    }

    Class<T> type() {
      return type;
    }

    BiConsumer<JsonNode, ErrorCollector> runtimeChecks() {
      return runtimeChecks;
    }

    /** The typed object of a valid, defaulted tree: read directly, or bound by Jackson when the reader gives it up. */
    T bind(ObjectNode defaulted) {
      T object = reader == null ? null : ObjectReader.read(reader, defaulted);
      return object != null ? object : SERIALIZATION.convertValue(defaulted, type);
    }
  }

  private Validator() {
    this.kinds =
        Map.of(
            NodePool.KIND,
            new Kind<>(NodePool.API_VERSION, NodePool.KIND, Crds.NODE_POOLS, NodePool.class, RuntimeChecks::nodePool, ModelReaders.NODE_POOL),
            NodeClaim.KIND, new Kind<>(NodePool.API_VERSION, NodeClaim.KIND, Crds.NODE_CLAIMS, NodeClaim.class, RuntimeChecks::nodeClaim, null),
            KWOKNodeClass.KIND,
            new Kind<>(
                KWOKNodeClass.API_VERSION, KWOKNodeClass.KIND, Crds.KWOK_NODE_CLASSES, KWOKNodeClass.class, (tree, errors) -> {}, ModelReaders.KWOK_NODE_CLASS),
            EC2NodeClass.KIND,
            new Kind<>(EC2NodeClass.API_VERSION, EC2NodeClass.KIND, Crds.EC2_NODE_CLASSES, EC2NodeClass.class, RuntimeChecks::ec2NodeClass, null));
  }

  /** The validator for the bundled CRDs. */
  public static Validator standard() {
    return STANDARD;
  }

  /** Validates and defaults a NodePool manifest. */
  public Validated<NodePool> nodePool(JsonNode tree, String document) {
    return validate(tree, document, kind(NodePool.KIND, NodePool.class));
  }

  /** Validates and defaults a NodeClaim manifest. */
  public Validated<NodeClaim> nodeClaim(JsonNode tree, String document) {
    return validate(tree, document, kind(NodeClaim.KIND, NodeClaim.class));
  }

  /** Validates and defaults a KWOKNodeClass manifest. */
  public Validated<KWOKNodeClass> kwokNodeClass(JsonNode tree, String document) {
    return validate(tree, document, kind(KWOKNodeClass.KIND, KWOKNodeClass.class));
  }

  /** Validates and defaults an EC2NodeClass manifest. */
  public Validated<EC2NodeClass> ec2NodeClass(JsonNode tree, String document) {
    return validate(tree, document, kind(EC2NodeClass.KIND, EC2NodeClass.class));
  }

  /** The errors of a NodePool built in code (empty when it is valid). */
  public List<ValidationError> validateNodePool(NodePool nodePool, String document) {
    return nodePool(SERIALIZATION.convertValue(nodePool, JsonNode.class), document).errors();
  }

  /** The errors of a NodeClaim built in code (empty when it is valid). */
  public List<ValidationError> validateNodeClaim(NodeClaim nodeClaim, String document) {
    return nodeClaim(SERIALIZATION.convertValue(nodeClaim, JsonNode.class), document).errors();
  }

  /** The errors of an EC2NodeClass built in code (empty when it is valid). */
  public List<ValidationError> validateEC2NodeClass(EC2NodeClass nodeClass, String document) {
    return ec2NodeClass(SERIALIZATION.convertValue(nodeClass, JsonNode.class), document).errors();
  }

  /**
   * True when the manifest claims a Karpenter API group ({@code karpenter.sh}, {@code karpenter.kwok.sh},
   * {@code karpenter.k8s.aws}): {@link #validate(Manifest)} handles it. Other manifests (pods, nodes, ...)
   * are the caller's business.
   */
  public boolean handles(Manifest manifest) {
    String apiVersion = manifest.apiVersion();
    return apiVersion.startsWith(NodePool.GROUP + "/") || apiVersion.startsWith(KWOKNodeClass.GROUP + "/")
        || apiVersion.startsWith(EC2NodeClass.GROUP + "/");
  }

  /**
   * Validates a Karpenter manifest of any served kind; the object is a {@link NodePool}, {@link
   * NodeClaim}, {@link KWOKNodeClass} or {@link EC2NodeClass}. An unserved kind or version of a Karpenter group is an error.
   */
  public Validated<?> validate(Manifest manifest) {
    Kind<?> kind = kinds.get(manifest.kind());
    if (kind == null || !kind.apiVersion.equals(manifest.apiVersion())) {
      String served = kinds.values().stream()
          .map(k -> k.apiVersion + " " + k.name).sorted().collect(Collectors.joining(", "));
      return invalid(manifest.document(), manifest.kind().isEmpty() ? "kind" : "apiVersion",
          "no kind \"" + manifest.kind() + "\" is served in \"" + manifest.apiVersion() + "\"; served: " + served);
    }
    return validate(manifest.tree(), manifest.document(), kind);
  }

  /**
   * Reads a multi-document YAML text and validates every Karpenter manifest in it, in order (other kinds
   * are skipped). Documents are named as {@link Manifests#documentName} does.
   *
   * @throws InvalidManifestException when the text is not well-formed YAML or a document is not a
   *     Kubernetes object
   */
  public List<Validated<?>> validateYaml(String yaml, String source) {
    List<Validated<?>> results = new ArrayList<>();
    for (Manifest manifest : Manifests.read(yaml, source)) {
      if (handles(manifest)) {
        results.add(validate(manifest));
      }
    }
    return results;
  }

  private <T> Validated<T> validate(JsonNode tree, String document, Kind<T> kind) {
    if (!tree.isObject()) {
      return invalid(document, "", "must be an object, not " + tree.getNodeType().name().toLowerCase());
    }
    ErrorCollector errors = new ErrorCollector(document);
    ObjectNode defaulted = kind.schema().withDefaults(tree);
    typeMeta(defaulted, kind.schema(), errors);
    kind.schema().validate(defaulted, errors);
    kind.runtimeChecks().accept(defaulted, errors);
    if (!errors.errors().isEmpty()) {
      return new Validated<>(document, null, errors.errors());
    }
    try {
      return new Validated<>(document, kind.bind(defaulted), List.of());
    } catch (IllegalArgumentException e) {
      return invalid(document, "", "cannot be read as a " + kind.schema().kind() + ": " + e.getMessage());
    }
  }

  private static void typeMeta(JsonNode tree, CustomResourceSchema schema, ErrorCollector errors) {
    if (!schema.apiVersion().equals(tree.path("apiVersion").asText())) {
      errors.add("apiVersion", "Invalid value: \"" + tree.path("apiVersion").asText() + "\": must be " + schema.apiVersion());
    }
    if (!schema.kind().equals(tree.path("kind").asText())) {
      errors.add("kind", "Invalid value: \"" + tree.path("kind").asText() + "\": must be " + schema.kind());
    }
    JsonNode metadata = tree.path("metadata");
    if (metadata.path("name").asText().isEmpty() && metadata.path("generateName").asText().isEmpty()) {
      errors.add("metadata.name", "Required value: name or generateName is required");
    }
  }

  @SuppressWarnings("unchecked")
  private <T> Kind<T> kind(String name, Class<T> type) {
    Kind<?> kind = kinds.get(name);
    if (kind.type() != type) {
      throw new IllegalStateException(name + " is bound to " + kind.type());
    }
    return (Kind<T>) kind;
  }

  private static <T> Validated<T> invalid(String document, String fieldPath, String message) {
    return new Validated<>(document, null, List.of(new ValidationError(document, fieldPath, message)));
  }

  private static CustomResourceSchema load(String resource) {
    return CustomResourceSchema.of(Manifests.read(Crds.yaml(resource), resource).getFirst().tree());
  }
}
