package sh.karpenter.cli.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.core.ConsoleAppender;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

class CliLoggingTest {
  @Test
  void logbackFindsItThroughTheServiceLoader() {
    assertThat(ServiceLoader.load(Configurator.class).stream().map(ServiceLoader.Provider::type)).contains(CliLogging.class);
  }

  /** What the CLI's logback.xml said: stderr only, the pattern, root at KARPENTER_LOG_LEVEL or WARN, fabric8 at WARN. */
  @Test
  void linesGoToStderrAtWarnByDefault() {
    LoggerContext context = new LoggerContext();
    CliLogging logging = new CliLogging();
    logging.setContext(context);

    assertThat(logging.configure(context)).isEqualTo(Configurator.ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY);

    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    assertThat(root.getLevel()).isEqualTo(CliLogging.level());
    assertThat(context.getLogger("io.fabric8").getLevel()).isEqualTo(Level.WARN);
    ConsoleAppender<?> stderr = (ConsoleAppender<?>) root.getAppender("STDERR");
    assertThat(stderr.isStarted()).isTrue();
    assertThat(stderr.getTarget()).isEqualTo("System.err");
    assertThat(((PatternLayoutEncoder) stderr.getEncoder()).getPattern()).isEqualTo("%d{HH:mm:ss.SSS} %-5level %logger{36} - %msg%n");
    assertThat(root.iteratorForAppenders()).toIterable().hasSize(1);
  }

  @Test
  void theLevelComesFromKarpenterLogLevelAndFallsBackToWarn() {
    String before = System.getProperty("KARPENTER_LOG_LEVEL");
    try {
      System.setProperty("KARPENTER_LOG_LEVEL", " debug ");
      assertThat(CliLogging.level()).isEqualTo(Level.DEBUG);
      System.setProperty("KARPENTER_LOG_LEVEL", "loud");
      assertThat(CliLogging.level()).isEqualTo(Level.WARN);
    } finally {
      if (before == null) {
        System.clearProperty("KARPENTER_LOG_LEVEL");
      } else {
        System.setProperty("KARPENTER_LOG_LEVEL", before);
      }
    }
  }

  @Test
  void anExplicitConfigurationFileWins() {
    String before = System.getProperty("logback.configurationFile");
    System.setProperty("logback.configurationFile", "elsewhere.xml");
    try {
      LoggerContext context = new LoggerContext();
      CliLogging logging = new CliLogging();
      logging.setContext(context);
      assertThat(logging.configure(context)).isEqualTo(Configurator.ExecutionStatus.INVOKE_NEXT_IF_ANY);
      assertThat(context.getLogger(Logger.ROOT_LOGGER_NAME).iteratorForAppenders()).toIterable().isEmpty();
    } finally {
      if (before == null) {
        System.clearProperty("logback.configurationFile");
      } else {
        System.setProperty("logback.configurationFile", before);
      }
    }
  }
}
