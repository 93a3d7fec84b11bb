#include "support/model_builder.h"

#include <gtest/gtest.h>

#include <fstream>

#include "analysis/run.h"
#include "support/paths.h"

namespace ridge::test {

ModelBuilder::ModelBuilder(int64_t opset) {
  model_.set_ir_version(8);
  model_.set_producer_name("ridge-tests");
  auto* op = model_.add_opset_import();
  op->set_domain("");
  op->set_version(opset);
  model_.mutable_graph()->set_name("test");
}

ModelBuilder& ModelBuilder::input(const std::string& name, std::vector<DimSpec> dims, int32_t type) {
  auto* in = model_.mutable_graph()->add_input();
  in->set_name(name);
  auto* tensor = in->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(type);
  auto* shape = tensor->mutable_shape();
  for (const auto& d : dims) {
    auto* dim = shape->add_dim();
    if (std::holds_alternative<int64_t>(d))
      dim->set_dim_value(std::get<int64_t>(d));
    else
      dim->set_dim_param(std::get<std::string>(d));
  }
  return *this;
}

ModelBuilder& ModelBuilder::output(const std::string& name) {
  model_.mutable_graph()->add_output()->set_name(name);
  return *this;
}

namespace {

// Adds an initializer header (name, type, dims) and returns it with its element count.
std::pair<::onnx::TensorProto*, int64_t> add_initializer(::onnx::ModelProto& model, const std::string& name,
                                                         int32_t type, const std::vector<int64_t>& dims) {
  auto* t = model.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(type);
  int64_t n = 1;
  for (auto d : dims) {
    t->add_dims(d);
    n *= d;
  }
  return {t, n};
}

}  // namespace

ModelBuilder& ModelBuilder::weight(const std::string& name, std::vector<int64_t> dims, float fill) {
  auto [t, n] = add_initializer(model_, name, ::onnx::TensorProto::FLOAT, dims);
  std::vector<float> values(static_cast<size_t>(n), fill);
  t->set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
  return *this;
}

ModelBuilder& ModelBuilder::weight_values(const std::string& name, std::vector<int64_t> dims,
                                          const std::vector<float>& values) {
  auto* t = add_initializer(model_, name, ::onnx::TensorProto::FLOAT, dims).first;
  t->set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
  return *this;
}

ModelBuilder& ModelBuilder::int64_constant(const std::string& name, std::vector<int64_t> dims,
                                           std::vector<int64_t> values) {
  auto* t = add_initializer(model_, name, ::onnx::TensorProto::INT64, dims).first;
  for (auto v : values) t->add_int64_data(v);
  return *this;
}

ModelBuilder& ModelBuilder::bool_constant(const std::string& name, std::vector<int64_t> dims,
                                          const std::vector<bool>& values) {
  auto* t = add_initializer(model_, name, ::onnx::TensorProto::BOOL, dims).first;
  for (bool v : values) t->add_int32_data(v ? 1 : 0);
  return *this;
}

ModelBuilder& ModelBuilder::external_weight(const std::string& name, std::vector<int64_t> dims,
                                            const std::string& location) {
  auto [t, n] = add_initializer(model_, name, ::onnx::TensorProto::FLOAT, dims);
  t->set_data_location(::onnx::TensorProto::EXTERNAL);
  auto* entry = t->add_external_data();
  entry->set_key("location");
  entry->set_value(location);
  entry = t->add_external_data();
  entry->set_key("length");
  entry->set_value(std::to_string(n * 4));
  return *this;
}

::onnx::NodeProto& ModelBuilder::node(const std::string& op, std::vector<std::string> inputs,
                                      std::vector<std::string> outputs, const std::string& name) {
  auto* n = model_.mutable_graph()->add_node();
  n->set_op_type(op);
  n->set_name(name.empty() ? outputs.at(0) : name);
  for (auto& i : inputs) n->add_input(i);
  for (auto& o : outputs) n->add_output(o);
  return *n;
}

std::string ModelBuilder::bytes() const { return model_.SerializeAsString(); }

std::string ModelBuilder::save(const std::string& stem) const {
  static int counter = 0;
  auto path = temp_dir() + "/" + stem + "-" + std::to_string(++counter) + ".onnx";
  std::ofstream out(path, std::ios::binary);
  out << bytes();
  return path;
}

::onnx::NodeProto& add_graph_node(::onnx::GraphProto& g, const std::string& op, std::vector<std::string> inputs,
                                  std::vector<std::string> outputs) {
  auto* n = g.add_node();
  n->set_op_type(op);
  n->set_name(outputs.front() + "_node");
  for (const auto& i : inputs) n->add_input(i);
  for (const auto& o : outputs) n->add_output(o);
  return *n;
}

void set_graph(::onnx::NodeProto& node, const std::string& name, const ::onnx::GraphProto& g) {
  auto* attr = node.add_attribute();
  attr->set_name(name);
  attr->set_type(::onnx::AttributeProto::GRAPH);
  *attr->mutable_g() = g;
}

void set_int(::onnx::NodeProto& node, const std::string& name, int64_t value) {
  auto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(value);
}

void set_ints(::onnx::NodeProto& node, const std::string& name, std::vector<int64_t> values) {
  auto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INTS);
  for (auto v : values) a->add_ints(v);
}

