package sh.karpenter.core.lp;

import org.ojalgo.optimisation.ExpressionsBasedModel;
import org.ojalgo.optimisation.Optimisation;
import org.ojalgo.optimisation.Variable;

/**
 * Makes the ojAlgo models of the lower bound's fallback (its restricted programs too large for
 * {@link BoundedSimplex}'s dense tableau, or that it does not solve to a certified optimum).
 *
 * <p>ojAlgo's static initialisers depend on each other in a cycle ({@code Array1D} → {@code
 * ArrayH256} → {@code Quaternion} → {@code R064Store} → {@code Array2D} → {@code ArrayH256}). Two
 * threads that first reach them at the same time can deadlock, each waiting for the class the other
 * is initialising: {@code karpenter plan} hung so, forever, when it took the lower bound beside the
 * solve (then the cost post-pass used ojAlgo too), and the controller takes bounds on several threads
 * (provisioning, disruption, the cost-gap metrics). Every model is made here, and this class's initialisation solves two small programs (a
 * minimisation and a maximisation, read back) on the first caller's thread; the JVM makes every other
 * thread wait for it, so ojAlgo's classes are initialised once, on one thread, before any model is
 * built elsewhere.
 */
public final class LinearModels {
  static {
    solveTwoSmallPrograms();
  }

  private LinearModels() {}

  /** A new, empty model. */
  public static ExpressionsBasedModel newModel() {
    return new ExpressionsBasedModel();
  }

  private static void solveTwoSmallPrograms() {
    for (boolean maximise : new boolean[] {false, true}) {
      ExpressionsBasedModel model = new ExpressionsBasedModel();
      Variable x = model.addVariable("x").lower(0).upper(4).weight(maximise ? 1 : 2);
      Variable y = model.addVariable("y").lower(0).upper(4).weight(maximise ? 2 : 3);
      model.addExpression("sum").lower(1).upper(5).set(x, 1).set(y, 1);
      model.addExpression("diff").upper(2).set(x, 1).set(y, -1);
      Optimisation.Result result = maximise ? model.maximise() : model.minimise();
      result.get(0);
      result.get(1);
    }
  }
}
