package sh.karpenter.cli;

import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import sh.karpenter.cli.convert.ConvertCommand;

/** Entry point of the {@code karpenter} command. Subcommands are registered in {@link #commandLine()}. */
@Command(
    name = "karpenter",
    mixinStandardHelpOptions = true,
    versionProvider = VersionCommand.Provider.class,
    description = "Just-in-time node autoscaler for Kubernetes (a Java implementation of Karpenter).")
public final class Main implements Runnable {
  /** The subcommands, in the order help lists them. */
  private static final List<String> SUBCOMMANDS = List.of("version", "plan", "controller", "convert", "disruption", "help");

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(commandLine(args).execute(args));
  }

  /**
   * A new instance of the subcommand. (Not a static map of constructor references: the JDK 25 JVM
   * crashed assembling the start-up cache of a build that kept one in this class's static state.)
   */
  private static Object subcommand(String name) {
    return switch (name) {
      case "version" -> new VersionCommand();
      case "plan" -> new PlanCommand();
      case "controller" -> new ControllerCommand();
      case "convert" -> new ConvertCommand();
      case "disruption" -> new DisruptionCommand();
      case "help" -> new CommandLine.HelpCommand();
      default -> throw new IllegalArgumentException("no subcommand " + name);
    };
  }

  /**
   * The command tree; tests execute it in-process. An exception a command does not handle itself
   * (a bug, not bad input: commands report bad input with exit code 2) ends the command with one
   * line naming it and where it was thrown, and exit code 1, not a stack trace.
   */
  public static CommandLine commandLine() {
    return commandLine(new String[0]);
  }

  /**
   * The command tree for {@code args}: when they start with a subcommand other than {@code help},
   * only that subcommand is registered. picocli reads every registered command's annotations when it
   * registers it, which on a fresh JVM is a tenth of what {@code karpenter plan} takes on the examples;
   * what the one command parses, prints and does is the same.
   */
  static CommandLine commandLine(String[] args) {
    CommandLine commandLine = new CommandLine(new Main());
    String first = args.length == 0 ? null : args[0];
    boolean one = first != null && SUBCOMMANDS.contains(first) && !first.equals("help");
    for (String name : SUBCOMMANDS) {
      if (!one || name.equals(first)) {
        commandLine.addSubcommand(name, subcommand(name));
      }
    }
    // Set after the subcommands are added: picocli applies a setting to the commands registered so far.
    return commandLine
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
