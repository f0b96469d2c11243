// What the build-time generators (gp_catalog_table, gp_calibration_table) share:
// C++ literals that read back exactly, and writing the generated source whole
// (a temporary file renamed over the output, so a failed write leaves the
// previous source, never half of one).
#pragma once

#include <charconv>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

namespace gp::detail {

/// A C++ string literal: quotes and backslashes escaped, anything outside
/// printable ASCII as a three-digit octal escape (which never runs into the
/// next character, as \x would).
inline std::string cppQuoted(const std::string& s)
{
    std::string out = "\"";
    for (const unsigned char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += char(c);
        } else if (c >= 0x20 && c < 0x7f) {
            out += char(c);
        } else {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\%03o", c);
            out += buf;
        }
    }
    return out + "\"";
}

/// A double literal: the shortest text that reads back exactly.
inline std::string cppNumber(double v)
{
    char buf[40];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    std::string s(buf, r.ptr);
    if (s.find_first_of(".e") == std::string::npos)
        s += ".0";
    return s;
}

/// Writes `text` to `path` through `path`.part and a rename; on failure says so
/// on stderr as `tool`, removes the temporary file and returns false.
inline bool writeGeneratedSource(const std::string& path, const std::string& text, const char* tool)
{
    const std::string part = path + ".part";
    std::ofstream out(part, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out || std::rename(part.c_str(), path.c_str()) != 0) {
        std::remove(part.c_str());
        std::cerr << tool << ": cannot write " << path << "\n";
        return false;
    }
    return true;
}

} // namespace gp::detail
