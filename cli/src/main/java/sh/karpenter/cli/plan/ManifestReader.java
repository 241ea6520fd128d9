package sh.karpenter.cli.plan;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.introspect.Annotated;
import com.fasterxml.jackson.databind.introspect.AnnotatedMember;
import com.fasterxml.jackson.databind.introspect.JacksonAnnotationIntrospector;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClass;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.storage.CSINode;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.api.validation.InvalidManifestException;
import sh.karpenter.api.validation.Manifest;
import sh.karpenter.api.validation.Manifests;
import sh.karpenter.api.validation.Validated;
import sh.karpenter.api.validation.ValidationError;
import sh.karpenter.api.validation.Validator;
import sh.karpenter.controller.snapshot.SnapshotInputException;

/**
 * Binds the manifests {@link Manifests} reads (files, or directories read recursively) to fabric8
 * and Karpenter model objects for a plan.
 *
 * <p>Binding is strict, the way an API server with strict field validation is: unknown fields and
 * mistyped values of the core kinds a plan uses are rejected, and Karpenter's kinds are checked by
 * the offline {@link Validator}. A core document whose fields are all ones plans usually hold is
 * bound by {@link DirectBinding}, which gives the object Jackson would; any other goes to Jackson.
 * Every problem is a {@link SnapshotInputException} whose message is {@code <file>, document <n>:
 * <field>: <problem>}. Kinds that a plan does not use are reported to
 * the warning sink and skipped; NodeClasses are accepted silently (a plan does not need them).
 *
 * <p>Files are read within {@link Manifests.Limits} (checked from their sizes before any is parsed)
 * and one at a time, so only one file's parsed documents are held at once. A file without objects
 * (empty, only comments) or a directory without YAML files is a warning when other paths hold
 * objects; when no path holds any object, there is nothing to plan, which is an error. (Objects of
 * kinds a plan does not use are warnings; if they are all there is, the plan is empty.)
 */
public final class ManifestReader {

  /** One object read from a manifest, with the name of its document ({@code <file>, document <n>}). */
  public record PlanManifest(HasMetadata object, String origin) {}

  private static final Map<String, Class<? extends HasMetadata>> KINDS =
      Map.ofEntries(
          Map.entry("v1/Pod", Pod.class),
          Map.entry("v1/Node", Node.class),
          Map.entry("v1/Namespace", Namespace.class),
          Map.entry("v1/PersistentVolume", PersistentVolume.class),
          Map.entry("v1/PersistentVolumeClaim", PersistentVolumeClaim.class),
          Map.entry("v1/Service", Service.class),
          Map.entry("apps/v1/DaemonSet", DaemonSet.class),
          Map.entry("apps/v1/Deployment", Deployment.class),
          Map.entry("apps/v1/ReplicaSet", ReplicaSet.class),
          Map.entry("apps/v1/StatefulSet", StatefulSet.class),
          Map.entry("batch/v1/Job", Job.class),
          Map.entry("policy/v1/PodDisruptionBudget", PodDisruptionBudget.class),
          Map.entry("storage.k8s.io/v1/StorageClass", StorageClass.class),
          Map.entry("storage.k8s.io/v1/CSINode", CSINode.class),
          Map.entry("node.k8s.io/v1/RuntimeClass", RuntimeClass.class));

  private final ObjectMapper strict = strictBinding().addModule(new LazyModelBinders()).build();
  private final Validator validator = Validator.standard();
  private final Consumer<String> warnings;
  private final Manifests.Limits limits;

  /** @param warnings receives one line per skipped document */
  public ManifestReader(Consumer<String> warnings) {
    this(warnings, Manifests.Limits.DEFAULT);
  }

  /**
   * @param warnings receives one line per skipped document or empty file
   * @param limits how many bytes may be read ({@code --max-file-size}, {@code --max-input-size})
   */
  public ManifestReader(Consumer<String> warnings, Manifests.Limits limits) {
    this.warnings = warnings;
    this.limits = limits;
  }

  /**
   * Reads every path (file or directory) in order.
   *
   * @throws SnapshotInputException when a path cannot be read, a document is invalid, the input is
   *     over its limits, or nothing in it is part of a plan
   */
  public List<PlanManifest> read(List<Path> paths) {
    List<Path> all = new ArrayList<>();
    List<String> empty = new ArrayList<>();
    Set<Path> seen = new HashSet<>();
    try {
      for (Path path : paths) {
        List<Path> files = Manifests.files(path);
        if (files.isEmpty() && seen.add(path.toAbsolutePath().normalize())) {
          empty.add(path + ": no *.yaml or *.yml files in the directory");
        }
        for (Path file : files) {
          if (seen.add(file.toAbsolutePath().normalize())) {
            all.add(file);
          } else {
            warnings.accept(file + ": given more than once; read once");
          }
        }
      }
    } catch (InvalidManifestException e) {
      throw inputError(e.errors());
    }
    try {
      Manifests.checkSizes(all, limits);
    } catch (InvalidManifestException e) {
      ValidationError error = e.errors().getFirst();
      throw new SnapshotInputException(error.document(), null, error.message() + " (--max-file-size and --max-input-size raise the limits)");
    }
    List<PlanManifest> objects = new ArrayList<>();
    int documents = 0;
    for (Path file : all) {
      List<Manifest> manifests;
      try {
        manifests = Manifests.read(file);
      } catch (InvalidManifestException e) {
        throw inputError(e.errors());
      }
      if (manifests.isEmpty()) {
        empty.add(file + ": no Kubernetes objects (the file is empty or holds only comments)");
      }
      documents += manifests.size();
      for (Manifest manifest : manifests) {
        bind(manifest, objects);
      }
    }
    if (documents == 0) {
      throw new SnapshotInputException("nothing to plan", null, String.join("; ", empty));
    }
    empty.forEach(line -> warnings.accept(line + "; skipped"));
    return objects;
  }

