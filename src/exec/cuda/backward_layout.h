#pragma once
// Which nodes' backward runs on channels-last tensors in a --memory-format channels-last training step, worked out on
// the host before the first step: a node whose forward kernel read NHWC (its row's `channels_last`, op_kernel.h) and
// whose backward row takes NHWC (backward.h) is given its tensors as the forward held them; every other backward that
// touches a channels-last value is given NCHW copies, named with counts for the run's note, so what keeps a step
// from NHWC end to end shows. The step (training.cpp) makes the copies this plan implies.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "exec/cuda/backward_plan.h"
#include "exec/cuda/op_kernel.h"
#include "exec/cuda/storage_plan.h"
#include "graph/graph.h"

namespace ridge::exec::cuda {

struct BackwardLayout {
  bool channels_last = false;  // the step runs channels-last
  std::vector<bool> nhwc;      // per node: its backward takes and writes NHWC tensors
  int64_t nhwc_nodes = 0;      // of the backward plan's nodes
  // The op types (with counts) of the plan's nodes whose backward is given NCHW copies of channels-last values.
  std::map<std::string, int> nchw_backwards;

  // One line for the run's notes, with the layout conversions the last step made (in its backward, and of the
  // weights' gradients before the update; "" where the step is NCHW).
  std::string summary(int64_t relayouts) const;
};

// `kernels`: each node's forward row (null: not run); `storage`: the forward's plan (which values it holds NHWC).
BackwardLayout plan_backward_layout(const graph::Graph& g, const std::vector<const KernelRow*>& kernels,
                                    const BackwardPlan& plan, const StoragePlan& storage);

}  // namespace ridge::exec::cuda
