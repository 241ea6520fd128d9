package sh.karpenter.testkit.scripts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The failure paths of the project's shell scripts: each must end with a non-zero status and a
 * message that says what failed, never silently, and under {@code CI=true} nothing may pass by
 * skipping. The scripts run against stand-ins: a fake {@code go} (and {@code mvn}, {@code openssl},
 * {@code curl}) first on {@code PATH}, an empty binary cache in a temporary directory, and for
 * {@code scripts/test} and {@code .ci/run} a copy of the scripts in a temporary checkout, so no test
 * builds anything or touches the real cache or this checkout's reports.
 */
class ScriptFailureTest {

  private static final List<String> SCRIPTS =
      List.of(
          "scripts/control-plane",
          "scripts/aws-emulator",
          "scripts/test",
          "scripts/java-home",
          "scripts/lib/java-home.sh",
          "scripts/upstream-titles",
          "scripts/lib/strict.sh",
          "scripts/lib/upstream.sh",
          "scripts/lib/loopback.sh",
          "scripts/lib/aws-emulator-constraints.txt",
          ".ci/run");

  /**
   * Stands in for the Go command: {@code go env GOVERSION} and {@code go version} report {@code
   * $FAKE_GO_VERSION}; {@code go mod download} prints {@code $FAKE_GOMOD} as the module's go.mod
   * (or fails when unset); anything else fails with status 7, as a build that breaks would.
   */
  private static final String FAKE_GO =
      """
      #!/usr/bin/env bash
      case "$1 ${2:-}" in
        "env GOVERSION") echo "${FAKE_GO_VERSION:-go1.26.8}" ;;
        "version ") echo "go version ${FAKE_GO_VERSION:-go1.26.8} linux/amd64" ;;
        "mod download")
          [ -n "${FAKE_GOMOD:-}" ] || { echo "fake go: proxy unreachable" >&2; exit 1; }
          printf '{\\n\\t"GoMod": "%s"\\n}\\n' "$FAKE_GOMOD" ;;
        *) echo "fake go: '$*' failed" >&2; exit 7 ;;
      esac
      """;

  /**
   * Stands in for Maven: records that it ran and, when {@code $FAKE_ITS_RUN} is set, writes a
   * Failsafe summary with that many tests completed and {@code $FAKE_ITS_SKIPPED} skipped.
   */
  private static final String FAKE_MVN =
      """
      #!/usr/bin/env bash
      echo "mvn $*" >>"$FAKE_MVN_LOG"
      if [ -n "${FAKE_ITS_RUN:-}" ]; then
        mkdir -p testkit/target/failsafe-reports
        printf '<failsafe-summary result="0" timeout="false">\\n    <completed>%s</completed>\\n    <errors>0</errors>\\n    <failures>0</failures>\\n    <skipped>%s</skipped>\\n</failsafe-summary>\\n' \\
          "$FAKE_ITS_RUN" "${FAKE_ITS_SKIPPED:-0}" >testkit/target/failsafe-reports/failsafe-summary.xml
      fi
      """;

  /**
   * Stands in for the Python that {@code scripts/aws-emulator ensure} uses: reports version
   * {@code $FAKE_PY_VERSION}; has venv and ensurepip unless {@code $FAKE_PY_NO_VENV} is set; {@code -m
   * venv DIR} makes a virtual environment whose python has a pip that fails every install, as one
   * without network would.
   */
  private static final String FAKE_PYTHON =
      """
      #!/usr/bin/env bash
      case "$*" in
        *sys.version_info*) echo "${FAKE_PY_VERSION:-3.12.1}" ;;
        *ensurepip*) [ -z "${FAKE_PY_NO_VENV:-}" ] ;;
        "-m venv "*)
          mkdir -p "$3/bin"
          printf '%s\n' '#!/usr/bin/env bash' \
            'case "$*" in' \
            '  "") exit 0 ;;' \
            '  "-m pip --version") echo "pip 99 (fake)" ;;' \
            '  "-m pip install"*) echo "fake pip: no route to the package index" >&2; exit 1 ;;' \
            '  *) exit 9 ;;' \
            'esac' >"$3/bin/python"
          chmod +x "$3/bin/python" ;;
        *) echo "fake python: '$*'" >&2; exit 9 ;;
      esac
      """;

