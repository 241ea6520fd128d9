package sh.karpenter.api.aws.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Idle connection-tracking timeouts, in seconds, of the network interfaces Karpenter puts in the launch
 * template (EFA-only interfaces excluded); at least one is set. Unset ones keep EC2's defaults.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ConnectionTracking {
  private Integer tcpEstablishedTimeout;
  private Integer udpStreamTimeout;
  private Integer udpTimeout;

  /** 60..432000. */
  @JsonProperty("tcpEstablishedTimeout")
  public Integer getTcpEstablishedTimeout() { return tcpEstablishedTimeout; }

  public void setTcpEstablishedTimeout(Integer tcpEstablishedTimeout) { this.tcpEstablishedTimeout = tcpEstablishedTimeout; }

  /** 60..180. */
  @JsonProperty("udpStreamTimeout")
  public Integer getUdpStreamTimeout() { return udpStreamTimeout; }

  public void setUdpStreamTimeout(Integer udpStreamTimeout) { this.udpStreamTimeout = udpStreamTimeout; }

  /** 30..60. */
  @JsonProperty("udpTimeout")
  public Integer getUdpTimeout() { return udpTimeout; }

  public void setUdpTimeout(Integer udpTimeout) { this.udpTimeout = udpTimeout; }
}
