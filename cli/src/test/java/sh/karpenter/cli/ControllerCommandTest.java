package sh.karpenter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import sh.karpenter.controller.operator.options.Options;
import sh.karpenter.core.scheduling.SchedulerOptions.MinValuesPolicy;

/** Flag parsing of {@code karpenter controller}; running it against a cluster is tested in testkit. */
class ControllerCommandTest {

  private record Run(int exit, String err) {}

  private static Run run(String... args) {
    StringWriter err = new StringWriter();
    CommandLine cli = Main.commandLine();
    cli.setErr(new PrintWriter(err));
    cli.setOut(new PrintWriter(new StringWriter()));
    return new Run(cli.execute(args), err.toString());
  }

  private static Options options(String... args) throws Exception {
    ControllerCommand command = new ControllerCommand();
    new CommandLine(command).setCaseInsensitiveEnumValuesAllowed(true).parseArgs(args);
    return command.options();
  }

  @Test
  void defaultsAreUpstreams() throws Exception {
    Options options = options();
    assertThat(options.batchIdleDuration()).isEqualTo(Duration.ofSeconds(1));
    assertThat(options.batchMaxDuration()).isEqualTo(Duration.ofSeconds(10));
    assertThat(options.metricsPort()).isEqualTo(8080);
    assertThat(options.healthProbePort()).isEqualTo(8081);
    assertThat(options.leaderElection()).isTrue();
    assertThat(options.leaderElectionName()).isEqualTo("karpenter-leader-election");
    assertThat(options.featureGates()).containsEntry("ReservedCapacity", true).containsEntry("NodeRepair", false);
    assertThat(options.prebind()).isFalse();
    assertThat(options.disruptionShadowMode()).isFalse();
    assertThat(options.repackConsolidation()).isFalse();
    assertThat(options.paybackHorizon()).isEqualTo(Duration.ofHours(2));
  }

  @Test
  void repackConsolidationAndItsPaybackHorizon() throws Exception {
    Options options = options("--disruption-repack-consolidation", "--disruption-payback-horizon", "30m");
    assertThat(options.repackConsolidation()).isTrue();
    assertThat(options.paybackHorizon()).isEqualTo(Duration.ofMinutes(30));
    assertThat(run("controller", "--disruption-payback-horizon", "soon"))
        .satisfies(r -> assertThat(r.exit()).isEqualTo(2))
        .satisfies(r -> assertThat(r.err()).contains("--disruption-payback-horizon").contains("soon"));
    assertThat(run("controller", "--disruption-payback-horizon", "-1h"))
        .satisfies(r -> assertThat(r.exit()).isEqualTo(2))
        .satisfies(r -> assertThat(r.err()).contains("--disruption-payback-horizon must not be negative"));
  }

  @Test
  void flagsUseGoDurationsAndUpstreamsGateSyntax() throws Exception {
    Options options = options("--batch-idle-duration=500ms", "--batch-max-duration=1m30s", "--feature-gates", "NodeRepair=true",
        "--min-values-policy", "besteffort", "--disable-leader-election", "--prebind", "--disruption-shadow-mode");
    assertThat(options.batchIdleDuration()).isEqualTo(Duration.ofMillis(500));
    assertThat(options.batchMaxDuration()).isEqualTo(Duration.ofSeconds(90));
    assertThat(options.featureGates()).containsEntry("NodeRepair", true);
    assertThat(options.scheduler().minValuesPolicy()).isEqualTo(MinValuesPolicy.BestEffort);
    assertThat(options.leaderElection()).isFalse();
    assertThat(options.prebind()).isTrue();
    assertThat(options.disruptionShadowMode()).isTrue();
  }

  @Test
  void badFlagsExitWithTwoAndNameTheFlag() {
    assertThat(run("controller", "--batch-idle-duration=abc"))
        .satisfies(r -> assertThat(r.exit()).isEqualTo(2))
        .satisfies(r -> assertThat(r.err()).contains("--batch-idle-duration").contains("abc"));
    assertThat(run("controller", "--feature-gates", "NodeRepair"))
        .satisfies(r -> assertThat(r.exit()).isEqualTo(2))
        .satisfies(r -> assertThat(r.err()).contains("--feature-gates"));
    assertThat(run("controller", "--batch-idle-duration=20s", "--batch-max-duration=10s"))
        .satisfies(r -> assertThat(r.exit()).isEqualTo(2))
        .satisfies(r -> assertThat(r.err()).contains("--batch-max-duration"));
    assertThat(run("controller", "--log-format", "xml"))
        .satisfies(r -> assertThat(r.exit()).isEqualTo(2))
        .satisfies(r -> assertThat(r.err()).contains("--log-format: expected json or text, got \"xml\""));
    assertThat(run("controller", "--instance-types-file-path", "/does/not/exist.json"))
        .satisfies(r -> assertThat(r.exit()).isEqualTo(2))
        .satisfies(r -> assertThat(r.err()).contains("/does/not/exist.json"));
  }

  @Test
  void theInterruptionQueueReachesTheAwsSettings() {
    ControllerCommand command = new ControllerCommand();
    new CommandLine(command).parseArgs("--cloud-provider", "aws", "--cluster-name", "c", "--interruption-queue", "karpenter-c");
    assertThat(command.aws.settings().interruptionQueue()).contains("karpenter-c");
    ControllerCommand without = new ControllerCommand();
    new CommandLine(without).parseArgs("--cloud-provider", "aws", "--cluster-name", "c", "--interruption-queue", "");
    assertThat(without.aws.settings().interruptionQueue()).isEmpty();
  }
}
