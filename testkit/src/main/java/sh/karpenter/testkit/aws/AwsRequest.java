package sh.karpenter.testkit.aws;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SequencedMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * One AWS API call as {@link AwsFaults} saw it on its way to the emulator.
 *
 * @param service the signing name from the SigV4 {@code Authorization} header ({@code ec2}, {@code ssm},
 *     {@code iam}, {@code sqs}, ...); empty for requests that are not signed (e.g. moto's own API)
 * @param operation the API operation ({@code CreateFleet}, {@code GetParameter}): the {@code Action}
 *     parameter of the query protocol (EC2, IAM) or the {@code X-Amz-Target} header of the JSON
 *     protocol (SSM, SQS); empty when there is neither
 * @param parameters the form parameters of a query-protocol request, in order; empty for JSON requests
 * @param body the request body as sent
 */
public record AwsRequest(String service, String operation, SequencedMap<String, String> parameters, String body) {

  private static final Pattern SIGNING_SERVICE = Pattern.compile("Credential=[^/,\\s]+/[^/]+/[^/]+/([^/]+)/aws4_request");

  public AwsRequest {
    parameters = Collections.unmodifiableSequencedMap(new LinkedHashMap<>(parameters));
  }

  /** Parses a request from its {@code Authorization}, {@code X-Amz-Target} and {@code Content-Type} headers and body. */
  static AwsRequest parse(String authorization, String target, String contentType, String body) {
    String service = "";
    if (authorization != null) {
      Matcher matcher = SIGNING_SERVICE.matcher(authorization);
      if (matcher.find()) {
        service = matcher.group(1);
      }
    }
    SequencedMap<String, String> parameters = new LinkedHashMap<>();
    if (target == null && contentType != null && contentType.startsWith("application/x-www-form-urlencoded")) {
      parameters = parseForm(body);
    }
    String operation = target != null ? target.substring(target.lastIndexOf('.') + 1) : parameters.getOrDefault("Action", "");
    return new AwsRequest(service, operation, parameters, body);
  }

  /** Whether this call is {@code service}'s {@code operation}; {@code null} matches any. */
  public boolean is(String service, String operation) {
    return (service == null || service.equals(this.service)) && (operation == null || operation.equals(this.operation));
  }

  static SequencedMap<String, String> parseForm(String body) {
    SequencedMap<String, String> parameters = new LinkedHashMap<>();
    if (body.isEmpty()) {
      return parameters;
    }
    for (String pair : body.split("&")) {
      int eq = pair.indexOf('=');
      String key = eq < 0 ? pair : pair.substring(0, eq);
      String value = eq < 0 ? "" : pair.substring(eq + 1);
      parameters.put(URLDecoder.decode(key, StandardCharsets.UTF_8), URLDecoder.decode(value, StandardCharsets.UTF_8));
    }
    return parameters;
  }

  static String formBody(Map<String, String> parameters) {
    return parameters.entrySet().stream()
        .map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "=" + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
        .collect(Collectors.joining("&"));
  }
}
