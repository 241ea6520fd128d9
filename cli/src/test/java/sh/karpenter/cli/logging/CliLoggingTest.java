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

  /** What the CLI's logback.xml said: stderr only, the pattern, root at KARPENTER_LOG_LEVEL, fabric8 at WARN. */
  @Test
  void linesGoToStderrAtTheGivenLevel() {
    String before = System.getProperty("KARPENTER_LOG_LEVEL");
    System.setProperty("KARPENTER_LOG_LEVEL", "error"); // a system property wins over the environment
    try {
      LoggerContext context = new LoggerContext();
      CliLogging logging = new CliLogging();
      logging.setContext(context);

      assertThat(logging.configure(context)).isEqualTo(Configurator.ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY);

      Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
      assertThat(root.getLevel()).isEqualTo(Level.ERROR);
      assertThat(context.getLogger("io.fabric8").getLevel()).isEqualTo(Level.WARN);
      ConsoleAppender<?> stderr = (ConsoleAppender<?>) root.getAppender("STDERR");
      assertThat(stderr.isStarted()).isTrue();
      assertThat(stderr.getTarget()).isEqualTo("System.err");
      assertThat(((PatternLayoutEncoder) stderr.getEncoder()).getPattern()).isEqualTo("%d{HH:mm:ss.SSS} %-5level %logger{36} - %msg%n");
      assertThat(root.iteratorForAppenders()).toIterable().hasSize(1);
    } finally {
      restore("KARPENTER_LOG_LEVEL", before);
    }
  }

  @Test
  void theLevelIsWarnUnlessAValidOneIsGiven() {
    assertThat(CliLogging.level(null)).isEqualTo(Level.WARN);
    assertThat(CliLogging.level(" debug ")).isEqualTo(Level.DEBUG);
    assertThat(CliLogging.level("loud")).isEqualTo(Level.WARN);
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
      restore("logback.configurationFile", before);
    }
  }

  private static void restore(String property, String value) {
    if (value == null) {
      System.clearProperty(property);
    } else {
      System.setProperty(property, value);
    }
  }
}
