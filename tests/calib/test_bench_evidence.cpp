// Whole-model bench runs as calibration evidence: bench files as `ridge bench --csv` and `-f json` write
// them, read back into one sample per measured node (features from the model at the run's shapes and
// fusion) and one overhead sample per run; runs told apart, skipped runs named, bad files refused.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "calib/bench_evidence.h"
#include "calib/shape_prediction.h"
#include "report/bench_report.h"
#include "report/printer.h"
#include "support/bench_evidence_fixtures.h"
#include "support/model_builder.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using namespace bench_evidence_fixtures;  // NOLINT(google-build-using-namespace)

namespace fs = std::filesystem;

exec::BenchResult run_of(const std::string& model, int64_t batch, const std::string& mode,
                         const std::vector<std::pair<std::string, double>>& nodes, double mean_ms,
                         const std::string& timestamp) {
  exec::BenchResult r;
  r.model = model;
  r.batch = batch;
  r.input_size = fmt::format("{}x4x8x8", batch);
  r.mode = mode;
  r.precision = "fp32";
  r.memory_format = "nchw";
  r.conv_algo = "auto";
  r.latency_ms.mean = mean_ms;
  r.latency_ms.samples = 20;
  r.throughput = static_cast<double>(batch) * 1e3 / mean_ms;
  for (const auto& [name, ms] : nodes) r.nodes.push_back({.name = name, .op_type = "Op", .mean_ms = ms});
  r.environment.threads = 2;
  r.environment.cpu_model = "Test CPU";
  r.environment.torch_version = "1.13.0";
  r.environment.ridge_revision = "abc1234";
  r.timestamp = timestamp;
  return r;
}

const std::vector<std::pair<std::string, double>> kEager = {{"conv", 0.5},      {"bn", 0.1},       {"relu", 0.05},
                                                            {"residual", 0.07}, {"pool", 0.02},    {"flatten", 0.001},
                                                            {"fc", 0.004},      {"fc_bias", 0.002}};
const std::vector<std::pair<std::string, double>> kOptimized = {
    {"conv", 0.4}, {"pool", 0.02}, {"flatten", 0.001}, {"fc", 0.005}};

TEST(BenchEvidence, EagerRunGivesOneSamplePerNodeWithTheCostModelsFeatures) {
  auto w = make_workspace("eager");
  report::append_bench_csv(w.bench(), {run_of(w.model, 1, "eager", kEager, 2.0, "2024-05-01T10:00:00Z")});
  auto e = calib::read_bench_evidence({w.bench()});
  EXPECT_TRUE(e.notes.empty()) << joined(e.notes);
  EXPECT_EQ(e.runs, 1);
  EXPECT_EQ(e.models, std::vector<std::string>{w.model});
  ASSERT_EQ(e.samples.size(), 8u);
  auto a = analyze_file(w.model_file, {.batch = 1});
  for (const auto& [name, ms] : kEager) {
    const auto& s = sample(e, name, "eager");
    EXPECT_DOUBLE_EQ(s.measured_s, ms / 1e3) << name;
    EXPECT_EQ(s.features.flops, static_cast<double>(node_named(a, name).flops)) << name;
    EXPECT_EQ(s.features.fused_ops, 0) << name;
    EXPECT_EQ(s.features.threads, 2) << name;
    EXPECT_EQ(s.source, "bench:" + w.model);
    EXPECT_EQ(s.environment.at("timestamp"), "2024-05-01T10:00:00Z");
    EXPECT_EQ(s.environment.at("ridge_revision"), "abc1234");
    EXPECT_EQ(s.environment.at("batch"), "1");
  }
  // 4 in, 4 out channels, 3x3, 8x8 output at batch 1: 2 x 4 x 4 x 9 x 64 MAC FLOPs plus the bias.
  const auto& conv = sample(e, "conv", "eager").features;
  EXPECT_EQ(conv.kind, calib::Kind::kConv);
  EXPECT_GE(conv.flops, 2.0 * 4 * 4 * 9 * 64);
  EXPECT_EQ(conv.out_spatial, 64);
  EXPECT_EQ(sample(e, "bn", "eager").features.kind, calib::Kind::kNorm);
  ASSERT_EQ(e.overheads.size(), 1u);
  const auto& o = e.overheads[0];
  EXPECT_EQ(o.mode, "eager");
  EXPECT_EQ(o.threads, 2);
  EXPECT_EQ(o.nodes, 8);
  EXPECT_NEAR(o.node_sum_s, (0.5 + 0.1 + 0.05 + 0.07 + 0.02 + 0.001 + 0.004 + 0.002) / 1e3, 1e-15);
  EXPECT_DOUBLE_EQ(o.run_s, 2.0e-3);
  EXPECT_EQ(o.source, "bench:" + w.model);
}