void set_float(::onnx::NodeProto& node, const std::string& name, float value) {
  auto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::FLOAT);
  a->set_f(value);
}

void set_string(::onnx::NodeProto& node, const std::string& name, const std::string& value) {
  auto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::STRING);
  a->set_s(value);
}

void set_floats(::onnx::NodeProto& node, const std::string& name, const std::vector<float>& values) {
  auto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::FLOATS);
  for (float v : values) a->add_floats(v);
}

::onnx::TensorProto& set_tensor(::onnx::NodeProto& node, const std::string& name, int32_t type,
                                std::vector<int64_t> dims, const std::string& raw_data) {
  auto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::TENSOR);
  auto* t = a->mutable_t();
  t->set_data_type(type);
  for (auto d : dims) t->add_dims(d);
  if (!raw_data.empty()) t->set_raw_data(raw_data);
  return *t;
}

void set_strings(::onnx::NodeProto& node, const std::string& name, const std::vector<std::string>& values) {
  auto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::STRINGS);
  for (const auto& v : values) a->add_strings(v);
}

analysis::Result analyze_file(const std::string& path, shape::Bindings bindings, cost::CostOptions options) {
  analysis::Request request;
  request.model_path = path;
  request.bindings = std::move(bindings);
  request.options = options;
  return analysis::run(request);
}

const cost::NodeCost& node_named(const analysis::Result& result, const std::string& name) {
  for (const auto& n : result.cost.nodes)
    if (n.name == name) return n;
  ADD_FAILURE() << "no node named " << name;
  static cost::NodeCost none;
  return none;
}

std::string fusable_model() {
  ModelBuilder b;
  b.input("x", {int64_t{1}, int64_t{8}, int64_t{6}, int64_t{6}}).output("y").output("s");
  b.weight("w", {8, 8, 3, 3}).weight("scale", {8}).weight("shift", {8}).weight("mean", {8}).weight("var", {8});
  b.weight("fc", {288, 10}).weight("bias", {10});
  auto& conv = b.node("Conv", {"x", "w"}, {"c"}, "conv");
  set_ints(conv, "pads", {1, 1, 1, 1});
  b.node("BatchNormalization", {"c", "scale", "shift", "mean", "var"}, {"bn"}, "bn");
  b.node("Add", {"bn", "x"}, {"sum"}, "residual");
  b.node("Relu", {"sum"}, {"r"}, "relu");
  auto& flat = b.node("Flatten", {"r"}, {"f"}, "flatten");
  set_int(flat, "axis", 1);
  b.node("MatMul", {"f", "fc"}, {"m"}, "fc");
  b.node("Add", {"m", "bias"}, {"y"}, "fc_bias");
  b.node("Shape", {"x"}, {"s"}, "shape");
  return b.save("fusable");
}

}  // namespace ridge::test
