#pragma once
// One stored result: what ran (command, model, device and the run's options), the environment that
// produced it, its sweep cell when a sweep ran it, and the document the command printed.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace ridge::store {

// What a result is about; empty / none where a command has no such option.
struct Params {
  std::string model, device;
  std::optional<int64_t> batch, threads;
  std::string input_size, mode, precision, memory_format, conv_algo;
  std::optional<bool> training;
  std::string optimizer;
};

// Where and how it was produced.
struct Environment {
  std::string host, cpu, gpu;
  nlohmann::ordered_json versions = nlohmann::ordered_json::object();  // library -> version
  std::string revision;                                                // ridge's git revision
  std::string command_line;
  std::string created_at;  // UTC, ISO 8601
  std::optional<bool> random_weights;
  std::string calibration;  // the calibration a prediction used, else empty
};

// The sweep cell a result belongs to (all empty for a result of a plain command).
struct Cell {
  std::string sweep, key, stage, shard;
};

struct Record {
  int64_t id = 0;             // row id in this store (not kept by merges)
  std::string uid;            // unique everywhere: merges skip a uid they already hold
  std::string command;        // analyze, predict, bench, compare, ert, calibrate
  std::string subject;        // the model or device the document is about
  std::string status = "ok";  // ok or failed
  std::string error;          // why it failed
  std::string summary;        // the headline figure people see in listings ("mean 12.345 ms")
  Params params;
  Environment environment;
  Cell cell;
  nlohmann::ordered_json document;  // report::encode_document; null for a failed cell
  // The result as its kind's codec writes it, {"kind": "bench", "result": ...} (report/result_codec.h): what every
  // reader of stored results decodes. Null for a failed cell and for results stored before ridge kept them typed.
  nlohmann::ordered_json result;
};

}  // namespace ridge::store
