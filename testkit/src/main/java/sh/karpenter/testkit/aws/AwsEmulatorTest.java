package sh.karpenter.testkit.aws;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a test class against the JVM's AWS emulator ({@link AwsEmulatorExtension}), reset before each
 * test: test methods may take the shared {@link software.amazon.awssdk.services.ec2.Ec2Client},
 * {@link software.amazon.awssdk.services.ssm.SsmClient}, {@link software.amazon.awssdk.services.iam.IamClient}
 * or {@link software.amazon.awssdk.services.sqs.SqsClient}, the {@link AwsEmulator} itself, or an
 * {@link AwsFaults} proxy of their own. Classes are skipped when moto is not installed (and fail
 * under {@code CI=true}). Name such classes {@code *IT} so that Failsafe runs them.
 */
@Documented
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(AwsEmulatorExtension.class)
public @interface AwsEmulatorTest {}
