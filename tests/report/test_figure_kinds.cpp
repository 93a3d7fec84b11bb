// The result figures (report/figure: sweep, breakdown, accuracy, algorithms, modes) on hand-built
// bench and predict documents with hand-computed values, and their SVG rendering.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "report/figure/accuracy_figure.h"
#include "report/figure/algorithm_figure.h"
#include "report/figure/breakdown_figure.h"
#include "report/figure/modes_figure.h"
#include "report/figure/render.h"
#include "report/figure/result_figures.h"
#include "report/figure/result_sources.h"
#include "report/figure/sweep_figure.h"
#include "support/browser.h"
#include "support/figure_kinds_fixtures.h"
#include "support/model_builder.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using namespace figure_kinds_fixtures;  // NOLINT(google-build-using-namespace)

using report::figure::Json;
namespace fig = report::figure;

Json run(int64_t batch, const std::string& mode, double mean_ms, Json nodes = Json::array(),
         const std::string& conv_algo = "auto") {
  return Json{{"batch", batch},
              {"input_size", std::to_string(batch) + "x3x8x8"},
              {"mode", mode},
              {"precision", "fp32"},
              {"memory_format", "nchw"},
              {"conv_algo", conv_algo},
              {"training", false},
              {"latency_ms",
               {{"mean", mean_ms}, {"std", 1.0}, {"min", mean_ms - 2}, {"median", mean_ms}, {"max", mean_ms + 3}}},
              {"throughput", static_cast<double>(batch) * 1000 / mean_ms},
              {"samples", 10},
              {"nodes", std::move(nodes)}};
}

Json pnode(const std::string& name, const std::string& op, double time_s, double flops = 1e6) {
  return Json{{"name", name}, {"op", op}, {"flops", flops}, {"bytes", 1e3}, {"time_s", time_s}};
}

fig::ResultSet results_of(const std::vector<Json>& docs) { return fig::read_results(docs); }

const Json* point_where(const fig::Figure& f, const std::string& key, const Json& value, const std::string& key2 = "",
                        const Json& value2 = nullptr) {
  for (const auto& p : points(f))
    if (p[key] == value && (key2.empty() || p[key2] == value2)) return &p;
  return nullptr;
}

// The marks of the SVG whose accessible label (the tooltip's text) begins with `prefix`.
int labelled_marks(const std::string& svg_path, const std::string& prefix) {
  std::ifstream in(svg_path);
  std::stringstream text;
  text << in.rdbuf();
  auto svg = text.str();
  std::string needle = "aria-label=\"" + prefix;
  int count = 0;
  for (auto pos = svg.find(needle); pos != std::string::npos; pos = svg.find(needle, pos + 1)) ++count;
  return count;
}

std::string render_svg(const fig::Figure& f, const std::string& stem) {
  auto path = temp_dir() + "/" + stem + ".svg";
  fig::write_figure(f, path, {});
  return path;
}

// A hand-edited bench JSON with a string for a run or for a flag is refused by the bench codec in one line that names
// the field (found by fuzz_figure_sources: Json::value threw on them); a well-formed one is read with its values.
TEST(ResultSources, FilesAreReadThroughTheirCodecs) {
  fig::ResultSet set;
  auto refused = [&](const char* text) {
    try {
      fig::add_document(set, Json::parse(text), "hand.json");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(refused(R"({"model": "m.onnx", "environment": {"threads": 1}, "runs": ["not a run"]})")
                .find("hand.json: runs[0]"),
            std::string::npos);
  EXPECT_NE(refused(R"({"model": "m.onnx", "environment": {"threads": 1}, "runs": [{"batch": 2, "training": "yes",
      "latency_ms": {"mean": 4.0}}]})")
                .find("training is not true or false"),
            std::string::npos);
  EXPECT_TRUE(set.measured.empty());
  fig::add_document(set, Json::parse(R"j({"model": "m.onnx", "environment": {"device": "cuda:0 (NVIDIA H200)",
      "cpu": "host cpu"}, "runs": [{"batch": 2, "mode": "cuda-graph", "latency_ms": {"mean": 4.0}}]})j"),
                    "hand.json");
  ASSERT_EQ(set.measured.size(), 1u);
  EXPECT_EQ(set.measured[0].run.batch, 2);
  EXPECT_EQ(set.measured[0].run.mode, "cuda-graph");
  EXPECT_DOUBLE_EQ(set.measured[0].run.latency_ms.mean, 4.0);
  EXPECT_EQ(fig::hardware(set.measured[0].run), "cuda:0 (NVIDIA H200)");  // the GPU, not the host's CPU
  // A prediction written before predictions named their batch: the throughput counts it.
  fig::add_document(set, predict(Json::array({pnode("c1", "Conv", 0.001)}), 0.004, 8), "p.json");
  ASSERT_EQ(set.predicted.size(), 1u);
  EXPECT_EQ(set.predicted[0].prediction.batch, 8);
  EXPECT_EQ(set.predicted[0].prediction.device_name, "T4");
}

