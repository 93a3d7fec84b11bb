#pragma once
// Attention as transformers export it, before any fusion: the cases optimized mode's attention fusion
// (exec/attention_fusion.h) is held to on the CPU (the rewrite) and on the GPU's host side (the kernel's plan): BERT's
// batch-first heads with a float mask added, torchvision ViT's sequence-first heads with the query scaled before the
// product, GPT-2's causal Where(mask, -inf, scores), a Where that keeps keys with a row whose every key is masked (NaN,
// as a softmax of -inf is), and a 2-D one whose keys cross the kernel's key tiles. Each case's model is what the CPU
// executor runs as exported: the independent reference of the fused node.
#include <cstdint>
#include <string>
#include <vector>

#include "exec/attention_fusion.h"
#include "exec/host_tensor.h"

namespace ridge::test {

struct AttentionPatternCase {
  std::string label;
  std::string model;                     // the saved model
  std::vector<exec::HostTensor> inputs;  // its inputs, with fixed values
  exec::ScoreMask mask = exec::ScoreMask::kNone;
  std::vector<std::string> fused_inputs;  // what the fused node reads: Q, K, V and the mask, as stored
};

std::vector<AttentionPatternCase> attention_pattern_cases();

// The fused node's output by the pattern's definition: the scores product through its strides, scaled; the mask
// broadcast onto them (added, or -inf where a bool says); a softmax per row over the keys (NaN where every key is
// -inf); the context product through its strides. Row-major over the output's stored dims.
std::vector<double> fused_attention_by_definition(const exec::AttentionPattern& p, const exec::HostTensor& q,
                                                  const exec::HostTensor& k, const exec::HostTensor& v,
                                                  const exec::HostTensor* mask);

// Empty when `got` (NaN where `want` is) agrees with `want` within atol + rtol |want|, else the first difference.
std::string compare_with_nan(const std::vector<double>& got, const std::vector<double>& want, double rtol, double atol);

}  // namespace ridge::test
