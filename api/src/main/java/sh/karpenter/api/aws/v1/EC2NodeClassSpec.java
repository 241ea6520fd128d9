package sh.karpenter.api.aws.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;

/**
 * The desired configuration of an EC2NodeClass (upstream {@code EC2NodeClassSpec}). Selector terms are
 * ORed; the conditions inside one term are ANDed. A null field is absent from the manifest.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class EC2NodeClassSpec {
  private List<SubnetSelectorTerm> subnetSelectorTerms;
  private List<SecurityGroupSelectorTerm> securityGroupSelectorTerms;
  private List<CapacityReservationSelectorTerm> capacityReservationSelectorTerms;
  private PlacementGroupSelector placementGroupSelector;
  private Boolean associatePublicIPAddress;
  private Integer ipPrefixCount;
  private List<AMISelectorTerm> amiSelectorTerms;
  private String amiFamily;
  private String userData;
  private String role;
  private String instanceProfile;
  private Map<String, String> tags;
  private KubeletConfiguration kubelet;
  private List<BlockDeviceMapping> blockDeviceMappings;
  private InstanceStorePolicy instanceStorePolicy;
  private List<NetworkInterface> networkInterfaces;
  private Boolean detailedMonitoring;
  private MetadataOptions metadataOptions;
  private EnclaveOptions enclaveOptions;
  private ConnectionTracking connectionTracking;
  private String context;
  private CPUOptions cpuOptions;

  /** Required, 1..30 terms: {@code tags} or {@code id}. Dynamic: not part of the drift hash. */
  public List<SubnetSelectorTerm> getSubnetSelectorTerms() { return subnetSelectorTerms; }

  public void setSubnetSelectorTerms(List<SubnetSelectorTerm> subnetSelectorTerms) { this.subnetSelectorTerms = subnetSelectorTerms; }

  /** Required, 1..30 terms: {@code tags}, {@code id} or {@code name}. Dynamic: not part of the drift hash. */
  public List<SecurityGroupSelectorTerm> getSecurityGroupSelectorTerms() { return securityGroupSelectorTerms; }

  public void setSecurityGroupSelectorTerms(List<SecurityGroupSelectorTerm> securityGroupSelectorTerms) {
    this.securityGroupSelectorTerms = securityGroupSelectorTerms;
  }

  /** Up to 30 terms selecting capacity reservations. Dynamic: not part of the drift hash. */
  public List<CapacityReservationSelectorTerm> getCapacityReservationSelectorTerms() { return capacityReservationSelectorTerms; }

  public void setCapacityReservationSelectorTerms(List<CapacityReservationSelectorTerm> capacityReservationSelectorTerms) {
    this.capacityReservationSelectorTerms = capacityReservationSelectorTerms;
  }

  /** The placement group to launch into, by name or ID. */
  public PlacementGroupSelector getPlacementGroupSelector() { return placementGroupSelector; }

  public void setPlacementGroupSelector(PlacementGroupSelector placementGroupSelector) { this.placementGroupSelector = placementGroupSelector; }

  @JsonProperty("associatePublicIPAddress")
  public Boolean getAssociatePublicIPAddress() { return associatePublicIPAddress; }

  public void setAssociatePublicIPAddress(Boolean associatePublicIPAddress) { this.associatePublicIPAddress = associatePublicIPAddress; }

  /** IPv4 prefixes for the primary network interface (&ge; 0). Not part of the drift hash. */
  @JsonProperty("ipPrefixCount")
  public Integer getIpPrefixCount() { return ipPrefixCount; }

  public void setIpPrefixCount(Integer ipPrefixCount) { this.ipPrefixCount = ipPrefixCount; }

  /** Required, 1..30 terms; an {@code alias} term must be the only one. Dynamic: not part of the drift hash. */
  @JsonProperty("amiSelectorTerms")
  public List<AMISelectorTerm> getAmiSelectorTerms() { return amiSelectorTerms; }

  public void setAmiSelectorTerms(List<AMISelectorTerm> amiSelectorTerms) { this.amiSelectorTerms = amiSelectorTerms; }

  /**
   * One of {@link AMIFamily#ALL}; optional with an alias term (then the alias's family, or {@code Custom}),
   * required without one. {@link EC2NodeClass#amiFamily()} resolves it.
   */
  @JsonProperty("amiFamily")
  public String getAmiFamily() { return amiFamily; }

  public void setAmiFamily(String amiFamily) { this.amiFamily = amiFamily; }

  public String getUserData() { return userData; }

  public void setUserData(String userData) { this.userData = userData; }

  /** The IAM role of the nodes; exactly one of {@code role} and {@code instanceProfile} is set. */
  public String getRole() { return role; }

  public void setRole(String role) { this.role = role; }

  /** An existing instance profile for the nodes; exactly one of {@code role} and {@code instanceProfile} is set. */
  public String getInstanceProfile() { return instanceProfile; }

  public void setInstanceProfile(String instanceProfile) { this.instanceProfile = instanceProfile; }

  /** EC2 tags for instances, volumes and launch templates; {@link AwsTags#isRestricted restricted} keys are rejected. */
  public Map<String, String> getTags() { return tags; }

  public void setTags(Map<String, String> tags) { this.tags = tags; }

  /** The kubelet configuration, an open map; null when absent. */
  public KubeletConfiguration getKubelet() { return kubelet; }

  public void setKubelet(KubeletConfiguration kubelet) { this.kubelet = kubelet; }

  /** Up to 50 mappings, at most one with {@code rootVolume: true}. */
  public List<BlockDeviceMapping> getBlockDeviceMappings() { return blockDeviceMappings; }

  public void setBlockDeviceMappings(List<BlockDeviceMapping> blockDeviceMappings) { this.blockDeviceMappings = blockDeviceMappings; }

  public InstanceStorePolicy getInstanceStorePolicy() { return instanceStorePolicy; }

  public void setInstanceStorePolicy(InstanceStorePolicy instanceStorePolicy) { this.instanceStorePolicy = instanceStorePolicy; }

  /** Up to 150 interfaces; a primary {@code interface} at card 0, device 0 is required when any is given. */
  public List<NetworkInterface> getNetworkInterfaces() { return networkInterfaces; }

  public void setNetworkInterfaces(List<NetworkInterface> networkInterfaces) { this.networkInterfaces = networkInterfaces; }

  public Boolean getDetailedMonitoring() { return detailedMonitoring; }

  public void setDetailedMonitoring(Boolean detailedMonitoring) { this.detailedMonitoring = detailedMonitoring; }

  /** Instance metadata service options; the CRD defaults the whole object ({@link MetadataOptions}). */
  public MetadataOptions getMetadataOptions() { return metadataOptions; }

  public void setMetadataOptions(MetadataOptions metadataOptions) { this.metadataOptions = metadataOptions; }

  public EnclaveOptions getEnclaveOptions() { return enclaveOptions; }

  public void setEnclaveOptions(EnclaveOptions enclaveOptions) { this.enclaveOptions = enclaveOptions; }

  public ConnectionTracking getConnectionTracking() { return connectionTracking; }

  public void setConnectionTracking(ConnectionTracking connectionTracking) { this.connectionTracking = connectionTracking; }

  /** The reserved {@code Context} field of EC2 Fleet requests. */
  public String getContext() { return context; }

  public void setContext(String context) { this.context = context; }

  @JsonProperty("cpuOptions")
  public CPUOptions getCpuOptions() { return cpuOptions; }

  public void setCpuOptions(CPUOptions cpuOptions) { this.cpuOptions = cpuOptions; }
}