// A node's median over the profile's passes, where the run kept one, is its time (a stall in one pass moves the mean);
// the overhead sample sums the same figures. A run without medians (an older file, the GPU) keeps its means.
TEST(BenchEvidence, ANodesMedianIsItsTimeWhereTheRunKeptOne) {
  auto w = make_workspace("medians");
  auto r = run_of(w.model, 1, "eager", kEager, 2.0, "2024-05-01T10:00:00Z");
  for (auto& n : r.nodes) n.median_ms = n.mean_ms / 2;
  r.nodes[0].median_ms = -1;  // conv: not kept
  report::append_bench_csv(w.bench(), {r});
  auto e = calib::read_bench_evidence({w.bench()});
  EXPECT_TRUE(e.notes.empty()) << joined(e.notes);
  double sum_ms = 0;
  for (const auto& [name, ms] : kEager) {
    double expected_ms = name == "conv" ? ms : ms / 2;
    EXPECT_DOUBLE_EQ(sample(e, name, "eager").measured_s, expected_ms / 1e3) << name;
    sum_ms += expected_ms;
  }
  ASSERT_EQ(e.overheads.size(), 1u);
  EXPECT_NEAR(e.overheads[0].node_sum_s, sum_ms / 1e3, 1e-15);
}

TEST(BenchEvidence, OptimizedRunsDescribeFusedLayersByTheirLeaders) {
  auto w = make_workspace("optimized");
  report::append_bench_csv(w.bench(), {run_of(w.model, 1, "optimized", kOptimized, 1.0, "2024-05-01T10:00:01Z")});
  auto e = calib::read_bench_evidence({w.bench()});
  EXPECT_TRUE(e.notes.empty()) << joined(e.notes);
  ASSERT_EQ(e.samples.size(), 4u);
  auto a = analyze_file(w.model_file, {.batch = 1});
  auto flops = [&](const char* name) { return static_cast<double>(node_named(a, name).flops); };
  const auto& conv = sample(e, "conv", "optimized");
  // BatchNormalization is folded into the weights (no run-time FLOPs); Relu and the residual Add run on the output.
  EXPECT_EQ(conv.features.fused_ops, 3);
  EXPECT_EQ(conv.features.flops, flops("conv") + flops("relu") + flops("residual"));
  EXPECT_DOUBLE_EQ(conv.measured_s, 0.4e-3);
  const auto& fc = sample(e, "fc", "optimized");
  EXPECT_EQ(fc.features.fused_ops, 1);
  EXPECT_EQ(fc.features.flops, flops("fc") + flops("fc_bias"));
  EXPECT_EQ(fc.features.kind, calib::Kind::kMatMul);
  EXPECT_EQ(sample(e, "pool", "optimized").features.fused_ops, 0);
  ASSERT_EQ(e.overheads.size(), 1u);
  EXPECT_EQ(e.overheads[0].mode, "optimized");
  EXPECT_EQ(e.overheads[0].nodes, 4);
  EXPECT_NEAR(e.overheads[0].node_sum_s, 0.426e-3, 1e-15);
  EXPECT_DOUBLE_EQ(e.overheads[0].run_s, 1.0e-3);
}

