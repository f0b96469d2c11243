#pragma once
// All-or-nothing text output for the CLI's -o files (calibrate): Qt-free, so the
// core-only build has it too.
#include <string>

namespace gp::cli {

/// Writes `text` to `path` through a temporary file in the same directory that
/// is written, flushed, synced and renamed over `path`; on any failure the
/// temporary is removed and a previous `path` is left as it was. An existing
/// target that is not a regular file is refused. Returns an error message, ""
/// on success.
std::string writeTextFileAtomically(const std::string& path, const std::string& text);

} // namespace gp::cli

namespace gp {
struct LaunchFiles;
}

namespace gp::cli {

/// Creates `dir` (and its parents) when missing and writes each file into it
/// with writeTextFileAtomically; scripts are made executable. Returns an
/// error message naming the file, "" on success.
std::string writeFilesIntoDir(const std::string& dir, const LaunchFiles& files);

} // namespace gp::cli