TEST(SweepFigure, AchievedFlopsAreFlopsOverLatencyMeasuredAndPredicted) {
  auto b = bench(Json::array({run(1, "eager", 10, {node("c1", "Conv", 6, 1e9), node("c2", "Conv", 3, 1e9)}),
                              run(2, "eager", 16, {node("c1", "Conv", 9, 2e9), node("c2", "Conv", 6, 2e9)})}));
  auto p = predict(Json::array({pnode("c1", "Conv", 0.001, 1.5e9), pnode("c2", "Conv", 0.001, 0.5e9)}), 0.002);
  auto f = fig::sweep_figure(results_of({b, p}), {.x = "batch", .y = "flops"});
  EXPECT_EQ(f.kind, "sweep");
  ASSERT_EQ(points(f).size(), 3u);
  auto* m1 = point_where(f, "kind", "measured", "x", 1.0);
  auto* m2 = point_where(f, "kind", "measured", "x", 2.0);
  auto* p1 = point_where(f, "kind", "predicted", "x", 1.0);
  ASSERT_TRUE(m1 && m2 && p1);
  EXPECT_DOUBLE_EQ((*m1)["y"].get<double>(), 2e9 / 0.010);
  EXPECT_DOUBLE_EQ((*m2)["y"].get<double>(), 4e9 / 0.016);
  EXPECT_DOUBLE_EQ((*p1)["y"].get<double>(), 2e9 / 0.002);
  EXPECT_EQ((*p1)["series"], "predicted t4 default fp32");
  EXPECT_EQ((*m1)["series"], (*m2)["series"]);  // one line: batch is the x axis, not a series
  auto twice = fig::sweep_figure(results_of({b, p, p}), {.x = "batch", .y = "flops"});
  EXPECT_EQ(points(twice).size(), 3u);  // the repeated prediction is drawn once
  ASSERT_EQ(twice.notes.size(), 1u);
}

TEST(SweepFigure, LatencyHasErrorBarsAndThroughputIsTheRunsOwn) {
  auto b =
      bench(Json::array({run(1, "eager", 10), run(1, "optimized", 8), run(4, "eager", 30), run(4, "optimized", 20)}));
  auto f = fig::sweep_figure(results_of({b}));
  ASSERT_EQ(points(f).size(), 4u);
  auto* e4 = point_where(f, "series", "eager", "x", 4.0);
  ASSERT_TRUE(e4);
  EXPECT_DOUBLE_EQ((*e4)["y"].get<double>(), 30);
  EXPECT_DOUBLE_EQ((*e4)["lo"].get<double>(), 28);  // min
  EXPECT_DOUBLE_EQ((*e4)["hi"].get<double>(), 33);  // max
  auto s = fig::sweep_figure(results_of({b}), {.error = "std"});
  auto* o1 = point_where(s, "series", "optimized", "x", 1.0);
  ASSERT_TRUE(o1);
  EXPECT_DOUBLE_EQ((*o1)["lo"].get<double>(), 7);
  EXPECT_DOUBLE_EQ((*o1)["hi"].get<double>(), 9);
  auto t = fig::sweep_figure(results_of({b}), {.y = "throughput"});
  EXPECT_DOUBLE_EQ((*point_where(t, "series", "optimized", "x", 4.0))["y"].get<double>(), 4 * 1000.0 / 20);
  EXPECT_THROW(fig::sweep_figure(results_of({b}), {.x = "input", .y = "flops"}), Error);  // no FLOPs
}

