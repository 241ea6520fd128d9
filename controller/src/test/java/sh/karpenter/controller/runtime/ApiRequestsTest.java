package sh.karpenter.controller.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** How {@link ApiRequests} names requests, and that the controller's client tells it about each one. */
class ApiRequestsTest {

  @ParameterizedTest(name = "{0} {1} -> {2} {3}")
  @CsvSource({
    "GET, /api/v1/namespaces/default/pods, list, pods",
    "GET, /api/v1/namespaces/default/pods?watch=true&resourceVersion=5, watch, pods",
    "GET, /api/v1/pods?labelSelector=a%3Db&watch=true, watch, pods",
    "GET, /api/v1/namespaces/default/pods/web-0, get, pods",
    "GET, /api/v1/nodes, list, nodes",
    "GET, /api/v1/nodes/node-a, get, nodes",
    "GET, /api/v1/namespaces, list, namespaces",
    "GET, /api/v1/namespaces/default, get, namespaces",
    "DELETE, /api/v1/namespaces/default, delete, namespaces",
    "POST, /api/v1/namespaces/default/pods/web-0/eviction, create, pods/eviction",
    "POST, /api/v1/namespaces/default/pods/web-0/binding, create, pods/binding",
    "POST, /apis/karpenter.sh/v1/nodeclaims, create, nodeclaims",
    "PATCH, /apis/karpenter.sh/v1/nodeclaims/default-abc/status, patch, nodeclaims/status",
    "PUT, /apis/karpenter.sh/v1/nodepools/default/status, update, nodepools/status",
    "DELETE, /apis/karpenter.sh/v1/nodeclaims/default-abc, delete, nodeclaims",
    "DELETE, /apis/karpenter.sh/v1/nodeclaims, deletecollection, nodeclaims",
    "PUT, /apis/coordination.k8s.io/v1/namespaces/kube-system/leases/karpenter-leader-election, update, leases",
    "GET, /apis/karpenter.k8s.aws/v1/ec2nodeclasses?watch=false, list, ec2nodeclasses",
  })
  void namesARequestAsTheApiServerDoes(String method, String uri, String verb, String resource) {
    assertThat(ApiRequests.of(method, URI.create("https://127.0.0.1:6443" + uri))).isEqualTo(new ApiRequests.Request(verb, resource));
  }

  @Test
  void aRequestThatIsNotToAResourceHasNoResource() {
    assertThat(ApiRequests.of("GET", URI.create("https://127.0.0.1:6443/version"))).isEqualTo(new ApiRequests.Request("get", ""));
    assertThat(ApiRequests.of("GET", URI.create("https://127.0.0.1:6443/apis"))).isEqualTo(new ApiRequests.Request("get", ""));
    assertThat(ApiRequests.of("GET", URI.create("https://127.0.0.1:6443/api/v1"))).isEqualTo(new ApiRequests.Request("get", ""));
  }

  @Test
  void theControllersClientReportsEveryRequestItSends() throws Exception {
    String pod = """
        {"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-0","namespace":"default","resourceVersion":"1"}}""";
    String pods = """
        {"apiVersion":"v1","kind":"PodList","metadata":{"resourceVersion":"1"},"items":[%s]}""".formatted(pod);
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", exchange -> {
      String path = exchange.getRequestURI().getPath();
      byte[] body = (path.endsWith("/pods") ? pods : pod).getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(exchange.getRequestMethod().equals("POST") ? 201 : 200, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    server.start();
    List<String> seen = new CopyOnWriteArrayList<>();
    var config = new ConfigBuilder().withMasterUrl("http://127.0.0.1:" + server.getAddress().getPort()).withNamespace("default").build();
    try (KubernetesClient client = ControllerClient.builder(config, -1, 0, (verb, resource) -> seen.add(verb + " " + resource)).build()) {
      client.pods().inNamespace("default").withName("web-0").get();
      client.pods().inNamespace("default").list();
      client.pods().inNamespace("default").resource(new PodBuilder().withNewMetadata().withName("web-1").endMetadata().build()).create();
    } finally {
      server.stop(0);
    }
    assertThat(seen).containsExactly("get pods", "list pods", "create pods");
  }
}
