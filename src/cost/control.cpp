// Control flow: If, Loop and Scan have no rule of their own; node_eval.cpp costs them through
// their subgraphs (the branch taken or the costlier one, the body times its trip count).
#include "cost/registry.h"

namespace ridge::cost {

void register_control_costs(CostRegistry& registry) {
  registry.add("control", {{"If", nullptr, kControlFlow | kNotDifferentiable},
                           {"Loop", nullptr, kControlFlow | kNotDifferentiable},
                           {"Scan", nullptr, kControlFlow | kNotDifferentiable}});
}

}  // namespace ridge::cost
