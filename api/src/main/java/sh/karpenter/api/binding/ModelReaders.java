package sh.karpenter.api.binding;

import static sh.karpenter.api.binding.ObjectReader.BOOL;
import static sh.karpenter.api.binding.ObjectReader.INTEGER;
import static sh.karpenter.api.binding.ObjectReader.LONG;
import static sh.karpenter.api.binding.ObjectReader.QUANTITIES;
import static sh.karpenter.api.binding.ObjectReader.STRINGS;
import static sh.karpenter.api.binding.ObjectReader.STRING_LIST;
import static sh.karpenter.api.binding.ObjectReader.TEXT;
import static sh.karpenter.api.binding.ObjectReader.fromText;
import static sh.karpenter.api.binding.ObjectReader.listOf;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Taint;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import sh.karpenter.api.kwok.v1alpha1.KWOKNodeClass;
import sh.karpenter.api.kwok.v1alpha1.KWOKNodeClassSpec;
import sh.karpenter.api.v1.Budget;
import sh.karpenter.api.v1.ConsolidationPolicy;
import sh.karpenter.api.v1.Disruption;
import sh.karpenter.api.v1.DisruptionReason;
import sh.karpenter.api.v1.GoDuration;
import sh.karpenter.api.v1.NillableDuration;
import sh.karpenter.api.v1.NodeClaimTemplate;
import sh.karpenter.api.v1.NodeClaimTemplateMetadata;
import sh.karpenter.api.v1.NodeClaimTemplateSpec;
import sh.karpenter.api.v1.NodeClassReference;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.api.v1.NodePoolSpec;
import sh.karpenter.api.v1.NodeSelectorRequirementWithMinValues;

/**
 * {@link ObjectReader}s of the object metadata and taints Kubernetes objects share, and of the
 * Karpenter kinds a plan reads (a NodePool as it is after its CRD's defaults, a KWOKNodeClass).
 */
public final class ModelReaders {
  private ModelReaders() {}

  private static final ObjectReader<OwnerReference> OWNER_REFERENCE =
      new ObjectReader<>(OwnerReference::new)
          .field("apiVersion", TEXT, OwnerReference::setApiVersion)
          .field("kind", TEXT, OwnerReference::setKind)
          .field("name", TEXT, OwnerReference::setName)
          .field("uid", TEXT, OwnerReference::setUid)
          .field("controller", BOOL, OwnerReference::setController)
          .field("blockOwnerDeletion", BOOL, OwnerReference::setBlockOwnerDeletion);

  public static final ObjectReader<ObjectMeta> METADATA =
      new ObjectReader<>(ObjectMeta::new)
          .field("name", TEXT, ObjectMeta::setName)
          .field("generateName", TEXT, ObjectMeta::setGenerateName)
          .field("namespace", TEXT, ObjectMeta::setNamespace)
          .field("uid", TEXT, ObjectMeta::setUid)
          .field("labels", STRINGS, ObjectMeta::setLabels)
          .field("annotations", STRINGS, ObjectMeta::setAnnotations)
          .field("ownerReferences", listOf(OWNER_REFERENCE), ObjectMeta::setOwnerReferences);

  public static final ObjectReader<Taint> TAINT =
      new ObjectReader<>(Taint::new)
          .field("key", TEXT, Taint::setKey)
          .field("value", TEXT, Taint::setValue)
          .field("effect", TEXT, Taint::setEffect);

  /** A reader of kind {@code T}: apiVersion and kind are set as Jackson sets them, over the constructor's defaults. */
  public static <T extends HasMetadata> ObjectReader<T> kind(Supplier<T> factory, BiConsumer<T, String> setKind) {
    return new ObjectReader<>(factory)
        .field("apiVersion", TEXT, HasMetadata::setApiVersion)
        .field("kind", TEXT, setKind)
        .field("metadata", METADATA, HasMetadata::setMetadata);
  }

