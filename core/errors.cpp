#include "errors.h"

#ifndef GP_VERSION
#define GP_VERSION "0.0.0"
#endif

namespace gp {

const char* version() { return GP_VERSION; }

std::string printable(std::string_view text, bool keepNewlines)
{
    static const char* const kHex = "0123456789abcdef";
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == '\n' && keepNewlines) {
            out += '\n';
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c < 0x20 || c == 0x7f) {
            out += "\\x";
            out += kHex[c >> 4];
            out += kHex[c & 15];
        } else if (c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                   static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
            const auto c1 = static_cast<unsigned char>(text[++i]);
            out += "\\u00";
            out += kHex[c1 >> 4];
            out += kHex[c1 & 15];
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

namespace {
std::string joinProblems(const std::vector<Diagnostic>& problems)
{
    std::string out;
    for (const auto& p : problems) {
        if (!out.empty())
            out += '\n';
        out += p.text();
    }
    return out;
}
} // namespace

InputError::InputError(std::vector<Diagnostic> problems)
    : std::runtime_error(joinProblems(problems))
    , m_problems(std::move(problems))
{
}

InputError::InputError(std::string path, std::string message)
    : InputError(std::vector<Diagnostic>{{std::move(path), std::move(message)}})
{
}

} // namespace gp
