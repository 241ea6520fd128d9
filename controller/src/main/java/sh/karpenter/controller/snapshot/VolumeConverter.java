package sh.karpenter.controller.snapshot;

import static sh.karpenter.controller.snapshot.ValueConverter.nullToEmpty;

import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.TopologySelectorLabelRequirement;
import io.fabric8.kubernetes.api.model.TopologySelectorTerm;
import java.util.ArrayList;
import java.util.List;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.volume.PersistentVolume;
import sh.karpenter.core.volume.PersistentVolumeClaim;
import sh.karpenter.core.volume.StorageClass;
import sh.karpenter.core.volume.VolumeTopology;

/**
 * Converts PersistentVolumes, PersistentVolumeClaims and StorageClasses into core's {@link
 * VolumeTopology}. A claim without a class gets the cluster's default class (the one annotated
 * {@code storageclass.kubernetes.io/is-default-class: "true"}), as the admission plugin would have.
 */
final class VolumeConverter {
  private VolumeConverter() {}

  static final String DEFAULT_CLASS_ANNOTATION = "storageclass.kubernetes.io/is-default-class";

  record Sourced<T>(T object, String origin) {}

  static VolumeTopology convert(
      List<Sourced<io.fabric8.kubernetes.api.model.PersistentVolume>> volumes,
      List<Sourced<io.fabric8.kubernetes.api.model.PersistentVolumeClaim>> claims,
      List<Sourced<io.fabric8.kubernetes.api.model.storage.StorageClass>> storageClasses) {
    List<StorageClass> classes = new ArrayList<>(storageClasses.size());
    String defaultClass = null;
    for (var sourced : storageClasses) {
      var storageClass = sourced.object();
      classes.add(storageClass(storageClass, sourced.origin()));
      if ("true".equals(nullToEmpty(storageClass.getMetadata().getAnnotations()).get(DEFAULT_CLASS_ANNOTATION))) {
        defaultClass = storageClass.getMetadata().getName();
      }
    }
    List<PersistentVolumeClaim> convertedClaims = new ArrayList<>(claims.size());
    for (var sourced : claims) {
      var claim = sourced.object();
      var spec = claim.getSpec();
      String storageClass = spec == null || spec.getStorageClassName() == null ? defaultClass : spec.getStorageClassName();
      convertedClaims.add(
          new PersistentVolumeClaim(
              claim.getMetadata().getNamespace() == null ? "default" : claim.getMetadata().getNamespace(),
              claim.getMetadata().getName(),
              storageClass,
              spec == null ? null : spec.getVolumeName()));
    }
    List<PersistentVolume> convertedVolumes = new ArrayList<>(volumes.size());
    for (var sourced : volumes) {
      convertedVolumes.add(volume(sourced.object(), sourced.origin()));
    }
    return new VolumeTopology(convertedVolumes, convertedClaims, classes);
  }

  private static PersistentVolume volume(io.fabric8.kubernetes.api.model.PersistentVolume volume, String origin) {
    var spec = volume.getSpec();
    if (spec == null) {
      return new PersistentVolume(volume.getMetadata().getName(), List.of(), false, null);
    }
    List<Requirements> terms = new ArrayList<>();
    if (spec.getNodeAffinity() != null && spec.getNodeAffinity().getRequired() != null) {
      List<NodeSelectorTerm> selectorTerms = nullToEmpty(spec.getNodeAffinity().getRequired().getNodeSelectorTerms());
      for (int i = 0; i < selectorTerms.size(); i++) {
        terms.add(ValueConverter.nodeSelectorTerm(selectorTerms.get(i), origin, "spec.nodeAffinity.required.nodeSelectorTerms[" + i + "]"));
      }
    }
    return new PersistentVolume(
        volume.getMetadata().getName(),
        terms,
        spec.getLocal() != null || spec.getHostPath() != null,
        spec.getCsi() == null ? null : spec.getCsi().getDriver());
  }

  private static StorageClass storageClass(io.fabric8.kubernetes.api.model.storage.StorageClass storageClass, String origin) {
    StorageClass.VolumeBindingMode mode;
    try {
      mode = storageClass.getVolumeBindingMode() == null ? null : StorageClass.VolumeBindingMode.valueOf(storageClass.getVolumeBindingMode());
    } catch (IllegalArgumentException e) {
      throw new SnapshotInputException(origin, "volumeBindingMode", "unknown value \"" + storageClass.getVolumeBindingMode() + "\"");
    }
    List<Requirements> topologies = new ArrayList<>();
    List<TopologySelectorTerm> terms = nullToEmpty(storageClass.getAllowedTopologies());
    for (int i = 0; i < terms.size(); i++) {
      List<TopologySelectorLabelRequirement> expressions = nullToEmpty(terms.get(i).getMatchLabelExpressions());
      List<Requirement> term = new ArrayList<>(expressions.size());
      for (int j = 0; j < expressions.size(); j++) {
        var e = expressions.get(j);
        term.add(ValueConverter.requirement(e.getKey(), "In", e.getValues(), null, origin, "allowedTopologies[" + i + "].matchLabelExpressions[" + j + "]"));
      }
      topologies.add(Requirements.of(term));
    }
    return new StorageClass(storageClass.getMetadata().getName(), storageClass.getProvisioner(), mode, topologies);
  }
}
