package sh.karpenter.providers.aws.amifamily;

import java.util.List;
import sh.karpenter.api.aws.v1.AMIFamily;
import sh.karpenter.api.aws.v1.BlockDevice;
import sh.karpenter.api.aws.v1.BlockDeviceMapping;

/**
 * What differs between AMI families at launch (upstream's {@code AMIFamily}): the user data their
 * nodes bootstrap from and their default block device mappings.
 */
public interface AmiFamily {

  /** The family's name as {@code spec.amiFamily} spells it. */
  String name();

  /**
   * The user data, base64-encoded as CreateLaunchTemplate takes it.
   *
   * @throws IllegalArgumentException naming the problem when the NodeClass's {@code userData} cannot
   *     be merged (not TOML for Bottlerocket, a broken MIME archive) or the cluster CIDR is unknown
   *     (AL2023)
   */
  String userData(BootstrapOptions options);

  /** The block devices when {@code spec.blockDeviceMappings} is empty. */
  List<BlockDeviceMapping> defaultBlockDeviceMappings();

  /** The device that holds the kubelet's and containerd's data. */
  String ephemeralBlockDevice();

  /**
   * The family named {@code name} ({@link sh.karpenter.api.aws.v1.EC2NodeClass#amiFamily()}).
   *
   * @throws IllegalArgumentException for the Windows families, which this provider does not launch yet
   */
  static AmiFamily of(String name) {
    return switch (name) {
      case AMIFamily.AL2023 -> new Al2023();
      case AMIFamily.BOTTLEROCKET -> new Bottlerocket();
      case AMIFamily.CUSTOM -> new Custom();
      case AMIFamily.AL2 -> new Al2();
      default -> {
        if (AMIFamily.isWindows(name)) {
          throw new IllegalArgumentException("AMI family " + name + " is not supported by this provider's launch path yet");
        }
        // upstream's GetAMIFamily falls back to AL2 for names it does not know
        yield new Al2();
      }
    };
  }

  /** One EBS volume: gp3, encrypted, {@code sizeGi} GiB (upstream's {@code DefaultEBS} is 20Gi). */
  static BlockDeviceMapping ebs(String deviceName, String size) {
    BlockDevice ebs = new BlockDevice();
    ebs.setEncrypted(true);
    ebs.setVolumeType("gp3");
    ebs.setVolumeSize(new io.fabric8.kubernetes.api.model.Quantity(size));
    BlockDeviceMapping mapping = new BlockDeviceMapping();
    mapping.setDeviceName(deviceName);
    mapping.setEbs(ebs);
    return mapping;
  }
}