TEST(ModesFigure, SpeedupIsEagerOverOptimizedPerBatch) {
  auto b = bench(Json::array({run(1, "eager", 20), run(1, "optimized", 16), run(2, "eager", 30),
                              run(2, "optimized", 40), run(4, "eager", 50)}));
  auto f = fig::modes_figure(results_of({b}));
  EXPECT_EQ(points(f).size(), 5u);
  const auto& speedups = fig::data_values(f.spec, "speedups");
  ASSERT_EQ(speedups.size(), 2u);
  EXPECT_DOUBLE_EQ(speedups[0]["speedup"].get<double>(), 1.25);
  EXPECT_EQ(speedups[0]["label"], "1.25x");
  EXPECT_DOUBLE_EQ(speedups[1]["speedup"].get<double>(), 0.75);
  EXPECT_NE(f.title.find("1.25x at batch 1"), std::string::npos) << f.title;
  ASSERT_EQ(f.notes.size(), 1u);  // batch 4 was measured eager only
  EXPECT_NE(f.notes[0].find("one mode only"), std::string::npos);
  EXPECT_THROW(fig::modes_figure(results_of({bench(Json::array({run(1, "eager", 20)}))})), Error);
}

// The real H200 runs of ResNet-50 (tests/data/bench/h200/ridge-bench-resnet50.json): eager against CUDA-graph replays,
// the speedup of each batch the file's mean latencies give (batch 1: 5.336 / 2.221 ms).
TEST(ModesFigure, EagerAgainstCudaGraphOnAGpu) {
  std::ifstream in(source_path("tests/data/bench/h200/ridge-bench-resnet50.json"));
  auto file = Json::parse(in);
  auto f = fig::modes_figure(results_of({file}));
  const auto& speedups = fig::data_values(f.spec, "speedups");
  ASSERT_EQ(speedups.size(), 2u);
  for (const auto& s : speedups) {
    EXPECT_EQ(s["mode"], "cuda-graph");
    double eager = 0, graph = 0;
    for (const auto& r : file["runs"])
      if (std::to_string(r["batch"].get<int>()) == s["batch"].get<std::string>())
        (r["mode"] == "eager" ? eager : graph) = r["latency_ms"]["mean"].get<double>();
    EXPECT_DOUBLE_EQ(s["speedup"].get<double>(), eager / graph) << s.dump();
  }
  EXPECT_EQ(speedups[0]["label"], "2.40x");
  EXPECT_NE(f.title.find("Eager against cuda-graph (fp32)"), std::string::npos) << f.title;
  EXPECT_TRUE(f.notes.empty());
}

TEST(AccuracyFigure, PredictionsPairOnlyWithTheHardwareThatMeasured) {
  const std::string h200_run = "cuda:0 NVIDIA H200 (sm_90, 132 SMs, 139.8 GiB)";  // as a GPU bench run records it
  EXPECT_TRUE(fig::same_hardware(h200_run, "NVIDIA H200 SXM 141GB"));             // devices/h200.yaml
  EXPECT_FALSE(fig::same_hardware(h200_run, "NVIDIA H100 SXM5 80GB"));
  EXPECT_FALSE(fig::same_hardware(h200_run, "NVIDIA T4 16GB"));
  // A CPU run against a host file from `ridge ert --profile` ("<CPU model> (measured)").
  EXPECT_TRUE(fig::same_hardware("Intel(R) Xeon(R) Processor", "Intel(R) Xeon(R) Processor (measured)"));
  EXPECT_FALSE(fig::same_hardware("AMD EPYC 7B13 64-Core Processor", "Intel(R) Xeon(R) Processor (measured)"));
  EXPECT_FALSE(fig::same_hardware("", "NVIDIA H200 SXM 141GB"));
  EXPECT_FALSE(fig::same_hardware(h200_run, ""));
}

