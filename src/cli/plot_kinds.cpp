// The `ridge plot` kinds drawn from measured and stored results (sweeps, breakdowns, accuracy,
// algorithms, execution modes), as rows of one table: each names its subcommand, what it draws, its
// builder, its own options and its help. Every kind reads the same inputs (--from files and the store)
// and writes the same outputs, so a new figure is its builder's file plus one row here. Argument
// parsing only: report/figure reads the results and builds the figures.
#include <functional>
#include <memory>

#include "cli/common.h"
#include "cli/plot_options.h"
#include "cli/store_options.h"
#include "report/figure/accuracy_figure.h"
#include "report/figure/algorithm_figure.h"
#include "report/figure/breakdown_figure.h"
#include "report/figure/modes_figure.h"
#include "report/figure/result_plot.h"
#include "report/figure/sweep_figure.h"

namespace ridge::cli {
namespace fig = report::figure;
namespace {

constexpr const char* kInputsFooter =
    "Inputs: --from FILE.json (bench and/or predict outputs), and/or stored results (read from the store\n"
    "when no --from is given, or with --store); --model, --batch, --mode, --precision and --device select\n"
    "the runs of both, the other filters the stored results.\n";

using Kind = std::pair<CLI::App*, std::function<int()>>;

// One row of the table for a builder taking `Options` (each has a `title`, set from --title):
// `series_field` is the field of the "points" data set that tells series apart, for the summary printed.
// It reads --from files, and stored results without --from or with --store.
template <typename Options>
Kind kind(CLI::App& plot, const char* name, const char* description, const char* series_field,
          fig::Figure (*build)(const fig::ResultSet&, const Options&),
          std::function<void(CLI::App&, Options&)> add_options, const char* help) {
  struct Cli {
    std::vector<std::string> from;
    ResultFilterOptions stored;
    CLI::Option* store = nullptr;
    Options options;
    PlotOutput out;
  };
  auto cli = std::make_shared<Cli>();
  auto* app = plot.add_subcommand(name, description);
  app->add_option("--from", cli->from, "a `ridge bench -f json` or `ridge predict -f json` output (repeatable)");
  cli->store = add_result_filter_options(*app, cli->stored).front();
  add_options(*app, cli->options);
  add_plot_output_options(*app, cli->out);
  app->footer(std::string(kInputsFooter) + help);
  return {app, [cli, build, series_field] {
            auto options = cli->options;
            options.title = cli->out.title;
            auto plot = fig::result_plot({.from = cli->from,
                                          .read_store = cli->from.empty() || cli->store->count() > 0,
                                          .store_path = store_path(cli->stored),
                                          .filter = result_filter(cli->stored),
                                          .series_field = series_field},
                                         [&](const fig::ResultSet& results) { return build(results, options); });
            return finish_plot(plot.figure, cli->out, plot.series, plot.source);
          }};
}

template <typename Options>
void no_options(CLI::App&, Options&) {}

}  // namespace

// The kinds, in the order `ridge plot --help` lists them.
std::vector<std::pair<CLI::App*, std::function<int()>>> add_plot_kinds(CLI::App& plot) {
  return {
      kind<fig::SweepOptions>(
          plot, "sweep", "latency, throughput or FLOP/s against batch or input size", "series", fig::sweep_figure,
          [](CLI::App& app, fig::SweepOptions& o) {
            app.add_option("--x", o.x, "the x axis: batch (default) or input")
                ->check(CLI::IsMember({"batch", "input"}));
            app.add_option("--y", o.y, "the y axis: latency (default), throughput or flops (achieved FLOP/s)")
                ->check(CLI::IsMember({"latency", "throughput", "flops"}));
            app.add_option("--error", o.error, "error bars of measured latency: minmax (default) or std")
                ->check(CLI::IsMember({"minmax", "std"}));
          },
          "One line per mode / precision / convolution algorithm; measured solid, predicted dashed.\n"
          "Examples:\n"
          "  ridge bench models/alexnet.onnx --sweep batch=1,2,4 --mode both -f json > b.json\n"
          "  ridge predict models/alexnet.onnx -d t4 --sweep batch=1,2,4 -f json > p.json\n"
          "  ridge plot sweep --from b.json --from p.json --y throughput -o sweep.svg\n"
          "  ridge plot sweep --model resnet50 --command bench --y flops -o flops.png"),
      kind<fig::BreakdownOptions>(
          plot, "breakdown", "time per layer (or op type), measured and predicted", "source", fig::breakdown_figure,
          [](CLI::App& app, fig::BreakdownOptions& o) {
            app.add_option("--top", o.top, "the N slowest layers drawn, the rest summed into one bar (15)")
                ->check(integer_in(1, 10000));
            app.add_option("--by", o.by, "layer (default) or op (per op type)")->check(CLI::IsMember({"layer", "op"}));
          },
          "Grouped horizontal bars: measured and predicted time of each of the top N layers.\n"
          "Examples:\n"
          "  ridge plot breakdown --from bench.json --from predict.json --top 15 -o layers.svg\n"
          "  ridge plot breakdown --from bench.json --by op -o ops.png"),
      kind<fig::AccuracyOptions>(
          plot, "accuracy", "predicted against measured time per layer (log-log)", "op", fig::accuracy_figure,
          [](CLI::App& app, fig::AccuracyOptions& o) {
            app.add_option("--tolerance", o.tolerance, "the band around y = x, a fraction (default 0.10)")
                ->check(CLI::Range(0.0, 10.0));
          },
          "Needs a predict and a bench result of the same model, matched by node name.\n"
          "Example:\n"
          "  ridge plot accuracy --from bench.json --from predict.json -o accuracy.svg"),
      kind<fig::AlgorithmOptions>(
          plot, "algorithms", "time per convolution layer and algorithm (heat map)", "conv_algo", fig::algorithm_figure,
          no_options<fig::AlgorithmOptions>,
          "Needs bench runs over several --conv-algo values; each layer's fastest is outlined.\n"
          "Example:\n"
          "  ridge bench models/resnet50.onnx --conv-algo all --max-time 2 -f json > algos.json\n"
          "  ridge plot algorithms --from algos.json -o algos.svg"),
      kind<fig::ModesOptions>(plot, "modes",
                              "eager against optimized (CPU) or CUDA-graph (GPU) per batch size, with the speedup",
                              "mode", fig::modes_figure, no_options<fig::ModesOptions>,
                              "Needs bench runs in both modes at one batch size at least.\n"
                              "Example:\n"
                              "  ridge bench models/alexnet.onnx --sweep batch=1,2,4 --mode both -f json > modes.json\n"
                              "  ridge plot modes --from modes.json -o modes.svg"),
  };
}

}  // namespace ridge::cli