  @TempDir Path temp;
  private Path checkout;
  private Path fakeBin;
  private Path cache;
  private Path mvnLog;

  /** The real scripts, copied into a temporary checkout, and the fake tools. */
  @BeforeEach
  void setUp() throws IOException {
    Path repository = repositoryRoot();
    checkout = temp.resolve("checkout");
    for (String script : SCRIPTS) {
      Path target = checkout.resolve(script);
      Files.createDirectories(target.getParent());
      Files.copy(repository.resolve(script), target, StandardCopyOption.COPY_ATTRIBUTES);
    }
    fakeBin = Files.createDirectories(temp.resolve("fake-bin"));
    executable(fakeBin.resolve("go"), FAKE_GO);
    executable(fakeBin.resolve("mvn"), FAKE_MVN);
    executable(fakeBin.resolve("openssl"), "#!/usr/bin/env bash\nexit 0\n");
    executable(fakeBin.resolve("curl"), "#!/usr/bin/env bash\nexit 0\n");
    executable(fakeBin.resolve("fake-python3"), FAKE_PYTHON);
    cache = temp.resolve("cache");
    mvnLog = temp.resolve("mvn.log");
  }

  @Test
  void ensureWithoutGoOnThePathSaysSo() throws IOException {
    Files.delete(fakeBin.resolve("go"));
    Result result = run(List.of("scripts/control-plane", "ensure"), Map.of(), pathWithoutGo());
    assertThat(result.status()).isNotZero();
    assertThat(result.output()).contains("ERROR: no 'go' on PATH: Go >= 1.26.0 is needed to build the binaries");
  }

  @Test
  void ensureWithAnOldGoNamesItsVersion() {
    Result result = run(List.of("scripts/control-plane", "ensure"), Map.of("FAKE_GO_VERSION", "go1.20.1"), pathWithoutGo());
    assertThat(result.status()).isNotZero();
    assertThat(result.output()).contains("ERROR: Go 1.20.1 (" + fakeBin.resolve("go") + ") is too old");
  }

  @Test
  void helmBeforeEnsureSaysToRunEnsure() {
    Result result = run(List.of("scripts/control-plane", "helm"), Map.of(), pathWithoutGo());
    assertThat(result.status()).isEqualTo(1);
    assertThat(result.output()).contains("ERROR: helm is not built (no " + cache.resolve("helm/3.22.0/.built") + "): run '")
        .contains("ensure' first");
  }

  @Test
  void ensureThatCannotDownloadKubernetesSaysSo() {
    Result result = run(List.of("scripts/control-plane", "ensure"), Map.of(), pathWithoutGo());
    assertThat(result.status()).isNotZero();
    assertThat(result.output())
        .contains("fake go: proxy unreachable")
        .contains("ERROR: could not download k8s.io/kubernetes@v1.36.4 through the Go module proxy");
  }

  /**
   * A build step that fails: the ERR trap names the step, the command, the line and the status, and
   * the half-built cache entry is gone.
   */
  @Test
  void ensureFailingMidBuildNamesTheStepCommandLineAndStatus() throws IOException {
    Path goMod = temp.resolve("kubernetes.go.mod");
    Files.writeString(goMod, "module k8s.io/kubernetes\n\ngo 1.26.0\n\nreplace (\n\tk8s.io/api => ./staging/src/k8s.io/api\n)\n");
    Result result = run(List.of("scripts/control-plane", "ensure"), Map.of("FAKE_GOMOD", goMod.toString()), pathWithoutGo());
    assertThat(result.status()).isEqualTo(7);
    assertThat(result.output())
        .containsPattern("control-plane: ERROR: ensure: build_k8s for \\S+: exit status 7 from `go get [^`]*` \\(\\S*control-plane line \\d+, \\d+s into the run\\)");
    try (Stream<Path> entries = Files.list(cache.resolve("k8s"))) {
      assertThat(entries.toList()).as("no half-built cache entry is left").isEmpty();
    }
  }

  @Test
  void underCiAFailedEnsureFailsTheTestRunBeforeMaven() {
    Result result = run(List.of("scripts/test"), Map.of("CI", "true", "FAKE_GO_VERSION", "go1.20.1"), pathWithoutGo());
    assertThat(result.status()).isNotZero();
    assertThat(result.output())
        .contains("is too old")
        .contains("scripts/test: ERROR: scripts/control-plane ensure failed")
        .contains("with CI=true the integration tests may not be skipped");
    assertThat(mvnLog).doesNotExist();
  }