TEST(AlgorithmFigure, FastestAlgorithmIsMarkedPerConvolution) {
  auto nodes = [](double a, double b, const std::string& algo) {
    return Json::array(
        {node("conv1", "Conv", a, 0, algo), node("relu", "Relu", 0.1), node("conv2", "Conv", b, 0, algo)});
  };
  auto b = bench(
      Json::array({run(1, "eager", 10, nodes(2, 4, "auto"), "auto"), run(1, "eager", 10, nodes(1, 5, "gemm"), "gemm"),
                   run(1, "eager", 10, nodes(3, 2, "winograd"), "winograd")}));
  auto f = fig::algorithm_figure(results_of({b}));
  ASSERT_EQ(points(f).size(), 6u);  // 2 convolutions x 3 algorithms; relu names no algorithm
  const auto& fastest = fig::data_values(f.spec, "fastest");
  ASSERT_EQ(fastest.size(), 2u);
  EXPECT_EQ(fastest[0]["layer"], "conv1");
  EXPECT_EQ(fastest[0]["conv_algo"], "gemm");
  EXPECT_EQ(fastest[1]["layer"], "conv2");
  EXPECT_EQ(fastest[1]["conv_algo"], "winograd");
  auto* cell = point_where(f, "layer", "conv2", "conv_algo", "gemm");
  ASSERT_TRUE(cell);
  EXPECT_DOUBLE_EQ((*cell)["relative"].get<double>(), 2.5);
  EXPECT_FALSE((*cell)["fastest"].get<bool>());
  EXPECT_TRUE((*point_where(f, "layer", "conv1", "conv_algo", "gemm"))["fastest"].get<bool>());
  EXPECT_THROW(fig::algorithm_figure(results_of({bench(Json::array({run(1, "eager", 10, nodes(2, 4, "auto"))}))})),
               Error);
}

// A fallback is a cell whose run asked for a named algorithm and whose layer ran another: the CPU's winograd on a
// strided convolution runs auto, a cuDNN algorithm without support for a layer runs the heuristic's choice. A fused
// epilogue ("gemm+relu") is no fallback, nor is anything auto or the heuristic chose.
TEST(AlgorithmFigure, FallbackCellsAreMarked) {
  auto conv = [](double a, const std::string& ran_a, double b, const std::string& ran_b) {
    return Json::array({node("conv1", "Conv", a, 0, ran_a), node("conv2", "Conv", b, 0, ran_b)});
  };
  auto b =
      bench(Json::array({run(1, "eager", 10, conv(2, "direct+relu", 4, "auto"), "auto"),
                         run(1, "eager", 10, conv(1, "gemm+relu", 5, "gemm"), "gemm"),
                         run(1, "eager", 10, conv(3, "auto", 2, "winograd"), "winograd"),
                         run(1, "eager", 10, conv(3, "implicit-precomp-gemm", 2, "implicit-gemm"), "implicit-gemm"),
                         run(1, "eager", 10, conv(3, "fft", 2, "winograd"), "heuristic")}));
  auto f = fig::algorithm_figure(results_of({b}));
  ASSERT_EQ(points(f).size(), 10u);
  std::set<std::pair<std::string, std::string>> marked;
  for (const auto& p : points(f))
    if (p["fallback"].get<bool>()) marked.emplace(p["layer"].get<std::string>(), p["conv_algo"].get<std::string>());
  const std::set<std::pair<std::string, std::string>> expected{{"conv1", "winograd"}, {"conv1", "implicit-gemm"}};
  EXPECT_EQ(marked, expected);
  const auto& fallbacks = fig::data_values(f.spec, "fallbacks");
  ASSERT_EQ(fallbacks.size(), 2u);
  EXPECT_EQ(fallbacks[0]["conv_algo"], "winograd");
  EXPECT_EQ(fallbacks[0]["algorithm"], "auto");
  EXPECT_EQ(fallbacks[1]["conv_algo"], "implicit-gemm");
  EXPECT_EQ(fallbacks[1]["algorithm"], "implicit-precomp-gemm");
  ASSERT_FALSE(f.notes.empty());
  EXPECT_EQ(f.notes.back(),
            "2 cell(s) ran another algorithm than asked (framed, \u21a9): winograd on conv1 ran auto, implicit-gemm "
            "on conv1 ran implicit-precomp-gemm");
  // Drawn: the hook after the time of each fallback cell, and once in the legend.
  auto path = render_svg(f, "fallbacks");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no SVG renderer (node-vega) here";
  std::ifstream in(path);
  std::stringstream svg;
  svg << in.rdbuf();
  EXPECT_EQ(test::count_of(svg.str(), "\u21a9</text>"), 2u);
  EXPECT_EQ(test::count_of(svg.str(), ">\u21a9 another algorithm ran</text>"), 1u);
  // Without a fallback, nothing is marked and the legend has no entry for it.
  auto plain = fig::algorithm_figure(
      results_of({bench(Json::array({run(1, "eager", 10, conv(2, "auto", 4, "auto"), "auto"),
                                     run(1, "eager", 10, conv(1, "gemm", 5, "gemm"), "gemm")}))}));
  EXPECT_TRUE(fig::data_values(plain.spec, "fallbacks").empty());
  EXPECT_EQ(plain.spec["legends"].size(), 1u);
}

