// `ridge plot KIND` of the result figures as one call (report/figure/result_plot), the figure helpers it uses
// (report/figure/figure: series counted, a spec read back) and the summary printed after it (report/plot_report),
// on hand-built bench documents and a store written here, and every kind from real bench and predict runs of a tiny
// model (what `ridge bench|predict -f json` print, and what they keep in a store). tests/cli/test_figure_kinds.cpp
// keeps one run of the binary.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/request_builder.h"
#include "exec/options.h"
#include "report/analysis_report.h"
#include "report/bench_request.h"
#include "report/figure/accuracy_figure.h"
#include "report/figure/algorithm_figure.h"
#include "report/figure/breakdown_figure.h"
#include "report/figure/modes_figure.h"
#include "report/figure/result_plot.h"
#include "report/figure/sweep_figure.h"
#include "report/plot_report.h"
#include "report/predict_request.h"
#include "report/printer.h"
#include "report/result_codec.h"
#include "support/error_text.h"
#include "support/figure_kinds_fixtures.h"
#include "support/model_builder.h"
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

// A tiny model with a symbolic batch: two convolutions, a relu, a flatten and a matrix product.
std::string tiny_model() {
  ModelBuilder m;
  m.input("x", {std::string("N"), int64_t{4}, int64_t{6}, int64_t{6}}).output("y");
  m.weight("w1", {4, 4, 3, 3}).weight("w2", {4, 4, 3, 3}).weight("fc", {144, 5});
  set_ints(m.node("Conv", {"x", "w1"}, {"c1"}, "conv1"), "pads", {1, 1, 1, 1});
  m.node("Relu", {"c1"}, {"r1"}, "relu1");
  set_ints(m.node("Conv", {"r1", "w2"}, {"c2"}, "conv2"), "pads", {1, 1, 1, 1});
  set_int(m.node("Flatten", {"c2"}, {"f"}, "flatten"), "axis", 1);
  m.node("MatMul", {"f", "fc"}, {"y"}, "fc");
  return m.save("tiny_plot");
}

// `ridge bench MODEL --max-time 0.1 --warmup 0 --min-runs 2 --threads 1 [--sweep batch=...] [--mode M]
// [--conv-algo A]`, kept in `store` (empty: not kept); returns what -f json prints.
std::string bench_json(const std::string& model, std::vector<int64_t> batches, const std::string& mode,
                       const std::string& conv_algo = "auto", const std::string& store = "") {
  report::BenchCommand c;
  c.bench.model = analysis::make_request({.model = model});
  c.bench.batches = std::move(batches);
  c.bench.exec.threads = 1;
  c.bench.exec.mode = mode;
  c.bench.exec.conv_algo = conv_algo;
  c.bench.max_time_s = 0.1;
  c.bench.warmup_s = 0;
  c.bench.min_runs = 2;
  std::ostringstream out, err;
  EXPECT_EQ(report::bench_and_keep(c, "json", {.path = store, .disabled = store.empty()}, out, err), 0) << err.str();
  return out.str();
}

// `ridge predict MODEL -d DEVICE -f json`.
std::string predict_json(const std::string& model, const std::string& device) {
  analysis::ModelOptions options{.model = model};
  std::ostringstream out;
  report::predict_and_keep({.model = analysis::make_request(options), .device = device}, "", options, "json",
                           {.disabled = true}, out);
  return out.str();
}

template <typename Options>
fig::BuildFigureFn builder(fig::Figure (*build)(const fig::ResultSet&, const Options&), Options options = {}) {
  return [build, options](const fig::ResultSet& results) { return build(results, options); };
}

