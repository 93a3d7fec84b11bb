#pragma once
// Which ops the executor runs, known without loading the executor module.
#include <string_view>
#include <vector>

namespace ridge::exec {

const std::vector<std::string_view>& executable_ops();

}  // namespace ridge::exec
