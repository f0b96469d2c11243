#pragma once
// Bounded, non-blocking reading of input files, shared by the CLI and the app.
#include <cstddef>
#include <string>

namespace gp {

/// Reads a whole regular file of at most maxBytes bytes. Throws gp::InputError
/// (path = `path`) with the real reason: "no such file", "permission denied",
/// "too many levels of symbolic links (a symlink loop?)", "file name too long",
/// "is a directory, expected a file", "not a regular file (a FIFO)" (FIFOs,
/// devices and sockets are refused before any open, so nothing blocks),
/// "larger than N MiB; refused", "contains a NUL byte at offset N; not a text
/// file", or the read error's strerror text.
std::string readTextFileBounded(const std::string& path, std::size_t maxBytes = 16u << 20);

} // namespace gp
