package sh.karpenter.providers.aws.amifamily;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import sh.karpenter.api.aws.v1.AMIFamily;
import sh.karpenter.api.aws.v1.BlockDeviceMapping;
import sh.karpenter.core.cloudprovider.NodeClassNotReadyException;
import sh.karpenter.core.taints.Taint;

/**
 * Amazon Linux 2023: nodeadm reads a {@code NodeConfig} from a MIME archive (upstream's {@code
 * bootstrap.Nodeadm}). The NodeClass's user data comes first (its parts kept when it is an archive,
 * else one part: a NodeConfig when it parses as a YAML map, a shell script otherwise), then
 * Karpenter's NodeConfig: cluster name, endpoint, CA, service CIDR, the kubelet configuration passed
 * through whole with {@code registerWithTaints}, and the node labels as a kubelet flag.
 */
final class Al2023 implements AmiFamily {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final YAMLMapper YAML = new YAMLMapper();

  @Override
  public String name() {
    return AMIFamily.AL2023;
  }

  @Override
  public String userData(BootstrapOptions options) {
    List<Mime.Entry> entries = new ArrayList<>(customEntries(options.customUserData()));
    entries.add(Mime.Entry.of(Mime.CONTENT_TYPE_NODE_CONFIG, nodeConfig(options)));
    return Base64.getEncoder().encodeToString(Mime.serialize(entries).getBytes(StandardCharsets.UTF_8));
  }

  /** Karpenter's NodeConfig document, with its {@code # Karpenter Generated NodeConfig} comment. */
  static String nodeConfig(BootstrapOptions options) {
    Map<String, Object> cluster = new LinkedHashMap<>();
    cluster.put("name", options.clusterName());
    cluster.put("apiServerEndpoint", options.clusterEndpoint());
    if (options.caBundle() != null && !options.caBundle().isEmpty()) {
      byte[] ca;
      try {
        ca = Base64.getDecoder().decode(options.caBundle().strip());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("decoding CABundle: " + e.getMessage(), e);
      }
      cluster.put("certificateAuthority", Base64.getEncoder().encodeToString(ca));
    }
    if (options.clusterCidr() == null || options.clusterCidr().isEmpty()) {
      throw new NodeClassNotReadyException("resolving cluster CIDR: the cluster's service CIDR is unknown, which AL2023's nodeadm needs");
    }
    cluster.put("cidr", options.clusterCidr());
    Map<String, Object> instance = new LinkedHashMap<>();
    instance.put("localStorage", options.raid0() ? Map.of("strategy", BootstrapOptions.RAID0) : Map.of());
    Map<String, Object> config = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> field : options.kubeletFields().entrySet()) {
      config.put(field.getKey(), JSON.convertValue(field.getValue(), Object.class));
    }
    List<Map<String, Object>> taints = new ArrayList<>();
    for (Taint t : options.taints()) {
      Map<String, Object> taint = new LinkedHashMap<>();
      taint.put("key", t.key());
      if (!t.value().isEmpty()) {
        taint.put("value", t.value());
      }
      taint.put("effect", t.effect().name());
      taints.add(taint);
    }
    config.put("registerWithTaints", taints);
    Map<String, Object> kubelet = new LinkedHashMap<>();
    kubelet.put("config", config);
    String labels = options.nodeLabelArg();
    if (!labels.isEmpty()) {
      kubelet.put("flags", List.of(labels));
    }
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("cluster", cluster);
    spec.put("containerd", Map.of());
    spec.put("instance", instance);
    spec.put("kubelet", kubelet);
    Map<String, Object> document = new LinkedHashMap<>();
    document.put("apiVersion", "node.eks.aws/v1alpha1");
    document.put("kind", "NodeConfig");
    document.put("metadata", Map.of());
    document.put("spec", spec);
    return "# Karpenter Generated NodeConfig\n" + Yaml.write(document);
  }

  /** The NodeClass's user data as MIME parts (upstream's {@code Nodeadm.parseUserData}). */
  static List<Mime.Entry> customEntries(String userData) {
    if (userData == null || userData.isEmpty()) {
      return List.of();
    }
    if (Mime.isArchive(userData)) {
      try {
        // upstream keeps only each part's Content-Type
        return Mime.parse(userData).stream().map(e -> Mime.Entry.of(e.contentType(), e.content())).toList();
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("parsing custom UserData: " + e.getMessage(), e);
      }
    }
    return List.of(Mime.Entry.of(isYamlMap(userData) ? Mime.CONTENT_TYPE_NODE_CONFIG : Mime.CONTENT_TYPE_SHELL_SCRIPT, userData));
  }

  private static boolean isYamlMap(String text) {
    try {
      // go-yaml unmarshals an empty or comment-only document into a map without error
      JsonNode node = YAML.readTree(text);
      return node == null || node.isMissingNode() || node.isNull() || node.isObject();
    } catch (Exception e) {
      return false;
    }
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
