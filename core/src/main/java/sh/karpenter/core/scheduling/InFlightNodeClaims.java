package sh.karpenter.core.scheduling;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeSet;
import sh.karpenter.core.requirements.Requirement;

/**
 * The NodeClaims planned in one pass, in the order upstream tries them for each pod (fewest pods
 * first, then oldest), and indexed by their topology domains: claims are grouped by what their
 * requirements say about each topology key of the pass other than the hostname (for example the
 * zone they are pinned to, or none yet). Whether a pod's topology constraints leave it a domain on a
 * claim depends only on the claim's requirement for the key of the constraint (and on the topology
 * counts, which do not change while one pod is being placed), so once one claim fails a pod on a key
 * every claim that says the same about that key would fail it too. A {@link Scan} skips those claims
 * wholesale instead of trying each (docs/behaviour/scheduling.md#in-flight-nodeclaim-order).
 *
 * <p>Keeping the order costs O(log n) per pod joining a claim, where shifting a claim along a list
 * past every claim of the same size cost O(n).
 */
final class InFlightNodeClaims implements Iterable<InFlightNodeClaim> {
  /** Upstream's order for trying in-flight claims: fewest pods first, then oldest. */
  static final Comparator<InFlightNodeClaim> ORDER =
      Comparator.comparingInt((InFlightNodeClaim c) -> c.pods.size()).thenComparingInt(c -> c.sequence);

  /** The claims that say the same about every indexed key, in {@link #ORDER}. */
  private static final class Domains {
    final List<Requirement> values;
    final TreeSet<InFlightNodeClaim> claims = new TreeSet<>(ORDER);

    Domains(List<Requirement> values) {
      this.values = values;
    }
  }

  private final List<String> keys;
  private final TreeSet<InFlightNodeClaim> all = new TreeSet<>(ORDER);
  private final Map<List<Requirement>, Domains> byDomains = new HashMap<>();
  /** Each claim's group, so that a claim can leave it after its requirements changed. */
  private final Map<InFlightNodeClaim, Domains> groupOf = new IdentityHashMap<>();

  /** @param keys the topology keys to index claims by (the hostname excluded: every claim has its own) */
  InFlightNodeClaims(Collection<String> keys) {
    this.keys = List.copyOf(new TreeSet<>(keys));
  }

  int size() {
    return all.size();
  }

  boolean isEmpty() {
    return all.isEmpty();
  }

  /** Every claim, in order. */
  @Override
  public Iterator<InFlightNodeClaim> iterator() {
    return all.iterator();
  }

  /** Adds a claim (with its pods: the order depends on how many it has). */
  void add(InFlightNodeClaim claim) {
    all.add(claim);
    Domains domains = byDomains.computeIfAbsent(domainsOf(claim), Domains::new);
    domains.claims.add(claim);
    groupOf.put(claim, domains);
  }

  void remove(InFlightNodeClaim claim) {
    all.remove(claim);
    Domains domains = groupOf.remove(claim);
    domains.claims.remove(claim);
    if (domains.claims.isEmpty()) {
      byDomains.remove(domains.values);
    }
  }

  /**
   * Runs {@code change} on a claim of the set (a pod joining it), keeping the order and the index:
   * the claim's size, and its requirements, may change only this way.
   */
  void update(InFlightNodeClaim claim, Runnable change) {
    remove(claim);
    change.run();
    add(claim);
  }

  /** The given claims of the set in order. */
  List<InFlightNodeClaim> ordered(Collection<InFlightNodeClaim> claims) {
    List<InFlightNodeClaim> result = new ArrayList<>(claims);
    result.sort(ORDER);
    return result;
  }

  private List<Requirement> domainsOf(InFlightNodeClaim claim) {
    Requirement[] values = new Requirement[keys.size()];
    for (int k = 0; k < values.length; k++) {
      values[k] = claim.requirements.find(keys.get(k));
    }
    return Arrays.asList(values);
  }

  /** A first-fit scan over the claims for one pod; the set must not change while it is in use. */
  Scan scan() {
    return new Scan();
  }

  /**
   * The claims in order, less those {@link #ruleOut ruled out} during the scan: a plain walk over
   * the order until the first claim is ruled out, then a merge of the domain groups still in play.
   */
  final class Scan implements Iterator<InFlightNodeClaim> {
    private final class Cursor {
      final Domains domains;
      final Iterator<InFlightNodeClaim> rest;
      InFlightNodeClaim head;

      Cursor(Domains domains, Iterator<InFlightNodeClaim> rest) {
        this.domains = domains;
        this.rest = rest;
        this.head = rest.next();
      }
    }

    private final Iterator<InFlightNodeClaim> walk = all.iterator();
    private InFlightNodeClaim last;
    /** Null until a claim is ruled out. */
    private PriorityQueue<Cursor> cursors;
    /** The domain groups ruled out, skipped when they come up. */
    private final Set<Domains> ruledOut = Collections.newSetFromMap(new IdentityHashMap<>());

    private Scan() {}

    @Override
    public boolean hasNext() {
      if (cursors == null) {
        return walk.hasNext();
      }
      while (!cursors.isEmpty() && ruledOut.contains(cursors.peek().domains)) {
        cursors.poll();
      }
      return !cursors.isEmpty();
    }

    @Override
    public InFlightNodeClaim next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      if (cursors == null) {
        last = walk.next();
        return last;
      }
      Cursor cursor = cursors.poll();
      last = cursor.head;
      if (cursor.rest.hasNext()) {
        cursor.head = cursor.rest.next();
        cursors.add(cursor);
      }
      return last;
    }

    /**
     * Skips, for the rest of the scan, every claim whose requirement for {@code key} is the same as
     * {@code failed}'s (the last claim returned): the pod's topology constraint on that key left it
     * no domain on {@code failed}. Does nothing for keys that are not indexed (the hostname).
     */
    void ruleOut(InFlightNodeClaim failed, String key) {
      int k = keys.indexOf(key);
      if (k < 0) {
        return;
      }
      if (cursors == null) {
        cursors = new PriorityQueue<>(Math.max(1, byDomains.size()), (a, b) -> ORDER.compare(a.head, b.head));
        for (Domains domains : byDomains.values()) {
          Iterator<InFlightNodeClaim> rest = last == null ? domains.claims.iterator() : domains.claims.tailSet(last, false).iterator();
          if (rest.hasNext()) {
            cursors.add(new Cursor(domains, rest));
          }
        }
      }
      Requirement value = groupOf.get(failed).values.get(k);
      for (Domains domains : byDomains.values()) {
        if (Objects.equals(domains.values.get(k), value)) {
          ruledOut.add(domains);
        }
      }
    }
  }
}
