package sh.karpenter.providers.aws.amifamily;

import java.util.Objects;

/**
 * What every node of the cluster bootstraps with, known once per controller (upstream keeps these on
 * the launch template provider: the cluster name from the options, the endpoint, the CA bundle, the
 * service CIDR from EKS DescribeCluster, and the kube-dns address).
 *
 * @param name the cluster's name (tags, user data)
 * @param endpoint the API server's URL
 * @param caBundle the cluster CA bundle, base64, or null
 * @param serviceCidr the service CIDR, or null when unknown (AL2023 nodes then cannot be launched)
 * @param kubeDnsIp the kube-dns service address, or null; the default of the kubelet's clusterDNS
 */
public record ClusterInfo(String name, String endpoint, String caBundle, String serviceCidr, String kubeDnsIp) {
  public ClusterInfo {
    Objects.requireNonNull(name, "cluster name");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("cluster name must not be empty");
    }
    endpoint = endpoint == null ? "" : endpoint;
  }

  /** True when the cluster's pods use IPv6 (the kube-dns address is IPv6). */
  public boolean ipv6() {
    return kubeDnsIp != null && kubeDnsIp.contains(":");
  }
}
