// `ridge import torch` through the binary: malformed and missing files exit non-zero with one line on stderr naming
// the file and nothing on stdout. What the import prints and keeps: tests/report/test_torch_import_command.cpp.
#include <gtest/gtest.h>

#include <algorithm>

#include "support/paths.h"
#include "support/torch_trace_fixtures.h"

namespace ridge::test {
namespace {

using namespace torch_trace_fixtures;  // NOLINT(google-build-using-namespace)

TEST(TorchTrace, MalformedFilesGetOneLineNamingTheFile) {
  for (const char* name : {"truncated.json", "not_a_trace.json", "no_events.json", "negative_duration.json"}) {
    auto path = data(std::string("malformed/") + name);
    auto r = run_ridge("import torch " + path + " --no-store");
    EXPECT_NE(r.exit_code, 0) << name;
    EXPECT_NE(r.err.find(name), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(r.out.empty()) << name;
  }
  auto missing = run_ridge("import torch /nonexistent/trace.json --no-store");
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.err.find("/nonexistent/trace.json"), std::string::npos);
}

}  // namespace
}  // namespace ridge::test
