package sh.karpenter.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
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
  private static final Map<String, Supplier<Object>> SUBCOMMANDS = subcommands();

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(commandLine(args).execute(args));
  }

  private static Map<String, Supplier<Object>> subcommands() {
    Map<String, Supplier<Object>> commands = new LinkedHashMap<>();
    commands.put("version", VersionCommand::new);
    commands.put("plan", PlanCommand::new);
    commands.put("controller", ControllerCommand::new);
    commands.put("convert", ConvertCommand::new);
    commands.put("disruption", DisruptionCommand::new);
    commands.put("help", CommandLine.HelpCommand::new);
    return commands;
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
    boolean one = first != null && SUBCOMMANDS.containsKey(first) && !first.equals("help");
    SUBCOMMANDS.forEach(
        (name, command) -> {
          if (!one || name.equals(first)) {
            commandLine.addSubcommand(name, command.get());
          }
        });
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
