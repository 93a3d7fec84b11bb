#pragma once
// The executor's test models (tests/data/executor/NAME: small exports of the bundled architectures, with inputs and
// PyTorch's outputs), prepared as the executor runs them.
#include <string>

#include "exec/prepare.h"
#include "support/paths.h"

namespace ridge::test {

inline exec::Prepared prepared_executor_model(const std::string& name) {
  auto dir = source_path("tests/data/executor/" + name);
  analysis::Request request;
  request.model_path = dir + "/model.onnx";
  return exec::prepare(request, dir + "/test_data_set_0");
}

}  // namespace ridge::test
