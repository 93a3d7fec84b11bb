// `ridge plot KIND` of the result figures as one call (report/figure/result_plot), the figure helpers it uses
// (report/figure/figure: series counted, a spec read back) and the summary printed after it (report/plot_report),
// on hand-built bench documents and a store written here.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "report/figure/result_plot.h"
#include "report/figure/sweep_figure.h"
#include "report/plot_report.h"
#include "report/printer.h"
#include "report/result_codec.h"
#include "support/error_text.h"
#include "support/figure_kinds_fixtures.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

using namespace figure_kinds_fixtures;  // NOLINT(google-build-using-namespace)
namespace fs = std::filesystem;

Json run(int64_t batch, const std::string& mode, double mean_ms) {
  return Json{{"batch", batch},
              {"input_size", std::to_string(batch) + "x3x8x8"},
              {"mode", mode},
              {"precision", "fp32"},
              {"memory_format", "nchw"},
              {"conv_algo", "auto"},
              {"training", false},
              {"latency_ms",
               {{"mean", mean_ms}, {"std", 1.0}, {"min", mean_ms - 2}, {"median", mean_ms}, {"max", mean_ms + 3}}},
              {"throughput", static_cast<double>(batch) * 1000 / mean_ms},
              {"samples", 10},
              {"nodes", Json::array()}};
}

std::string write_json(const std::string& name, const Json& doc) {
  auto path = temp_dir() + "/" + name;
  std::ofstream(path) << doc.dump();
  return path;
}

fig::BuildFigureFn sweep() {
  return [](const fig::ResultSet& results) { return fig::sweep_figure(results, {}); };
}

TEST(ResultPlot, FilesAreReadSelectedAndCounted) {
  auto a = write_json("result-plot-a.json", bench(Json::array({run(1, "eager", 10), run(2, "eager", 16)})));
  auto b = write_json("result-plot-b.json", bench(Json::array({run(1, "optimized", 8), run(2, "optimized", 12)})));
  auto plot = fig::result_plot({.from = {a, b}, .series_field = "series"}, sweep());
  EXPECT_EQ(plot.source, a + ", " + b);
  EXPECT_EQ(points(plot.figure).size(), 4u);
  EXPECT_EQ(plot.series, 2);  // eager and optimized
  EXPECT_TRUE(plot.figure.notes.empty());
  // The filter selects the files' runs too, and what it dropped is a note of the figure.
  store::Filter eager;
  eager.mode = "eager";
  auto selected = fig::result_plot({.from = {a, b}, .filter = eager, .series_field = "series"}, sweep());
  EXPECT_EQ(points(selected.figure).size(), 2u);
  EXPECT_EQ(selected.series, 1);
  EXPECT_EQ(selected.figure.notes, (std::vector<std::string>{"2 result(s) not selected by the filters are left out"}));
  EXPECT_EQ(error_text([&] { fig::result_plot({.from = {temp_dir() + "/no-such.json"}}, sweep()); }),
            "cannot read '" + temp_dir() + "/no-such.json'");
}

TEST(ResultPlot, StoredResultsAreReadWhenAsked) {
  auto path = temp_dir() + "/result-plot.db";
  fs::remove(path);
  {
    store::Store store(path);
    EXPECT_EQ(error_text([&] { fig::result_plot({.read_store = true, .store_path = path}, sweep()); }),
              "no stored result matches in " + path + ": give --from FILE.json or other filters");
    auto runs = fig::read_results({bench(Json::array({run(1, "eager", 10), run(4, "eager", 30)}))}).measured;
    for (const auto& m : runs) {
      store::Record record{.command = "bench", .result = report::encode_typed({.kind = "bench", .runs = {m.run}})};
      store.save(record);
    }
  }
  auto stored = fig::result_plot({.read_store = true, .store_path = path, .series_field = "series"}, sweep());
  EXPECT_EQ(stored.source, path + " (2 results)");
  EXPECT_EQ(points(stored.figure).size(), 2u);
  EXPECT_EQ(stored.series, 1);
  // Files and the store together; the store's unmatched filter is no error when a file gives results.
  auto a = write_json("result-plot-c.json", bench(Json::array({run(1, "optimized", 8)})));
  store::Filter none;
  none.command = "predict";
  auto both = fig::result_plot({.from = {a}, .read_store = true, .store_path = path, .filter = none}, sweep());
  EXPECT_EQ(both.source, a + ", " + path + " (0 results)");
  EXPECT_EQ(points(both.figure).size(), 1u);
}

