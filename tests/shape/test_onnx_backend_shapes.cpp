// Shape inference against the ONNX project's own backend node tests (Debian's libonnx-testdata):
// each test directory has a model, its inputs and the expected outputs as TensorProto files,
// made by ONNX's reference implementation. Every test whose ops ridge covers must infer exactly
// the expected output shapes. The pass count is recorded so it can only go up.
#include <gtest/gtest.h>
#include <onnx/onnx-data_pb.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "onnx/model_reader.h"
#include "shape/infer.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test {
namespace {

namespace fs = std::filesystem;

std::optional<::onnx::TensorProto> read_tensor(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  ::onnx::TensorProto t;
  if (!t.ParseFromString(s.str())) return std::nullopt;
  return t;
}

// A sequence's element dims as the test stores them (a SequenceProto of tensors), or none for another kind.
std::optional<std::vector<std::vector<int64_t>>> read_sequence(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  ::onnx::SequenceProto sequence;
  if (!sequence.ParseFromString(s.str()) || sequence.elem_type() != ::onnx::SequenceProto::TENSOR) return std::nullopt;
  std::vector<std::vector<int64_t>> elements;
  for (const auto& t : sequence.tensor_values()) elements.emplace_back(t.dims().begin(), t.dims().end());
  return elements;
}

// Small integer inputs (shapes, axes, indices) are given to ridge as known values, as a user's
// constant inputs would be: this is what value propagation needs to resolve, e.g., Reshape.
std::shared_ptr<graph::ConstantData> integer_values(const ::onnx::TensorProto& t) {
  if (t.data_type() != ::onnx::TensorProto::INT64 && t.data_type() != ::onnx::TensorProto::INT32) return nullptr;
  auto c = std::make_shared<graph::ConstantData>();
  c->dtype = static_cast<graph::DType>(t.data_type());
  c->dims.assign(t.dims().begin(), t.dims().end());
  int64_t n = 1;
  for (auto d : c->dims) n *= d;
  if (n > 4096) return nullptr;
  const std::string& raw = t.raw_data();
  for (int64_t i = 0; i < n; ++i) {
    if (!raw.empty()) {
      if (t.data_type() == ::onnx::TensorProto::INT64) {
        int64_t v;
        std::memcpy(&v, raw.data() + 8 * i, 8);
        c->ints.push_back(v);
      } else {
        int32_t v;
        std::memcpy(&v, raw.data() + 4 * i, 4);
        c->ints.push_back(v);
      }
    } else {
      c->ints.push_back(t.data_type() == ::onnx::TensorProto::INT64 ? t.int64_data(static_cast<int>(i))
                                                                    : t.int32_data(static_cast<int>(i)));
    }
  }
  return c;
}

enum class Outcome { kPass, kSkip, kFail };

Outcome check_case(const fs::path& dir, std::string& why) {
  auto model = onnx::load_model((dir / "model.onnx").string());
  auto data = dir / "test_data_set_0";
  auto& g = model.graph;
  shape::Bindings bindings;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    auto path = data / ("input_" + std::to_string(i) + ".pb");
    if (auto& v = g.value(g.inputs[i]); v.is_sequence) {
      // Its elements as given, one by one.
      auto elements = read_sequence(path);
      if (!elements) return Outcome::kSkip;
      v.elements.emplace();
      for (const auto& dims : *elements) v.elements->push_back(graph::make_shape(dims));
      v.element_shape = graph::shared_by(*v.elements);
      continue;
    }
    auto t = read_tensor(path);
    if (!t) return Outcome::kSkip;  // sequence/optional inputs are stored as other protos
    auto& v = g.value(g.inputs[i]);
    bindings.inputs[v.name] = std::vector<int64_t>(t->dims().begin(), t->dims().end());
    v.has_shape = true;
    v.shape = graph::make_shape(bindings.inputs[v.name]);
    if (auto values = integer_values(*t)) v.constant = values;
    if (v.dtype == graph::DType::kUndefined) return Outcome::kSkip;
  }
  shape::bind_inputs(model, bindings);
  auto summary = shape::infer_shapes(model);
  if (!summary.unknown_ops.empty() || summary.unresolved_nodes > 0) return Outcome::kSkip;
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    auto path = data / ("output_" + std::to_string(i) + ".pb");
    const auto& v = g.value(g.outputs[i]);
    if (v.is_sequence) {
      auto expected = read_sequence(path);
      if (!expected) return Outcome::kSkip;
      std::vector<graph::Shape> want;
      for (const auto& dims : *expected) want.push_back(graph::make_shape(dims));
      if (!v.elements || *v.elements != want) {
        graph::Value as_expected = v;
        as_expected.elements = want;
        why = "output " + v.name + ": ridge " + graph::shape_text(v) + ", expected " + graph::shape_text(as_expected);
        return Outcome::kFail;
      }
      continue;
    }
    auto t = read_tensor(path);
    if (!t) return Outcome::kSkip;
    std::vector<int64_t> expected(t->dims().begin(), t->dims().end());
    if (!v.has_shape || graph::known_dims(v.shape) != expected) {
      why = "output " + v.name + ": ridge " + (v.has_shape ? graph::to_string(v.shape) : "?") + ", expected " +
            graph::to_string(graph::make_shape(expected));
      return Outcome::kFail;
    }
    // ONNX 1.12's test data stores bfloat16 expected outputs as their uint16 bit patterns.
    bool bf16_as_bits = v.dtype == graph::DType::kBFloat16 && t->data_type() == ::onnx::TensorProto::UINT16;
    if (t->data_type() != static_cast<int32_t>(v.dtype) && !bf16_as_bits) {
      why = "output " + v.name + " dtype " + std::string(graph::dtype_name(v.dtype)) + ", expected code " +
            std::to_string(t->data_type());
      return Outcome::kFail;
    }
  }
  return Outcome::kPass;
}

TEST(OnnxBackendNodeTests, InferredShapesMatchExpectedOutputs) {
  fs::path root = fs::path(onnx_testdata()) / "node";
  if (!fs::exists(root)) GTEST_SKIP() << "libonnx-testdata is not installed";
  int pass = 0, skip = 0, fail = 0;
  std::string failures;
  std::vector<fs::path> cases;
  for (const auto& entry : fs::directory_iterator(root)) cases.push_back(entry.path());
  std::sort(cases.begin(), cases.end());
  for (const auto& dir : cases) {
    std::string why;
    Outcome outcome;
    try {
      outcome = check_case(dir, why);
    } catch (const Error& e) {
      outcome = Outcome::kFail;
      why = e.what();
    }
    if (outcome == Outcome::kPass)
      ++pass;
    else if (outcome == Outcome::kSkip)
      ++skip;
    else {
      ++fail;
      failures += "  " + dir.filename().string() + ": " + why + "\n";
    }
  }
  std::cout << "ONNX backend node tests: " << pass << " pass, " << skip << " skipped (ops without rules or "
            << "data-dependent shapes), " << fail << " fail\n";
  EXPECT_EQ(fail, 0) << failures;
  EXPECT_GE(pass, 854);  // recorded 2026-12-04 (six with sequences, six signal ops); raise it when coverage grows
}

}  // namespace
}  // namespace ridge::test
