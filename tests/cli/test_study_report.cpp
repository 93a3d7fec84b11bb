// `ridge report` through the binary: nothing to report as one line on stderr (exit code 1), and the page as a reader
// gets it, made by the binary from a store the binary filled and rendered by headless Chromium. What the page and the
// Markdown write-up hold is checked in process in tests/report/test_study_report.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/browser.h"
#include "support/files.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

// A store with one bench result and one prediction of alexnet, made once per test process.
const std::string& study_store() {
  static const std::string store = [] {
    auto path = temp_dir() + "/study.db";
    auto bench = run_ridge("bench " + model_path("alexnet") + " --max-time 0.5 --store " + path);
    EXPECT_EQ(bench.exit_code, 0) << bench.err;
    auto predict = run_ridge("predict " + model_path("alexnet") + " -d h100-sxm --store " + path);
    EXPECT_EQ(predict.exit_code, 0) << predict.err;
    return path;
  }();
  return store;
}

// Every figure specification embedded in the page.
std::vector<Json> specs_of(const std::string& html) {
  std::vector<Json> out;
  const std::string open = "class=\"ridge-spec\"";
  for (auto at = html.find(open); at != std::string::npos; at = html.find(open, at + 1)) {
    auto begin = html.find('>', at) + 1;
    auto end = html.find("</script>", begin);
    out.push_back(Json::parse(html.substr(begin, end - begin)));
  }
  return out;
}

TEST(StudyReport, NothingToReportIsOneLine) {
  auto empty = run_ridge("report --store " + study_store() + " --id 999 -o " + temp_dir() + "/none.html");
  EXPECT_EQ(empty.exit_code, 1);
  EXPECT_NE(empty.err.find("nothing to report"), std::string::npos) << empty.err;
  EXPECT_EQ(count_of(empty.err, "\n"), 1) << empty.err;
  EXPECT_FALSE(fs::exists(temp_dir() + "/none.html"));
  auto no_store = run_ridge("report -o " + temp_dir() + "/none.html", "RIDGE_STORE=" + temp_dir() + "/missing.db");
  EXPECT_EQ(no_store.exit_code, 1);
  EXPECT_NE(no_store.err.find("nothing to report"), std::string::npos) << no_store.err;
  EXPECT_FALSE(fs::exists(temp_dir() + "/missing.db"));
  auto no_output = run_ridge("report " + model_path("alexnet") + " --store " + study_store());
  EXPECT_EQ(no_output.exit_code, 1);
  EXPECT_NE(no_output.err.find("-o report.html"), std::string::npos) << no_output.err;
}

// The page as a reader gets it: opened from disk by headless Chromium, every figure renders (one mark
// per point of its data), no script error, and the screenshot is not blank.
// The page is made through the binary before Chromium is looked for: without it, this is still the smoke run.
TEST(StudyReport, RendersInHeadlessChromium) {
  auto dir = temp_dir() + "/browser";
  fs::create_directories(dir);
  auto out = dir + "/report.html";
  auto r = run_ridge("report " + model_path("alexnet") + " -d jetson-agx-orin-64gb --modes all --store " +
                     study_store() + " -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto specs = specs_of(slurp(out));
  ASSERT_GE(specs.size(), 3u);  // the roofline and the stored results' figures
  if (!chromium()) GTEST_SKIP() << "chromium is not installed (scripts/setup.sh installs it)";
  auto page = render_page(out, dir);
  ASSERT_TRUE(page.ok) << page.log;
  auto figures = std::to_string(specs.size());
  EXPECT_NE(page.body.find("data-figures=\"" + figures + "\""), std::string::npos) << page.body;
  EXPECT_NE(page.body.find("data-rendered=\"" + figures + "\""), std::string::npos) << page.body;
  EXPECT_NE(page.body.find("data-errors=\"0\""), std::string::npos) << page.body;
  // The roofline's points are drawn, each naming its node (the text of its tooltip).
  size_t roofline_points = 0, energy_points = 0;
  for (const auto& spec : specs)
    for (const auto& data : spec["data"]) {
      if (data["name"] != "points") continue;
      auto title = spec["title"]["text"].get<std::string>();
      if (title.rfind("Roofline", 0) == 0) roofline_points += data["values"].size();
      if (title.rfind("Energy roofline", 0) == 0) energy_points += data["values"].size();
    }
  EXPECT_EQ(roofline_points, 4u * 19u);  // 4 power modes x AlexNet's 19 nodes with work
  EXPECT_EQ(energy_points, 19u);         // the energy roofline: the first mode's nodes on every mode's curve
  EXPECT_EQ(count_of(page.dom, "aria-label=\"node: "), roofline_points + energy_points);
  EXPECT_NE(page.dom.find("<svg"), std::string::npos);
  ASSERT_TRUE(screenshot(out, dir + "/shot.png", 1200, 2400, dir));
  auto [width, height] = png_size(dir + "/shot.png");
  EXPECT_EQ(width, 1200u);
  EXPECT_EQ(height, 2400u);
  EXPECT_GT(distinct_colours(dir + "/shot.png"), 50);
}

}  // namespace
}  // namespace ridge::test
