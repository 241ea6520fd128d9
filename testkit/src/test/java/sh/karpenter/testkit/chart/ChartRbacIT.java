package sh.karpenter.testkit.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.objects.Metadata;
import sh.karpenter.controller.operator.Operator;
import sh.karpenter.controller.operator.options.Options;
import sh.karpenter.controller.runtime.KubernetesEventRecorder;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.providers.kwok.KwokCloudProvider;
import sh.karpenter.testkit.controlplane.ControlPlane;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;
import sh.karpenter.testkit.fixtures.InProcessOperators;
import sh.karpenter.testkit.fixtures.NodePoolYaml;
import sh.karpenter.testkit.fixtures.TestObjects;

/**
 * The Helm chart on the real control plane: {@code helm lint} and {@code helm install} succeed and
 * create the Deployment, RBAC, PodDisruptionBudget and Service; the chart's ServiceAccount may do no
 * more than its rules say (SubjectAccessReview); and the whole operator, running with nothing but a
 * token of that ServiceAccount (TokenRequest), provisions, consolidates and drains nodes without the API
 * server refusing a single request. Refusals are read from the API server's audit log
 * ({@link ServiceAccountAudit}), so a controller that starts using a verb the chart does not grant
 * fails here even when it only logs the 403 or retries it forever (docs/install.md#permissions).
 */
@ControlPlaneTest
class ChartRbacIT {
  private static final String RELEASE = "karpenter";
  private static final Duration TIMEOUT = Duration.ofMinutes(8);
  private static final Duration POLL = Duration.ofSeconds(2);