TEST(BenchEvidence, RunsAppendedToOneDirectoryAreToldApart) {
  auto w = make_workspace("grouping");
  // Two batches, then batch 1 again later: three runs, two sharing every column but the time.
  report::append_bench_csv(w.bench(), {run_of(w.model, 1, "eager", kEager, 2.0, "2024-05-01T10:00:00Z"),
                                       run_of(w.model, 2, "eager", kEager, 3.0, "2024-05-01T10:00:05Z")});
  auto again = kEager;
  for (auto& [name, ms] : again) ms *= 2;
  report::append_bench_csv(w.bench(), {run_of(w.model, 1, "eager", again, 4.0, "2024-05-01T11:00:00Z")});
  auto e = calib::read_bench_evidence({w.bench()});
  EXPECT_TRUE(e.notes.empty()) << joined(e.notes);
  EXPECT_EQ(e.runs, 3);
  ASSERT_EQ(e.samples.size(), 24u);
  ASSERT_EQ(e.overheads.size(), 3u);
  std::multiset<double> run_s;
  for (const auto& o : e.overheads) {
    run_s.insert(o.run_s);
    EXPECT_EQ(o.nodes, 8);
  }
  EXPECT_EQ(run_s, (std::multiset<double>{2.0e-3, 3.0e-3, 4.0e-3}));
  // The batch-2 run is analysed at batch 2: twice the work of batch 1 in every node.
  auto a1 = analyze_file(w.model_file, {.batch = 1});
  auto a2 = analyze_file(w.model_file, {.batch = 2});
  const auto& conv2 = sample(e, "conv", "eager", 2);
  EXPECT_EQ(conv2.features.flops, static_cast<double>(node_named(a2, "conv").flops));
  EXPECT_EQ(conv2.features.flops, 2 * static_cast<double>(node_named(a1, "conv").flops));
  EXPECT_EQ(conv2.environment.at("timestamp"), "2024-05-01T10:00:05Z");
  int conv1 = 0;
  for (const auto& s : e.samples)
    if (s.label == "conv" && s.features.batch == 1) {
      ++conv1;
      EXPECT_DOUBLE_EQ(s.measured_s, s.environment.at("timestamp") == "2024-05-01T11:00:00Z" ? 1.0e-3 : 0.5e-3);
    }
  EXPECT_EQ(conv1, 2);
}

TEST(BenchEvidence, RunsFinishingInTheSameSecondArePairedInOrderOrRefused) {
  auto w = make_workspace("same_second");
  auto twice = kEager;
  for (auto& [name, ms] : twice) ms *= 2;
  report::append_bench_csv(w.bench(), {run_of(w.model, 1, "eager", kEager, 2.0, "2024-05-01T10:00:00Z"),
                                       run_of(w.model, 1, "eager", twice, 4.0, "2024-05-01T10:00:00Z")});
  auto e = calib::read_bench_evidence({w.bench()});
  EXPECT_EQ(e.runs, 2);
  ASSERT_EQ(e.overheads.size(), 2u);
  EXPECT_DOUBLE_EQ(e.overheads[0].run_s, 2.0e-3);
  EXPECT_NEAR(e.overheads[0].node_sum_s, 0.747e-3, 1e-15);
  EXPECT_DOUBLE_EQ(e.overheads[1].run_s, 4.0e-3);
  EXPECT_NEAR(e.overheads[1].node_sum_s, 1.494e-3, 1e-15);
  // A third such run without a per-node profile: which latency goes with which node rows is unknowable.
  report::append_bench_csv(w.bench(), {run_of(w.model, 1, "eager", {}, 3.0, "2024-05-01T10:00:00Z")});
  try {
    calib::read_bench_evidence({w.bench()});
    ADD_FAILURE() << "no error";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("3 runs in overall.csv and 2 blocks of node rows"), std::string::npos)
        << err.what();
  }
}

