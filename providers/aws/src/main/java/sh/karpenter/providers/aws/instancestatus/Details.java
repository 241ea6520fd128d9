package sh.karpenter.providers.aws.instancestatus;

import java.time.Instant;

/**
 * One check of an instance, or one scheduled event (upstream's {@code instancestatus.Details}).
 *
 * @param category where the check comes from
 * @param name the check's name ({@code reachability}) or the event's code ({@code instance-retirement})
 * @param status the check's status ({@code passed}, {@code failed}, {@code insufficient-data},
 *     {@code initializing}); always {@value InstanceStatusProvider#FAILED} for an event
 * @param impairedSince when the check started failing, {@link Instant#EPOCH} when EC2 did not say
 *     (as upstream's zero time, that is always past the threshold); the time of the poll for an event
 */
public record Details(Category category, String name, String status, Instant impairedSince) {}