TEST(ResultPlot, EveryKindFromRealBenchAndPredictRuns) {
  auto model = tiny_model();
  auto b = write_json("plot-runs-bench.json", Json::parse(bench_json(model, {1, 2}, std::string(exec::kBothModes))));
  // The accuracy figure pairs a run with a prediction for the hardware that measured it: a device file named like
  // this machine's CPU (as `ridge ert --profile` names one), from what the bench file records.
  auto cpu = Json::parse(std::ifstream(b))["environment"]["cpu"].get<std::string>();
  auto host = temp_dir() + "/plot-runs-host.yaml";
  std::ofstream(host) << "id: host-test\nname: \"" << cpu << " (measured)\"\nkind: cpu\n"
                      << "clocks: {cpu: {max_mhz: 1000, min_mhz: 100, source: test}}\n"
                      << "units: [{name: alu, type: vector, clock: cpu, peak_flops: {fp32: 1.0e11}, source: test}]\n"
                      << "memory: [{level: dram, bandwidth: 1.0e10, source: test}]\n"
                      << "overhead: {seconds: 1.0e-6, source: test}\nmodes: [{name: base, source: test}]\n";
  auto p = write_json("plot-runs-predict.json", Json::parse(predict_json(model, host)));
  auto t4 = write_json("plot-runs-t4.json", Json::parse(predict_json(model, "t4")));
  auto plot = [&](std::vector<std::string> from, const fig::BuildFigureFn& build, store::Filter filter = {}) {
    return fig::result_plot({.from = std::move(from), .filter = std::move(filter)}, build).figure;
  };
  // 2 batches x 2 modes measured, the prediction at the model's own batch (1) besides.
  EXPECT_GE(points(plot({b, p}, builder(fig::sweep_figure, fig::SweepOptions{.y = "flops"}))).size(), 5u);
  EXPECT_GE(points(plot({b}, builder(fig::modes_figure))).size(), 4u);
  EXPECT_GE(points(plot({b, p}, builder(fig::breakdown_figure, fig::BreakdownOptions{.top = 3}))).size(), 4u);
  EXPECT_GE(points(plot({b, p}, builder(fig::accuracy_figure))).size(), 3u);
  store::Filter batch2;
  batch2.batch = 2;
  batch2.mode = "optimized";
  auto second = plot({b}, builder(fig::breakdown_figure), batch2);
  EXPECT_NE(second.spec["description"].get<std::string>().find("(batch 2)"), std::string::npos);
  // A T4's prediction is not this CPU's; a bench alone has nothing to set against.
  EXPECT_NE(error_text([&] {
              plot({b, t4}, builder(fig::accuracy_figure));
            }).find("accuracy needs a prediction for the hardware that measured"),
            std::string::npos);
  EXPECT_NE(error_text([&] {
              plot({b}, builder(fig::accuracy_figure));
            }).find("accuracy needs a predict and a bench result of the same model"),
            std::string::npos);
  // An analysis (`ridge analyze MODEL -f json`) is no result.
  std::ostringstream analysis_out;
  report::analyze_and_keep({.model = {.model = model}, .format = "json", .store = {.disabled = true}}, analysis_out);
  auto a = write_json("plot-runs-analysis.json", Json::parse(analysis_out.str()));
  EXPECT_NE(error_text([&] { plot({a}, builder(fig::sweep_figure)); })
                .find("plot-runs-analysis.json' is no ridge result: result figures read the JSON of `ridge bench` and "
                      "`ridge predict`"),
            std::string::npos);
}

TEST(ResultPlot, AlgorithmsAndModesFromRealRunsInAStore) {
  auto model = tiny_model();
  auto store = temp_dir() + "/plot-runs.db";
  fs::remove(store);
  bench_json(model, {0}, "eager", std::string(exec::kAllConvAlgos), store);
  auto from_store = [&](const fig::BuildFigureFn& build, store::Filter filter = {}) {
    return fig::result_plot({.read_store = true, .store_path = store, .filter = std::move(filter)}, build).figure;
  };
  EXPECT_GE(points(from_store(builder(fig::algorithm_figure))).size(), 4u);  // 2 convolutions x 2 algorithms at least
  bench_json(model, {0}, std::string(exec::kBothModes), "auto", store);
  store::Filter bench;
  bench.command = "bench";
  EXPECT_GE(points(from_store(builder(fig::modes_figure), bench)).size(), 2u);
  store::Filter other;
  other.model = "nothing-like-this";
  EXPECT_NE(error_text([&] { from_store(builder(fig::modes_figure), other); }).find("no stored result matches"),
            std::string::npos);
}

}  // namespace
}  // namespace ridge::test