TEST(BenchEvidence, InputSizesAreBoundAsBenchBoundThem) {
  auto w = make_workspace("sizes");
  auto whole = run_of(w.model, 2, "eager", {{"conv", 1.0}}, 2.0, "2024-05-01T10:00:00Z");
  whole.input_size = "2x4x16x16";  // the first input's shape
  auto swept = run_of(w.model, 1, "eager", {{"conv", 0.5}}, 1.0, "2024-05-01T10:00:01Z");
  swept.input_size = "16";  // --sweep input=16: H = W = 16
  report::append_bench_csv(w.bench(), {whole, swept});
  auto e = calib::read_bench_evidence({w.bench()});
  EXPECT_TRUE(e.notes.empty()) << joined(e.notes);
  ASSERT_EQ(e.samples.size(), 2u);
  auto at16 = analyze_file(w.model_file, {.batch = 1, .inputs = {{"x", {1, 4, 16, 16}}}});
  const auto& b2 = sample(e, "conv", "eager", 2).features;
  const auto& b1 = sample(e, "conv", "eager", 1).features;
  EXPECT_EQ(b2.out_spatial, 256);
  EXPECT_EQ(b1.out_spatial, 256);
  EXPECT_EQ(b1.flops, static_cast<double>(node_named(at16, "conv").flops));
  EXPECT_EQ(b2.flops, 2 * b1.flops);
}

TEST(BenchEvidence, LeavesOutTheExcludedModelByPathOrFileName) {
  auto w = make_workspace("exclude");
  fs::copy_file(w.model_file, w.root / "models/other.onnx");
  report::append_bench_csv(w.bench(), {run_of(w.model, 1, "eager", kEager, 2.0, "2024-05-01T10:00:00Z"),
                                       run_of("models/other.onnx", 1, "eager", kEager, 2.5, "2024-05-01T10:00:01Z")});
  auto both = calib::read_bench_evidence({w.bench()});
  EXPECT_EQ(both.runs, 2);
  EXPECT_EQ(both.samples.size(), 16u);
  EXPECT_EQ(both.models, (std::vector<std::string>{w.model, "models/other.onnx"}));

  for (const std::string& exclude :
       {std::string("other.onnx"), std::string("models/other.onnx"), (w.root / "models/other.onnx").string()}) {
    auto e = calib::read_bench_evidence({w.bench()}, exclude);
    EXPECT_EQ(e.runs, 1) << exclude;
    EXPECT_EQ(e.models, std::vector<std::string>{w.model}) << exclude;
    ASSERT_EQ(e.samples.size(), 8u) << exclude;
    for (const auto& s : e.samples) EXPECT_EQ(s.source, "bench:" + w.model);
    ASSERT_EQ(e.overheads.size(), 1u);
    EXPECT_DOUBLE_EQ(e.overheads[0].run_s, 2.0e-3);
    ASSERT_EQ(e.notes.size(), 1u) << joined(e.notes);
    EXPECT_NE(e.notes[0].find("1 run(s) of models/other.onnx left out"), std::string::npos) << e.notes[0];
  }
}

TEST(BenchEvidence, SkippedRunsAndUnknownNodesAreNamedInNotes) {
  auto w = make_workspace("skipped");
  auto training = run_of(w.model, 1, "eager", kEager, 9.0, "2024-05-01T10:00:01Z");
  training.training = true;
  training.optimizer = "sgd";
  auto bf16 = run_of(w.model, 1, "eager", kEager, 1.5, "2024-05-01T10:00:02Z");
  bf16.precision = "bf16";
  auto missing = run_of("models/nowhere.onnx", 1, "eager", kEager, 1.5, "2024-05-01T10:00:03Z");
  auto ghost = kEager;
  ghost.push_back({"ghost", 0.3});
  ghost.push_back({"phantom", 0.2});
  auto good = run_of(w.model, 1, "eager", ghost, 2.0, "2024-05-01T10:00:04Z");
  report::append_bench_csv(w.bench(), {training, bf16, missing, good});
  auto e = calib::read_bench_evidence({w.bench()});
  EXPECT_EQ(e.runs, 1);
  EXPECT_EQ(e.samples.size(), 8u);
  ASSERT_EQ(e.overheads.size(), 1u);
  // The overhead counts every node the executor ran, named in the model or not.
  EXPECT_EQ(e.overheads[0].nodes, 10);
  EXPECT_NEAR(e.overheads[0].node_sum_s, 1.247e-3, 1e-15);  // 0.747 + 0.3 + 0.2 ms
  auto notes = joined(e.notes);
  EXPECT_EQ(e.notes.size(), 4u) << notes;
  EXPECT_EQ(e.executor, "cpu");
  EXPECT_NE(notes.find(w.bench() + ": 1 training run(s) skipped"), std::string::npos) << notes;
  EXPECT_NE(notes.find("1 bf16 run(s) skipped"), std::string::npos) << notes;
  EXPECT_NE(notes.find("1 run(s) skipped: model 'models/nowhere.onnx' not found"), std::string::npos) << notes;
  EXPECT_NE(notes.find("2 node row(s) of " + w.model + " (eager) name no node of the model, not used (first: 'ghost')"),
            std::string::npos)
      << notes;
}

