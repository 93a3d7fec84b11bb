#include "support/backend_node_tests.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <vector>

#include "exec/prepare.h"
#include "exec/test_data.h"
#include "support/tensor_compare.h"
#include "util/error.h"

namespace ridge::test {
namespace {

namespace fs = std::filesystem;

enum class Outcome { kPass, kSkip, kFail };

// Ops whose outputs are random by definition: their expected values cannot be reproduced.
const std::set<std::string> kRandomOps{"Bernoulli", "RandomNormal", "RandomUniform", "RandomNormalLike",
                                       "RandomUniformLike"};

Outcome check_case(const fs::path& dir, exec::Engine& engine, const exec::ExecOptions& options,
                   const std::function<bool(const std::string&)>& refused, std::string& why) {
  auto data = dir / "test_data_set_0";
  if (!fs::exists(data / "input_0.pb") && !fs::exists(data / "output_0.pb")) return Outcome::kSkip;
  analysis::Request request;
  request.model_path = (dir / "model.onnx").string();
  exec::Prepared prepared;
  try {
    prepared = fs::exists(data / "input_0.pb") ? exec::prepare(request, data.string()) : exec::prepare(request, "");
  } catch (const Error& e) {
    return Outcome::kSkip;  // inputs that are not tensors (sequences, optionals) or unsupported types
  }
  const auto& model = prepared.analysis.model;
  if (!exec::missing_ops(model, engine.op_types()).empty()) return Outcome::kSkip;
  // Sequences as a model's inputs or outputs: ridge runs models whose inputs and outputs are tensors (exec/prepare.h).
  for (const auto* ids : {&model.graph.inputs, &model.graph.outputs})
    for (auto id : *ids)
      if (model.graph.value(id).is_sequence) return Outcome::kSkip;
  for (const auto& node : model.graph.nodes) {
    if (kRandomOps.count(node.op_type)) return Outcome::kSkip;
    if (node.op_type == "Dropout" && node.input(2) != graph::kNoValue) return Outcome::kSkip;  // training: random
  }
  // Types ATen has no tensors for (strings, unsigned 16-64 bit): the executor says so; not compared.
  for (const auto& v : model.graph.values)
    if (v.dtype == graph::DType::kString || v.dtype == graph::DType::kUInt16 || v.dtype == graph::DType::kUInt32 ||
        v.dtype == graph::DType::kUInt64)
      return Outcome::kSkip;
  std::vector<Expected> expected;
  for (size_t i = 0; i < model.graph.outputs.size(); ++i) {
    auto e = read_expected((data / ("output_" + std::to_string(i) + ".pb")).string());
    if (!e) return Outcome::kSkip;
    expected.push_back(std::move(*e));
  }
  exec::RunOutput out;
  try {
    out = engine.run(model, prepared.inputs, options);
  } catch (const Error& e) {
    why = e.what();
    return refused && refused(why) ? Outcome::kSkip : Outcome::kFail;
  }
  for (size_t i = 0; i < expected.size(); ++i) {
    auto diff = compare_tensor(out.outputs.at(i), expected[i], 1e-3, 1e-5);
    if (!diff.empty()) {
      why = "output " + std::to_string(i) + " " + diff;
      return Outcome::kFail;
    }
  }
  return Outcome::kPass;
}

}  // namespace

NodeTestTally run_backend_node_tests(const std::string& root, exec::Engine& engine, const exec::ExecOptions& options,
                                     const std::function<bool(const std::string&)>& refused) {
  std::vector<fs::path> cases;
  for (const auto& entry : fs::directory_iterator(root)) cases.push_back(entry.path());
  std::sort(cases.begin(), cases.end());
  NodeTestTally tally;
  for (const auto& dir : cases) {
    std::string why;
    Outcome outcome;
    try {
      outcome = check_case(dir, engine, options, refused, why);
    } catch (const std::exception& e) {
      outcome = Outcome::kFail;
      why = e.what();
    }
    if (outcome == Outcome::kPass) ++tally.pass;
    if (outcome == Outcome::kSkip) ++tally.skip;
    if (outcome == Outcome::kFail) {
      ++tally.fail;
      tally.failures += dir.filename().string() + ": " + why + "\n";
    }
  }
  return tally;
}

}  // namespace ridge::test
