// Control flow: If, Loop and Scan run their bodies through the interpreter, in the scope of the
// graph that holds them.
#include <fmt/format.h>

#include "exec/aten/interpreter.h"
#include "exec/aten/kernels/kernel.h"

namespace ridge::exec::aten {

namespace {

using C = KernelContext;

const graph::Graph& body(const C& c, const char* name) {
  const auto* attr = c.node.attribute(name);
  if (!attr || attr->graphs.empty()) c.fail(fmt::format("has no '{}' graph", name));
  return *attr->graphs.front();
}

void if_kernel(C& c) {
  bool condition = c.in(0).to(at::kBool).item<bool>();
  const auto& branch = body(c, condition ? "then_branch" : "else_branch");
  auto outputs = c.interpreter.run_subgraph(branch, {}, *c.interpreter.current_frame());
  for (size_t i = 0; i < outputs.size(); ++i) c.set(i, outputs[i]);
}

void loop(C& c) {
  const auto& g = body(c, "body");
  const Frame& frame = *c.interpreter.current_frame();
  int64_t max_trips = c.has(0) ? c.ints(0).at(0) : INT64_MAX;
  bool condition = c.has(1) ? c.in(1).to(at::kBool).item<bool>() : true;
  std::vector<at::Tensor> state(c.inputs.begin() + 2, c.inputs.end());
  size_t n_state = state.size();
  size_t n_scan = g.outputs.size() - 1 - n_state;
  std::vector<std::vector<at::Tensor>> scans(n_scan);
  for (int64_t i = 0; i < max_trips && condition; ++i) {
    std::vector<at::Tensor> inputs{at::scalar_tensor(i, at::kLong), at::scalar_tensor(condition, at::kBool)};
    inputs.insert(inputs.end(), state.begin(), state.end());
    auto out = c.interpreter.run_subgraph(g, inputs, frame);
    condition = out[0].to(at::kBool).item<bool>();
    for (size_t s = 0; s < n_state; ++s) state[s] = out[1 + s];
    for (size_t s = 0; s < n_scan; ++s) scans[s].push_back(out[1 + n_state + s]);
  }
  for (size_t s = 0; s < n_state; ++s) c.set(s, state[s]);
  for (size_t s = 0; s < n_scan; ++s) {
    if (scans[s].empty()) {
      c.set(n_state + s, at::empty({0}, at::kFloat));
      continue;
    }
    c.set(n_state + s, at::stack(scans[s]));
  }
}

// Scan-8: a leading batch axis on every state and scan input, scan axis 1, optional lengths.
void scan_batched(C& c) {
  const auto& g = body(c, "body");
  const Frame& frame = *c.interpreter.current_frame();
  auto n_scan_in = static_cast<size_t>(c.node.get_int("num_scan_inputs", 0));
  size_t n_state = c.inputs.size() - 1 - n_scan_in;
  size_t n_scan_out = g.outputs.size() - n_state;
  auto dirs = c.node.get_ints("directions", std::vector<int64_t>(n_scan_in, 0));
  int64_t batch = c.in(1 + n_state).size(0);
  std::vector<std::vector<at::Tensor>> final_states(n_state), scan_outs(n_scan_out);
  for (int64_t b = 0; b < batch; ++b) {
    int64_t steps = c.has(0) ? c.ints(0).at(static_cast<size_t>(b)) : c.in(1 + n_state).size(1);
    std::vector<at::Tensor> state;
    for (size_t i = 0; i < n_state; ++i) state.push_back(c.in(1 + i)[b]);
    std::vector<std::vector<at::Tensor>> outs(n_scan_out);
    for (int64_t s = 0; s < steps; ++s) {
      std::vector<at::Tensor> inputs = state;
      for (size_t i = 0; i < n_scan_in; ++i) inputs.push_back(c.in(1 + n_state + i)[b][dirs[i] ? steps - 1 - s : s]);
      auto out = c.interpreter.run_subgraph(g, inputs, frame);
      for (size_t i = 0; i < n_state; ++i) state[i] = out[i];
      for (size_t i = 0; i < n_scan_out; ++i) outs[i].push_back(out[n_state + i]);
    }
    for (size_t i = 0; i < n_state; ++i) final_states[i].push_back(state[i]);
    for (size_t i = 0; i < n_scan_out; ++i) scan_outs[i].push_back(at::stack(outs[i]));
  }
  for (size_t i = 0; i < n_state; ++i) c.set(i, at::stack(final_states[i]));
  for (size_t i = 0; i < n_scan_out; ++i) c.set(n_state + i, at::stack(scan_outs[i]));
}

void scan(C& c) {
  if (c.opset < 9) return scan_batched(c);
  const auto& g = body(c, "body");
  const Frame& frame = *c.interpreter.current_frame();
  auto n_scan_in = static_cast<size_t>(c.node.get_int("num_scan_inputs", 0));
  size_t n_state = c.inputs.size() - n_scan_in;
  size_t n_scan_out = g.outputs.size() - n_state;
  auto in_axes = c.node.get_ints("scan_input_axes", std::vector<int64_t>(n_scan_in, 0));
  auto in_dirs = c.node.get_ints("scan_input_directions", std::vector<int64_t>(n_scan_in, 0));
  auto out_axes = c.node.get_ints("scan_output_axes", std::vector<int64_t>(n_scan_out, 0));
  auto out_dirs = c.node.get_ints("scan_output_directions", std::vector<int64_t>(n_scan_out, 0));
  std::vector<at::Tensor> state(c.inputs.begin(), c.inputs.begin() + static_cast<int64_t>(n_state));
  std::vector<at::Tensor> scan_in;
  for (size_t i = 0; i < n_scan_in; ++i) {
    const auto& x = c.in(n_state + i);
    auto t = x.movedim(normalize_axis(in_axes[i], x.dim(), c), 0);
    scan_in.push_back(in_dirs[i] ? t.flip(0) : t);
  }
  int64_t steps = scan_in.empty() ? 0 : scan_in[0].size(0);
  std::vector<std::vector<at::Tensor>> outs(n_scan_out);
  for (int64_t s = 0; s < steps; ++s) {
    std::vector<at::Tensor> inputs = state;
    for (auto& t : scan_in) inputs.push_back(t[s]);
    auto out = c.interpreter.run_subgraph(g, inputs, frame);
    for (size_t i = 0; i < n_state; ++i) state[i] = out[i];
    for (size_t i = 0; i < n_scan_out; ++i) outs[i].push_back(out[n_state + i]);
  }
  for (size_t i = 0; i < n_state; ++i) c.set(i, state[i]);
  for (size_t i = 0; i < n_scan_out; ++i) {
    auto stacked = at::stack(outs[i]);
    if (out_dirs[i]) stacked = stacked.flip(0);
    c.set(n_state + i, stacked.movedim(0, normalize_axis(out_axes[i], stacked.dim(), c)).contiguous());
  }
}

}  // namespace

void register_control_kernels(KernelRegistry& r) {
  // clang-format off
  r.add("control", {{"If", if_kernel}, {"Loop", loop}, {"Scan", scan}});
  // clang-format on
}

}  // namespace ridge::exec::aten
