// Host tensors from a model's tensor attributes (exec/host_values.h): what the GPU executor uploads for a Constant
// whose value shape inference does not keep, and the fill ConstantOfShape writes.
#include <gtest/gtest.h>

#include <cstring>

#include "exec/host_values.h"
#include "support/error_text.h"
#include "support/model_builder.h"
#include "util/error.h"

namespace ridge::test {
namespace {

const graph::TensorRef& constant_value(const analysis::Result& r, const std::string& node) {
  for (const auto& n : r.model.graph.nodes)
    if (n.name == node) return *n.attribute("value")->tensor;
  throw Error("no node " + node);
}

TEST(HostValues, ATensorAttributeIsReadAsTheFileStoresIt) {
  ModelBuilder b;
  b.output("raw").output("typed");
  // 70000 floats in raw_data (more than shape inference keeps), and int64s in the typed field.
  std::vector<float> values(70000);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) * 0.5f - 7.f;
  set_tensor(b.node("Constant", {}, {"raw"}, "raw"), "value", ::onnx::TensorProto::FLOAT, {700, 100},
             std::string(reinterpret_cast<const char*>(values.data()), values.size() * 4));
  auto& typed = set_tensor(b.node("Constant", {}, {"typed"}, "typed"), "value", ::onnx::TensorProto::INT64, {3});
  for (int64_t v : {int64_t{-1}, int64_t{1} << 60, int64_t{42}}) typed.add_int64_data(v);
  auto r = analyze_file(b.save("host_values_attributes"));

  auto raw = exec::attribute_tensor(constant_value(r, "raw"), r.model.directory);
  EXPECT_EQ(raw.dtype, graph::DType::kFloat32);
  EXPECT_EQ(raw.dims, (std::vector<int64_t>{700, 100}));
  ASSERT_EQ(raw.bytes.size(), values.size() * 4);
  EXPECT_EQ(std::memcmp(raw.bytes.data(), values.data(), raw.bytes.size()), 0);

  auto ints = exec::attribute_tensor(constant_value(r, "typed"), r.model.directory);
  ASSERT_EQ(ints.bytes.size(), 24u);
  int64_t got[3];
  std::memcpy(got, ints.bytes.data(), 24);
  EXPECT_EQ(got[0], -1);
  EXPECT_EQ(got[1], int64_t{1} << 60);  // exact: not through a double
  EXPECT_EQ(got[2], 42);

  graph::TensorRef text;  // (a model holding one is refused when it is analyzed, before any executor reads it)
  text.name = "text";
  text.dtype = graph::DType::kString;
  text.dims = {1};
  EXPECT_EQ(one_line_refusal([&] { exec::attribute_tensor(text, r.model.directory); },
                             "has type string, which the executor cannot hold"),
            "");
}

}  // namespace
}  // namespace ridge::test
