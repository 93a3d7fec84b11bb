#pragma once
// Reading the small text files of sysfs (power rails, RAPL counters) under an overridable root.
#include <optional>
#include <string>
#include <vector>

namespace ridge::power {

// The root under which sysfs sources look: $RIDGE_SYSFS_ROOT, else "/sys" (tests build fake trees).
std::string sysfs_root();

// The file's first line, or nullopt with `error` set to the errno of the open or read that failed.
std::optional<std::string> read_sysfs_line(const std::string& path, int& error);
// The file as a number; a one-line ridge::Error naming the file when it is unreadable or not one.
double read_sysfs_number(const std::string& path);
// The entries of `directory` whose names start with `prefix`, sorted; none when it does not exist.
std::vector<std::string> sysfs_entries(const std::string& directory, const std::string& prefix);

}  // namespace ridge::power
