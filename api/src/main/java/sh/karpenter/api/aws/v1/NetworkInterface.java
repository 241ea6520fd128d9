package sh.karpenter.api.aws.v1;

import com.fasterxml.jackson.annotation.JsonInclude;

/** A network interface attached at launch: its network card, device index and type. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NetworkInterface {
  public static final String TYPE_INTERFACE = "interface";
  public static final String TYPE_EFA_ONLY = "efa-only";

  private Integer networkCardIndex;
  private Integer deviceIndex;
  private String interfaceType;

  public NetworkInterface() {}

  public NetworkInterface(int networkCardIndex, int deviceIndex, String interfaceType) {
    this.networkCardIndex = networkCardIndex;
    this.deviceIndex = deviceIndex;
    this.interfaceType = interfaceType;
  }

  public Integer getNetworkCardIndex() { return networkCardIndex; }

  public void setNetworkCardIndex(Integer networkCardIndex) { this.networkCardIndex = networkCardIndex; }

  public Integer getDeviceIndex() { return deviceIndex; }

  public void setDeviceIndex(Integer deviceIndex) { this.deviceIndex = deviceIndex; }

  /** {@link #TYPE_INTERFACE} (an ENA interface) or {@link #TYPE_EFA_ONLY}. */
  public String getInterfaceType() { return interfaceType; }

  public void setInterfaceType(String interfaceType) { this.interfaceType = interfaceType; }
}
