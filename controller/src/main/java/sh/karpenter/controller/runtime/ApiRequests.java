package sh.karpenter.controller.runtime;

import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * An interceptor of the controller's client that tells an {@link ApiRequestObserver} about every
 * request it sends, named as the API server names it ({@code apiserver_request_total}'s verb and
 * resource): the verb from the HTTP method, whether a name is given and the {@code watch}
 * parameter; the resource (and subresource) from the path, {@code /api/v1/...} or {@code
 * /apis/<group>/<version>/...}, namespaced or not.
 */
public final class ApiRequests implements Interceptor {
  /** The interceptor's name in the HTTP client. */
  public static final String NAME = "karpenter-api-requests";

  /** What a request was: the API server's verb and the resource (with its subresource), "" for none. */
  public record Request(String verb, String resource) {}

  private final ApiRequestObserver observer;

  public ApiRequests(ApiRequestObserver observer) {
    this.observer = observer;
  }

  @Override
  public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
    try {
      Request named = of(request.method(), request.uri());
      observer.requested(named.verb(), named.resource());
    } catch (RuntimeException e) {
      // counting must never fail a request
    }
  }

  /** The verb and resource of a request with this HTTP method to this URI. */
  public static Request of(String method, URI uri) {
    String httpMethod = method == null ? "" : method.toUpperCase(Locale.ROOT);
    List<String> segments = new ArrayList<>();
    for (String segment : (uri.getRawPath() == null ? "" : uri.getRawPath()).split("/")) {
      if (!segment.isEmpty()) {
        segments.add(segment);
      }
    }
    int start;
    if (segments.size() >= 3 && segments.get(0).equals("api")) {
      start = 2; // api/v1
    } else if (segments.size() >= 4 && segments.get(0).equals("apis")) {
      start = 3; // apis/<group>/<version>
    } else {
      return new Request(httpMethod.toLowerCase(Locale.ROOT), "");
    }
    List<String> rest = segments.subList(start, segments.size());
    if (rest.size() >= 3 && rest.get(0).equals("namespaces")) {
      rest = rest.subList(2, rest.size()); // namespaces/<ns>/<resource>...
    }
    String resource = rest.get(0) + (rest.size() >= 3 ? "/" + rest.get(2) : "");
    boolean named = rest.size() >= 2;
    boolean watch = uri.getRawQuery() != null && ("&" + uri.getRawQuery() + "&").contains("&watch=true&");
    String verb = switch (httpMethod) {
      case "GET" -> watch ? "watch" : named ? "get" : "list";
      case "POST" -> "create";
      case "PUT" -> "update";
      case "PATCH" -> "patch";
      case "DELETE" -> named ? "delete" : "deletecollection";
      default -> httpMethod.toLowerCase(Locale.ROOT);
    };
    return new Request(verb, resource);
  }
}