  @Test
  void onADevelopersMachineAFailedEnsureWarnsAndTheTestsRun() {
    Result result = run(List.of("scripts/test"), Map.of("FAKE_GO_VERSION", "go1.20.1"), pathWithoutGo());
    assertThat(result.status()).isZero();
    assertThat(result.output()).contains("WARNING: control-plane binaries unavailable; the integration tests that need it will be SKIPPED");
    assertThat(mvnLog).exists();
  }

  @Test
  void underCiARunWithoutIntegrationTestsFails() {
    Result result = run(List.of("scripts/test"), Map.of("CI", "true", "KARPENTER_SKIP_CONTROL_PLANE", "1"), pathWithoutGo());
    assertThat(result.status()).isNotZero();
    assertThat(result.output())
        .contains("integration tests in this run: 0 run, 0 skipped (0 Failsafe summaries)")
        .contains("ERROR: CI=true but no integration test ran");
  }

  @Test
  void underCiSkippedIntegrationTestsFailTheRun() {
    Map<String, String> env = Map.of("CI", "true", "KARPENTER_SKIP_CONTROL_PLANE", "1", "FAKE_ITS_RUN", "23", "FAKE_ITS_SKIPPED", "5");
    Result result = run(List.of("scripts/test"), env, pathWithoutGo());
    assertThat(result.status()).isNotZero();
    assertThat(result.output()).contains("ERROR: CI=true but 5 integration tests were skipped");
  }

  @Test
  void underCiARunOfIntegrationTestsWithNoneSkippedPasses() {
    Map<String, String> env = Map.of("CI", "true", "KARPENTER_SKIP_CONTROL_PLANE", "1", "FAKE_ITS_RUN", "23");
    Result result = run(List.of("scripts/test"), env, pathWithoutGo());
    assertThat(result.status()).as(result.output()).isZero();
    assertThat(result.output()).contains("integration tests in this run: 23 run, 0 skipped (1 Failsafe summaries); Maven exit 0");
  }

  @Test
  void ciWithoutGoFailsWithTheReason() throws IOException {
    Files.delete(fakeBin.resolve("go"));
    Result result = run(List.of(".ci/run"), Map.of(), pathWithoutGo());
    assertThat(result.status()).isNotZero();
    assertThat(result.output()).contains("ci: ERROR: no 'go' on PATH: the integration tests need the control-plane binaries");
    assertThat(mvnLog).doesNotExist();
  }

  @Test
  void ciFailsFastWhenEnsureFails() {
    Result result = run(List.of(".ci/run"), Map.of("FAKE_GO_VERSION", "go1.20.1"), pathWithoutGo());
    assertThat(result.status()).isNotZero();
    assertThat(result.output())
        .contains("ci: CI=true,")
        .contains("ci: ERROR: scripts/control-plane ensure failed after");
    assertThat(mvnLog).doesNotExist();
  }

  @Test
  void awsEmulatorEnsureWithoutPythonSaysSo() {
    Result result = run(List.of("scripts/aws-emulator", "ensure"), Map.of("KARPENTER_AWS_EMU_PYTHON", "no-such-python3"), pathWithoutGo());
    assertThat(result.status()).isNotZero();
    assertThat(result.output()).contains("[aws-emulator] ERROR: no 'no-such-python3' on PATH: Python >= 3.11 with venv and pip is needed",
        "apt-get install -y python3 python3-venv");
  }

  @Test
  void awsEmulatorEnsureWithAnOldPythonNamesItsVersion() {
    Result result = run(List.of("scripts/aws-emulator", "ensure"), Map.of("FAKE_PY_VERSION", "3.9.2"), pathWithoutGo());
    assertThat(result.status()).isNotZero();
    assertThat(result.output()).contains("ERROR: Python 3.9.2 (" + fakeBin.resolve("fake-python3") + ") is too old");
  }

  @Test
  void awsEmulatorEnsureWithoutVenvNamesTheDebianPackage() {
    Result result = run(List.of("scripts/aws-emulator", "ensure"), Map.of("FAKE_PY_NO_VENV", "1"), pathWithoutGo());
    assertThat(result.status()).isNotZero();
    assertThat(result.output()).contains("cannot create virtual environments with pip", "apt-get install -y python3-venv");
  }

