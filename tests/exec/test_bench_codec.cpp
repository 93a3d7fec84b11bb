// The bench codec (exec/bench_codec): real `ridge bench -f json` files from an NVIDIA H200 round-trip through it
// unchanged, it writes exactly what the bench document prints as JSON, and bad files get one line.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "exec/bench_codec.h"
#include "report/bench_report.h"
#include "report/printer.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

ordered_json parse(const std::string& path) {
  std::ifstream in(path);
  return ordered_json::parse(in);
}

// A run with every part a bench result can have: training, power, GPU memory, a per-node profile.
exec::BenchResult full_run() {
  exec::BenchResult r;
  r.model = "models/resnet50.onnx";
  r.batch = 8;
  r.input_size = "8x3x224x224";
  r.mode = "eager";
  r.precision = "fp32";
  r.memory_format = "nchw";
  r.conv_algo = "heuristic";
  r.training = true;
  r.optimizer = "adam";
  r.training_losses = {2.5, 1.25};
  r.random_weights = true;
  r.latency_ms = {12, 10.5, 0.25, 10.0, 10.25, 11.0, 11.5, 12.0, 0.01};
  r.throughput = 761.9;
  r.stop_reason = "converged";
  r.warmup_runs = 3;
  r.power = {"nvml", true, false, 300.5, 3.6, 0.3, 120.25, 1.5, 30};
  r.device_memory = {1000, 200, 300, 2048, 400, 100};  // a training run: saved activations, optimizer state
  // A training step's profile: each node's forward and backward (the Relu reads only the input: no backward).
  r.nodes = {{"/conv1/Conv", "Conv", 1.5, 14.25, 3, 64, "7x7", "implicit-gemm", 118013952, 4096, 0.5, 1.0},
             {"/relu/Relu", "Relu", 0.25, 2.5, 0, 0, "", "", -1, -1, 0.25, 0}};
  r.op_types = {{"Conv", 1, 1.5, 85.7}, {"Relu", 1, 0.25, 14.3}};
  r.node_sum_ms = 1.75;
  r.profiled_run_ms = 2.0;
  r.overhead_per_node_us = 125;
  r.executed_nodes = 2;
  r.host_enqueue_per_node_us = 12.5;
  r.environment = {
      "Intel(R) Xeon(R) Processor", 16,      0,        "cuda:0 NVIDIA H200 (sm_90, 132 SMs, 139.8 GiB)", "",
      "CUDA runtime 13.0",          "0.1.0", "abc1234"};
  r.notes = {"random weights: the model file holds no weight values (outputs are not meaningful)"};
  r.timestamp = "2026-11-25T10:00:00Z";
  return r;
}

TEST(BenchCodec, RealH200FilesRoundTripUnchanged) {
  for (const char* name : {"ridge-bench-resnet50-tf32.json", "ridge-bench-resnet50-power.json"}) {
    auto path = source_path(std::string("tests/data/bench/h200/") + name);
    auto original = parse(path);
    auto file = exec::read_bench_file(path);
    EXPECT_EQ(exec::encode_bench(file.runs).dump(1), original.dump(1)) << name;
  }
  // What the files say, read back as the run that measured it: the H200, not this machine.
  auto tf32 = exec::read_bench_file(source_path("tests/data/bench/h200/ridge-bench-resnet50-tf32.json"));
  ASSERT_EQ(tf32.runs.size(), 1u);
  const auto& run = tf32.runs.front();
  EXPECT_TRUE(exec::on_gpu(run.environment));
  EXPECT_EQ(run.environment.device, "cuda:0 NVIDIA H200 (sm_90, 132 SMs, 139.8 GiB)");
  EXPECT_EQ(run.environment.threads, 0);
  EXPECT_EQ(run.model, "models/resnet50.onnx");
  EXPECT_EQ(run.precision, "tf32");
  EXPECT_EQ(run.batch, 32);
  EXPECT_EQ(run.nodes.size(), 122u);
  EXPECT_EQ(run.nodes.front().name, "/conv1/Conv");
  EXPECT_EQ(run.nodes.front().algorithm, "implicit-precomp-gemm");
  auto power = exec::read_bench_file(source_path("tests/data/bench/h200/ridge-bench-resnet50-power.json"));
  EXPECT_TRUE(power.runs.front().power.measured);
  EXPECT_DOUBLE_EQ(power.runs.front().power.energy_per_inference_j, 7.591715161496528);
  EXPECT_DOUBLE_EQ(power.runs.front().power.idle_w, 127.91457202270243);
}

