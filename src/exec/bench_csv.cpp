#include "exec/bench_csv.h"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include "exec/bench_codec.h"
#include "util/csv.h"
#include "util/error.h"

namespace ridge::exec {
namespace {

namespace fs = std::filesystem;

// ---- single fields, with the file and line in every error ----

double parse_number(const std::string& text, const std::string& where, const std::string& column) {
  try {
    size_t used = 0;
    double v = std::stod(text, &used);
    if (used == text.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  throw Error(fmt::format("{}: {} '{}' is not a number", where, column, text));
}

// A figure: empty is "not measured" (nullopt); anything else a number >= 0.
std::optional<double> parse_figure(const std::string& text, const std::string& where, const std::string& column) {
  if (text.empty()) return std::nullopt;
  double v = parse_number(text, where, column);
  if (v < 0) throw Error(fmt::format("{}: {} {} is negative", where, column, text));
  return v;
}

// Batches: whole and positive (a wrong value would silently change the shapes); threads may be 0 (a GPU run).
int64_t parse_count(const std::string& text, const std::string& where, const std::string& column, int64_t least) {
  double v = parse_number(text, where, column);
  if (v < static_cast<double>(least) || v > 1e9 || v != std::floor(v))
    throw Error(
        fmt::format("{}: {} '{}' is not a {} integer", where, column, text, least > 0 ? "positive" : "non-negative"));
  return static_cast<int64_t>(v);
}

bool parse_flag(const std::string& text, const std::string& where, const std::string& column) {
  if (text == "1" || text == "true" || text == "yes") return true;
  if (text.empty() || text == "0" || text == "false" || text == "no") return false;
  throw Error(fmt::format("{}: {} '{}' is not 0 or 1", where, column, text));
}

class CsvFile {
 public:
  struct Row {
    int line = 0;
    std::vector<std::string> fields;
  };

  explicit CsvFile(const fs::path& path) : name_(path.string()) {
    std::ifstream in(path);
    if (!in) throw Error(fmt::format("cannot read '{}'", name_));
    std::string line;
    if (!std::getline(in, line)) throw Error(fmt::format("'{}' is empty", name_));
    if (line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);  // a byte-order mark (spreadsheet exports)
    if (!line.empty() && line.back() == '\r') line.pop_back();
    auto header = split_csv_line(line);
    for (size_t i = 0; i < header.size(); ++i) index_.emplace(header[i], i);
    int number = 1;
    while (std::getline(in, line)) {
      ++number;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.empty()) continue;
      auto fields = split_csv_line(line);
      if (fields.size() != header.size())
        throw Error(
            fmt::format("{} line {}: {} fields, the header has {}", name_, number, fields.size(), header.size()));
      rows_.push_back({number, std::move(fields)});
    }
    if (in.bad()) throw Error(fmt::format("cannot read '{}'", name_));
  }

  size_t need(const std::string& column) const {
    auto it = index_.find(column);
    if (it == index_.end())
      throw Error(fmt::format("'{}' is not a `ridge bench --csv` file: no '{}' column", name_, column));
    return it->second;
  }
  std::optional<size_t> find(const std::string& column) const {
    auto it = index_.find(column);
    if (it == index_.end()) return std::nullopt;
    return it->second;
  }
  const std::vector<Row>& rows() const { return rows_; }
  std::string where(const Row& row) const { return fmt::format("{} line {}", name_, row.line); }

 private:
  std::string name_;
  std::map<std::string, size_t> index_;
  std::vector<Row> rows_;
};

// The run columns of one file, found by name: kBenchRunColumns, then the timestamp.
struct RunColumns {
  std::vector<size_t> key;
  std::optional<size_t> revision;

  explicit RunColumns(const CsvFile& f) {
    for (const char* c : kBenchRunColumns) key.push_back(f.need(c));
    key.push_back(f.need("timestamp"));
    revision = f.find("ridge_revision");
  }
  std::vector<std::string> key_of(const CsvFile::Row& row) const {
    std::vector<std::string> k;
    for (auto i : key) k.push_back(row.fields[i]);
    return k;
  }
};

// The run a row names, from its run columns.
BenchResult run_of_row(const CsvFile& f, const RunColumns& c, const CsvFile::Row& row) {
  auto field = [&](size_t k) -> const std::string& { return row.fields[c.key[k]]; };
  auto where = f.where(row);
  BenchResult r;
  r.model = field(0);
  if (r.model.empty()) throw Error(fmt::format("{}: the model column is empty", where));
  r.conv_algo = field(1).empty() ? "auto" : field(1);
  r.input_size = field(2);
  r.batch = parse_count(field(3), where, "batch", 1);
  r.mode = field(4);
  r.precision = field(5).empty() ? "fp32" : field(5);
  r.memory_format = field(6).empty() ? "nchw" : field(6);
  r.environment.threads = static_cast<int>(parse_count(field(7), where, "threads", 0));
  // The CSV has no device column: a CPU run records its threads, a GPU run 0 (device left unknown, not "cpu").
  r.environment.device = r.environment.threads > 0 ? "cpu" : "";
  r.training = parse_flag(field(8), where, "training");
  r.optimizer = field(9);
  r.timestamp = field(10);
  if (c.revision) r.environment.ridge_revision = row.fields[*c.revision];
  return r;
}

// The figures of an overall.csv row: the latency statistics, throughput and energy.
void read_figures(const CsvFile& f, const CsvFile::Row& row, BenchResult& r) {
  auto where = f.where(row);
  auto figure = [&](const char* column) -> std::optional<double> {
    auto i = f.find(column);
    return i ? parse_figure(row.fields[*i], where, column) : std::nullopt;
  };
  auto& l = r.latency_ms;
  l.mean = parse_figure(row.fields[f.need("mean_ms")], where, "mean_ms").value_or(0);
  const std::pair<const char*, double*> statistics[] = {{"std_ms", &l.stddev}, {"min_ms", &l.min},
                                                        {"max_ms", &l.max},    {"median_ms", &l.median},
                                                        {"p99_ms", &l.p99},    {"throughput", &r.throughput}};
  for (auto [column, target] : statistics)
    if (auto v = figure(column)) *target = *v;
  if (auto i = f.find("samples"); i && !row.fields[*i].empty())
    l.samples = parse_count(row.fields[*i], where, "samples", 0);
  auto energy = figure("energy_per_inference_j");
  auto power = figure("power_mean_w");
  // Empty until power is measured (`--power`), never zero.
  if (energy) {
    r.power.measured = true;
    r.power.energy_per_inference_j = *energy;
    r.power.mean_w = power.value_or(0);
  }
}

}  // namespace

fs::path as_directory(const fs::path& p) {
  auto d = fs::absolute(p).lexically_normal();
  return d.has_filename() ? d : d.parent_path();
}

std::vector<LoadedRun> read_bench_csv(const fs::path& given, const std::string& path) {
  auto dir = as_directory(given);
  if (!fs::is_regular_file(dir / "overall.csv"))
    throw Error(fmt::format("'{}' has no overall.csv: not a directory written by `ridge bench --csv`", path));
  CsvFile overall(dir / "overall.csv");
  RunColumns overall_columns(overall);
  overall.need("mean_ms");
  std::optional<CsvFile> nodes;
  std::optional<RunColumns> node_columns;
  size_t node_col = 0, node_ms = 0;
  std::optional<size_t> node_op, node_median, node_forward, node_backward;
  if (fs::is_regular_file(dir / "nodes.csv")) {
    nodes.emplace(dir / "nodes.csv");
    node_columns.emplace(*nodes);
    node_col = nodes->need("node");
    node_ms = nodes->need("mean_ms");
    node_op = nodes->find("op");
    node_median = nodes->find("median_ms");  // files written before it was kept lack it
    node_forward = nodes->find("forward_ms");
    node_backward = nodes->find("backward_ms");
  }

  // Each run's node rows are appended together; a block is a stretch of rows with one key, and a
  // node named again starts the next block (a run times each node once).
  struct Block {
    const CsvFile::Row* first = nullptr;
    std::vector<NodeTiming> rows;
    std::set<std::string> names;
  };
  using Key = std::vector<std::string>;
  std::vector<Key> order;  // keys in the order they first appear
  std::map<Key, std::vector<Block>> blocks;
  std::map<Key, std::vector<const CsvFile::Row*>> latencies;
  auto remember = [&](const Key& k) {
    if (!blocks.count(k) && !latencies.count(k)) order.push_back(k);
  };
  for (const auto& row : overall.rows()) {
    auto k = overall_columns.key_of(row);
    remember(k);
    latencies[k].push_back(&row);
  }
  if (nodes) {
    std::optional<Key> previous;
    for (const auto& row : nodes->rows()) {
      NodeTiming n;
      n.name = row.fields[node_col];
      if (n.name.empty()) throw Error(fmt::format("{}: the node column is empty", nodes->where(row)));
      if (row.fields[node_ms].empty()) throw Error(fmt::format("{}: mean_ms is empty", nodes->where(row)));
      n.mean_ms = *parse_figure(row.fields[node_ms], nodes->where(row), "mean_ms");
      if (node_op) n.op_type = row.fields[*node_op];
      if (node_median)
        n.median_ms = parse_figure(row.fields[*node_median], nodes->where(row), "median_ms").value_or(-1);
      // A training step's split, where the profile measured one (an empty cell: inference, -1).
      if (node_forward)
        n.forward_ms = parse_figure(row.fields[*node_forward], nodes->where(row), "forward_ms").value_or(-1);
      if (node_backward)
        n.backward_ms = parse_figure(row.fields[*node_backward], nodes->where(row), "backward_ms").value_or(-1);
      auto k = node_columns->key_of(row);
      remember(k);
      auto& list = blocks[k];
      if (!previous || *previous != k || list.empty() || list.back().names.count(n.name))
        list.push_back({&row, {}, {}});
      list.back().names.insert(n.name);
      list.back().rows.push_back(std::move(n));
      previous = k;
    }
  }

  std::vector<LoadedRun> runs;
  for (const auto& k : order) {
    auto& b = blocks[k];
    const auto& l = latencies[k];
    // Runs sharing every column and the second they finished are told apart by their order; when
    // the counts disagree the pairing is unknowable and those runs are refused rather than mixed.
    if (l.size() > 1 && !b.empty() && b.size() != l.size())
      throw Error(fmt::format(
          "{}: {} runs in overall.csv and {} blocks of node rows in nodes.csv share model {}, batch {}, mode {} "
          "and timestamp {}: cannot tell which times belong to which run",
          path, l.size(), b.size(), k[0], k[3], k[4], k.back()));
    if (l.size() == 1 && b.size() > 1) {  // one run whose rows another writer interleaved
      for (size_t i = 1; i < b.size(); ++i) b[0].rows.insert(b[0].rows.end(), b[i].rows.begin(), b[i].rows.end());
      b.resize(1);
    }
    size_t count = std::max(l.size(), b.size());
    for (size_t i = 0; i < count; ++i) {
      LoadedRun loaded;
      loaded.path = path;
      // A model path recorded relative to where bench ran: usually the directory holding the CSV directory.
      loaded.model_dirs = {dir.parent_path(), dir};
      if (i < l.size()) {
        loaded.run = run_of_row(overall, overall_columns, *l[i]);
        read_figures(overall, *l[i], loaded.run);
        loaded.where = overall.where(*l[i]);
      } else {
        loaded.run = run_of_row(*nodes, *node_columns, *b[i].first);
        loaded.where = nodes->where(*b[i].first);
      }
      if (i < b.size()) {
        loaded.run.nodes = std::move(b[i].rows);
        loaded.run.executed_nodes = static_cast<int64_t>(loaded.run.nodes.size());
        for (const auto& n : loaded.run.nodes) loaded.run.node_sum_ms += n.mean_ms;
      }
      runs.push_back(std::move(loaded));
    }
  }
  return runs;
}

std::vector<LoadedRun> read_bench_runs(const std::string& path, const std::string& also) {
  fs::path p(path);
  std::error_code ec;
  if (fs::is_directory(p, ec)) return read_bench_csv(p, path);
  if (!fs::is_regular_file(p, ec)) throw Error(fmt::format("'{}': no such file or directory", path));
  auto name = p.filename().string();
  if (name == "nodes.csv" || name == "overall.csv" || name == "layers.csv")
    return read_bench_csv(as_directory(p).parent_path(), path);
  auto file = read_bench_file(path, also);
  auto dir = as_directory(p).parent_path();
  std::vector<LoadedRun> runs;
  for (size_t i = 0; i < file.runs.size(); ++i)
    runs.push_back({std::move(file.runs[i]), path, fmt::format("{}: runs[{}]", path, i), {dir, dir.parent_path()}});
  return runs;
}

}  // namespace ridge::exec