  /** pip that cannot install: the error says so, and the half-made environment is gone. */
  @Test
  void awsEmulatorEnsureThatCannotInstallMotoLeavesNoEnvironment() {
    Result result = run(List.of("scripts/aws-emulator", "ensure"), Map.of(), pathWithoutGo());
    assertThat(result.status()).isNotZero();
    assertThat(result.output())
        .contains("fake pip: no route to the package index")
        .contains("ERROR: pip could not install moto[server]==5.2.5");
    assertThat(temp.resolve("venv")).doesNotExist();
  }

  @Test
  void awsEmulatorUpBeforeEnsureExitsThree() {
    Result result = run(List.of("scripts/aws-emulator", "up"), Map.of(), pathWithoutGo());
    assertThat(result.status()).isEqualTo(3);
    assertThat(result.output()).contains("moto is not installed").contains("ensure' first");
    Result env = run(List.of("scripts/aws-emulator", "env"), Map.of(), pathWithoutGo());
    assertThat(env.status()).isNotZero();
    assertThat(env.output()).contains("ERROR: no AWS emulator is running in " + temp.resolve("aws-emulator-run"));
  }

  @Test
  void underCiAFailedAwsEmulatorEnsureFailsTheTestRunBeforeMaven() {
    Map<String, String> env = Map.of("CI", "true", "KARPENTER_SKIP_CONTROL_PLANE", "1", "KARPENTER_SKIP_AWS_EMULATOR", "",
        "FAKE_PY_NO_VENV", "1");
    Result result = run(List.of("scripts/test"), env, pathWithoutGo());
    assertThat(result.status()).isNotZero();
    assertThat(result.output()).contains("scripts/test: ERROR: scripts/aws-emulator ensure failed");
    assertThat(mvnLog).doesNotExist();
  }

  @Test
  void onADevelopersMachineAFailedAwsEmulatorEnsureWarnsAndTheTestsRun() {
    Map<String, String> env = Map.of("KARPENTER_SKIP_CONTROL_PLANE", "1", "KARPENTER_SKIP_AWS_EMULATOR", "", "FAKE_PY_NO_VENV", "1");
    Result result = run(List.of("scripts/test"), env, pathWithoutGo());
    assertThat(result.status()).isZero();
    assertThat(result.output()).contains("WARNING: AWS emulator unavailable; the integration tests that need it will be SKIPPED");
    assertThat(mvnLog).exists();
  }

  /**
   * scripts/upstream-titles on a stand-in upstream checkout: titles are matched by letters and digits
   * only, against display names and method names, and counted once per suite and once overall.
   */
  @Test
  void upstreamTitlesCountsMatchesPerSuite() throws IOException {
    Path upstream = temp.resolve("upstream");
    goTest(upstream.resolve("pkg/controllers/provisioning/scheduling/a_test.go"),
        "It(\"should do X\", func() {})\nIt(\"should not match\", func() {})\nEntry(\"a \\\"quoted\\\" case\", 1)\n");
    goTest(upstream.resolve("pkg/controllers/provisioning/b_test.go"),
        "It(\"should do X\", func() {})\nEntry(corev1.LabelHostname, corev1.LabelHostname)\n");
    goTest(upstream.resolve("pkg/controllers/disruption/c_test.go"), "It(\"can delete nodes, when it must\", func() {})\n");
    Path ours = checkout.resolve("core/src/test/java/sh/example/ExampleTest.java");
    Files.createDirectories(ours.getParent());
    Files.writeString(ours, "class ExampleTest {\n  @Test\n  @DisplayName(\"Should do X\")\n  void x() {}\n\n  @Test\n  void canDeleteNodesWhenItMust() {}\n}\n");

    Result result = run(List.of("scripts/upstream-titles"), Map.of("KARPENTER_UPSTREAM_DIR", upstream.toString()), pathWithoutGo());

    assertThat(result.status()).as(result.output()).isZero();
    assertThat(result.output())
        .contains("| scheduling   |        3 |       1 |         2 | 0 |")
        .contains("| provisioning |        1 |       1 |         0 | 1 |")
        .contains("| disruption   |        1 |       1 |         0 | 0 |")
        .contains("| distinct     |        4 |       2 |         2 | |");
  }