TEST(FigureHelpers, SeriesAreTheDistinctValuesOfAField) {
  fig::Figure f{.spec = fig::base_spec("t", 10, 10)};
  fig::add_data(f.spec, "points", Json::array({{{"s", "a"}, {"n", 1}}, {{"s", "b"}, {"n", 1}}, {{"s", "a"}}, {}}));
  EXPECT_EQ(fig::series_count(f, "s"), 2);
  EXPECT_EQ(fig::series_count(f, "n"), 1);  // 1 twice
  EXPECT_EQ(fig::series_count(f, "missing"), 0);
  fig::Figure none{.spec = fig::base_spec("t", 10, 10)};
  EXPECT_EQ(error_text([&] { fig::series_count(none, "s"); }), "figure has no data set 'points'");
}

TEST(FigureHelpers, ASpecIsReadBackTitledByItsDescription) {
  auto spec = fig::base_spec("Latency of resnet50", 10, 10);
  auto figure = fig::read_spec_figure(write_json("spec-described.vg.json", spec));
  EXPECT_EQ(figure.kind, "spec");
  EXPECT_EQ(figure.title, "Latency of resnet50");
  EXPECT_EQ(figure.spec, spec);
  spec.erase("description");
  auto untitled = write_json("spec-untitled.vg.json", spec);
  EXPECT_EQ(fig::read_spec_figure(untitled).title, untitled);
  auto no_marks = write_json("spec-no-marks.vg.json", Json{{"data", Json::array()}});
  EXPECT_EQ(error_text([&] { fig::read_spec_figure(no_marks); }),
            "'" + no_marks + "' is not a Vega specification (no marks)");
  auto not_json = temp_dir() + "/spec-not-json.vg.json";
  std::ofstream(not_json) << "{marks";
  EXPECT_EQ(error_text([&] { fig::read_spec_figure(not_json); }).rfind("'" + not_json + "' is not JSON: ", 0), 0u);
}

TEST(PlotReport, NamesTheFileKindSourcePointsAndSeries) {
  fig::Figure f{.kind = "sweep", .title = "Latency", .spec = fig::base_spec("Latency", 10, 10)};
  fig::add_data(f.spec, "lines", Json::array({{}, {}}));
  fig::add_data(f.spec, "points", Json::array({{}, {}, {}}));
  f.notes = {"1 node(s) not drawn"};
  auto doc = report::plot_document(f, "out.svg", 2, "a.json");
  EXPECT_EQ(doc.command, "plot");
  EXPECT_EQ(doc.subject, "Latency");
  EXPECT_EQ(doc.notes, f.notes);
  auto json = report::to_json(doc);
  EXPECT_EQ(json["output"], "out.svg");
  EXPECT_EQ(json["kind"], "sweep");
  EXPECT_EQ(json["source"], "a.json");
  EXPECT_EQ(json["points"], 3);  // the rows of "points", not of the other data sets
  EXPECT_EQ(json["series"], 2);
  fig::Figure spec{.kind = "spec", .spec = Json{{"data", Json::array()}, {"marks", Json::array()}}};
  EXPECT_EQ(report::to_json(report::plot_document(spec, "x.png", 0, "x.vg.json"))["points"], 0);
}

TEST(PlotReport, WritePlotWritesTheFigureThenPrintsWhatItWrote) {
  auto dir = std::filesystem::path(temp_dir()) / "plot-report-write";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto path = (dir / "sweep.vg.json").string();  // the spec itself: no renderer needed
  fig::Figure f{.kind = "sweep", .title = "Latency", .spec = fig::base_spec("Latency", 10, 10)};
  fig::add_data(f.spec, "points", Json::array({{}, {}, {}}));
  std::ostringstream out;
  report::write_plot(f, path, 0, "json", 2, "a.json", out);
  std::ifstream written(path);
  ASSERT_TRUE(written) << path;
  EXPECT_EQ(Json::parse(written), f.spec);
  auto printed = Json::parse(out.str());
  EXPECT_EQ(printed["output"], path);
  EXPECT_EQ(printed["points"], 3);
  EXPECT_EQ(printed["series"], 2);
  // A file where its directory should be: nothing written, nothing printed.
  std::ostringstream after_failure;
  auto bad = (dir / "sweep.vg.json" / "x.vg.json").string();
  EXPECT_NE(error_text([&] { report::write_plot(f, bad, 0, "json", 0, "", after_failure); }), "accepted");
  EXPECT_EQ(after_failure.str(), "");
}

}  // namespace
}  // namespace ridge::test