  private void bind(Manifest manifest, List<PlanManifest> out) {
    if (validator.handles(manifest)) {
      bindKarpenterObject(manifest, out);
      return;
    }
    Class<? extends HasMetadata> type = coreKind(manifest.apiVersion(), manifest.kind());
    if (type == null) {
      if (!manifest.kind().endsWith("NodeClass")) { // a cloud provider's NodeClass (EC2NodeClass, ...): a plan needs none
        warnings.accept(manifest.document() + ": kind " + manifest.kind() + " (" + manifest.apiVersion() + ") is not part of a plan; ignored");
      }
      return;
    }
    HasMetadata direct = DirectBinding.bind(manifest.tree(), type);
    if (direct != null) {
      out.add(new PlanManifest(direct, manifest.document()));
      return;
    }
    try {
      out.add(new PlanManifest(strict.treeToValue(manifest.tree(), type), manifest.document()));
    } catch (JsonMappingException e) {
      throw new SnapshotInputException(manifest.document(), fieldPath(e), problem(e));
    } catch (JsonProcessingException | IllegalArgumentException e) {
      throw new SnapshotInputException(manifest.document(), null, firstLine(e.getMessage()));
    }
  }

  /**
   * Karpenter's own kinds go through the offline validator (CRD schema, defaults, CEL and runtime
   * rules), as an API server with the CRDs installed would check them. NodeClasses are not needed by
   * a plan; NodeClaims are not part of one.
   */
  private void bindKarpenterObject(Manifest manifest, List<PlanManifest> out) {
    Validated<?> validated = validator.validate(manifest);
    if (!validated.isValid()) {
      throw inputError(validated.errors());
    }
    switch (validated.object()) {
      case NodePool pool -> out.add(new PlanManifest(pool, manifest.document()));
      case NodeClaim claim -> warnings.accept(manifest.document() + ": NodeClaims are not part of a plan; ignored");
      case EC2NodeClass nodeClass -> out.add(new PlanManifest(nodeClass, manifest.document())); // settings for --aws-endpoint
      default -> {
        // a NodeClass: NodePools reference it, the plan does not need it
      }
    }
  }

  /**
   * The core kind a plan binds for {@code apiVersion} and {@code kind}, or null when a plan does not
   * use that kind (Karpenter's kinds are the {@link Validator}'s).
   */
  static Class<? extends HasMetadata> coreKind(String apiVersion, String kind) {
    return KINDS.get(apiVersion + "/" + kind);
  }

  /**
   * Binding as strict as an API server's strict field validation: unknown fields (the fabric8 models'
   * catch-all maps turned off), nulls for primitives and numbers for enums are rejected.
   */
  static JsonMapper.Builder strictBinding() {
    return JsonMapper.builder()
        .annotationIntrospector(new NoCatchAllFields())
        .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
        .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS);
  }

  /** The first error, with the others of the same document appended to its problem. */
  private static SnapshotInputException inputError(List<ValidationError> errors) {
    ValidationError first = errors.getFirst();
    String others =
        errors.stream().skip(1).map(e -> e.fieldPath().isEmpty() ? e.message() : e.fieldPath() + ": " + e.message()).collect(Collectors.joining("; "));
    return new SnapshotInputException(first.document(), first.fieldPath(), others.isEmpty() ? first.message() : first.message() + "; " + others);
  }

  /** Dotted path of the failing field: {@code spec.containers[0].resources}. */
  private static String fieldPath(JsonMappingException e) {
    StringBuilder path = new StringBuilder();
    for (JsonMappingException.Reference ref : e.getPath()) {
      if (ref.getFieldName() != null) {
        if (!path.isEmpty()) {
          path.append('.');
        }
        path.append(ref.getFieldName());
      } else if (ref.getIndex() >= 0) {
        path.append('[').append(ref.getIndex()).append(']');
      }
    }
    return path.toString();
  }

  private static String problem(JsonMappingException e) {
    if (e instanceof UnrecognizedPropertyException) {
      return "unknown field";
    }
    if (e instanceof MismatchedInputException m && m.getTargetType() != null) {
      return "expected " + typeName(m.getTargetType()) + " (" + firstLine(e.getOriginalMessage()) + ")";
    }
    return firstLine(e.getOriginalMessage());
  }

  private static String typeName(Class<?> type) {
    if (Collection.class.isAssignableFrom(type)) {
      return "a list";
    }
    if (Map.class.isAssignableFrom(type) || type.getName().startsWith("io.fabric8")) {
      return "an object";
    }
    return "a value of type " + type.getSimpleName();
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "invalid";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }

  /**
   * The fabric8 models keep unknown fields in a catch-all map; turning the catch-all off makes
   * Jackson reject unknown fields with their path, as strict field validation does.
   */
  private static final class NoCatchAllFields extends JacksonAnnotationIntrospector {
    private static final long serialVersionUID = 1L;

    @Override
    public Boolean hasAnySetter(Annotated annotated) {
      if (annotated instanceof AnnotatedMember member && member.getDeclaringClass().getName().startsWith("io.fabric8.kubernetes.api.model.")) {
        return Boolean.FALSE;
      }
      return super.hasAnySetter(annotated);
    }
  }
}
