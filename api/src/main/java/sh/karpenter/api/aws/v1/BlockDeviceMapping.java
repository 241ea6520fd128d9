package sh.karpenter.api.aws.v1;

import com.fasterxml.jackson.annotation.JsonInclude;

/** A block device of the instances: its device name, EBS volume and whether it holds the kubelet root. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class BlockDeviceMapping {
  private String deviceName;
  private BlockDevice ebs;
  private Boolean rootVolume;

  /** {@code /dev/xvda}, {@code xvdh}, ... */
  public String getDeviceName() { return deviceName; }

  public void setDeviceName(String deviceName) { this.deviceName = deviceName; }

  public BlockDevice getEbs() { return ebs; }

  public void setEbs(BlockDevice ebs) { this.ebs = ebs; }

  /** True for the one mapping mounted as the kubelet root directory; null and false mean the same. */
  public Boolean getRootVolume() { return rootVolume; }

  public void setRootVolume(Boolean rootVolume) { this.rootVolume = rootVolume; }
}
