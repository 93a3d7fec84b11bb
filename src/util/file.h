#pragma once
// Reading a whole file into memory, with one-line errors: a path that cannot be opened, or a directory (which
// std::ifstream opens on Linux and then fails to read with an exception that names no file).
#include <string>

namespace ridge {

// The bytes of `path`; throws ridge::Error naming `path` when it is a directory or cannot be read.
std::string read_file(const std::string& path);
// Replaces `path` with `text`; throws ridge::Error naming `path` when it cannot be written whole.
void write_file(const std::string& path, const std::string& text);

}  // namespace ridge
