#pragma once
// Options shared by `ridge run` and `ridge bench`: how the executor runs the model.
#include <CLI/CLI.hpp>
#include <string>

#include "exec/exec_request.h"

namespace ridge::cli {

// `modes` and `algorithms` are the values --mode and --conv-algo accept (bench adds "both"/"all"); each
// device takes its own algorithms (exec::conv_algo_names(device)), checked by exec::exec_options.
void add_exec_options(CLI::App& command, exec::ExecRequest& options, const std::vector<std::string>& modes,
                      const std::vector<std::string>& algorithms);

}  // namespace ridge::cli
