// The `ridge plot` kinds drawn from measured and stored results (sweeps, breakdowns, accuracy,
// algorithms, execution modes). Argument parsing only: report/figure reads the results and builds
// the figures.
#include <memory>

#include "cli/common.h"
#include "cli/plot_options.h"
#include "cli/store_options.h"
#include "report/figure/accuracy_figure.h"
#include "report/figure/algorithm_figure.h"
#include "report/figure/breakdown_figure.h"
#include "report/figure/modes_figure.h"
#include "report/figure/result_sources.h"
#include "report/figure/sweep_figure.h"
#include "store/store.h"
#include "util/error.h"

namespace ridge::cli {
namespace fig = report::figure;
namespace {

struct ResultInputs {
  std::vector<std::string> from;
  ResultFilterOptions stored;
  std::vector<CLI::Option*> filter_options;  // [0] is --store
};

void add_result_inputs(CLI::App& app, ResultInputs& in) {
  app.add_option("--from", in.from, "a `ridge bench -f json` or `ridge predict -f json` output (repeatable)");
  in.filter_options = add_result_filter_options(app, in.stored);
}

struct Loaded {
  fig::ResultSet results;
  std::string source;
};

// --from files, and stored results (without --from, or with --store); --model, --batch, --mode,
// --precision and --device select runs of both.
Loaded load(const ResultInputs& in) {
  Loaded out;
  for (const auto& path : in.from) {
    fig::add_document(out.results, read_json_file(path), "'" + path + "'");
    out.source += (out.source.empty() ? "" : ", ") + path;
  }
  if (in.from.empty() || in.filter_options.front()->count() > 0) {
    auto path = store_path(in.stored);
    store::Store store(path, true);
    auto records = store.query(result_filter(in.stored));
    if (records.empty() && in.from.empty())
      throw Error("no stored result matches in " + path + ": give --from FILE.json or other filters");
    fig::add_records(out.results, records);
    out.source += (out.source.empty() ? "" : ", ") + path + " (" + std::to_string(records.size()) + " results)";
  }
  fig::keep_selected(out.results, result_filter(in.stored));
  return out;
}

int series_count(const fig::Figure& figure, const char* field) {
  std::set<std::string> series;
  for (const auto& p : fig::data_values(figure.spec, "points"))
    if (p.contains(field)) series.insert(p[field].dump());
  return static_cast<int>(series.size());
}

int finish(fig::Figure figure, const Loaded& loaded, const PlotOutput& out, const char* series_field) {
  for (const auto& note : loaded.results.notes) figure.notes.push_back(note);
  return finish_plot(figure, out, series_count(figure, series_field), loaded.source);
}

}  // namespace

std::vector<std::pair<CLI::App*, std::function<int()>>> add_plot_kinds(CLI::App& plot) {
  std::vector<std::pair<CLI::App*, std::function<int()>>> kinds;
  const char* inputs_footer =
      "Inputs: --from FILE.json (bench and/or predict outputs), and/or stored results (read from the store\n"
      "when no --from is given, or with --store); --model, --batch, --mode, --precision and --device select\n"
      "the runs of both, the other filters the stored results.\n";

  struct SweepCli {
    ResultInputs in;
    fig::SweepOptions options;
    PlotOutput out;
  };
  auto s = std::make_shared<SweepCli>();
  auto* sweep = plot.add_subcommand("sweep", "latency, throughput or FLOP/s against batch or input size");
  add_result_inputs(*sweep, s->in);
  sweep->add_option("--x", s->options.x, "the x axis: batch (default) or input")
      ->check(CLI::IsMember({"batch", "input"}));
  sweep->add_option("--y", s->options.y, "the y axis: latency (default), throughput or flops (achieved FLOP/s)")
      ->check(CLI::IsMember({"latency", "throughput", "flops"}));
  sweep->add_option("--error", s->options.error, "error bars of measured latency: minmax (default) or std")
      ->check(CLI::IsMember({"minmax", "std"}));
  add_plot_output_options(*sweep, s->out);
  sweep->footer(std::string(inputs_footer) +
                "One line per mode / precision / convolution algorithm; measured solid, predicted dashed.\n"
                "Examples:\n"
                "  ridge bench models/alexnet.onnx --sweep batch=1,2,4 --mode both -f json > b.json\n"
                "  ridge predict models/alexnet.onnx -d t4 --sweep batch=1,2,4 -f json > p.json\n"
                "  ridge plot sweep --from b.json --from p.json --y throughput -o sweep.svg\n"
                "  ridge plot sweep --model resnet50 --command bench --y flops -o flops.png");
  kinds.emplace_back(sweep, [s] {
    auto loaded = load(s->in);
    auto options = s->options;
    options.title = s->out.title;
    return finish(fig::sweep_figure(loaded.results, options), loaded, s->out, "series");
  });

  struct BreakdownCli {
    ResultInputs in;
    fig::BreakdownOptions options;
    PlotOutput out;
  };
  auto b = std::make_shared<BreakdownCli>();
  auto* breakdown = plot.add_subcommand("breakdown", "time per layer (or op type), measured and predicted");
  add_result_inputs(*breakdown, b->in);
  breakdown->add_option("--top", b->options.top, "the N slowest layers drawn, the rest summed into one bar (15)")
      ->check(integer_in(1, 10000));
  breakdown->add_option("--by", b->options.by, "layer (default) or op (per op type)")
      ->check(CLI::IsMember({"layer", "op"}));
  add_plot_output_options(*breakdown, b->out);
  breakdown->footer(std::string(inputs_footer) +
                    "Grouped horizontal bars: measured and predicted time of each of the top N layers.\n"
                    "Examples:\n"
                    "  ridge plot breakdown --from bench.json --from predict.json --top 15 -o layers.svg\n"
                    "  ridge plot breakdown --from bench.json --by op -o ops.png");
  kinds.emplace_back(breakdown, [b] {
    auto loaded = load(b->in);
    auto options = b->options;
    options.title = b->out.title;
    return finish(fig::breakdown_figure(loaded.results, options), loaded, b->out, "source");
  });

  struct AccuracyCli {
    ResultInputs in;
    fig::AccuracyOptions options;
    PlotOutput out;
  };
  auto a = std::make_shared<AccuracyCli>();
  auto* accuracy = plot.add_subcommand("accuracy", "predicted against measured time per layer (log-log)");
  add_result_inputs(*accuracy, a->in);
  accuracy->add_option("--tolerance", a->options.tolerance, "the band around y = x, a fraction (default 0.10)")
      ->check(CLI::Range(0.0, 10.0));
  add_plot_output_options(*accuracy, a->out);
  accuracy->footer(std::string(inputs_footer) +
                   "Needs a predict and a bench result of the same model, matched by node name.\n"
                   "Example:\n"
                   "  ridge plot accuracy --from bench.json --from predict.json -o accuracy.svg");
  kinds.emplace_back(accuracy, [a] {
    auto loaded = load(a->in);
    auto options = a->options;
    options.title = a->out.title;
    return finish(fig::accuracy_figure(loaded.results, options), loaded, a->out, "op");
  });

  struct AlgorithmCli {
    ResultInputs in;
    fig::AlgorithmOptions options;
    PlotOutput out;
  };
  auto g = std::make_shared<AlgorithmCli>();
  auto* algorithms = plot.add_subcommand("algorithms", "time per convolution layer and algorithm (heat map)");
  add_result_inputs(*algorithms, g->in);
  add_plot_output_options(*algorithms, g->out);
  algorithms->footer(std::string(inputs_footer) +
                     "Needs bench runs over several --conv-algo values; each layer's fastest is outlined.\n"
                     "Example:\n"
                     "  ridge bench models/resnet50.onnx --conv-algo all --max-time 2 -f json > algos.json\n"
                     "  ridge plot algorithms --from algos.json -o algos.svg");
  kinds.emplace_back(algorithms, [g] {
    auto loaded = load(g->in);
    auto options = g->options;
    options.title = g->out.title;
    return finish(fig::algorithm_figure(loaded.results, options), loaded, g->out, "conv_algo");
  });

  struct ModesCli {
    ResultInputs in;
    fig::ModesOptions options;
    PlotOutput out;
  };
  auto m = std::make_shared<ModesCli>();
  auto* modes = plot.add_subcommand(
      "modes", "eager against optimized (CPU) or CUDA-graph (GPU) per batch size, with the speedup");
  add_result_inputs(*modes, m->in);
  add_plot_output_options(*modes, m->out);
  modes->footer(std::string(inputs_footer) +
                "Needs bench runs in both modes at one batch size at least.\n"
                "Example:\n"
                "  ridge bench models/alexnet.onnx --sweep batch=1,2,4 --mode both -f json > modes.json\n"
                "  ridge plot modes --from modes.json -o modes.svg");
  kinds.emplace_back(modes, [m] {
    auto loaded = load(m->in);
    auto options = m->options;
    options.title = m->out.title;
    return finish(fig::modes_figure(loaded.results, options), loaded, m->out, "mode");
  });
  return kinds;
}

}  // namespace ridge::cli
