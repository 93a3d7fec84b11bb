#pragma once
// What the in-process tests (tests/test_torch_trace.cpp) and the binary-driven tests (tests/cli/test_torch_trace.cpp)
// share.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "onnx/model_reader.h"
#include "profile/torch_trace.h"
#include "roofline/calibrate.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test::torch_trace_fixtures {

using profile::TorchSummary;
using profile::TorchTrace;

inline constexpr double kUs = 1e-6;

inline std::string data(const std::string& name) { return source_path("tests/data/torch_trace/" + name); }

}  // namespace ridge::test::torch_trace_fixtures
