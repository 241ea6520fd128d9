package sh.karpenter.providers.aws.amifamily;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import sh.karpenter.api.aws.v1.AMIFamily;
import sh.karpenter.api.aws.v1.BlockDeviceMapping;

/** Custom AMIs: the NodeClass's user data exactly as written, nothing merged; no default block devices. */
final class Custom implements AmiFamily {
  @Override
  public String name() {
    return AMIFamily.CUSTOM;
  }

  @Override
  public String userData(BootstrapOptions options) {
    String userData = options.customUserData() == null ? "" : options.customUserData();
    return Base64.getEncoder().encodeToString(userData.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public List<BlockDeviceMapping> defaultBlockDeviceMappings() {
    return List.of();
  }

  @Override
  public String ephemeralBlockDevice() {
    return null;
  }
}
