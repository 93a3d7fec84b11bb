#pragma once
// What every binary-driven test checks of a refused input: exit code 1, one line on stderr, naming `expected`.
#include <gtest/gtest.h>

#include <string>

#include "support/paths.h"

namespace ridge::test {

inline void expect_one_line_error(const CommandResult& r, const std::string& expected) {
  EXPECT_EQ(r.exit_code, 1) << r.err;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one line: " << r.err;
  EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
}

}  // namespace ridge::test