  private static final ObjectReader<NodeClaimTemplateSpec> NODE_CLAIM_TEMPLATE_SPEC =
      new ObjectReader<>(NodeClaimTemplateSpec::new)
          .field("taints", listOf(TAINT), NodeClaimTemplateSpec::setTaints)
          .field("startupTaints", listOf(TAINT), NodeClaimTemplateSpec::setStartupTaints)
          .field(
              "requirements",
              listOf(
                  new ObjectReader<>(NodeSelectorRequirementWithMinValues::new)
                      .field("key", TEXT, NodeSelectorRequirementWithMinValues::setKey)
                      .field("operator", TEXT, NodeSelectorRequirementWithMinValues::setOperator)
                      .field("values", STRING_LIST, NodeSelectorRequirementWithMinValues::setValues)
                      .field("minValues", INTEGER, NodeSelectorRequirementWithMinValues::setMinValues)),
              NodeClaimTemplateSpec::setRequirements)
          .field(
              "nodeClassRef",
              new ObjectReader<>(NodeClassReference::new)
                  .field("group", TEXT, NodeClassReference::setGroup)
                  .field("kind", TEXT, NodeClassReference::setKind)
                  .field("name", TEXT, NodeClassReference::setName),
              NodeClaimTemplateSpec::setNodeClassRef)
          .field("expireAfter", fromText(NillableDuration::parse), NodeClaimTemplateSpec::setExpireAfter)
          .field("terminationGracePeriod", fromText(GoDuration::parse), NodeClaimTemplateSpec::setTerminationGracePeriod);

  private static final ObjectReader<Disruption> DISRUPTION =
      new ObjectReader<>(Disruption::new)
          .field("consolidateAfter", fromText(NillableDuration::parse), Disruption::setConsolidateAfter)
          .field("consolidationPolicy", fromText(ConsolidationPolicy::valueOf), Disruption::setConsolidationPolicy)
          .field(
              "budgets",
              listOf(
                  new ObjectReader<>(Budget::new)
                      .field("reasons", listOf(fromText(DisruptionReason::valueOf)), Budget::setReasons)
                      .field("nodes", TEXT, Budget::setNodes)
                      .field("schedule", TEXT, Budget::setSchedule)
                      .field("duration", fromText(GoDuration::parse), Budget::setDuration)),
              Disruption::setBudgets);

  public static final ObjectReader<NodePool> NODE_POOL =
      kind(NodePool::new, NodePool::setKind)
          .field(
              "spec",
              new ObjectReader<>(NodePoolSpec::new)
                  .field(
                      "template",
                      new ObjectReader<>(NodeClaimTemplate::new)
                          .field(
                              "metadata",
                              new ObjectReader<>(NodeClaimTemplateMetadata::new)
                                  .field("labels", STRINGS, NodeClaimTemplateMetadata::setLabels)
                                  .field("annotations", STRINGS, NodeClaimTemplateMetadata::setAnnotations),
                              NodeClaimTemplate::setMetadata)
                          .field("spec", NODE_CLAIM_TEMPLATE_SPEC, NodeClaimTemplate::setSpec),
                      NodePoolSpec::setTemplate)
                  .field("disruption", DISRUPTION, NodePoolSpec::setDisruption)
                  .field("limits", QUANTITIES, NodePoolSpec::setLimits)
                  .field("weight", INTEGER, NodePoolSpec::setWeight)
                  .field("replicas", LONG, NodePoolSpec::setReplicas),
              NodePool::setSpec);

  public static final ObjectReader<KWOKNodeClass> KWOK_NODE_CLASS =
      kind(KWOKNodeClass::new, KWOKNodeClass::setKind)
          .field(
              "spec",
              new ObjectReader<>(KWOKNodeClassSpec::new)
                  .field("nodeRegistrationDelay", fromText(GoDuration::parse), KWOKNodeClassSpec::setNodeRegistrationDelay),
              KWOKNodeClass::setSpec);
}
