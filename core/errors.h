#pragma once
#include <stdexcept>
#include <string>
#include <vector>

namespace gp {

/// The program version (CMake project version), e.g. "0.1.0".
const char* version();

/// One problem with user input, located by its JSON key path
/// (e.g. "workload.training.micro_batch").
struct Diagnostic {
    std::string path;
    std::string message;
    /// "path: message", the form every front end prints.
    std::string text() const { return path.empty() ? message : path + ": " + message; }
};

/// Thrown for bad input; carries every problem found, each naming its key.
class InputError : public std::runtime_error {
public:
    explicit InputError(std::vector<Diagnostic> problems);
    InputError(std::string path, std::string message);
    const std::vector<Diagnostic>& problems() const { return m_problems; }

private:
    std::vector<Diagnostic> m_problems;
};

} // namespace gp
