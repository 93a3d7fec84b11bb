#pragma once
// A training step against PyTorch's (issue 30): one step of `engine` on a small weighted model of
// tests/data/training/<name>/ (exported in training mode by tools/export_training_references.py, with PyTorch's
// loss and every parameter's gradient for the same weights and inputs), checked with gtest expectations: the loss
// within 1e-4 relative, every gradient within `tolerance` of its tensor's largest value, the update the optimizer's
// (SGD: learning rate x gradient; Adam's first step: learning rate x g / (|g| + 1e-8)), and no gradient on what
// PyTorch does not train. The CPU and GPU executors are held to the same data.
#include <string>

#include "exec/engine.h"

namespace ridge::test {

void check_training_step(exec::Engine& engine, const std::string& name, const exec::ExecOptions& options,
                         cost::Optimizer optimizer, double tolerance);

}  // namespace ridge::test
