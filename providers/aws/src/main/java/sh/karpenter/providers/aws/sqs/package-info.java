/** The SQS queue the interruption controller reads (docs/behaviour/aws-interruption.md#the-queue). */
package sh.karpenter.providers.aws.sqs;
