package sh.karpenter.testkit.aws;

import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.iam.IamClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.ssm.SsmClient;

/**
 * JUnit 5 extension behind {@link AwsEmulatorTest}. Before the class it obtains the JVM's shared
 * {@link AwsEmulator} (skipping the class when moto is not installed, failing it instead when
 * {@code CI=true}); before each test it resets the emulator; after each test it closes the test's
 * {@link AwsFaults} proxy, if it took one. It resolves {@link AwsEmulator}, {@link AwsFaults} and the
 * shared SDK clients, and prints moto's log tail when a test fails.
 */
public final class AwsEmulatorExtension
    implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback, ParameterResolver, TestExecutionExceptionHandler {

  private static final ExtensionContext.Namespace STORE = ExtensionContext.Namespace.create(AwsEmulatorExtension.class);
  private static final String FAULTS = "aws-faults";
  private static final Map<Class<?>, Function<AwsEmulator, Object>> SHARED = Map.of(
      AwsEmulator.class, emulator -> emulator,
      Ec2Client.class, AwsEmulator::ec2,
      SsmClient.class, AwsEmulator::ssm,
      IamClient.class, AwsEmulator::iam,
      SqsClient.class, AwsEmulator::sqs);

  @Override
  public void beforeAll(ExtensionContext context) {
    AwsEmulator.shared();
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    AwsEmulator.shared().reset();
  }

  @Override
  public void afterEach(ExtensionContext context) {
    AwsFaults faults = context.getStore(STORE).remove(FAULTS, AwsFaults.class);
    if (faults != null) {
      faults.close();
    }
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return type == AwsFaults.class || SHARED.containsKey(type);
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    AwsEmulator emulator = AwsEmulator.shared();
    Class<?> type = parameter.getParameter().getType();
    if (type == AwsFaults.class) {
      return context.getStore(STORE).computeIfAbsent(FAULTS, key -> AwsFaults.start(emulator), AwsFaults.class);
    }
    return SHARED.get(type).apply(emulator);
  }

  @Override
  public void handleTestExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
    System.err.println(context.getDisplayName() + " failed; " + AwsEmulator.shared().logTail());
    throw failure;
  }
}
