package sh.karpenter.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import sh.karpenter.cli.convert.ConvertCommand;

/** Entry point of the {@code karpenter} command. Subcommands are registered in {@link #commandLine()}. */
@Command(
    name = "karpenter",
    mixinStandardHelpOptions = true,
    versionProvider = VersionCommand.Provider.class,
    description = "Just-in-time node autoscaler for Kubernetes (a Java implementation of Karpenter).",
    subcommands = {
      VersionCommand.class, PlanCommand.class, ControllerCommand.class, ConvertCommand.class, DisruptionCommand.class, CommandLine.HelpCommand.class})
public final class Main implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /**
   * The command tree; tests execute it in-process. An exception a command does not handle itself
   * (a bug, not bad input: commands report bad input with exit code 2) ends the command with one
   * line naming it and where it was thrown, and exit code 1, not a stack trace.
   */
  public static CommandLine commandLine() {
    return new CommandLine(new Main())
        .setCaseInsensitiveEnumValuesAllowed(true)
        .setExecutionExceptionHandler(
            (exception, command, parseResult) -> {
              StackTraceElement[] trace = exception.getStackTrace();
              command.getErr().println(
                  "error: internal error: " + exception + (trace.length == 0 ? "" : " at " + trace[0]) + " (please report it)");
              command.getErr().flush();
              return 1;
            });
  }

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }
}
