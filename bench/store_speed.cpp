// What keeping a result costs: encode the document, collect the environment, open the store and
// insert the row, as `keep_result` does once per result. The peer is what users do today to keep
// a result, writing the command's JSON to a file. Usage: ridge_store_bench STORE RESULT_ID N.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <vector>

#include "report/document_codec.h"
#include "report/printer.h"
#include "store/environment.h"
#include "store/store.h"

using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  if (argc != 4) {
    fmt::print(stderr, "usage: {} STORE RESULT_ID N\n", argv[0]);
    return 2;
  }
  std::string path = argv[1];
  int n = std::stoi(argv[3]);
  ridge::store::Filter f;
  f.ids = {std::stoll(argv[2])};
  auto records = ridge::store::Store(path, true).query(f);
  if (records.empty()) {
    fmt::print(stderr, "no result {} in {}\n", argv[2], path);
    return 1;
  }
  auto doc = ridge::report::decode_document(records.front().document);
  auto target = path + ".bench.db";
  std::filesystem::remove(target);
  std::vector<double> store_us, file_us;
  for (int i = 0; i < n; ++i) {
    auto t0 = Clock::now();
    {
      ridge::store::Record r = records.front();
      r.uid.clear();
      r.environment = ridge::store::collect_environment("bench");
      r.document = ridge::report::encode_document(doc);
      ridge::store::Store s(target);
      s.save(r);
    }
    auto t1 = Clock::now();
    {
      std::ofstream out(target + ".json");
      ridge::report::print_json(out, doc);
    }
    auto t2 = Clock::now();
    store_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    file_us.push_back(std::chrono::duration<double, std::micro>(t2 - t1).count());
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  auto bytes = records.front().document.dump().size();
  fmt::print("document: result {} ({}), {} bytes of JSON; {} saves\n", argv[2], records.front().command, bytes, n);
  fmt::print("store (encode + environment + open + insert): median {:.1f} us\n", median(store_us));
  fmt::print("peer (JSON printed to a file):                median {:.1f} us\n", median(file_us));
  fmt::print("ratio store/peer: {:.2f}\n", median(store_us) / median(file_us));
  std::filesystem::remove(target);
  std::filesystem::remove(target + ".json");
  return 0;
}
