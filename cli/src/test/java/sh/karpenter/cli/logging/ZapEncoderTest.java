package sh.karpenter.cli.logging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.OutputStreamAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/** What {@code karpenter controller} prints: upstream's zap JSON lines, or zap's console layout. */
class ZapEncoderTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A logger context of its own whose only appender encodes into {@code out}. */
  private static Logger logger(String name, ByteArrayOutputStream out, String format, boolean caller) {
    LoggerContext context = new LoggerContext();
    context.setMDCAdapter(MDC.getMDCAdapter()); // the adapter org.slf4j.MDC writes to
    context.start();
    ZapEncoder encoder = new ZapEncoder();
    encoder.setContext(context);
    encoder.setFormat(format);
    encoder.setCaller(caller);
    encoder.start();
    OutputStreamAppender<ILoggingEvent> appender = new OutputStreamAppender<>();
    appender.setContext(context);
    appender.setEncoder(encoder);
    appender.setOutputStream(out);
    appender.start();
    Logger logger = context.getLogger(name);
    logger.setLevel(ch.qos.logback.classic.Level.DEBUG);
    logger.addAppender(appender);
    return logger;
  }

  private static List<String> lines(ByteArrayOutputStream out) {
    return out.toString(StandardCharsets.UTF_8).lines().toList();
  }

  @Test
  void anInfoLineCarriesUpstreamsKeysAndItsStructuredFieldsAsFields() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Logger log = logger("sh.karpenter.controller.nodeclaim.lifecycle.Launch", out, "json", false);
    MDC.put("controller", "nodeclaim.lifecycle");
    try {
      log.atInfo().setMessage("launched nodeclaim")
          .addKeyValue("NodeClaim", Map.of("name", "default-abcde"))
          .addKeyValue("provider-id", "aws:///us-east-1a/i-0123")
          .addKeyValue("pods", 3)
          .addKeyValue("instance-types", List.of("m5.large", "m5.xlarge"))
          .addKeyValue("timeout", Duration.ofMinutes(15))
          .log();
    } finally {
      MDC.remove("controller");
    }

    List<String> lines = lines(out);
    assertThat(lines).hasSize(1);
    JsonNode line = JSON.readTree(lines.getFirst());
    assertThat(line.fieldNames()).toIterable().startsWith("level", "time", "logger", "message");
    assertThat(line.get("level").asText()).isEqualTo("INFO");
    assertThat(line.get("time").asText()).matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z");
    assertThat(line.get("logger").asText()).isEqualTo("controller.nodeclaim.lifecycle");
    assertThat(line.get("message").asText()).isEqualTo("launched nodeclaim");
    assertThat(line.get("controller").asText()).isEqualTo("nodeclaim.lifecycle");
    assertThat(line.get("NodeClaim").get("name").asText()).isEqualTo("default-abcde");
    assertThat(line.get("provider-id").asText()).isEqualTo("aws:///us-east-1a/i-0123");
    assertThat(line.get("pods").isInt()).isTrue();
    assertThat(line.get("pods").asInt()).isEqualTo(3);
    assertThat(line.get("instance-types").get(1).asText()).isEqualTo("m5.xlarge");
    assertThat(line.get("timeout").asText()).isEqualTo("15m0s");
    assertThat(line.has("error")).isFalse();
    assertThat(line.has("caller")).isFalse();
  }

  @Test
  void anErrorCarriesItsMessageAndItsWholeStackInOneFieldEach() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Logger log = logger("sh.karpenter.controller.runtime.Controller", out, "json", true);
    IllegalStateException error = new IllegalStateException("launching nodeclaim default-x", new java.io.IOException("connection reset"));
    log.atError().setMessage("Reconciler error").addKeyValue("controller", "nodeclaim.lifecycle").setCause(error).log();

    List<String> lines = lines(out);
    assertThat(lines).as("the stack stays inside the JSON line").hasSize(1);
    JsonNode line = JSON.readTree(lines.getFirst());
    assertThat(line.get("level").asText()).isEqualTo("ERROR");
    assertThat(line.get("logger").asText()).isEqualTo("controller");
    assertThat(line.get("message").asText()).isEqualTo("Reconciler error");
    assertThat(line.get("error").asText())
        .isEqualTo("java.lang.IllegalStateException: launching nodeclaim default-x: java.io.IOException: connection reset");
    assertThat(line.get("stacktrace").asText())
        .contains("java.lang.IllegalStateException: launching nodeclaim default-x")
        .contains("\tat sh.karpenter.cli.logging.ZapEncoderTest.anErrorCarriesItsMessageAndItsWholeStackInOneFieldEach")
        .contains("Caused by: java.io.IOException: connection reset");
    assertThat(line.get("caller").asText()).startsWith("logging/ZapEncoderTest.java:");
  }

  @Test
  void aPlainMessageWithoutFieldsStaysPlain() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    logger("io.fabric8.kubernetes.client.Watcher", out, "json", false).warn("watch of {} closed", "pods");
    JsonNode line = JSON.readTree(lines(out).getFirst());
    assertThat(line.get("level").asText()).isEqualTo("WARN");
    assertThat(line.get("logger").asText()).isEqualTo("io.fabric8.kubernetes.client.Watcher");
    assertThat(line.get("message").asText()).isEqualTo("watch of pods closed");
    assertThat(line.size()).isEqualTo(4);
  }

  @Test
  void aFieldNamedLikeALineKeyDoesNotShadowIt() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    logger("sh.karpenter.controller.provisioning.Provisioner", out, "json", false).atInfo().setMessage("m").addKeyValue("message", "x").log();
    JsonNode line = JSON.readTree(lines(out).getFirst());
    assertThat(line.get("message").asText()).isEqualTo("m");
    assertThat(line.get("field.message").asText()).isEqualTo("x");
  }

  @Test
  void textFormatIsZapsConsoleLayout() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Logger log = logger("sh.karpenter.controller.provisioning.Provisioner", out, "text", false);
    log.atInfo().setMessage("created nodeclaim").addKeyValue("NodePool", Map.of("name", "default")).addKeyValue("pods", 2).log();
    log.atError().setMessage("creating nodeclaim failed").setCause(new RuntimeException("boom")).log();

    List<String> lines = lines(out);
    String[] first = lines.getFirst().split("\t");
    assertThat(first).hasSize(5);
    assertThat(first[0]).matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z");
    assertThat(first[1]).isEqualTo("INFO");
    assertThat(first[2]).isEqualTo("controller.provisioning");
    assertThat(first[3]).isEqualTo("created nodeclaim");
    assertThat(first[4]).isEqualTo("{\"NodePool\":{\"name\":\"default\"},\"pods\":2}");
    assertThat(lines.get(1)).endsWith("ERROR\tcontroller.provisioning\tcreating nodeclaim failed\t{\"error\":\"java.lang.RuntimeException: boom\"}");
    assertThat(lines.get(2)).isEqualTo("java.lang.RuntimeException: boom");
    assertThat(lines.get(3)).startsWith("\tat ");
  }

  @Test
  void loggerNamesFollowUpstreamsTree() {
    assertThat(LoggerNames.upstream("sh.karpenter.controller.runtime.Controller")).isEqualTo("controller");
    assertThat(LoggerNames.upstream("sh.karpenter.controller.operator.Operator")).isEqualTo("controller");
    assertThat(LoggerNames.upstream("sh.karpenter.controller.provisioning.Provisioner")).isEqualTo("controller.provisioning");
    assertThat(LoggerNames.upstream("sh.karpenter.controller.node.termination.NodeTermination")).isEqualTo("controller.node.termination");
    assertThat(LoggerNames.upstream("sh.karpenter.providers.aws.instance.InstanceProvider")).isEqualTo("controller.aws.instance");
    assertThat(LoggerNames.upstream("sh.karpenter.providers.kwok.KwokCloudProvider")).isEqualTo("controller.kwok");
    assertThat(LoggerNames.upstream("sh.karpenter.cli.ControllerCommand")).isEqualTo("controller");
    assertThat(LoggerNames.upstream("io.fabric8.kubernetes.client.Config")).isEqualTo("io.fabric8.kubernetes.client.Config");
  }

  @Test
  void anUnknownFormatIsRefusedNamingTheFlag() {
    assertThat(ZapEncoder.parseFormat("JSON")).isEqualTo(ZapEncoder.Format.JSON);
    assertThat(ZapEncoder.parseFormat("text")).isEqualTo(ZapEncoder.Format.TEXT);
    assertThatThrownBy(() -> ZapEncoder.parseFormat("xml")).hasMessage("--log-format: expected json or text, got \"xml\"");
  }
}