// GPU runs are evidence for the GPU executor. A GPU run's CSV rows record 0 threads; a CUDA-graph run's node times
// come from eager passes that sum to more than the replay (each node the longer of its device and launch time):
// they are kept as measured, named with their run, and the GPU fit (gpu_model.h) sets them against the run's
// 0.5 ms. A CPU run among them is refused: one calibration fits one device.
TEST(BenchEvidence, GpuRunsKeepTheirNodeTimesNameTheirRunAndAreNotMixedWithCpuRuns) {
  auto w = make_workspace("gpu");
  auto graph = run_of(w.model, 1, "cuda-graph", kEager, 0.5, "2024-05-01T10:00:05Z");
  graph.environment.threads = 0;
  graph.latency_ms.median = 0.5;
  double node_sum_ms = 0;
  for (const auto& n : graph.nodes) node_sum_ms += n.mean_ms;
  ASSERT_GT(node_sum_ms, 0.5);
  report::append_bench_csv(w.bench(), {graph});
  auto e = calib::read_bench_evidence({w.bench()});
  EXPECT_EQ(e.executor, "cuda");
  ASSERT_EQ(e.runs, 1);
  ASSERT_FALSE(e.samples.empty());
  ASSERT_EQ(e.overheads.size(), 1u);
  const auto& run = e.overheads[0];
  EXPECT_FALSE(run.run.empty());
  EXPECT_NE(run.run.find("cuda-graph"), std::string::npos) << run.run;
  for (const auto& s : e.samples) {
    EXPECT_EQ(s.mode, "cuda-graph");
    EXPECT_EQ(s.features.threads, 0);
    EXPECT_EQ(s.run, run.run);
    auto row = std::find_if(graph.nodes.begin(), graph.nodes.end(), [&](const auto& n) { return n.name == s.label; });
    ASSERT_NE(row, graph.nodes.end());
    EXPECT_NEAR(s.measured_s, row->mean_ms / 1e3, 1e-15) << s.label;
  }
  EXPECT_NEAR(run.node_sum_s, node_sum_ms / 1e3, 1e-15);
  EXPECT_NEAR(run.run_s, 0.5e-3, 1e-15);
  EXPECT_EQ(run.threads, 0);
  EXPECT_EQ(joined(e.notes).find("scaled to the run's median"), std::string::npos) << joined(e.notes);

  auto cpu = run_of(w.model, 1, "eager", kEager, 2.0, "2024-05-01T10:00:06Z");
  auto mixed = w.root / "mixed";
  report::append_bench_csv(mixed.string(), {graph, cpu});
  try {
    calib::read_bench_evidence({mixed.string()});
    FAIL() << "a CPU run among GPU runs should be refused";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("mixes runs of the GPU executor and of the CPU executor"), std::string::npos)
        << err.what();
  }
}

