// What keeping a result costs, as `keep_result` pays it: encode the document, collect the
// environment, insert the row. Two cases: a sweep saving every cell through one open connection,
// and a single command, which also opens the store and, at exit, checkpoints the WAL into it. The
// peer is what users do today to keep a result: write the command's JSON to a file.
// Usage: ridge_store_bench STORE RESULT_ID N
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

#include "report/document_codec.h"
#include "report/printer.h"
#include "store/environment.h"
#include "store/store.h"

using Clock = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
double micros(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}

ridge::store::Record record_of(const ridge::store::Record& stored, const ridge::report::Document& doc) {
  ridge::store::Record r;
  r.command = stored.command;
  r.subject = stored.subject;
  r.params = stored.params;
  r.summary = stored.summary;
  r.environment = ridge::store::collect_environment("ridge bench ...");
  r.document = ridge::report::encode_document(doc);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    fmt::print(stderr, "usage: {} STORE RESULT_ID N\n", argv[0]);
    return 2;
  }
  std::string path = argv[1];
  int n = std::max(1, std::stoi(argv[3]));
  ridge::store::Filter f;
  f.ids = {std::stoll(argv[2])};
  auto records = ridge::store::Store(path, true).query(f);
  if (records.empty()) {
    fmt::print(stderr, "no result {} in {}\n", argv[2], path);
    return 1;
  }
  const auto& stored = records.front();
  auto doc = ridge::report::decode_document(stored.document);
  auto target = path + ".bench.db";
  std::filesystem::remove(target);
  std::vector<double> cell_us, command_us, file_us;
  {
    ridge::store::Store open(target);
    for (int i = 0; i < n; ++i) {
      auto t0 = Clock::now();
      auto r = record_of(stored, doc);
      open.save(r);
      cell_us.push_back(micros(t0, Clock::now()));
    }
  }
  for (int i = 0; i < n; ++i) {
    auto t0 = Clock::now();
    {
      auto r = record_of(stored, doc);
      ridge::store::Store s(target);
      s.save(r);
    }
    auto t1 = Clock::now();
    {
      std::ofstream out(target + ".json");
      ridge::report::print_json(out, doc);
    }
    auto t2 = Clock::now();
    command_us.push_back(micros(t0, t1));
    file_us.push_back(micros(t1, t2));
  }
  fmt::print("document: result {} ({}), {} bytes stored; {} saves per case\n", argv[2], stored.command,
             ridge::report::encode_document(doc).dump().size(), n);
  fmt::print("sweep cell (store kept open: encode + environment + insert): median {:.1f} us\n", median(cell_us));
  fmt::print("one command (also open, and the WAL checkpoint at close):    median {:.1f} us\n", median(command_us));
  fmt::print("peer (the JSON printed to a file):                           median {:.1f} us\n", median(file_us));
  fmt::print("ratio sweep cell / peer: {:.2f}; one command / peer: {:.2f}\n", median(cell_us) / median(file_us),
             median(command_us) / median(file_us));
  std::filesystem::remove(target);
  std::filesystem::remove(target + ".json");
  return 0;
}
