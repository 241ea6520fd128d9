package sh.karpenter.core.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import java.net.URI;
import java.net.http.HttpClient;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.stream.BaseStream;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The {@code core} contract (docs/design/core-contract.md): its packages form no cycle, and its code
 * uses no Kubernetes client or model, no network, no AWS SDK and no threads. The build's enforcer
 * rule keeps such libraries off core's classpath; these rules check what core's own classes
 * reference, including the JDK's HTTP client, sockets and thread pools, which no dependency rule can
 * see. {@code synchronized} is allowed (it starts no thread).
 */
class CorePurityTest {
  private static final String CORE = "sh.karpenter.core";

  static final ArchRule NO_KUBERNETES_NETWORK_OR_AWS =
      noClasses()
          .should()
          .dependOnClassesThat(
              DescribedPredicate.describe(
                  "are Kubernetes, HTTP, URL, socket or AWS SDK classes",
                  (JavaClass c) ->
                      inAnyPackage(c, "io.fabric8", "io.kubernetes", "java.net.http", "okhttp3", "org.apache.http", "org.apache.hc",
                              "software.amazon.awssdk", "com.amazonaws")
                          || c.getName().matches("java\\.net\\.(URL|URLConnection|HttpURLConnection|JarURLConnection|\\w*Socket\\w*)")));

  static final ArchRule NO_THREADS =
      noClasses()
          .should()
          .dependOnClassesThat(
              DescribedPredicate.describe(
                  "are threads, executors, thread factories or CompletableFuture",
                  (JavaClass c) ->
                      c.isAssignableTo(Thread.class)
                          || c.isAssignableTo(Executor.class)
                          || c.isAssignableTo(ThreadFactory.class)
                          || c.isEquivalentTo(Executors.class)
                          || c.isAssignableTo(CompletableFuture.class)));

  static final ArchRule NO_PARALLEL_STREAMS =
      noClasses()
          .should()
          .callMethodWhere(
              DescribedPredicate.describe(
                  "the method is Collection.parallelStream or BaseStream.parallel",
                  (JavaMethodCall call) ->
                      (call.getName().equals("parallelStream") && call.getTargetOwner().isAssignableTo(Collection.class))
                          || (call.getName().equals("parallel") && call.getTargetOwner().isAssignableTo(BaseStream.class))));

  private static JavaClasses core;

  @BeforeAll
  static void importCore() {
    core = ArchitectureRules.mainClasses(CORE);
  }

  @Test
  void packagesAreFreeOfCycles() {
    ArchitectureRules.packageCycles(CORE).check(core);
  }

  @Test
  void noKubernetesNetworkOrAwsSdk() {
    NO_KUBERNETES_NETWORK_OR_AWS.check(core);
  }

  @Test
  void noThreads() {
    NO_THREADS.check(core);
  }

  @Test
  void noParallelStreams() {
    NO_PARALLEL_STREAMS.check(core);
  }

  /** Each rule does catch what it names (they are not vacuous): checked on a class written to break them. */
  @Test
  void rulesCatchTheirViolations() {
    JavaClasses violator = new ClassFileImporter().importClasses(Violator.class);

    assertThat(NO_KUBERNETES_NETWORK_OR_AWS.evaluate(violator).hasViolation()).isTrue();
    assertThat(NO_THREADS.evaluate(violator).hasViolation()).isTrue();
    assertThat(NO_PARALLEL_STREAMS.evaluate(violator).hasViolation()).isTrue();
    assertThat(NO_PARALLEL_STREAMS.evaluate(new ClassFileImporter().importClasses(CorePurityTest.class)).hasViolation()).isFalse();
  }

  /** Breaks every rule above; never run. */
  @SuppressWarnings("unused")
  private static final class Violator {
    void network() {
      HttpClient.newHttpClient();
      URI.create("http://example.com");
    }

    void threads() {
      new Thread(() -> {}).start();
      Executors.newSingleThreadExecutor();
    }

    long parallel(List<Integer> values) {
      return values.parallelStream().count() + IntStream.range(0, 10).parallel().sum();
    }
  }

  private static boolean inAnyPackage(JavaClass c, String... packages) {
    for (String p : packages) {
      if (c.getPackageName().equals(p) || c.getPackageName().startsWith(p + ".")) {
        return true;
      }
    }
    return false;
  }
}
