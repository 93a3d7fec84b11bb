// `ridge plot roofline` through the binary: its one-line refusals, a PATH without the renderer (and `ridge plot render`
// later), and the HTML page it writes opened in a real headless Chromium. The plotted numbers, the renderers' files and
// the ceiling labels are checked in process (tests/report/test_roofline_request.cpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "report/figure/render.h"
#include "report/figure/roofline_figure.h"
#include "report/figure/sources.h"
#include "support/browser.h"
#include "support/figures_fixtures.h"
#include "support/files.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::report::figure {
namespace {

using namespace test::figures_fixtures;  // NOLINT(google-build-using-namespace)

using test::count_of;
using test::distinct_colours;
using test::model_path;
using test::png_size;
using test::run_ridge;
using test::slurp;
using test::temp_dir;

Json json_file(const std::string& path) { return Json::parse(slurp(path)); }

TEST(PlotRoofline, BadInputGetsOneLine) {
  auto dir = temp_dir();
  auto no_device = run_ridge("plot roofline " + model_path("alexnet") + " -o " + dir + "/x.svg");
  EXPECT_EQ(no_device.exit_code, 1);
  EXPECT_NE(no_device.err.find("needs a device"), std::string::npos) << no_device.err;
  auto bad_ext = run_ridge("plot roofline " + model_path("alexnet") + " -d t4 -o " + dir + "/x.jpg");
  EXPECT_EQ(bad_ext.exit_code, 1);
  EXPECT_NE(bad_ext.err.find(".html, .svg, .png, .pdf"), std::string::npos) << bad_ext.err;
  std::ofstream(dir + "/not-ridge.json") << R"({"hello": 1})";
  auto foreign = run_ridge("plot roofline --from " + dir + "/not-ridge.json -o " + dir + "/x.svg");
  EXPECT_EQ(foreign.exit_code, 1);
  EXPECT_NE(foreign.err.find("not a JSON output ridge can draw"), std::string::npos) << foreign.err;
  auto bad_mode =
      run_ridge("plot roofline " + model_path("alexnet") + " -d jetson-agx-orin-64gb:TURBO -o " + dir + "/x.svg");
  EXPECT_EQ(bad_mode.exit_code, 1);
  for (const auto& r : {no_device, bad_ext, foreign, bad_mode}) EXPECT_EQ(count_of(r.err, "\n"), 1u) << r.err;
}

TEST(PlotRoofline, WithoutTheRendererTheSpecIsKeptAndTheErrorSaysHow) {
  auto dir = temp_dir();
  // A PATH without node: the SVG cannot be drawn.
  auto r = run_ridge("plot roofline " + model_path("alexnet") + " -d t4 -o " + dir + "/r.png", "PATH=/nonexistent");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("apt-get install nodejs node-vega"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ridge plot render"), std::string::npos) << r.err;
  auto spec = json_file(dir + "/r.vg.json");
  EXPECT_EQ(data_values(spec, "points").size(), 19u);
  EXPECT_FALSE(std::filesystem::exists(dir + "/r.png"));
  // ... and rendering it later gives the figure.
  auto later = run_ridge("plot render " + dir + "/r.vg.json -o " + dir + "/r.svg");
  ASSERT_EQ(later.exit_code, 0) << later.err;
  EXPECT_EQ(count_of(slurp(dir + "/r.svg"), "aria-label=\"node: "), 19u);
}

// The HTML page opened from disk by a real browser: no errors, every figure rendered with one mark
// per point, each naming its node (Vega's tooltip text), and a screenshot that is not blank.
TEST(PlotRoofline, HtmlRendersInHeadlessChromium) {
  if (!test::chromium()) GTEST_SKIP() << "chromium is not installed (scripts/setup.sh installs it)";
  auto dir = temp_dir();
  auto plot = run_ridge("plot roofline " + model_path("alexnet") + " -d h100-sxm -d t4 --with-training -o " + dir +
                        "/r.html -f json");
  ASSERT_EQ(plot.exit_code, 0) << plot.err;
  auto points = Json::parse(plot.out)["points"].get<size_t>();
  auto html = slurp(dir + "/r.html");
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org"));  // no fetches: everything inline
  auto page = test::render_page(dir + "/r.html", dir);
  ASSERT_TRUE(page.ok) << page.log;
  EXPECT_NE(page.body.find("data-figures=\"1\""), std::string::npos) << page.body;
  EXPECT_NE(page.body.find("data-rendered=\"1\""), std::string::npos) << page.body;
  EXPECT_NE(page.body.find("data-errors=\"0\""), std::string::npos) << page.body;
  EXPECT_EQ(count_of(page.dom, "aria-label=\"node: "), points);
  // 2 devices x (19 nodes with work in inference + the same 19 and the optimizer step in training).
  EXPECT_EQ(points, 2u * 19u + 2u * (19u + 1u));

  ASSERT_TRUE(test::screenshot(dir + "/r.html", dir + "/shot.png", 1200, 900, dir));
  auto [width, height] = png_size(dir + "/shot.png");
  EXPECT_EQ(width, 1200u);
  EXPECT_EQ(height, 900u);
  EXPECT_GT(distinct_colours(dir + "/shot.png"), 20);
}

}  // namespace
}  // namespace ridge::report::figure