// A layer whose fastest cell is a fallback is no win for the algorithm asked, which never ran there: it is won by
// what ran (its fused epilogue dropped), listed after the columns when no run asked for it. Hand-computed:
// conv1 gemm (1 ms); conv2 winograd's cell (0.5 ms) ran implicit-gemm+relu, so implicit-gemm; conv3 winograd's cell
// (0.5 ms) ran fft, which has no column. Counting by the asked algorithm gave "gemm 1, winograd 2".
TEST(AlgorithmFigure, AFallbackWinsForTheAlgorithmThatRanNotTheOneAsked) {
  auto conv = [](double a, const std::string& ran_a, double b, const std::string& ran_b, double c,
                 const std::string& ran_c) {
    return Json::array(
        {node("conv1", "Conv", a, 0, ran_a), node("conv2", "Conv", b, 0, ran_b), node("conv3", "Conv", c, 0, ran_c)});
  };
  auto b = bench(Json::array(
      {run(1, "eager", 10, conv(5, "direct", 5, "direct", 5, "direct"), "auto"),
       run(1, "eager", 10, conv(1, "gemm", 6, "gemm", 6, "gemm"), "gemm"),
       run(1, "eager", 10, conv(4, "implicit-gemm", 4, "implicit-gemm", 1, "implicit-gemm"), "implicit-gemm"),
       run(1, "eager", 10, conv(3, "winograd", 0.5, "implicit-gemm+relu", 0.5, "fft"), "winograd")}));
  auto f = fig::algorithm_figure(results_of({b}));
  EXPECT_EQ(f.title,
            "Convolution time per layer and algorithm (batch 1, eager fp32; fastest: gemm 1, implicit-gemm 1, fft 1)");
  // The fallback cells are still the fastest measured, so outlined as such.
  const auto& fastest = fig::data_values(f.spec, "fastest");
  ASSERT_EQ(fastest.size(), 3u);
  EXPECT_EQ(fastest[1]["conv_algo"], "winograd");
  EXPECT_EQ(fastest[2]["conv_algo"], "winograd");
  EXPECT_EQ(fig::data_values(f.spec, "fallbacks").size(), 2u);
  // Names wider than a cell ("implicit-precomp-gemm" beside "implicit-gemm" overlapped) are written at an angle.
  EXPECT_EQ(f.spec["axes"][0]["orient"], "top");
  EXPECT_EQ(f.spec["axes"][0]["labelAngle"], -30);
}

