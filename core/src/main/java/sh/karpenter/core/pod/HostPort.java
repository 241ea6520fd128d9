package sh.karpenter.core.pod;

import java.util.List;
import java.util.Objects;

/**
 * A host port a pod binds: (IP, port, protocol). An unspecified IP ("", "0.0.0.0" or "::") binds
 * every address; the protocol defaults to TCP.
 */
public record HostPort(String ip, int port, String protocol) {
  public HostPort {
    ip = ip == null || ip.isEmpty() ? "0.0.0.0" : ip;
    protocol = protocol == null || protocol.isEmpty() ? "TCP" : protocol;
  }

  /** True when two pods binding these ports could not share a node. */
  public boolean conflicts(HostPort o) {
    return port == o.port
        && protocol.equals(o.protocol)
        && (Objects.equals(ip, o.ip) || isUnspecified() || o.isUnspecified());
  }

  /** True when some port of {@code incoming} conflicts with some port of {@code used}. */
  public static boolean anyConflict(List<HostPort> used, List<HostPort> incoming) {
    if (used.isEmpty() || incoming.isEmpty()) {
      return false;
    }
    for (HostPort port : incoming) {
      for (HostPort other : used) {
        if (port.conflicts(other)) {
          return true;
        }
      }
    }
    return false;
  }

  /** True when the IP is the IPv4 or IPv6 unspecified address. */
  public boolean isUnspecified() {
    return ip.equals("0.0.0.0") || ip.equals("::");
  }

  @Override
  public String toString() {
    return ip + ":" + port + "/" + protocol;
  }
}
