package sh.karpenter.api.aws.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * How the instance metadata service is exposed to nodes. The CRD defaults the whole object when absent,
 * and each field when the object is present without it, to the {@code DEFAULT_*} values: endpoint
 * enabled, IPv6 endpoint disabled, PUT response hop limit 1, IMDSv2 tokens required.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class MetadataOptions {
  public static final String ENABLED = "enabled";
  public static final String DISABLED = "disabled";
  public static final String TOKENS_REQUIRED = "required";
  public static final String TOKENS_OPTIONAL = "optional";

  public static final String DEFAULT_HTTP_ENDPOINT = ENABLED;
  public static final String DEFAULT_HTTP_PROTOCOL_IPV6 = DISABLED;
  public static final long DEFAULT_HTTP_PUT_RESPONSE_HOP_LIMIT = 1;
  public static final String DEFAULT_HTTP_TOKENS = TOKENS_REQUIRED;

  private String httpEndpoint;
  private String httpProtocolIPv6;
  private Long httpPutResponseHopLimit;
  private String httpTokens;

  /** The CRD's default object. */
  public static MetadataOptions defaults() {
    MetadataOptions options = new MetadataOptions();
    options.setHttpEndpoint(DEFAULT_HTTP_ENDPOINT);
    options.setHttpProtocolIPv6(DEFAULT_HTTP_PROTOCOL_IPV6);
    options.setHttpPutResponseHopLimit(DEFAULT_HTTP_PUT_RESPONSE_HOP_LIMIT);
    options.setHttpTokens(DEFAULT_HTTP_TOKENS);
    return options;
  }

  /** {@code enabled} or {@code disabled}. */
  @JsonProperty("httpEndpoint")
  public String getHttpEndpoint() { return httpEndpoint; }

  public void setHttpEndpoint(String httpEndpoint) { this.httpEndpoint = httpEndpoint; }

  /** {@code enabled} or {@code disabled}. */
  @JsonProperty("httpProtocolIPv6")
  public String getHttpProtocolIPv6() { return httpProtocolIPv6; }

  public void setHttpProtocolIPv6(String httpProtocolIPv6) { this.httpProtocolIPv6 = httpProtocolIPv6; }

  /** 1..64. */
  @JsonProperty("httpPutResponseHopLimit")
  public Long getHttpPutResponseHopLimit() { return httpPutResponseHopLimit; }

  public void setHttpPutResponseHopLimit(Long httpPutResponseHopLimit) { this.httpPutResponseHopLimit = httpPutResponseHopLimit; }

  /** {@code required} or {@code optional}. */
  @JsonProperty("httpTokens")
  public String getHttpTokens() { return httpTokens; }

  public void setHttpTokens(String httpTokens) { this.httpTokens = httpTokens; }
}
