package sh.karpenter.core.volume;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.wellknown.Labels;

/**
 * The node requirements a pod's persistent volumes impose (upstream's {@code VolumeTopology}): a
 * bound claim contributes its volume's node-affinity terms (hostname dropped for local and hostPath
 * volumes), an unbound claim with a StorageClass contributes the class's allowed topologies. Each
 * term is an alternative; alternatives of several volumes combine as a cross product, keeping only
 * the compatible combinations. Immutable.
 */
public final class VolumeTopology {
  /** No volumes known. */
  public static final VolumeTopology EMPTY = new VolumeTopology(List.of(), List.of(), List.of());

  private static final List<Requirements> UNCONSTRAINED = List.of(Requirements.EMPTY);

  private final Map<String, PersistentVolume> volumes = new HashMap<>();
  private final Map<String, PersistentVolumeClaim> claims = new HashMap<>();
  private final Map<String, StorageClass> storageClasses = new HashMap<>();

  public VolumeTopology(
      Collection<PersistentVolume> volumes,
      Collection<PersistentVolumeClaim> claims,
      Collection<StorageClass> storageClasses) {
    volumes.forEach(v -> this.volumes.put(v.name(), v));
    claims.forEach(c -> this.claims.put(c.key(), c));
    storageClasses.forEach(s -> this.storageClasses.put(s.name(), s));
  }

  /**
   * The alternative node requirements the pod's volumes allow, each frozen: {@code [EMPTY]} when the
   * volumes impose nothing, an empty list when they impose incompatible constraints (the pod cannot
   * be placed). Unknown claims, volumes and classes impose nothing here; {@link #validate} reports
   * them.
   */
  public List<Requirements> requirementsFor(Pod pod) {
    if (pod.persistentVolumeClaims().isEmpty()) {
      return UNCONSTRAINED;
    }
    List<Requirements> alternatives = UNCONSTRAINED;
    for (String claimName : pod.persistentVolumeClaims()) {
      List<Requirements> terms = termsFor(claim(pod, claimName));
      if (terms.isEmpty()) {
        continue;
      }
      List<Requirements> combined = new ArrayList<>(alternatives.size() * terms.size());
      for (Requirements alternative : alternatives) {
        for (Requirements term : terms) {
          if (alternative.intersects(term)) {
            combined.add(alternative.copy().add(term).frozen());
          }
        }
      }
      alternatives = combined;
    }
    return alternatives;
  }

  /**
   * A zone restriction one of a pod's claims imposes, for explanations.
   *
   * @param claim the claim, {@code namespace/name}
   * @param source what restricts it: {@code persistentvolume "<name>"} for a bound claim, {@code
   *     storageclass "<name>"} for one its class will provision
   * @param bound true when the volume exists (it is in these zones); false when it is still to be
   *     provisioned (it can only be provisioned in them)
   * @param zones the zones allowed (sorted)
   */
  public record ZoneConstraint(String claim, String source, boolean bound, SortedSet<String> zones) {}

  /**
   * The claims of the pod whose volume topology allows only some zones: each of its alternatives
   * names the zone key with an {@code In} requirement. Claims without such a restriction are left out.
   */
  public List<ZoneConstraint> zoneConstraints(Pod pod) {
    List<ZoneConstraint> constraints = new ArrayList<>();
    for (String claimName : pod.persistentVolumeClaims()) {
      PersistentVolumeClaim claim = claim(pod, claimName);
      List<Requirements> terms = termsFor(claim);
      if (terms.isEmpty()) {
        continue;
      }
      SortedSet<String> zones = new TreeSet<>();
      boolean restricted = true;
      for (Requirements term : terms) {
        Requirement zone = term.has(Labels.ZONE) ? term.get(Labels.ZONE) : null;
        if (zone == null || zone.complement()) {
          restricted = false;
          break;
        }
        zones.addAll(zone.values());
      }
      if (restricted) {
        String source = claim.bound() ? "persistentvolume \"" + claim.volumeName() + "\"" : "storageclass \"" + claim.storageClassName() + "\"";
        constraints.add(new ZoneConstraint(claim.key(), source, claim.bound(), Collections.unmodifiableSortedSet(zones)));
      }
    }
    return constraints;
  }