TEST(BenchEvidence, BenchJsonReadsTheSameAsTheCsvFiles) {
  auto w = make_workspace("json");
  std::vector<exec::BenchResult> runs = {run_of(w.model, 1, "eager", kEager, 2.0, "2024-05-01T10:00:00Z"),
                                         run_of(w.model, 1, "optimized", kOptimized, 1.0, "2024-05-01T10:00:01Z")};
  report::append_bench_csv(w.bench(), runs);
  auto json_file = (w.root / "bench.json").string();
  {
    std::ofstream out(json_file);
    report::print_json(out, report::bench_document(runs, 10));
  }
  auto csv = calib::read_bench_evidence({w.bench()});
  auto json = calib::read_bench_evidence({json_file});
  EXPECT_TRUE(json.notes.empty()) << joined(json.notes);
  EXPECT_EQ(json.runs, 2);
  EXPECT_EQ(json.models, csv.models);
  ASSERT_EQ(json.samples.size(), 12u);
  ASSERT_EQ(json.samples.size(), csv.samples.size());
  for (size_t i = 0; i < csv.samples.size(); ++i) {
    const auto &c = csv.samples[i], &j = json.samples[i];
    EXPECT_EQ(j.label, c.label);
    EXPECT_EQ(j.mode, c.mode);
    EXPECT_EQ(j.source, c.source);
    EXPECT_DOUBLE_EQ(j.measured_s, c.measured_s);
    EXPECT_EQ(j.features.flops, c.features.flops);
    EXPECT_EQ(j.features.bytes, c.features.bytes);
    EXPECT_EQ(j.features.fused_ops, c.features.fused_ops);
    EXPECT_EQ(j.features.threads, 2);
    EXPECT_EQ(j.environment.at("cpu"), "Test CPU");  // JSON carries the machine; CSV rows do not
  }
  ASSERT_EQ(json.overheads.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(json.overheads[i].mode, csv.overheads[i].mode);
    EXPECT_EQ(json.overheads[i].nodes, csv.overheads[i].nodes);
    EXPECT_DOUBLE_EQ(json.overheads[i].node_sum_s, csv.overheads[i].node_sum_s);
    EXPECT_DOUBLE_EQ(json.overheads[i].run_s, csv.overheads[i].run_s);
  }
  // Both at once, and a CSV file standing for its directory.
  auto all = calib::read_bench_evidence({json_file, w.bench() + "/nodes.csv"});
  EXPECT_EQ(all.runs, 4);
  EXPECT_EQ(all.samples.size(), 24u);
}

void write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

TEST(BenchEvidence, CsvColumnsAreFoundByName) {
  auto w = make_workspace("by_name");
  fs::create_directories(w.bench());
  // Columns shuffled, one added, ridge_revision missing: still read.
  write(w.bench() + "/nodes.csv",
        "mean_ms,node,extra,timestamp,optimizer,training,threads,memory_format,precision,mode,batch,input_size,"
        "algorithm,model\n"
        "0.25,conv,x,T1,,0,4,nchw,fp32,eager,1,1x4x8x8,auto," +
            w.model +
            "\n"
            "0.125,relu,x,T1,,0,4,nchw,fp32,eager,1,1x4x8x8,auto," +
            w.model + "\n");
  write(w.bench() + "/overall.csv",
        "timestamp,model,algorithm,input_size,batch,mode,precision,memory_format,threads,training,optimizer,mean_ms\n"
        "T1," +
            w.model + ",auto,1x4x8x8,1,eager,fp32,nchw,4,0,,0.75\n");
  auto e = calib::read_bench_evidence({w.bench()});
  EXPECT_TRUE(e.notes.empty()) << joined(e.notes);
  ASSERT_EQ(e.samples.size(), 2u);
  EXPECT_EQ(e.samples[0].label, "conv");
  EXPECT_DOUBLE_EQ(e.samples[0].measured_s, 0.25e-3);
  EXPECT_EQ(e.samples[0].features.threads, 4);
  EXPECT_EQ(e.samples[1].label, "relu");
  EXPECT_DOUBLE_EQ(e.samples[1].measured_s, 0.125e-3);
  ASSERT_EQ(e.overheads.size(), 1u);
  EXPECT_EQ(e.overheads[0].nodes, 2);
  EXPECT_EQ(e.overheads[0].threads, 4);
  EXPECT_DOUBLE_EQ(e.overheads[0].node_sum_s, 0.375e-3);
  EXPECT_DOUBLE_EQ(e.overheads[0].run_s, 0.75e-3);
}

