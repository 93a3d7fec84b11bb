#include "calib/bench_evidence.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "analysis/run.h"
#include "calib/predict.h"
#include "exec/bench_codec.h"
#include "onnx/model_reader.h"
#include "util/csv.h"
#include "util/error.h"

namespace ridge::calib {
namespace {

namespace fs = std::filesystem;

struct NodeRow {
  std::string name;
  double mean_ms = 0;
};

// One measured run, as either format describes it.
struct Run {
  std::string model;  // as recorded
  std::string algorithm = "auto", input_size, mode, precision = "fp32", memory_format = "nchw";
  int64_t batch = 1;
  int threads = 1;
  bool training = false;
  std::optional<double> mean_ms;  // the unprofiled run's latency; absent without an overall row
  std::vector<NodeRow> nodes;
  std::map<std::string, std::string> environment;
  std::string device;                // the GPU it ran on; empty: the CPU
  std::string path;                  // the path given (names the run in notes)
  std::vector<fs::path> model_dirs;  // where a relative model path may be, besides the cwd
};

// ---- notes: counted per path and reason, so a directory of many runs gives a few lines ----

class Notes {
 public:
  // "WHERE: COUNT WHAT (first: EXAMPLE)", one line per (where, what).
  void add(const std::string& where, const std::string& what, int count = 1, const std::string& example = "") {
    if (count <= 0) return;
    auto it =
        std::find_if(items_.begin(), items_.end(), [&](const Item& i) { return i.where == where && i.what == what; });
    if (it == items_.end())
      items_.push_back({where, what, example, count});
    else
      it->count += count;
  }
  std::vector<std::string> lines() const {
    std::vector<std::string> out;
    for (const auto& i : items_)
      out.push_back(
          fmt::format("{}: {} {}{}", i.where, i.count, i.what, i.example.empty() ? "" : " (first: " + i.example + ")"));
    return out;
  }