  private static void goTest(Path file, String body) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, "package x\n\n" + body);
  }

  /**
   * Under {@code pipefail} a pipeline that ends in a reader that stops early ({@code | head}, {@code
   * | grep -q}, {@code | sed ...q}) fails whenever the writer dies of SIGPIPE: this once ended a
   * 38-minute {@code ensure} without a word. No script may contain one (comments aside).
   */
  @Test
  void noScriptEndsAPipelineInAReaderThatStopsEarly() throws IOException {
    Pattern earlyExit = Pattern.compile("\\|\\s*(head\\b|grep\\s+(-\\w+\\s+)*-\\w*q|sed\\b[^|]*[;{'\"\\s\\d]q\\b)");
    List<String> offending = new ArrayList<>();
    Path repository = repositoryRoot();
    for (Path script : projectScripts(repository)) {
      List<String> lines = Files.readAllLines(script, StandardCharsets.UTF_8);
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i).strip();
        if (!line.startsWith("#") && earlyExit.matcher(line).find()) {
          offending.add(repository.relativize(script) + ":" + (i + 1) + ": " + line);
        }
      }
    }
    assertThat(offending).isEmpty();
  }

  /** scripts/*, scripts/lib/*, bin/* and .ci/run. */
  private static List<Path> projectScripts(Path repository) throws IOException {
    List<Path> scripts = new ArrayList<>();
    for (String dir : List.of("scripts", "scripts/lib", "bin", ".ci")) {
      try (Stream<Path> files = Files.list(repository.resolve(dir))) {
        files.filter(Files::isRegularFile).sorted().forEach(scripts::add);
      }
    }
    return scripts;
  }

  private record Result(int status, String output) {}

  /** Runs a script of the temporary checkout with CI unset unless {@code env} sets it. */
  private Result run(List<String> command, Map<String, String> env, String path) {
    List<String> argv = new ArrayList<>(command);
    argv.set(0, checkout.resolve(command.getFirst()).toString());
    ProcessBuilder builder = new ProcessBuilder(argv)
        .directory(checkout.toFile())
        .redirectErrorStream(true)
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    Map<String, String> environment = builder.environment();
    environment.remove("CI");
    environment.remove("KARPENTER_SKIP_CONTROL_PLANE");
    // The AWS emulator's own tests below turn it back on; elsewhere scripts/test leaves it out.
    environment.put("KARPENTER_SKIP_AWS_EMULATOR", "1");
    environment.put("KARPENTER_AWS_EMU_PYTHON", "fake-python3");
    environment.put("KARPENTER_AWS_EMU_VENV", temp.resolve("venv").toString());
    environment.put("KARPENTER_AWS_EMU_DIR", temp.resolve("aws-emulator-run").toString());
    environment.put("PATH", path);
    environment.put("JAVA_HOME", System.getProperty("java.home"));
    environment.put("K8S_BIN_CACHE", cache.toString());
    environment.put("FAKE_MVN_LOG", mvnLog.toString());
    environment.putAll(env);
    try {
      Process process = builder.start();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(process.waitFor(2, TimeUnit.MINUTES)).as("%s finished", command).isTrue();
      System.out.printf("--- %s %s -> exit %d%n%s", env, command, process.exitValue(), output);
      return new Result(process.exitValue(), output);
    } catch (IOException e) {
      throw new IllegalStateException("running " + command, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted running " + command, e);
    }
  }

  /** The fake tools, then this process's PATH without any directory that holds a real {@code go}. */
  private String pathWithoutGo() {
    List<String> dirs = Stream.of(System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(File.pathSeparator))
        .filter(dir -> !dir.isEmpty() && !Files.isExecutable(Path.of(dir, "go")))
        .collect(Collectors.toCollection(ArrayList::new));
    assumeTrue(dirs.stream().anyMatch(dir -> Files.isExecutable(Path.of(dir, "bash"))),
        "bash is in the same directory as go on PATH; these tests need PATH without go");
    dirs.addFirst(fakeBin.toString());
    return String.join(File.pathSeparator, dirs);
  }

  private static void executable(Path file, String text) throws IOException {
    Files.writeString(file, text);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  /** The checkout: the nearest directory above the working directory holding scripts/test. */
  private static Path repositoryRoot() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isExecutable(dir.resolve("scripts/test"))) {
        return dir;
      }
    }
    throw new IllegalStateException("no scripts/test above " + Path.of("").toAbsolutePath());
  }
}
