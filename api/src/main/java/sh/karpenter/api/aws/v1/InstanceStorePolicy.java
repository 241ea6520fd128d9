package sh.karpenter.api.aws.v1;

/** How local instance-store disks are used. */
public enum InstanceStorePolicy {
  /**
   * All local NVMe instance-store disks form one RAID-0 array that holds the containerd and kubelet
   * state directories, so it becomes the node's ephemeral storage.
   */
  RAID0
}