TEST(AccuracyFigure, TitleStatesTheFractionWithinTenPercent) {
  auto b = bench(Json::array({run(1, "eager", 10,
                                  {node("a", "Conv", 1.05), node("b", "Conv", 2.5), node("c", "Gemm", 2.8),
                                   node("d", "Relu", 0.5), node("extra", "Relu", 0.2)})}));
  auto p = predict(Json::array({pnode("a", "Conv", 0.001), pnode("b", "Conv", 0.002), pnode("c", "Gemm", 0.003),
                                pnode("d", "Relu", 0.001), pnode("e", "Relu", 0.001)}),
                   0.008);
  auto f = fig::accuracy_figure(results_of({b, p}));
  ASSERT_EQ(points(f).size(), 4u);
  EXPECT_NE(f.title.find("50% of 4 within 10%"), std::string::npos) << f.title;
  EXPECT_TRUE((*point_where(f, "name", "a"))["within"].get<bool>());   // -4.8%
  EXPECT_FALSE((*point_where(f, "name", "b"))["within"].get<bool>());  // -20%
  EXPECT_TRUE((*point_where(f, "name", "c"))["within"].get<bool>());   // +7.1%
  EXPECT_NEAR((*point_where(f, "name", "d"))["error"].get<double>(), 1.0, 1e-12);
  EXPECT_EQ(fig::data_values(f.spec, "diagonal").size(), 2u);
  ASSERT_FALSE(f.notes.empty());
  EXPECT_NE(f.notes[0].find("1 measured layer(s) are not in the prediction"), std::string::npos);
  try {
    fig::accuracy_figure(results_of({b}));
    FAIL() << "a bench result alone is not enough";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("accuracy needs a predict and a bench result of the same model"),
              std::string::npos);
  }
  auto other = predict(Json::array({pnode("x", "Conv", 0.001), pnode("y", "Conv", 0.001)}), 0.002);
  EXPECT_THROW(fig::accuracy_figure(results_of({b, other})), Error);  // no layer in common
}

TEST(BreakdownFigure, TopLayersInOrderAndTheRestSummed) {
  auto b = bench(Json::array({run(1, "eager", 20,
                                  {node("l1", "Conv", 1), node("l2", "Relu", 5), node("l3", "Conv", 3),
                                   node("l4", "Gemm", 4), node("l5", "Relu", 2)})}));
  auto p = predict(Json::array({pnode("l1", "Conv", 0.002), pnode("l2", "Relu", 0.001), pnode("l3", "Conv", 0.003),
                                pnode("l4", "Gemm", 0.004), pnode("l5", "Relu", 0.0005)}),
                   0.0105);
  auto f = fig::breakdown_figure(results_of({b, p}), {.top = 3});
  const auto& rows = points(f);
  ASSERT_EQ(rows.size(), 8u);  // (3 layers + other) x measured, predicted
  std::vector<std::string> order;
  for (const auto& r : rows)
    if (r["source"] == "measured") order.push_back(r["label"]);
  EXPECT_EQ(order, (std::vector<std::string>{"l2", "l4", "l3", "other (2 layers)"}));
  auto* other_measured = point_where(f, "label", "other (2 layers)", "source", "measured");
  auto* other_predicted = point_where(f, "label", "other (2 layers)", "source", "predicted");
  ASSERT_TRUE(other_measured && other_predicted);
  EXPECT_DOUBLE_EQ((*other_measured)["time_ms"].get<double>(), 3);  // l1 + l5
  EXPECT_NEAR((*other_predicted)["time_s"].get<double>(), 0.0025, 1e-15);
  EXPECT_NEAR((*point_where(f, "label", "l2", "source", "measured"))["share"].get<double>(), 5.0 / 15, 1e-12);

  auto ops = fig::breakdown_figure(results_of({b}), {.by = "op"});
  ASSERT_EQ(points(ops).size(), 3u);
  EXPECT_EQ(points(ops)[0]["label"], "Relu");  // 7 ms
  EXPECT_DOUBLE_EQ(points(ops)[0]["time_ms"].get<double>(), 7);
  EXPECT_EQ(points(ops)[0]["layers"], 2);
  EXPECT_THROW(fig::breakdown_figure(results_of({})), Error);
}

TEST(ResultSources, OtherDocumentsAreRefusedByName) {
  fig::ResultSet set;
  Json analyze{{"op_types", Json::array()}, {"nodes", Json::array()}, {"totals", Json::object()}};
  try {
    fig::add_document(set, analyze, "'a.json'");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'a.json' is no ridge result"), std::string::npos) << e.what();
  }
  EXPECT_THROW(fig::add_document(set, Json{{"x", 1}}, "f"), Error);
  EXPECT_EQ(fig::input_extent("1x3x224x224"), 224);
  EXPECT_EQ(fig::input_extent("128"), 128);
  EXPECT_EQ(fig::input_extent(""), 0);
}