std::string error_of(const std::vector<std::string>& paths) {
  try {
    calib::read_bench_evidence(paths);
  } catch (const Error& e) {
    std::string message = e.what();
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    return message;
  }
  ADD_FAILURE() << "no error";
  return "";
}

TEST(BenchEvidence, MalformedInputIsRefusedNamingFileAndLine) {
  auto w = make_workspace("bad");
  report::append_bench_csv(w.bench(), {run_of(w.model, 1, "eager", kEager, 2.0, "2024-05-01T10:00:00Z")});
  auto nodes = w.bench() + "/nodes.csv";
  std::ifstream in(nodes);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  in.close();
  ASSERT_EQ(lines.size(), 9u);
  auto rewrite = [&](std::vector<std::string> l) { write(nodes, joined(l)); };

  // A time that is not a number, on line 3 of the file.
  auto bad = lines;
  auto at = bad[2].find(",0.1,");
  ASSERT_NE(at, std::string::npos) << bad[2];
  bad[2].replace(at, 5, ",fast,");
  rewrite(bad);
  auto message = error_of({w.bench()});
  EXPECT_NE(message.find(nodes + " line 3: mean_ms 'fast' is not a number"), std::string::npos) << message;

  // A header without mean_ms.
  bad = lines;
  auto col = bad[0].find(",mean_ms,");
  ASSERT_NE(col, std::string::npos);
  bad[0].replace(col, 9, ",time,");
  rewrite(bad);
  message = error_of({w.bench()});
  EXPECT_NE(message.find("'" + nodes + "' is not a `ridge bench --csv` file: no 'mean_ms' column"), std::string::npos)
      << message;

  // A row with a field too few.
  bad = lines;
  bad[4] = bad[4].substr(0, bad[4].rfind(','));
  rewrite(bad);
  message = error_of({w.bench()});
  EXPECT_NE(message.find(nodes + " line 5: 17 fields, the header has 18"), std::string::npos) << message;

  // A batch that is not a count.
  bad = lines;
  bad[1].replace(bad[1].find(",1,eager,"), 9, ",0.5,eager,");
  rewrite(bad);
  message = error_of({w.bench()});
  EXPECT_NE(message.find(nodes + " line 2: batch '0.5' is not a positive integer"), std::string::npos) << message;

  rewrite(lines);
  fs::remove(w.bench() + "/overall.csv");
  message = error_of({w.bench()});
  EXPECT_NE(message.find("has no overall.csv"), std::string::npos) << message;

  message = error_of({(w.root / "nothing_here").string()});
  EXPECT_NE(message.find("no such file or directory"), std::string::npos) << message;

  auto json_file = (w.root / "bench.json").string();
  write(json_file, "{\"model\": \"m.onnx\", \"runs\": [");
  message = error_of({json_file});
  EXPECT_NE(message.find("neither a `ridge bench --csv` directory nor `ridge bench -f json` output"), std::string::npos)
      << message;
  write(json_file,
        "{\"model\": \"m.onnx\", \"environment\": {\"threads\": 1}, \"runs\": [{\"batch\": 1, \"input_size\": \"\", "
        "\"mode\": \"eager\", \"training\": false, \"latency_ms\": {\"mean\": 1}, \"nodes\": [{\"name\": \"a\", "
        "\"mean_ms\": 0.5}, {\"name\": \"b\", \"mean_ms\": \"slow\"}]}]}");
  message = error_of({json_file});
  EXPECT_NE(message.find(json_file + ": runs[0].nodes[1].mean_ms is not a number"), std::string::npos) << message;
}

}  // namespace
}  // namespace ridge::test
