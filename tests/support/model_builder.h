#pragma once
// Builds small ONNX models with ONNX's own generated protobuf classes (libonnx), so loader and
// cost tests run on files serialized by independent code, not by ridge.
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "analysis/run.h"

namespace ridge::test {

using DimSpec = std::variant<int64_t, std::string>;

class ModelBuilder {
 public:
  explicit ModelBuilder(int64_t opset = 17);

  ModelBuilder& input(const std::string& name, std::vector<DimSpec> dims, int32_t type = ::onnx::TensorProto::FLOAT);
  ModelBuilder& output(const std::string& name);
  // A float initializer with raw_data of the given values (or zeros/1.0s when empty).
  ModelBuilder& weight(const std::string& name, std::vector<int64_t> dims, float fill = 0.5f);
  // A float initializer holding exactly `values` (raw_data).
  ModelBuilder& weight_values(const std::string& name, std::vector<int64_t> dims, const std::vector<float>& values);
  ModelBuilder& int64_constant(const std::string& name, std::vector<int64_t> dims, std::vector<int64_t> values);
  // A bool initializer holding `values` (int32_data, as ONNX stores bools).
  ModelBuilder& bool_constant(const std::string& name, std::vector<int64_t> dims, const std::vector<bool>& values);
  // A weight whose bytes live in an external file `location` (which is not created).
  ModelBuilder& external_weight(const std::string& name, std::vector<int64_t> dims, const std::string& location);
  ::onnx::NodeProto& node(const std::string& op, std::vector<std::string> inputs, std::vector<std::string> outputs,
                          const std::string& name = "");
  ::onnx::ModelProto& proto() { return model_; }

  std::string bytes() const;
  // Writes to a unique temporary file and returns its path.
  std::string save(const std::string& stem) const;

 private:
  ::onnx::ModelProto model_;
};

// A node of a subgraph (a branch, a loop's body), named after its first output.
::onnx::NodeProto& add_graph_node(::onnx::GraphProto& g, const std::string& op, std::vector<std::string> inputs,
                                  std::vector<std::string> outputs);
// Sets a subgraph attribute (an If's branch, a Loop's or Scan's body).
void set_graph(::onnx::NodeProto& node, const std::string& name, const ::onnx::GraphProto& g);
void set_int(::onnx::NodeProto& node, const std::string& name, int64_t value);
void set_ints(::onnx::NodeProto& node, const std::string& name, std::vector<int64_t> values);
void set_float(::onnx::NodeProto& node, const std::string& name, float value);
void set_string(::onnx::NodeProto& node, const std::string& name, const std::string& value);
void set_floats(::onnx::NodeProto& node, const std::string& name, const std::vector<float>& values);
void set_strings(::onnx::NodeProto& node, const std::string& name, const std::vector<std::string>& values);
// A tensor attribute (a Constant's or ConstantOfShape's `value`) of `type` and `dims`, holding `raw_data` where given
// (else filled through the returned proto's typed fields).
::onnx::TensorProto& set_tensor(::onnx::NodeProto& node, const std::string& name, int32_t type,
                                std::vector<int64_t> dims, const std::string& raw_data = {});

// Conv -> BatchNormalization -> Add(residual) -> Relu, Flatten, MatMul -> Add(bias), and a Shape
// of the input that folds away: optimized mode runs conv (+bn, residual, relu), flatten and fc
// (+bias). Saved to a unique temporary file; returns its path.
std::string fusable_model();

// Loads, binds and costs a file with ridge.
analysis::Result analyze_file(const std::string& path, shape::Bindings bindings = {}, cost::CostOptions options = {});
// Costs of the node named `name` (fails the test when absent).
const cost::NodeCost& node_named(const analysis::Result& result, const std::string& name);

}  // namespace ridge::test
