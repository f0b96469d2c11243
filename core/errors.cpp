#include "errors.h"

namespace gp {

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
