package sh.karpenter.core.volume;

import java.util.Objects;

/**
 * The parts of a PersistentVolumeClaim that constrain scheduling.
 *
 * @param storageClassName the class (already defaulted), or null/empty for none
 * @param volumeName the bound PersistentVolume, or null while unbound
 */
public record PersistentVolumeClaim(String namespace, String name, String storageClassName, String volumeName) {
  public PersistentVolumeClaim {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(name, "name");
    storageClassName = storageClassName == null || storageClassName.isEmpty() ? null : storageClassName;
    volumeName = volumeName == null || volumeName.isEmpty() ? null : volumeName;
  }

  /** {@code namespace/name}. */
  public String key() {
    return namespace + "/" + name;
  }

  public boolean bound() {
    return volumeName != null;
  }
}