TEST(ResultSources, FiltersSelectRunsOfEveryDocument) {
  auto set = results_of({bench(Json::array({run(1, "eager", 10), run(2, "eager", 16), run(2, "optimized", 12)})),
                         predict(Json::array({pnode("c", "Conv", 0.001)}), 0.001, 1),
                         predict(Json::array({pnode("c", "Conv", 0.002)}), 0.002, 2)});
  EXPECT_EQ(set.predicted[1].prediction.batch, 2);  // throughput x latency
  store::Filter filter;
  filter.batch = 2;
  filter.mode = "optimized";
  fig::keep_selected(set, filter);
  ASSERT_EQ(set.measured.size(), 1u);
  EXPECT_EQ(set.measured[0].run.mode, "optimized");
  ASSERT_EQ(set.predicted.size(), 1u);  // a prediction has no executor mode
  EXPECT_EQ(set.predicted[0].prediction.batch, 2);
  ASSERT_EQ(set.notes.size(), 1u);
  EXPECT_NE(set.notes[0].find("3 result(s) not selected"), std::string::npos);
}

TEST(ResultFigures, EveryFigureTheDocumentsSupportInOrder) {
  auto nodes = Json::array({node("c1", "Conv", 6, 1e9, "auto"), node("r", "Relu", 1, 1e6)});
  auto b = bench(Json::array({run(1, "eager", 10, nodes), run(1, "optimized", 8, nodes), run(2, "eager", 16, nodes),
                              run(2, "optimized", 12, nodes)}));
  auto p = predict(Json::array({pnode("c1", "Conv", 0.005), pnode("r", "Relu", 0.001)}), 0.006);
  Json analyze{{"op_types", Json::array()}, {"nodes", Json::array()}, {"totals", Json::object()}};
  auto figures = fig::result_figures({b, p, analyze});
  std::vector<std::string> kinds;
  for (const auto& f : figures) kinds.push_back(f.kind);
  EXPECT_EQ(kinds,
            (std::vector<std::string>{"sweep", "sweep", "sweep", "modes", "breakdown", "breakdown-op", "accuracy"}));
  EXPECT_TRUE(fig::result_figures({analyze}).empty());
}

TEST(ResultFigures, SvgHasOneLabelledMarkPerPoint) {
  auto nodes = [](double a, const std::string& algo) {
    return Json::array({node("conv1", "Conv", a, 1e9, algo), node("conv2", "Conv", a * 2, 1e9, algo)});
  };
  auto b = bench(Json::array({run(1, "eager", 10, nodes(2, "auto")), run(1, "optimized", 8, nodes(1.5, "auto")),
                              run(2, "eager", 16, nodes(3, "auto")), run(2, "optimized", 12, nodes(2.5, "auto")),
                              run(1, "eager", 11, nodes(2.5, "gemm"), "gemm")}));
  auto p = predict(Json::array({pnode("conv1", "Conv", 0.002), pnode("conv2", "Conv", 0.0041)}), 0.0061);
  auto results = results_of({b, p});
  struct Case {
    fig::Figure figure;
    std::string prefix;
  };
  std::vector<Case> cases{{fig::sweep_figure(results), "series: "},
                          {fig::modes_figure(results), "mode: "},
                          {fig::breakdown_figure(results), "layer: "},
                          {fig::accuracy_figure(results), "layer: "},
                          {fig::algorithm_figure(results), "layer: "}};
  for (const auto& c : cases) {
    auto path = render_svg(c.figure, c.figure.kind);
    if (!std::filesystem::exists(path)) GTEST_SKIP() << "no SVG renderer (node-vega) here";
    EXPECT_EQ(labelled_marks(path, c.prefix), static_cast<int>(points(c.figure).size())) << c.figure.kind;
  }
}

}  // namespace
}  // namespace ridge::test
