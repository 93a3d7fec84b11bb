// Writing the study `ridge report` gathered (report/study_output): one output of the two, the HTML page and the
// Markdown write-up with their summary lines, a progress line per figure, and the lines naming figures not rendered.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "report/study_output.h"
#include "report/study_request.h"
#include "support/error_text.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

namespace fs = std::filesystem;

report::Study alexnet_study() {
  report::StudyRequest r;
  r.model = analysis::Request{};
  r.model->model_path = model_path("alexnet");
  r.model_name = "alexnet.onnx";
  r.devices = {"h100-sxm"};
  r.store_path = temp_dir() + "/study-output-none.db";
  return report::gather_study(r);
}

TEST(StudyOutput, OneOutputOfTheTwo) {
  EXPECT_EQ(error_text([] { report::check_study_output({}); }), "give one output: -o report.html, or --markdown DIR");
  EXPECT_EQ(error_text([] { report::check_study_output({.html = "r.html", .markdown_dir = "study/"}); }),
            "give one output: -o report.html, or --markdown DIR");
  EXPECT_EQ(error_text([] { report::check_study_output({.html = "r.html"}); }), "accepted");
  EXPECT_EQ(error_text([] { report::check_study_output({.markdown_dir = "study/"}); }), "accepted");
}

TEST(StudyOutput, TheHtmlPageAndWhatItHolds) {
  auto path = temp_dir() + "/study-output.html";
  fs::remove(path);
  std::vector<std::string> progress;
  auto written =
      report::write_study(alexnet_study(), {.html = path}, [&](const std::string& line) { progress.push_back(line); });
  EXPECT_EQ(written.summary, "wrote " + path + " (0 stored results, 1 device(s), analysis of alexnet.onnx)");
  EXPECT_TRUE(written.errors.empty());
  EXPECT_TRUE(progress.empty());  // the page renders its figures in the browser
  EXPECT_GT(fs::file_size(path), 1000u);
  EXPECT_EQ(error_text([&] { report::write_study(alexnet_study(), {.html = temp_dir() + "/no/such/dir/r.html"}, {}); }),
            "cannot write " + temp_dir() + "/no/such/dir/r.html");
}

TEST(StudyOutput, MarkdownFiguresAreReportedOneByOne) {
  auto dir = temp_dir() + "/study-output-md";
  fs::remove_all(dir);
  auto study = alexnet_study();
  auto figures = report::study_figures(study).size();
  ASSERT_GE(figures, 1u);
  std::vector<std::string> progress;
  auto hear = [&](const std::string& line) { progress.push_back(line); };
  auto written = report::write_study(study, {.markdown_dir = dir, .figure_titles = true}, hear);
  EXPECT_EQ(written.summary, fmt::format("wrote {}/report.md and {} figure(s) in {}", dir, figures, dir));
  EXPECT_TRUE(written.errors.empty()) << written.errors.front();
  ASSERT_EQ(progress.size(), figures);
  EXPECT_EQ(progress[0].rfind(fmt::format("rendering figure 1/{}: ", figures), 0), 0u) << progress[0];
  // Without a renderer each figure fails alone, its spec kept, and one more line counts them.
  std::string path = std::getenv("PATH");
  setenv("PATH", (temp_dir() + "/no-such-dir").c_str(), 1);
  progress.clear();
  auto failed = report::write_study(study, {.markdown_dir = dir + "-failed"}, hear);
  setenv("PATH", path.c_str(), 1);
  EXPECT_EQ(progress.front(), fmt::format("figure 1/{}", figures));
  ASSERT_EQ(failed.errors.size(), figures + 1);
  EXPECT_NE(failed.errors.front().find("fig-1.png: "), std::string::npos) << failed.errors.front();
  EXPECT_EQ(failed.errors.back(),
            fmt::format("{} figure(s) not rendered (their Vega specifications are beside the report)", figures));
  EXPECT_TRUE(fs::exists(dir + "-failed/fig-1.vg.json"));
}

}  // namespace
}  // namespace ridge::test