TEST(BenchCodec, WritesWhatTheBenchDocumentPrints) {
  auto gpu = full_run();
  auto cpu = full_run();
  cpu.training = false;
  cpu.power = {};
  cpu.device_memory = {};
  cpu.environment.device = "cpu";
  cpu.environment.threads = 2;
  cpu.host_enqueue_per_node_us = -1;  // measured for a GPU's eager runs only
  for (const auto& runs : {std::vector<exec::BenchResult>{gpu}, std::vector<exec::BenchResult>{cpu, cpu}}) {
    auto codec = exec::encode_bench(runs);
    EXPECT_EQ(codec.dump(1), report::to_json(report::bench_document(runs, 10)).dump(1));
    // And reads back to the same runs.
    auto again = exec::decode_bench(json::parse(codec.dump()), "memory");
    EXPECT_EQ(exec::encode_bench(again.runs).dump(1), codec.dump(1));
  }
  // A training run's memory names what the backward keeps and the optimizer holds; an inference's has neither key.
  auto training = exec::encode_bench({gpu});
  EXPECT_EQ(training["runs"][0]["device_memory"]["saved_bytes"], 400);
  EXPECT_EQ(training["runs"][0]["device_memory"]["optimizer_state_bytes"], 100);
  auto decoded = exec::decode_bench(json::parse(training.dump()), "training");
  EXPECT_EQ(decoded.runs.front().device_memory.saved_bytes, 400);
  EXPECT_EQ(decoded.runs.front().device_memory.optimizer_state_bytes, 100);
  // A training profile's split is kept per node, a 0 backward included; an inference node has no split keys.
  EXPECT_EQ(training["runs"][0]["nodes"][0]["forward_ms"], 0.5);
  EXPECT_EQ(training["runs"][0]["nodes"][0]["backward_ms"], 1.0);
  EXPECT_EQ(training["runs"][0]["nodes"][1]["backward_ms"], 0);
  EXPECT_DOUBLE_EQ(decoded.runs.front().nodes[0].forward_ms, 0.5);
  EXPECT_DOUBLE_EQ(decoded.runs.front().nodes[1].backward_ms, 0);
  auto inference = gpu;
  inference.training = false;
  for (auto& n : inference.nodes) n.forward_ms = n.backward_ms = -1;
  EXPECT_FALSE(exec::encode_bench({inference})["runs"][0]["nodes"][0].contains("forward_ms"));
  EXPECT_EQ(exec::decode_bench(json::parse(exec::encode_bench({inference}).dump()), "inference")
                .runs.front()
                .nodes[0]
                .forward_ms,
            -1);
  // A node's median over the profile's passes is kept where the profile had one, and absent (-1) where not.
  inference.nodes[0].median_ms = 0.375;
  auto with_median = exec::encode_bench({inference});
  EXPECT_EQ(with_median["runs"][0]["nodes"][0]["median_ms"], 0.375);
  EXPECT_FALSE(with_median["runs"][0]["nodes"][1].contains("median_ms"));
  auto median_back = exec::decode_bench(json::parse(with_median.dump()), "median").runs.front();
  EXPECT_DOUBLE_EQ(median_back.nodes[0].median_ms, 0.375);
  EXPECT_DOUBLE_EQ(median_back.nodes[1].median_ms, -1);
  inference.device_memory.saved_bytes = inference.device_memory.optimizer_state_bytes = -1;
  EXPECT_FALSE(exec::encode_bench({inference})["runs"][0]["device_memory"].contains("saved_bytes"));
  // The host's enqueue time per node is kept where it was measured, and absent (read back as -1) where not.
  EXPECT_EQ(training["runs"][0]["host_enqueue_per_node_us"], 12.5);
  EXPECT_DOUBLE_EQ(decoded.runs.front().host_enqueue_per_node_us, 12.5);
  auto unmeasured = exec::encode_bench({cpu});
  EXPECT_FALSE(unmeasured["runs"][0].contains("host_enqueue_per_node_us"));
  EXPECT_EQ(exec::decode_bench(json::parse(unmeasured.dump()), "cpu").runs.front().host_enqueue_per_node_us, -1);
}

TEST(BenchCodec, BadFilesGetOneLine) {
  auto bad = [](const std::string& text) {
    try {
      exec::decode_bench(json::parse(text), "bad.json");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const std::string env = R"("environment": {"device": "cpu", "threads": 2})";
  EXPECT_NE(bad("[]").find("has no runs[]"), std::string::npos);
  EXPECT_NE(bad(R"({"runs": []})").find("model is missing"), std::string::npos);
  EXPECT_NE(bad(R"({"model": "m.onnx", )" + env + R"(, "runs": []})").find("holds no runs"), std::string::npos);
  EXPECT_NE(bad(R"({"model": "m.onnx", )" + env + R"(, "runs": [{"batch": 1}]})").find("runs[0].latency_ms is missing"),
            std::string::npos);
  EXPECT_NE(bad(R"({"model": "m.onnx", )" + env + R"(, "runs": [{"latency_ms": {"mean": -1}}]})").find("is negative"),
            std::string::npos);
  // A CPU run records its threads; a GPU run has none.
  EXPECT_NE(bad(R"({"model": "m.onnx", "environment": {"device": "cpu", "threads": 0}, "runs": [{}]})")
                .find("threads 0 is not a positive integer"),
            std::string::npos);
  EXPECT_EQ(bad(R"({"model": "m.onnx", "environment": {"device": "cuda:0 X", "threads": 0}, )"
                R"("runs": [{"latency_ms": {"mean": 1}}]})"),
            "accepted");
  EXPECT_NE(bad(R"({"model": "m.onnx", )" + env + R"(, "runs": [{"latency_ms": {"mean": 1}, "nodes": [{}]}]})")
                .find("nodes[0].name is missing"),
            std::string::npos);
}

}  // namespace
}  // namespace ridge::test