 private:
  struct Item {
    std::string where, what, example;
    int count = 0;
  };
  std::vector<Item> items_;
};

// ---- parsing of single fields, with the file and line in every error ----

double parse_number(const std::string& text, const std::string& where, const std::string& column) {
  try {
    size_t used = 0;
    double v = std::stod(text, &used);
    if (used == text.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  throw Error(fmt::format("{}: {} '{}' is not a number", where, column, text));
}

double parse_time(const std::string& text, const std::string& where, const std::string& column) {
  double v = parse_number(text, where, column);
  if (v < 0) throw Error(fmt::format("{}: {} {} is negative", where, column, text));
  return v;
}

// Batches and thread counts: whole and positive (a wrong value would silently change the shapes).
int64_t parse_count(const std::string& text, const std::string& where, const std::string& column) {
  double v = parse_number(text, where, column);
  if (v < 1 || v > 1e9 || v != std::floor(v))
    throw Error(fmt::format("{}: {} '{}' is not a positive integer", where, column, text));
  return static_cast<int64_t>(v);
}

bool parse_flag(const std::string& text, const std::string& where, const std::string& column) {
  if (text == "1" || text == "true" || text == "yes") return true;
  if (text.empty() || text == "0" || text == "false" || text == "no") return false;
  throw Error(fmt::format("{}: {} '{}' is not 0 or 1", where, column, text));
}

// ---- `ridge bench --csv DIR`: overall.csv and nodes.csv ----

// The columns every bench CSV row starts with (report/bench_report.cpp, add_run_columns), plus the
// timestamp: together they tell one run from another in a file appended to over time.
constexpr const char* kRunColumns[] = {"model",     "algorithm",     "input_size", "batch",    "mode",
                                       "precision", "memory_format", "threads",    "training", "optimizer"};

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
    auto header = split_csv_line(line);
    for (size_t i = 0; i < header.size(); ++i) index_.emplace(header[i], i);
    int number = 1;
    while (std::getline(in, line)) {
      ++number;
      if (line.empty() || line == "\r") continue;
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

// The run columns of one file, found by name.
struct RunColumns {
  std::vector<size_t> key;  // kRunColumns then timestamp
  std::optional<size_t> revision;

  explicit RunColumns(const CsvFile& f) {
    for (const char* c : kRunColumns) key.push_back(f.need(c));
    key.push_back(f.need("timestamp"));
    revision = f.find("ridge_revision");
  }
  std::vector<std::string> key_of(const CsvFile::Row& row) const {
    std::vector<std::string> k;
    for (auto i : key) k.push_back(row.fields[i]);
    return k;
  }
};

Run run_from_row(const CsvFile& f, const RunColumns& c, const CsvFile::Row& row, const std::string& path,
                 const fs::path& dir) {
  auto field = [&](size_t k) -> const std::string& { return row.fields[c.key[k]]; };
  auto where = f.where(row);
  Run r;
  r.model = field(0);
  r.algorithm = field(1);
  r.input_size = field(2);
  r.batch = parse_count(field(3), where, "batch");
  r.mode = field(4);
  r.precision = field(5);
  r.memory_format = field(6);
  r.threads = static_cast<int>(parse_count(field(7), where, "threads"));
  r.training = parse_flag(field(8), where, "training");
  if (r.model.empty()) throw Error(fmt::format("{}: the model column is empty", where));
  r.environment["timestamp"] = field(10);
  if (c.revision && !row.fields[*c.revision].empty()) r.environment["ridge_revision"] = row.fields[*c.revision];
  r.path = path;
  // A model path recorded relative to where bench ran: usually the directory holding the CSV directory.
  r.model_dirs = {dir.parent_path(), dir};
  return r;
}

// A path as a directory, absolute and without a trailing separator (so parent_path is the parent).
fs::path as_directory(const fs::path& p) {
  auto d = fs::absolute(p).lexically_normal();
  return d.has_filename() ? d : d.parent_path();
}

void read_csv_directory(const fs::path& given, const std::string& path, std::vector<Run>& runs) {
  auto dir = as_directory(given);
  for (const char* name : {"nodes.csv", "overall.csv"})
    if (!fs::is_regular_file(dir / name))
      throw Error(fmt::format("'{}' has no {}: not a directory written by `ridge bench --csv`", path, name));
  CsvFile nodes(dir / "nodes.csv"), overall(dir / "overall.csv");
  RunColumns node_columns(nodes), overall_columns(overall);
  auto node_col = nodes.need("node");
  auto node_ms = nodes.need("mean_ms");
  auto overall_ms = overall.need("mean_ms");

  // Each run's node rows are appended together; a block is a stretch of rows with one key, and a
  // node named again starts the next block (a run times each node once).
  struct Block {
    const CsvFile::Row* first = nullptr;
    std::vector<NodeRow> rows;
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
    parse_time(row.fields[overall_ms], overall.where(row), "mean_ms");
    auto k = overall_columns.key_of(row);
    remember(k);
    latencies[k].push_back(&row);
  }
  std::optional<Key> previous;
  for (const auto& row : nodes.rows()) {
    NodeRow n{row.fields[node_col], parse_time(row.fields[node_ms], nodes.where(row), "mean_ms")};
    if (n.name.empty()) throw Error(fmt::format("{}: the node column is empty", nodes.where(row)));
    auto k = node_columns.key_of(row);
    remember(k);
    auto& list = blocks[k];
    if (!previous || *previous != k || list.empty() || list.back().names.count(n.name)) list.push_back({&row, {}, {}});
    list.back().names.insert(n.name);
    list.back().rows.push_back(std::move(n));
    previous = k;
  }

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
      Run r = i < l.size() ? run_from_row(overall, overall_columns, *l[i], path, dir)
                           : run_from_row(nodes, node_columns, *b[i].first, path, dir);
      if (i < l.size()) r.mean_ms = parse_time(l[i]->fields[overall_ms], overall.where(*l[i]), "mean_ms");
      if (i < b.size()) r.nodes = std::move(b[i].rows);
      runs.push_back(std::move(r));
    }
  }
}

// ---- `ridge bench -f json` ----

// A `ridge bench -f json` file, through the bench codec.
void read_json_file(const fs::path& file, const std::string& path, std::vector<Run>& runs) {
  // A file that is no JSON at all may be anything: the error says what calibration reads.
  auto bench = exec::read_bench_file(file.string(), "a `ridge bench --csv` directory");
  auto dir = as_directory(file).parent_path();
  for (const auto& b : bench.runs) {
    Run r;
    r.model = b.model;
    r.path = path;
    r.model_dirs = {dir, dir.parent_path()};
    const std::pair<const char*, const std::string*> kept[] = {{"cpu", &b.environment.cpu_model},
                                                               {"torch", &b.environment.torch_version},
                                                               {"ridge_revision", &b.environment.ridge_revision}};
    for (auto [name, text] : kept)
      if (!text->empty()) r.environment[name] = *text;
    if (exec::on_gpu(b.environment)) r.device = b.environment.device;
    r.batch = b.batch;
    r.threads = b.environment.threads;
    r.input_size = b.input_size;
    r.mode = b.mode;
    r.precision = b.precision;
    r.memory_format = b.memory_format;
    r.algorithm = b.conv_algo;
    r.training = b.training;
    r.mean_ms = b.latency_ms.mean;
    for (const auto& n : b.nodes) r.nodes.push_back({n.name, n.mean_ms});
    runs.push_back(std::move(r));
  }
}

// ---- the models, analysed once per (file, batch, input size) ----

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::optional<std::string> find_bench_model(const std::string& model, const std::vector<fs::path>& dirs) {
  std::error_code ec;
  if (fs::is_regular_file(model, ec)) return model;
  if (fs::path(model).is_absolute()) return std::nullopt;
  for (const auto& dir : dirs) {
    auto candidate = dir / model;
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
  }
  return std::nullopt;
}

shape::Bindings bindings_for(const graph::Model& model, int64_t batch, const std::string& input_size) {
  shape::Bindings b;
  b.batch = batch;
  const auto& g = model.graph;
  if (input_size.empty() || input_size == "scalar" || g.inputs.empty()) return b;
  if (all_digits(input_size)) {
    if (input_size.size() > 9) throw Error(fmt::format("input size {} is not a size", input_size));
    int64_t size = std::stoll(input_size);
    if (!shape::bind_input_size(model, b, size))
      throw Error(fmt::format("input size {}: no input is an image or a sequence", input_size));
    return b;
  }
  auto dims = graph::parse_dims(input_size);
  const auto& first = g.value(g.inputs.front());
  b.inputs[first.name] = dims;
  // A symbol the first input shares with others (a sequence length) had the same size in the run.
  if (first.has_shape && first.shape.size() == dims.size())
    for (size_t i = 0; i < dims.size(); ++i) {
      const auto& symbol = first.shape[i].symbol;
      if (first.shape[i].is_known() || symbol.empty()) continue;
      for (size_t k = 1; k < g.inputs.size(); ++k)
        for (const auto& d : g.value(g.inputs[k]).shape)
          if (d.symbol == symbol) b.dims[symbol] = dims[i];
    }
  return b;
}

namespace {

class Analyses {
 public:
  struct Entry {
    std::optional<analysis::Result> result;
    std::string error;  // why the model could not be analysed at this point
    std::unordered_map<std::string, int> index;
    std::optional<FusionPlan> eager, optimized;

    const FusionPlan& plan(const std::string& mode) {
      auto& slot = mode == "optimized" ? optimized : eager;
      const auto& g = result->model.graph;
      if (!slot) slot = mode == "optimized" ? plan_fusion(g, result->cost) : no_fusion(g);
      return *slot;
    }
  };

  Entry& get(const std::string& file, int64_t batch, const std::string& input_size) {
    auto key = std::make_tuple(file, batch, input_size);
    auto it = entries_.find(key);
    if (it != entries_.end()) return it->second;
    Entry& e = entries_[key];
    try {
      const auto& pristine = load(file);
      analysis::Request request;
      request.model_path = file;
      request.bindings = bindings_for(pristine, batch, input_size);
      e.result = analysis::rerun(pristine, request);
      const auto& nodes = e.result->model.graph.nodes;
      for (size_t n = 0; n < nodes.size(); ++n) e.index.emplace(nodes[n].name, static_cast<int>(n));
    } catch (const Error& err) {
      e.result.reset();
      e.error = err.what();
    }
    return e;
  }

 private:
  const graph::Model& load(const std::string& file) {
    auto it = models_.find(file);
    if (it == models_.end()) it = models_.emplace(file, onnx::load_model(file)).first;
    return it->second;
  }
  std::map<std::string, graph::Model> models_;
  std::map<std::tuple<std::string, int64_t, std::string>, Entry> entries_;
};

bool excluded(const std::string& model, const std::string& exclude) {
  if (exclude.empty()) return false;
  return model == exclude || fs::path(model).filename() == fs::path(exclude).filename();
}

// Why a run cannot serve as evidence for fp32 inference with the executor's own choices; empty if it can.
std::string skip_reason(const Run& r) {
  if (!r.device.empty())
    return fmt::format("run(s) on a GPU ({}) skipped (the shape-aware calibration fits the CPU executor)", r.device);
  if (r.training) return "training run(s) skipped (the calibration covers inference)";
  if (r.precision != "fp32") return fmt::format("{} run(s) skipped (the calibration covers fp32)", r.precision);
  if (r.algorithm != "auto" && !r.algorithm.empty())
    return fmt::format("run(s) with --conv-algo {} skipped (predictions assume the default choice)", r.algorithm);
  if (r.memory_format != "nchw" && !r.memory_format.empty())
    return fmt::format("{} run(s) skipped (predictions assume nchw)", r.memory_format);
  if (r.mode != "eager" && r.mode != "optimized") return fmt::format("run(s) of unknown mode '{}' skipped", r.mode);
  if (r.nodes.empty()) return "run(s) without a per-node profile skipped (--no-per-node)";
  return "";
}

void use_run(const Run& r, Analyses& analyses, BenchEvidence& out, Notes& notes) {
  if (auto why = skip_reason(r); !why.empty()) {
    notes.add(r.path, why);
    return;
  }
  auto file = find_bench_model(r.model, r.model_dirs);
  if (!file) {
    notes.add(r.path, fmt::format("run(s) skipped: model '{}' not found (as given, nor next to the results)", r.model));
    return;
  }
  auto& entry = analyses.get(*file, r.batch, r.input_size);
  if (!entry.result) {
    notes.add(r.path, fmt::format("run(s) of {} at batch {}{} skipped: {}", r.model, r.batch,
                                  r.input_size.empty() ? "" : ", input " + r.input_size, entry.error));
    return;
  }
  const auto& g = entry.result->model.graph;
  const auto& cost = entry.result->cost;
  const auto& plan = entry.plan(r.mode);
  auto environment = r.environment;
  environment["batch"] = std::to_string(r.batch);
  environment["threads"] = std::to_string(r.threads);
  if (!r.input_size.empty()) environment["input_size"] = r.input_size;
  std::string source = "bench:" + r.model;
  double node_sum_s = 0;
  std::string missing, uncosted, removed, idle, unfused;
  int n_missing = 0, n_uncosted = 0, n_removed = 0, n_idle = 0, n_unfused = 0;
  auto count = [](int& n, std::string& first, const std::string& name) {
    if (n++ == 0) first = "'" + name + "'";
  };
  for (const auto& row : r.nodes) {
    node_sum_s += row.mean_ms / 1e3;
    auto it = entry.index.find(row.name);
    if (it == entry.index.end()) {
      count(n_missing, missing, row.name);
      continue;
    }
    auto n = static_cast<size_t>(it->second);
    auto status = cost.nodes[n].status;
    if (status == cost::NodeStatus::kUnknownOp || status == cost::NodeStatus::kUnresolved) {
      count(n_uncosted, uncosted, row.name);
      continue;
    }
    if (plan.leader[n] == FusionPlan::kRemoved) {
      count(n_removed, removed, row.name);
      continue;
    }
    // The fit works on log(time): a node timed at zero has no logarithm.
    if (!(row.mean_ms > 0)) {
      count(n_idle, idle, row.name);
      continue;
    }
    // Timed on its own although the plan fuses it: the executor decided otherwise; its own features hold.
    if (plan.leader[n] != static_cast<int>(n)) count(n_unfused, unfused, row.name);
    Sample s;
    s.features = layer_features(g, cost, plan, static_cast<int>(n), r.threads);
    s.mode = r.mode;
    s.measured_s = row.mean_ms / 1e3;
    s.source = source;
    s.label = row.name;
    s.environment = environment;
    out.samples.push_back(std::move(s));
  }
  auto of = fmt::format("of {} ({})", r.model, r.mode);
  notes.add(r.path, fmt::format("node row(s) {} name no node of the model, not used", of), n_missing, missing);
  notes.add(r.path, fmt::format("node row(s) {} have no cost (unknown op or shape), not used", of), n_uncosted,
            uncosted);
  notes.add(r.path, fmt::format("node row(s) {} are removed by the fusion plan, not used", of), n_removed, removed);
  notes.add(r.path, fmt::format("node row(s) {} timed at 0 ms, not used", of), n_idle, idle);
  notes.add(r.path, fmt::format("node row(s) {} timed alone that the fusion plan fuses (used alone)", of), n_unfused,
            unfused);
  if (r.mean_ms && *r.mean_ms > 0) {
    OverheadSample o;
    o.mode = r.mode;
    o.threads = r.threads;
    o.nodes = static_cast<int>(r.nodes.size());
    o.node_sum_s = node_sum_s;
    o.run_s = *r.mean_ms / 1e3;
    o.source = source;
    out.overheads.push_back(std::move(o));
  } else {
    notes.add(r.path, "run(s) without a latency in overall.csv: no overhead sample");
  }
  ++out.runs;
  if (std::find(out.models.begin(), out.models.end(), r.model) == out.models.end()) out.models.push_back(r.model);
}

}  // namespace

BenchEvidence read_bench_evidence(const std::vector<std::string>& paths, const std::string& exclude_model) {
  BenchEvidence out;
  Notes notes;
  Analyses analyses;
  for (const auto& path : paths) {
    fs::path p(path);
    std::error_code ec;
    std::vector<Run> runs;
    if (fs::is_directory(p, ec)) {
      read_csv_directory(p, path, runs);
    } else if (fs::is_regular_file(p, ec)) {
      auto name = p.filename().string();
      if (name == "nodes.csv" || name == "overall.csv" || name == "layers.csv")
        read_csv_directory(as_directory(p).parent_path(), path, runs);
      else
        read_json_file(p, path, runs);
    } else {
      throw Error(fmt::format("'{}': no such file or directory", path));
    }
    for (const auto& r : runs) {
      if (excluded(r.model, exclude_model)) {
        notes.add(path, fmt::format("run(s) of {} left out (validation on a model the fit never saw)", r.model));
        continue;
      }
      use_run(r, analyses, out, notes);
    }
  }
  out.notes = notes.lines();
  return out;
}

}  // namespace ridge::calib
