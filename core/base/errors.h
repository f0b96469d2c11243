#pragma once
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gp {

/// The program version (CMake project version), e.g. "0.1.0".
const char* version();

/// `text` made safe to print on a terminal: control characters (escape
/// sequences, CR, a NUL, DEL, and the C1 controls U+0080..U+009F) become the
/// visible `\n`, `\r`, `\t` or `\xNN` (`\u00NN` for C1); with keepNewlines,
/// '\n' stays a line break (for multi-line tables). Every message that quotes
/// input goes through this.
/// Unicode format characters (bidirectional controls U+202A..U+202E,
/// U+2066..U+2069, U+200E/U+200F, zero-width characters, U+FEFF, tags...) and
/// U+2028/U+2029 become `\u202e` (`\U000e0041` beyond the BMP): they would
/// reorder or hide what the terminal shows.
std::string printable(std::string_view text, bool keepNewlines = false);

/// The same format characters, in JSON text, as JSON escapes (`\u202e`, a
/// surrogate pair beyond the BMP): what the CLI prints as JSON shows them
/// visibly and still parses to the same strings.
std::string escapeFormatCharactersInJson(std::string_view json);

/// One problem with user input, located by its JSON key path
/// (e.g. "workload.training.micro_batch").
struct Diagnostic {
    std::string path;
    std::string message;
    /// "path: message", the form every front end prints; control characters
    /// escaped (printable()), so a key or id cannot forge lines or escape codes.
    std::string text() const { return path.empty() ? printable(message) : printable(path) + ": " + printable(message); }
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