  private List<Requirements> termsFor(PersistentVolumeClaim claim) {
    if (claim == null) {
      return List.of();
    }
    if (claim.bound()) {
      PersistentVolume volume = volumes.get(claim.volumeName());
      if (volume == null) {
        return List.of();
      }
      if (!volume.localOrHostPath()) {
        return volume.nodeAffinityTerms();
      }
      List<Requirements> withoutHostname = new ArrayList<>(volume.nodeAffinityTerms().size());
      for (Requirements term : volume.nodeAffinityTerms()) {
        withoutHostname.add(term.has(Labels.HOSTNAME) ? term.copy().remove(Labels.HOSTNAME).frozen() : term);
      }
      return withoutHostname;
    }
    StorageClass storageClass = claim.storageClassName() == null ? null : storageClasses.get(claim.storageClassName());
    return storageClass == null ? List.of() : storageClass.allowedTopologies();
  }

  private PersistentVolumeClaim claim(Pod pod, String claimName) {
    return claims.get(pod.namespace() + "/" + claimName);
  }

  /**
   * Null when every claim of the pod exists and resolves (a bound claim's volume exists; an unbound
   * claim's StorageClass, when named, exists), else a reason naming the first that does not. Upstream
   * rejects such pods from provisioning.
   */
  public String validate(Pod pod) {
    for (String claimName : pod.persistentVolumeClaims()) {
      PersistentVolumeClaim claim = claim(pod, claimName);
      if (claim == null) {
        return "persistentvolumeclaim \"" + claimName + "\" not found in namespace " + pod.namespace();
      }
      if (claim.bound() && !volumes.containsKey(claim.volumeName())) {
        return "persistentvolume \"" + claim.volumeName() + "\" of claim \"" + claimName + "\" not found";
      }
      if (!claim.bound() && claim.storageClassName() != null && !storageClasses.containsKey(claim.storageClassName())) {
        return "storageclass \"" + claim.storageClassName() + "\" of claim \"" + claimName + "\" not found";
      }
    }
    return null;
  }

  /**
   * Volumes per CSI driver the pod would attach (for CSI volume limits on existing nodes): a bound
   * claim counts for its volume's driver, an unbound one for its class's provisioner. Sorted by driver.
   */
  public Map<String, Integer> csiVolumeCounts(Pod pod) {
    Map<String, Integer> counts = new TreeMap<>();
    for (String claimName : pod.persistentVolumeClaims()) {
      PersistentVolumeClaim claim = claim(pod, claimName);
      if (claim == null) {
        continue;
      }
      String driver = null;
      if (claim.bound()) {
        PersistentVolume volume = volumes.get(claim.volumeName());
        driver = volume == null ? null : volume.csiDriver();
      } else if (claim.storageClassName() != null) {
        StorageClass storageClass = storageClasses.get(claim.storageClassName());
        driver = storageClass == null ? null : storageClass.provisioner();
      }
      if (driver != null) {
        counts.merge(driver, 1, Integer::sum);
      }
    }
    return counts;
  }

  /**
   * The claims the pod would attach, per CSI driver ({@code namespace/name} keys), for CSI volume
   * limits: upstream counts distinct claims, so two pods sharing a claim attach it once. A bound
   * claim counts for its volume's driver, an unbound one for its class's provisioner; claims whose
   * driver is unknown count for none. Sorted by driver.
   */
  public Map<String, Set<String>> csiVolumes(Pod pod) {
    if (pod.persistentVolumeClaims().isEmpty()) {
      return Map.of();
    }
    Map<String, Set<String>> volumesByDriver = new TreeMap<>();
    for (String claimName : pod.persistentVolumeClaims()) {
      PersistentVolumeClaim claim = claim(pod, claimName);
      String driver = claim == null ? null : driverOf(claim);
      if (driver != null) {
        volumesByDriver.computeIfAbsent(driver, d -> new TreeSet<>()).add(claim.key());
      }
    }
    return volumesByDriver;
  }

  private String driverOf(PersistentVolumeClaim claim) {
    if (claim.bound()) {
      PersistentVolume volume = volumes.get(claim.volumeName());
      return volume == null ? null : volume.csiDriver();
    }
    StorageClass storageClass = claim.storageClassName() == null ? null : storageClasses.get(claim.storageClassName());
    return storageClass == null ? null : storageClass.provisioner();
  }

  public PersistentVolumeClaim claim(String namespace, String name) {
    return claims.get(namespace + "/" + name);
  }

  public PersistentVolume volume(String name) {
    return volumes.get(name);
  }

  public StorageClass storageClass(String name) {
    return storageClasses.get(name);
  }
}
