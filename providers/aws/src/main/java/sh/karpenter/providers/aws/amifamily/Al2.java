package sh.karpenter.providers.aws.amifamily;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import sh.karpenter.api.aws.v1.AMIFamily;
import sh.karpenter.api.aws.v1.BlockDeviceMapping;

/**
 * Amazon Linux 2: a shell script calling {@code /etc/eks/bootstrap.sh} with the cluster, CA, DNS
 * address, max pods and kubelet flags, after the NodeClass's user data, in one MIME archive (upstream's
 * {@code bootstrap.EKS}).
 */
final class Al2 implements AmiFamily {
  @Override
  public String name() {
    return AMIFamily.AL2;
  }

  @Override
  public String userData(BootstrapOptions options) {
    List<Mime.Entry> entries = new ArrayList<>();
    String custom = options.customUserData();
    if (custom != null && !custom.isEmpty()) {
      if (Mime.isArchive(custom)) {
        try {
          entries.addAll(Mime.parse(custom));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("parsing custom user data input: " + e.getMessage(), e);
        }
      } else {
        entries.add(Mime.Entry.of(Mime.CONTENT_TYPE_SHELL_SCRIPT, custom));
      }
    }
    entries.add(Mime.Entry.of(Mime.CONTENT_TYPE_SHELL_SCRIPT, bootstrapScript(options)));
    return Base64.getEncoder().encodeToString(Mime.serialize(entries).getBytes(StandardCharsets.UTF_8));
  }

  static String bootstrapScript(BootstrapOptions o) {
    StringBuilder script = new StringBuilder();
    script.append("#!/bin/bash -xe\n");
    script.append("exec > >(tee /var/log/user-data.log|logger -t user-data -s 2>/dev/console) 2>&1\n");
    String caArg = o.caBundle() == null ? "" : "--b64-cluster-ca '" + o.caBundle() + "'";
    script.append("/etc/eks/bootstrap.sh '").append(o.clusterName()).append("' --apiserver-endpoint '")
        .append(o.clusterEndpoint()).append("' ").append(caArg);
    List<String> dns = o.kubelet() == null ? List.of() : o.kubelet().clusterDNS();
    if (dns != null && !dns.isEmpty()) {
      if (dns.get(0).contains(":")) {
        script.append(" \\\n--ip-family ipv6");
      }
      script.append(" \\\n--dns-cluster-ip '").append(dns.get(0)).append('\'');
    }
    if (o.kubelet() != null && o.kubelet().maxPodsValue().isPresent()) {
      script.append(" \\\n--use-max-pods false");
    }
    List<String> args = o.kubeletExtraArgs();
    if (!args.isEmpty()) {
      script.append(" \\\n--kubelet-extra-args '").append(String.join(" ", args)).append('\'');
    }
    if (o.raid0()) {
      script.append(" \\\n--local-disks raid0");
    }
    return script.toString();
  }

  @Override
  public List<BlockDeviceMapping> defaultBlockDeviceMappings() {
    return List.of(AmiFamily.ebs(ephemeralBlockDevice(), "20Gi"));
  }

  @Override
  public String ephemeralBlockDevice() {
    return "/dev/xvda";
  }
}
