#pragma once
// What the in-process tests (tests/report/test_figures.cpp) and the binary-driven tests (tests/cli/test_figures.cpp)
// share.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "hw/device_db.h"
#include "hw/roofline.h"
#include "report/figure/render.h"
#include "report/figure/roofline_figure.h"
#include "report/figure/sources.h"
#include "support/browser.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test::figures_fixtures {

using report::figure::Json;

inline const Json& row_where(const Json& rows, const std::string& key, const std::string& value) {
  for (const auto& row : rows)
    if (row.at(key) == value) return row;
  throw std::runtime_error("no row with " + key + " = " + value);
}

}  // namespace ridge::test::figures_fixtures