  private final InProcessOperators operators = new InProcessOperators();
  private final List<List<String>> uninstalls = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    try {
      operators.close();
    } finally {
      // Cluster-scoped objects (ClusterRoles and their bindings) outlive the test namespace.
      uninstalls.forEach(args -> Helm.shared().run(args));
    }
  }

  private void install(ControlPlane controlPlane, String namespace, Map<String, String> values) {
    String kubeconfig = controlPlane.kubeconfig().toString();
    List<String> args = new ArrayList<>(List.of("install", RELEASE, Helm.shared().chart().toString(),
        "--namespace", namespace, "--kubeconfig", kubeconfig));
    values.forEach((key, value) -> args.addAll(List.of("--set", key + "=" + value)));
    Helm.shared().run(args).orThrow(args);
    uninstalls.add(List.of("uninstall", RELEASE, "--namespace", namespace, "--kubeconfig", kubeconfig));
  }

  @Test
  void helmLintAndInstallCreateTheDeploymentRbacPodDisruptionBudgetAndService(ControlPlane controlPlane, KubernetesClient client) {
    Helm helm = Helm.shared();
    for (List<String> lint : List.of(
        List.of("lint", helm.chart().toString(), "--strict", "--set", "settings.clusterName=my-cluster"),
        List.of("lint", helm.chart().toString(), "--strict", "--set", "cloudProvider=kwok"))) {
      helm.run(lint).orThrow(lint);
    }
    Helm.Result missing = helm.run(List.of("template", RELEASE, helm.chart().toString()));
    assertThat(missing.exitCode()).isNotZero();
    assertThat(missing.stderr()).contains("settings.clusterName is required with cloudProvider aws");

    String namespace = client.getNamespace();
    install(controlPlane, namespace, Map.of("settings.clusterName", "my-cluster"));

    Deployment deployment = client.apps().deployments().withName(RELEASE).get();
    assertThat(deployment.getSpec().getReplicas()).isEqualTo(2);
    var pod = deployment.getSpec().getTemplate().getSpec();
    assertThat(pod.getServiceAccountName()).isEqualTo(RELEASE);
    assertThat(pod.getPriorityClassName()).isEqualTo("system-cluster-critical");
    assertThat(pod.getTopologySpreadConstraints()).singleElement()
        .satisfies(c -> assertThat(c.getTopologyKey()).isEqualTo("topology.kubernetes.io/zone"));
    assertThat(pod.getAffinity().getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution()).singleElement()
        .satisfies(t -> assertThat(t.getLabelSelector().getMatchLabels()).containsEntry("app.kubernetes.io/instance", RELEASE));
    assertThat(pod.getContainers().getFirst().getArgs()).containsExactly("--cloud-provider=aws");
    PodDisruptionBudget pdb = client.policy().v1().podDisruptionBudget().withName("karpenter").get();
    assertThat(pdb.getSpec().getMaxUnavailable().getIntVal()).isEqualTo(1);
    assertThat(client.services().withName(RELEASE).get().getSpec().getPorts()).singleElement()
        .satisfies(p -> assertThat(p.getPort()).isEqualTo(8080));
    assertThat(client.serviceAccounts().withName(RELEASE).get()).isNotNull();
    assertThat(client.rbac().clusterRoleBindings().withName(RELEASE + "-core").get().getSubjects()).singleElement()
        .satisfies(s -> assertThat(s.getNamespace()).isEqualTo(namespace));
    assertThat(client.rbac().roleBindings().inNamespace("kube-system").withName(RELEASE + "-dns").get()).isNotNull();
    // kube-controller-manager creates the pods for real (they stay Pending: no node is left for them).
    await().atMost(TIMEOUT).pollInterval(POLL).untilAsserted(() ->
        assertThat(client.pods().withLabel("app.kubernetes.io/instance", RELEASE).list().getItems()).hasSize(2));

    // No wildcard and no Secrets anywhere in the chart's rules.
    List<PolicyRule> rules = new ArrayList<>();
    Stream.of(RELEASE + "-core", RELEASE).map(name -> client.rbac().clusterRoles().withName(name).get())
        .map(ClusterRole::getRules).forEach(rules::addAll);
    Stream.of(client.rbac().roles().withName(RELEASE).get(), client.rbac().roles().inNamespace("kube-system").withName(RELEASE + "-dns").get())
        .map(Role::getRules).forEach(rules::addAll);
    assertThat(rules).isNotEmpty().allSatisfy(rule -> {
      assertThat(rule.getVerbs()).doesNotContain("*");
      assertThat(rule.getResources()).doesNotContain("*", "secrets");
      assertThat(rule.getApiGroups()).doesNotContain("*");
    });

    String sa = "system:serviceaccount:" + namespace + ":" + RELEASE;
    // What the controller needs...
    assertThat(can(client, sa, "list", "", "pods", null, null, null)).isTrue();
    assertThat(can(client, sa, "create", "karpenter.sh", "nodeclaims", null, null, null)).isTrue();
    assertThat(can(client, sa, "update", "karpenter.sh", "nodeclaims", "status", null, null)).isTrue();
    assertThat(can(client, sa, "create", "", "pods", "eviction", "default", "web")).isTrue();
    assertThat(can(client, sa, "patch", "karpenter.k8s.aws", "ec2nodeclasses", null, null, null)).isTrue();
    assertThat(can(client, sa, "patch", "coordination.k8s.io", "leases", null, namespace, "karpenter-leader-election")).isTrue();
    assertThat(can(client, sa, "get", "", "services", null, "kube-system", "kube-dns")).isTrue();
    // ...and nothing else: no Secrets anywhere, no writes to kinds it only reads.
    for (String[] denied : new String[][] {
        {"get", "", "secrets", null, null}, {"list", "", "secrets", null, null}, {"watch", "", "secrets", null, null},
        {"get", "", "secrets", null, namespace}, {"list", "", "secrets", null, "kube-system"},
        {"get", "", "configmaps", null, null}, {"create", "", "configmaps", null, namespace},
        {"create", "", "pods", null, null}, {"update", "", "pods", null, null}, {"patch", "", "pods", null, null},
        {"create", "", "nodes", null, null}, {"update", "", "nodes", null, null},
        {"create", "", "pods", "binding", null}, {"create", "", "serviceaccounts", "token", null},
        {"delete", "", "namespaces", null, null}, {"create", "", "services", null, null}, {"update", "", "services", null, "kube-system"},
        {"create", "apps", "deployments", null, null}, {"patch", "apps", "daemonsets", null, null}, {"delete", "apps", "deployments", null, namespace},
        {"create", "karpenter.sh", "nodepools", null, null}, {"update", "karpenter.sh", "nodepools", null, null},
        {"patch", "karpenter.sh", "nodepools", null, null}, {"delete", "karpenter.sh", "nodepools", null, null},
        {"create", "karpenter.k8s.aws", "ec2nodeclasses", null, null}, {"delete", "karpenter.k8s.aws", "ec2nodeclasses", null, null},
        {"update", "policy", "poddisruptionbudgets", null, null}, {"delete", "storage.k8s.io", "volumeattachments", null, null},
        {"create", "rbac.authorization.k8s.io", "clusterroles", null, null}, {"create", "rbac.authorization.k8s.io", "rolebindings", null, namespace},
        {"list", "coordination.k8s.io", "leases", null, null}, {"update", "coordination.k8s.io", "leases", null, "kube-system"},
        {"delete", "coordination.k8s.io", "leases", null, namespace}}) {
      assertThat(can(client, sa, denied[0], denied[1], denied[2], denied[3], denied[4], null))
          .as("%s may %s %s/%s%s in namespace %s", sa, denied[0], denied[1], denied[2], denied[3] == null ? "" : "/" + denied[3],
              denied[4] == null ? "(all)" : denied[4])
          .isFalse();
    }
    assertThat(can(client, sa, "patch", "coordination.k8s.io", "leases", null, namespace, "another-lease")).isFalse();
    assertThat(can(client, sa, "get", "", "services", null, "kube-system", "another-service")).isFalse();
  }

  @Test
  void theOperatorWithOnlyTheChartsServiceAccountTokenProvisionsAndConsolidates(ControlPlane controlPlane, KubernetesClient client) {
    String namespace = client.getNamespace();
    // The chart's objects, without its (image-less) pods: the operator runs here, in-process.
    install(controlPlane, namespace, Map.of("cloudProvider", "kwok", "replicas", "0"));
    ServiceAccountAudit audit = new ServiceAccountAudit(controlPlane.auditLog(), namespace, RELEASE);
    String token = client.serviceAccounts().withName(RELEASE)
        .tokenRequest(new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L).endSpec().build())
        .getStatus().getToken();
    Config admin = client.getConfiguration();
    KubernetesClient asServiceAccount = operators.track(new KubernetesClientBuilder().withConfig(new ConfigBuilder(Config.empty())
        .withMasterUrl(admin.getMasterUrl())
        .withCaCertData(admin.getCaCertData())
        .withOauthToken(token)
        .withNamespace(namespace)
        .build()).build());
    assertThat(asServiceAccount.pods().inAnyNamespace().list().getItems()).isNotNull(); // the token works

    InstanceTypeCatalog catalog = InstanceTypeCatalog.aws();
    TestObjects.createNodeClass(client);
    NodePoolYaml.named("default").expireAfter("Never")
        .disruption("{consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 5s, budgets: [{nodes: \"100%\"}]}")
        .requirementIn("karpenter.sh/capacity-type", "on-demand")
        .requirementIn("kubernetes.io/os", "linux")
        .requirementIn("kubernetes.io/arch", "amd64")
        .create(client);
    // Leader election on, in the release namespace, as the chart's Deployment runs it; events written for real.
    Options options = InProcessOperators.options().withLeaderElection(true, "karpenter-leader-election", namespace);
    KwokCloudProvider provider = operators.provider(asServiceAccount, catalog);
    KubernetesEventRecorder events = operators.track(new KubernetesEventRecorder(asServiceAccount, Clock.systemUTC()));
    Operator operator = operators.track(new Operator(asServiceAccount, provider, options, Clock.systemUTC(),
        new Metrics(new io.prometheus.client.CollectorRegistry()), events));
    operator.start();
    // Every wait below ends at once, naming the request, when the API server refuses one.
    ConditionFactory awaitOperator = await().atMost(TIMEOUT).pollInterval(POLL)
        .failFast("the API server refused a request of the chart's ServiceAccount: the chart does not grant a verb the code uses",
            () -> assertThat(audit.forbidden()).as("requests refused to %s", audit.username()).isEmpty());
    awaitOperator.until(operator::isLeader);

    // Provisioning: pending pods become NodeClaims, KWOK nodes, Running pods.
    Pod template = TestObjects.pausePod("template", "web", "1", "1Gi");
    client.apps().deployments().resource(new DeploymentBuilder()
        .withNewMetadata().withName("web").endMetadata()
        .withNewSpec()
          .withReplicas(8)
          .withNewSelector().addToMatchLabels("app", "web").endSelector()
          .withNewTemplate().withNewMetadata().addToLabels("app", "web").endMetadata().withSpec(template.getSpec()).endTemplate()
        .endSpec()
        .build()).create();
    awaitOperator.untilAsserted(() -> assertThat(web(client)).hasSize(8).allMatch(TestObjects::running));
    List<Node> before = client.nodes().list().getItems();
    double costBefore = before.stream().mapToDouble(n -> TestObjects.price(catalog, n)).sum();
    assertThat(before).isNotEmpty();

    // Disruption: after a scale-down, consolidation removes or replaces nodes until the survivors sit on cheaper capacity.
    client.apps().deployments().withName("web").scale(1);
    awaitOperator.untilAsserted(() -> {
      assertThat(web(client)).hasSize(1).allMatch(TestObjects::running);
      double cost = client.nodes().list().getItems().stream().mapToDouble(n -> TestObjects.price(catalog, n)).sum();
      assertThat(cost).isLessThan(costBefore);
      assertThat(client.nodes().list().getItems()).hasSizeLessThanOrEqualTo(1);
    });
    // Termination drains through the Eviction API: the survivor's NodeClaim is deleted, and its pod moves to a new node.
    Pod survivor = web(client).getFirst();
    String drained = survivor.getSpec().getNodeName();
    NodeClaim claim = client.resources(NodeClaim.class).list().getItems().stream()
        .filter(c -> c.getStatus() != null && drained.equals(c.getStatus().getNodeName())).findFirst().orElseThrow();
    client.resources(NodeClaim.class).resource(claim).delete();
    awaitOperator.untilAsserted(() -> {
      assertThat(client.nodes().withName(drained).get()).isNull();
      assertThat(web(client)).singleElement().matches(TestObjects::running).matches(p -> !drained.equals(p.getSpec().getNodeName()));
    });
    assertThat(audit.permissionsUsed()).contains("create /pods/eviction");
    operator.close(); // gives the Lease up: a patch as well

    System.out.println("requests of " + audit.username() + " by verb and resource: " + audit.permissionsUsed());
    assertThat(audit.requests()).as("the operator's requests are in the audit log").isNotEmpty();
    assertThat(audit.forbidden()).as("requests the API server refused to %s (a verb the chart does not grant)", audit.username()).isEmpty();

    // The audit log does report a refusal: a request the chart does not allow shows up as a 403.
    assertThatThrownBy(() -> asServiceAccount.secrets().inNamespace("kube-system").list())
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(audit.forbidden()).singleElement()
        .satisfies(r -> assertThat(r.permission()).isEqualTo("list /secrets")));
  }

  private static List<Pod> web(KubernetesClient client) {
    return client.pods().withLabel("app", "web").list().getItems().stream().filter(p -> !Metadata.deleting(p)).toList();
  }

  /** SubjectAccessReview: whether {@code user} (a ServiceAccount, with its groups) may do this. */
  private static boolean can(KubernetesClient admin, String user, String verb, String group, String resource, String subresource,
      String namespace, String name) {
    String saNamespace = user.split(":")[2];
    SubjectAccessReview review = new SubjectAccessReviewBuilder().withNewSpec()
        .withUser(user)
        .withGroups("system:serviceaccounts", "system:serviceaccounts:" + saNamespace, "system:authenticated")
        .withNewResourceAttributes()
          .withVerb(verb).withGroup(group).withResource(resource).withSubresource(subresource)
          .withNamespace(namespace).withName(name)
        .endResourceAttributes()
        .endSpec().build();
    return Boolean.TRUE.equals(admin.authorization().v1().subjectAccessReview().create(review).getStatus().getAllowed());
  }
}
