#include "errors.h"

#ifndef GP_VERSION
#define GP_VERSION "0.0.0"
#endif

namespace gp {

const char* version() { return GP_VERSION; }

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
