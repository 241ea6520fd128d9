package sh.karpenter.controller.operator;

/**
 * Controllers a cloud provider adds to the {@link Operator} (upstream's provider-specific controllers
 * that {@code operator.WithControllers} registers next to core's, e.g. the AWS provider's EC2NodeClass
 * status and hash controllers). The Operator calls {@link #register} once, in its constructor, before
 * anything starts: the extension creates its informers and controllers there through the
 * {@link OperatorContext}. Its informers start with the Operator's (every replica); its controllers and
 * loops start when this replica becomes leader and stop with the Operator
 * (docs/behaviour/aws-nodeclass.md#joining-the-operator).
 */
@FunctionalInterface
public interface OperatorExtension {
  void register(OperatorContext context);
}
