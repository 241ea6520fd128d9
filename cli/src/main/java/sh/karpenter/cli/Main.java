package sh.karpenter.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of the {@code karpenter} command. Subcommands are registered in {@link #commandLine()}. */
@Command(
    name = "karpenter",
    mixinStandardHelpOptions = true,
    versionProvider = VersionCommand.Provider.class,
    description = "Just-in-time node autoscaler for Kubernetes (a Java implementation of Karpenter).",
    subcommands = {VersionCommand.class, PlanCommand.class, ControllerCommand.class, CommandLine.HelpCommand.class})
public final class Main implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The command tree; tests execute it in-process. */
  public static CommandLine commandLine() {
    return new CommandLine(new Main()).setCaseInsensitiveEnumValuesAllowed(true);
  }

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }
}
